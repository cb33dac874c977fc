# One year of two A10G inference nodes running half the time, half of the
# GPU-hours on a 1-year reservation, with storage, traffic and an EKS fee.
data "gpu_tco" "inference" {
  cloud          = "aws"
  region         = "us-east-1"
  instance_type  = "g5.xlarge"
  instance_count = 2
  months         = 12
  utilization    = 0.5

  pricing_mix = {
    on_demand   = 0.5
    reserved_1y = 0.5
  }

  storage = {
    block_gb  = 500
    object_gb = 2000
  }

  network = {
    egress_gb_per_month       = 1100
    inter_region_gb_per_month = 100
  }

  extra_monthly_usd = {
    eks = 73
  }
}

output "monthly_cost_usd" {
  value = data.gpu_tco.inference.monthly_cost_usd
}

# Every line of the bill: compute, storage_block, storage_object, egress,
# inter_region, extra:eks (and carbon with a provider carbon price).
output "breakdown" {
  value = { for l in data.gpu_tco.inference.breakdown : l.category => l.cost_usd }
}

# What the same fleet would cost bought one way, and the saving vs on-demand.
output "by_pricing_model" {
  value = { for c in data.gpu_tco.inference.pricing_model_comparison : c.pricing_model => c.savings_vs_on_demand_usd }
}

# The bill as a table in the plan: breakdown with shares, the pricing-model
# comparison with break-even, and the cheapest other regions.
output "tco_table" {
  value = data.gpu_tco.inference.summary
}
