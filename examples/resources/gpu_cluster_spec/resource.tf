# A 4-node, 8 x H100 training cluster described once and rendered onto AWS.
# Change `cloud` to "gcp" or "azure": the plan is an in-place update that
# shows the new instance type and cost before anything is applied.
resource "gpu_cluster_spec" "train" {
  name          = "llm-train"
  cloud         = "aws"
  accelerator   = "H100"
  gpus_per_node = 8
  nodes         = 4
  pricing_model = "reserved_1y"

  storage = {
    block_gb  = 8000   # checkpoints on local volumes
    object_gb = 100000 # datasets
  }

  labels = {
    team = "research"
  }
}

output "instance_type" {
  value = gpu_cluster_spec.train.instance_type # "p5.48xlarge"
}

output "cost" {
  value = {
    region      = gpu_cluster_spec.train.region # the cheapest region, as region is unset
    hourly_usd  = gpu_cluster_spec.train.hourly_cost_usd
    monthly_usd = gpu_cluster_spec.train.monthly_cost_usd
  }
}

# The same cluster on every other cloud that sells 8 x H100 as a 1-year
# reservation: { gcp = { instance_type, region, hourly_cost_usd }, ... }.
output "equivalents" {
  value = gpu_cluster_spec.train.equivalents
}

# The neutral, versioned document (apiVersion gpuplan.io/v1, kind GPUCluster).
output "spec" {
  value = jsondecode(gpu_cluster_spec.train.spec_json)
}
