output "cloud" {
  description = "Cloud of the recommended deployment."
  value       = local.best.cloud
}

output "region" {
  description = "Region of the recommended deployment."
  value       = local.best.region
}

output "instance_type" {
  description = "Instance type to launch."
  value       = local.best.instance_type
}

output "node_count" {
  description = "Number of instances."
  value       = local.best.nodes
}

output "pricing_model" {
  description = "How to buy them: on_demand, spot, reserved_1y or reserved_3y."
  value       = local.best.pricing_model
}

output "estimated_hours" {
  description = "Wall-clock hours of the job (inference: one month, 730)."
  value       = local.best.estimated_hours
}

output "estimated_cost_usd" {
  description = "Projected cost of the job (inference: per month), USD."
  value       = local.best.estimated_cost_usd
}

output "estimated_co2e_kg" {
  description = "Projected kg CO2e (null when unknown)."
  value       = local.best.estimated_co2e_kg
}

output "explanation" {
  description = "Why this deployment ranks first."
  value       = local.best.explanation
}

output "recommendation" {
  description = "The whole best candidate object."
  value       = local.best
}

output "alternatives" {
  description = "The next-best candidates, ranked."
  value       = slice(data.gpu_recommendation.this.candidates, 1, length(data.gpu_recommendation.this.candidates))
}

output "rejected" {
  description = "Why other offers were rejected: {reason, count}."
  value       = data.gpu_recommendation.this.rejected
}
