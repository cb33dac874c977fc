provider "gpu" {
  discounts                  = { aws = 0.1 }
  carbon_price_usd_per_tonne = 100
}

data "gpu_tco" "full" {
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
