# One variable switches a whole GPU cluster between AWS, GCP and Azure.
#
#   terraform plan -var cloud=aws
#   terraform plan -var cloud=gcp     # in-place update: new instance type and cost
#   terraform plan -var cloud=azure
#
# The cluster is described once, cloud-neutrally, in gpu_cluster_spec. Its
# rendered instance type crosses a module boundary into a per-cloud module
# that maps it onto that cloud's own arguments (aws_instance,
# google_compute_instance, azurerm_linux_virtual_machine). See README.md.
terraform {
  required_version = ">= 1.8"
  required_providers {
    gpu = {
      source = "gpuplan/gpu"
    }
  }
}

provider "gpu" {
  # Equivalents are shown for these clouds only.
  clouds = ["aws", "gcp", "azure"]
}

variable "cloud" {
  description = "Where to run the cluster: aws, gcp or azure."
  type        = string
  default     = "aws"
  validation {
    condition     = contains(["aws", "gcp", "azure"], var.cloud)
    error_message = "cloud must be one of aws, gcp, azure."
  }
}

variable "region" {
  description = "Region of var.cloud; null picks the cheapest region that sells the hardware."
  type        = string
  default     = null
}

# The whole cluster definition: nothing here names a cloud except var.cloud.
resource "gpu_cluster_spec" "cluster" {
  name          = "llm-train"
  cloud         = var.cloud
  region        = var.region
  accelerator   = "H100"
  gpus_per_node = 8
  nodes         = 2
  pricing_model = "on_demand"

  storage = {
    block_gb  = 4000
    object_gb = 50000
  }

  labels = {
    team    = "research"
    project = "llm"
  }
}

# Exactly one of these modules is instantiated: the one for var.cloud. Each
# takes the rendered instance type and region and returns the arguments of
# that cloud's own VM resource (and contains the resource itself, commented
# out, so this example plans without the cloud providers installed).
module "aws" {
  source = "./modules/aws"
  count  = var.cloud == "aws" ? 1 : 0

  name          = gpu_cluster_spec.cluster.name
  instance_type = gpu_cluster_spec.cluster.instance_type
  region        = gpu_cluster_spec.cluster.region
  node_count    = gpu_cluster_spec.cluster.nodes
  labels        = gpu_cluster_spec.cluster.labels
}

module "gcp" {
  source = "./modules/gcp"
  count  = var.cloud == "gcp" ? 1 : 0

  name          = gpu_cluster_spec.cluster.name
  instance_type = gpu_cluster_spec.cluster.instance_type
  region        = gpu_cluster_spec.cluster.region
  node_count    = gpu_cluster_spec.cluster.nodes
  labels        = gpu_cluster_spec.cluster.labels
}

module "azure" {
  source = "./modules/azure"
  count  = var.cloud == "azure" ? 1 : 0

  name          = gpu_cluster_spec.cluster.name
  instance_type = gpu_cluster_spec.cluster.instance_type
  region        = gpu_cluster_spec.cluster.region
  node_count    = gpu_cluster_spec.cluster.nodes
  labels        = gpu_cluster_spec.cluster.labels
}

output "instance_type" {
  description = "The instance type of var.cloud for 8 x H100."
  value       = gpu_cluster_spec.cluster.instance_type
}

output "region" {
  value = gpu_cluster_spec.cluster.region
}

output "cost_usd" {
  value = {
    hourly  = gpu_cluster_spec.cluster.hourly_cost_usd
    monthly = gpu_cluster_spec.cluster.monthly_cost_usd
  }
}

output "equivalents" {
  description = "The same cluster on the other clouds: instance type, region and hourly cost."
  value       = gpu_cluster_spec.cluster.equivalents
}

output "spec_json" {
  description = "The cloud-neutral spec (gpuplan.io/v1 GPUCluster); pass it to `terraform import` elsewhere."
  value       = gpu_cluster_spec.cluster.spec_json
}

output "native_resource" {
  description = "The arguments for var.cloud's own VM resource, from the per-cloud module."
  value       = one(concat(module.aws[*].vm, module.gcp[*].vm, module.azure[*].vm))
}
