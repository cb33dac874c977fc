# Quickstart: `make demo` plans this configuration offline. No credentials,
# no cloud API: every number comes from the provider's built-in catalog and
# benchmark model.
terraform {
  required_providers {
    gpu = {
      source = "gpuplan/gpu"
    }
  }
}

provider "gpu" {
  # An internal carbon price makes emissions part of the bill.
  carbon_price_usd_per_tonne = 85
}

# 1. Fine-tune a 70B model with LoRA on 2B tokens, in an EU/EEA region
#    (GDPR), finished within 48 hours, as cheaply as possible.
data "gpu_recommendation" "finetune" {
  workload = {
    kind               = "fine_tuning"
    model_parameters_b = 70
    training_tokens_b  = 2
    fine_tuning_method = "lora"
  }
  constraints = {
    compliance     = ["gdpr"]
    deadline_hours = 48
  }
  objective = "cost"
  top       = 3
}

# 2. Serve an 8B model at 5,000 output tokens/s with at most 50 ms per
#    output token, from US regions, on on-demand or 1-year reserved capacity.
data "gpu_recommendation" "serve" {
  workload = {
    kind                         = "inference"
    model_parameters_b           = 8
    tokens_per_second            = 5000
    max_time_per_output_token_ms = 50
  }
  constraints = {
    geographies    = ["us"]
    pricing_models = ["on_demand", "reserved_1y"]
  }
  top = 3
}

# 3. The lifecycle cost of the serving choice for a year: compute, storage,
#    egress and carbon, not just the hourly rate.
data "gpu_tco" "serve_year" {
  cloud          = data.gpu_recommendation.serve.best.cloud
  region         = data.gpu_recommendation.serve.best.region
  instance_type  = data.gpu_recommendation.serve.best.instance_type
  instance_count = data.gpu_recommendation.serve.best.nodes
  months         = 12
  utilization    = 1
  pricing_mix    = { (data.gpu_recommendation.serve.best.pricing_model) = 1 }
  storage = {
    block_gb  = 500
    object_gb = 2000
  }
  network = {
    egress_gb_per_month = 3000
  }
}

output "finetune" {
  description = "Where and how to run the fine-tuning job."
  value = {
    choice      = "${data.gpu_recommendation.finetune.best.nodes}× ${data.gpu_recommendation.finetune.best.instance_type} (${data.gpu_recommendation.finetune.best.total_gpus}× ${data.gpu_recommendation.finetune.best.accelerator}) on ${data.gpu_recommendation.finetune.best.cloud} ${data.gpu_recommendation.finetune.best.region}, ${data.gpu_recommendation.finetune.best.pricing_model}"
    hours       = data.gpu_recommendation.finetune.best.estimated_hours
    cost_usd    = data.gpu_recommendation.finetune.best.estimated_cost_usd
    co2e_kg     = data.gpu_recommendation.finetune.best.estimated_co2e_kg
    explanation = data.gpu_recommendation.finetune.best.explanation
  }
}

output "finetune_runners_up" {
  description = "The next candidates, for comparison."
  value = [for c in data.gpu_recommendation.finetune.candidates :
  "${c.cloud}/${c.region} ${c.nodes}× ${c.instance_type} ${c.pricing_model}: ${c.estimated_hours} h, ${format("$%.2f", c.estimated_cost_usd)}"]
}

output "serve" {
  description = "What serves the inference target."
  value = {
    choice            = "${data.gpu_recommendation.serve.best.nodes}× ${data.gpu_recommendation.serve.best.instance_type} on ${data.gpu_recommendation.serve.best.cloud} ${data.gpu_recommendation.serve.best.region}, ${data.gpu_recommendation.serve.best.pricing_model}"
    tokens_per_second = data.gpu_recommendation.serve.best.tokens_per_second
    monthly_cost_usd  = data.gpu_recommendation.serve.best.estimated_cost_usd
    explanation       = data.gpu_recommendation.serve.best.explanation
  }
}

output "serve_first_year" {
  description = "Lifecycle cost of the serving choice for 12 months."
  value = {
    total_cost_usd = data.gpu_tco.serve_year.total_cost_usd
    breakdown      = { for l in data.gpu_tco.serve_year.breakdown : l.category => l.cost_usd }
    co2e_kg        = data.gpu_tco.serve_year.co2e_kg
  }
}

output "catalog_date" {
  value = data.gpu_recommendation.finetune.catalog_date
}
