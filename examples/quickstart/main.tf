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

# 3. The lifecycle cost of the serving choice for a year: the recommended
#    cloud, region, instance type, node count and pricing model, plus
#    storage, egress and carbon, not just the hourly rate.
data "gpu_tco" "serve_year" {
  cloud          = data.gpu_recommendation.serve.best.cloud
  region         = data.gpu_recommendation.serve.best.region
  instance_type  = data.gpu_recommendation.serve.best.instance_type
  instance_count = data.gpu_recommendation.serve.best.nodes
  months         = 12
  utilization    = 1
  load           = "inference" # energy at serving load, not training's
  pricing_mix    = { (data.gpu_recommendation.serve.best.pricing_model) = 1 }
  storage = {
    block_gb  = 500
    object_gb = 2000
  }
  network = {
    egress_gb_per_month = 3000
  }
}

locals {
  finetune = data.gpu_recommendation.finetune.best
  serve    = data.gpu_recommendation.serve.best
}

output "finetune" {
  description = "Where and how to run the fine-tuning job."
  value = {
    choice      = "${local.finetune.nodes}× ${local.finetune.instance_type} (${local.finetune.total_gpus}× ${local.finetune.accelerator}) on ${local.finetune.cloud} ${local.finetune.region}, ${local.finetune.pricing_model}"
    hours       = local.finetune.estimated_hours
    cost_usd    = local.finetune.estimated_cost_usd
    co2e_kg     = local.finetune.estimated_co2e_kg
    explanation = local.finetune.explanation
  }
}

output "finetune_candidates" {
  description = "The candidates side by side, the best marked ✔."
  value       = data.gpu_recommendation.finetune.summary
}

output "serve" {
  description = "What serves the inference target, named as the explanation names it."
  value = {
    choice                   = "${local.serve.nodes}× ${local.serve.instance_type} (${local.serve.total_gpus}× ${local.serve.accelerator}) on ${local.serve.cloud} ${local.serve.region}, ${local.serve.pricing_model}"
    tokens_per_second        = local.serve.tokens_per_second
    time_per_output_token_ms = local.serve.time_per_output_token_ms
    time_to_first_token_ms   = local.serve.time_to_first_token_ms
    monthly_cost_usd         = local.serve.estimated_cost_usd
    monthly_co2e_kg          = local.serve.estimated_co2e_kg
    explanation              = local.serve.explanation
  }
}

output "serve_first_year" {
  description = "Lifecycle cost of the serving choice for 12 months; its compute is 12 × the recommendation's monthly cost."
  value = {
    total_cost_usd = data.gpu_tco.serve_year.total_cost_usd
    breakdown      = { for l in data.gpu_tco.serve_year.breakdown : l.category => l.cost_usd }
    # Reconciliation: the same choice priced by gpu_tco and by the recommendation.
    compute_per_month_usd        = tonumber(format("%.2f", one([for l in data.gpu_tco.serve_year.breakdown : l.cost_usd if l.category == "compute"]) / 12))
    recommendation_per_month_usd = local.serve.estimated_cost_usd
    # gpu_tco has no workload input and counts energy at a training load
    # (0.8 × TDP), the recommendation at a serving load (0.5 × TDP): its
    # CO2e is the conservative one.
    co2e_kg = data.gpu_tco.serve_year.co2e_kg
  }
}

output "catalog_date" {
  value = data.gpu_recommendation.finetune.catalog_date
}
