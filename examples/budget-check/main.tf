# A `check` block guarding a budget: the plan warns (it does not fail) when
# the recommended deployment for the job costs more than the budget, and
# says by how much and why. Use a `precondition` in a resource instead when
# the plan must fail.
terraform {
  required_version = ">= 1.5.0"
  required_providers {
    gpu = {
      source = "gpuplan/gpu"
    }
  }
}

provider "gpu" {}

variable "budget_usd" {
  description = "Most USD the fine-tuning job may cost."
  type        = number
  default     = 500
}

variable "deadline_hours" {
  description = "Latest wall-clock hours for the job."
  type        = number
  default     = 24
}

data "gpu_recommendation" "job" {
  workload = {
    kind               = "fine_tuning"
    model_parameters_b = 70
    training_tokens_b  = 2
    fine_tuning_method = "lora"
  }
  constraints = {
    deadline_hours = var.deadline_hours
  }
  objective = "cost"
}

check "gpu_budget" {
  assert {
    condition = data.gpu_recommendation.job.best.estimated_cost_usd <= var.budget_usd
    error_message = format(
      "The cheapest deployment that meets the %v h deadline, %d× %s on %s in %s (%s), costs $%.2f: $%.2f over the $%.2f budget. %s",
      var.deadline_hours,
      data.gpu_recommendation.job.best.nodes,
      data.gpu_recommendation.job.best.instance_type,
      data.gpu_recommendation.job.best.cloud,
      data.gpu_recommendation.job.best.region,
      data.gpu_recommendation.job.best.pricing_model,
      data.gpu_recommendation.job.best.estimated_cost_usd,
      data.gpu_recommendation.job.best.estimated_cost_usd - var.budget_usd,
      var.budget_usd,
      data.gpu_recommendation.job.best.explanation,
    )
  }
}

output "projected_cost_usd" {
  value = data.gpu_recommendation.job.best.estimated_cost_usd
}

output "within_budget" {
  description = "The same test as the check, for callers that branch on it."
  value       = data.gpu_recommendation.job.best.estimated_cost_usd <= var.budget_usd
}
