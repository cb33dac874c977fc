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
  # Every (cloud, pricing model) pair; Azure lists no spot price for
  # ND H100 v5, so that pair is left out.
  options = setsubtract(
    [for p in setproduct(keys(local.h100x8), ["on_demand", "reserved_1y", "spot"]) : join("/", p)],
    ["azure/spot"],
  )
}

# No region: each TCO is priced in the cheapest region that sells the
# instance that way, and returns it.
data "gpu_tco" "year" {
  for_each      = toset(local.options)
  cloud         = split("/", each.key)[0]
  instance_type = local.h100x8[split("/", each.key)[0]]
  months        = 12
  pricing_mix   = { (split("/", each.key)[1]) = 1 }
}

output "h100x8_for_a_year" {
  value = { for k, t in data.gpu_tco.year : k => "${format("$%10.2f", t.total_cost_usd)} in ${t.region}" }
}
