# The objects are typed `any`, not object({...}): Terraform would convert
# the caller's value to the object type and drop any key the type lacks, so a
# misspelled key would never reach the provider. Typed `any`, the provider
# sees every key and reports a misspelled one with the closest valid name.
variable "workload" {
  description = "The workload, in the provider's `workload` shape: kind, model (a preset) or model_parameters_b, and any optional attribute (training_tokens_b, tokens_per_second, ...)."
  type        = any
}

variable "constraints" {
  description = "Optional limits, in the provider's `constraints` shape (clouds, regions, compliance, deadline_hours, ...). null or {} for none."
  type        = any
  default     = null
}

variable "objective" {
  description = "cost, time, carbon or balanced."
  type        = string
  default     = "cost"
  validation {
    condition     = contains(["cost", "time", "carbon", "balanced"], var.objective)
    error_message = "objective must be one of cost, time, carbon, balanced."
  }
}

variable "alternatives" {
  description = "How many ranked alternatives to return besides the best."
  type        = number
  default     = 2
}
