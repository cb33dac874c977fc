# Hourly list price of one p5.48xlarge (8 × H100) in us-east-1, on-demand.
# Functions read the built-in catalog: provider `discounts` and `catalog_file`
# do not apply (use the gpu_offers or gpu_tco data sources for those).
output "p5_on_demand_usd_per_hour" {
  value = provider::gpu::hourly_price_usd("aws", "p5.48xlarge", "us-east-1", "on_demand")
}

# A module input checked against the catalog: the effective hourly rate of a
# 3-year commitment as a share of on-demand.
locals {
  on_demand   = provider::gpu::hourly_price_usd("aws", "g5.xlarge", "us-east-1", "on_demand")
  reserved_3y = provider::gpu::hourly_price_usd("aws", "g5.xlarge", "us-east-1", "reserved_3y")
}

output "g5_reserved_3y_share_of_on_demand" {
  value = local.reserved_3y / local.on_demand
}
