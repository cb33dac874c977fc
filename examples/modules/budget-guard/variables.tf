variable "monthly_budget_usd" {
  description = "Monthly budget in USD. The plan fails when the projected monthly cost exceeds it."
  type        = number

  validation {
    condition     = var.monthly_budget_usd >= 0
    error_message = "monthly_budget_usd must be at least 0."
  }
}

variable "cloud" {
  description = "Cloud ID, for example \"aws\"."
  type        = string
}

variable "region" {
  description = "Region code, for example \"us-east-1\"."
  type        = string
}

variable "instance_type" {
  description = "Instance type, for example \"p5.48xlarge\"."
  type        = string
}

variable "instance_count" {
  description = "Number of instances."
  type        = number
  default     = 1
}

variable "months" {
  description = "Horizon in months (reservations are billed for whole terms)."
  type        = number
  default     = 12
}

variable "utilization" {
  description = "Share of hours the instances run, 0-1."
  type        = number
  default     = 1
}

variable "pricing_mix" {
  description = "Pricing model -> share of GPU-hours, summing to 1. null = all on-demand."
  type        = map(number)
  default     = null
}

# storage and network are typed `any`, not object({...}), so that a
# misspelled key reaches the provider, which reports it (object({...}) would
# drop it silently).
variable "storage" {
  description = "Storage kept for the horizon: { block_gb, object_gb }."
  type        = any
  default     = null
}

variable "network" {
  description = "Monthly transfer: { egress_gb_per_month, inter_region_gb_per_month }."
  type        = any
  default     = null
}

variable "extra_monthly_usd" {
  description = "Other monthly costs by name, USD."
  type        = map(number)
  default     = null
}
