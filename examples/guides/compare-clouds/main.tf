terraform {
  required_providers {
    gpu = { source = "gpuplan/gpu" }
  }
}

# An 8× H100 instance on each cloud, for a year, bought three ways.
locals {
  h100x8 = {
    aws   = "p5.48xlarge"
    gcp   = "a3-highgpu-8g"
    azure = "Standard_ND96isr_H100_v5"
  }
  ways = ["on_demand", "reserved_1y", "spot"]
}

# One TCO per cloud, no region: its pricing_model_comparison prices the
# instance every way, each in the cheapest region that sells it so, and
# marks a way the cloud does not sell it with available = false and the
# reason, so one gap does not fail the plan.
data "gpu_tco" "year" {
  for_each      = local.h100x8
  cloud         = each.key
  instance_type = each.value
  months        = 12
}

locals {
  # "cloud/pricing_model" => its comparison row.
  options = merge([for cloud, t in data.gpu_tco.year : {
    for row in t.pricing_model_comparison : "${cloud}/${row.pricing_model}" => row if contains(local.ways, row.pricing_model)
  }]...)
}

output "h100x8_for_a_year" {
  value = { for k, row in local.options : k => row.available ? "${format("$%10.2f", row.total_cost_usd)} in ${row.region}" : "not available" }
}

output "not_available" {
  value = { for k, row in local.options : k => row.reason if !row.available }
}
