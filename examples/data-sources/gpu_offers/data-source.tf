# Every 8-GPU H100 or H200 node on AWS and GCP, with its prices.
data "gpu_offers" "hopper_nodes" {
  clouds       = ["aws", "gcp"]
  accelerators = ["H100", "H200"]
  min_gpus     = 8
}

# One line per instance type and cloud: the cheapest region and every price.
output "hopper_nodes" {
  value = data.gpu_offers.hopper_nodes.summary
}

output "cheapest_on_demand" {
  value = try(
    [for o in data.gpu_offers.hopper_nodes.offers : o if o.on_demand_usd == min([for x in data.gpu_offers.hopper_nodes.offers : x.on_demand_usd if x.on_demand_usd != null]...)][0],
    null,
  )
}

# Single-GPU inference instances with at least 40 GB per GPU in Europe.
data "gpu_offers" "eu_inference" {
  regions           = ["europe-west4", "eu-central-1", "westeurope"]
  min_gpu_memory_gb = 40
}
