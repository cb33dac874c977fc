# A module passing the provider's object inputs through, with its
# variables typed `any` as the docs recommend: every key the caller writes
# reaches the provider.
terraform {
  required_providers {
    gpu = { source = "gpuplan/gpu" }
  }
}

variable "workload" {
  type = any
}

variable "constraints" {
  type    = any
  default = null
}

data "gpu_recommendation" "this" {
  workload    = var.workload
  constraints = var.constraints
  top         = 1
}

output "pricing_model" {
  value = data.gpu_recommendation.this.best.pricing_model
}
