# budget-guard: fails `terraform plan` when the projected monthly cost of a
# GPU fleet exceeds a budget. Call it next to the resources that create the
# fleet, with the same instance type, count and pricing mix.

terraform {
  required_version = ">= 1.5"
  required_providers {
    gpu = {
      source = "gpuplan/gpu"
    }
  }
}

data "gpu_tco" "this" {
  cloud             = var.cloud
  region            = var.region
  instance_type     = var.instance_type
  instance_count    = var.instance_count
  months            = var.months
  utilization       = var.utilization
  pricing_mix       = var.pricing_mix
  storage           = var.storage
  network           = var.network
  extra_monthly_usd = var.extra_monthly_usd
}

# The guard: a resource-free precondition on the module's main output, so
# the plan stops before anything is created.
output "monthly_cost_usd" {
  description = "Projected monthly cost in USD (total over the horizon / months)."
  value       = data.gpu_tco.this.monthly_cost_usd

  precondition {
    condition     = data.gpu_tco.this.monthly_cost_usd <= var.monthly_budget_usd
    error_message = "Projected monthly cost ${data.gpu_tco.this.monthly_cost_usd} USD exceeds the budget of ${var.monthly_budget_usd} USD for ${var.instance_count} x ${var.cloud} ${var.instance_type} in ${var.region}. Largest lines: ${join(", ", [for l in data.gpu_tco.this.breakdown : "${l.category} ${l.cost_usd}" if l.cost_usd > 0])}."
  }
}

output "total_cost_usd" {
  description = "Projected total cost over the horizon, USD."
  value       = data.gpu_tco.this.total_cost_usd
}

output "breakdown" {
  description = "Cost lines by category, USD over the horizon."
  value       = { for l in data.gpu_tco.this.breakdown : l.category => l.cost_usd }
}

output "headroom_usd" {
  description = "Monthly budget left, USD."
  value       = var.monthly_budget_usd - data.gpu_tco.this.monthly_cost_usd
}
