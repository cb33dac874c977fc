# Quickstart: `make demo` plans this configuration offline.
terraform {
  required_providers {
    gpu = {
      source = "gpuplan/gpu"
    }
  }
}

provider "gpu" {}

# Every 8x H100 node the catalog knows, on every cloud.
data "gpu_offers" "h100_nodes" {
  accelerators = ["H100"]
  min_gpus     = 8
}

locals {
  priced = [for o in data.gpu_offers.h100_nodes.offers : o if o.on_demand_usd != null]
  # Cheapest on-demand region of each (cloud, instance type).
  cheapest = {
    for key in distinct([for o in local.priced : "${o.cloud}/${o.instance_type}"]) :
    key => [for o in local.priced : o if "${o.cloud}/${o.instance_type}" == key && o.on_demand_usd == min([for x in local.priced : x.on_demand_usd if "${x.cloud}/${x.instance_type}" == key]...)][0]
  }
}

output "h100_8x_cheapest_region_per_instance_type" {
  description = "Cheapest on-demand region of every 8x H100 instance type, USD per node-hour."
  value = {
    for key, o in local.cheapest : key => {
      region        = o.region
      on_demand_usd = o.on_demand_usd
      spot_usd      = o.spot_usd
      reserved_1y   = o.reserved_1y_usd
      usd_per_gpu_h = floor(o.on_demand_usd / o.gpus * 100) / 100
    }
  }
}

data "gpu_accelerators" "compare" {
  ids = ["A100-80GB", "H100", "H200", "MI300X"]
}

output "memory_and_bandwidth" {
  description = "Look past TFLOPS: memory and bandwidth decide LLM speed."
  value = {
    for a in data.gpu_accelerators.compare.accelerators :
    a.id => "${a.memory_gb} GB, ${a.memory_bandwidth_tbps} TB/s, ${a.peak_tflops["bf16"]} dense BF16 TFLOPS"
  }
}
