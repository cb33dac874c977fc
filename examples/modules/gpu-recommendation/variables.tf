variable "workload" {
  description = "The workload, in the provider's `workload` shape: kind, model_parameters_b and the optional fields (training_tokens_b, tokens_per_second, ...)."
  type = object({
    kind                         = string
    model_parameters_b           = number
    active_parameters_b          = optional(number)
    precision                    = optional(string)
    sequence_length              = optional(number)
    training_tokens_b            = optional(number)
    fine_tuning_method           = optional(string)
    tokens_per_second            = optional(number)
    input_tokens                 = optional(number)
    output_tokens                = optional(number)
    max_time_to_first_token_ms   = optional(number)
    max_time_per_output_token_ms = optional(number)
  })
}

variable "constraints" {
  description = "Optional limits, in the provider's `constraints` shape. Omit any field for no limit."
  type = object({
    clouds              = optional(list(string))
    regions             = optional(list(string))
    geographies         = optional(list(string))
    accelerators        = optional(list(string))
    pricing_models      = optional(list(string))
    max_hourly_cost_usd = optional(number)
    max_total_cost_usd  = optional(number)
    deadline_hours      = optional(number)
    max_gpus            = optional(number)
    max_nodes           = optional(number)
    min_gpu_memory_gb   = optional(number)
    min_network_gbps    = optional(number)
    compliance          = optional(list(string))
    max_co2e_kg         = optional(number)
  })
  default = {}
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
