# Fine-tune a 70B model with LoRA on 2B tokens, in the EU, within two days,
# as cheaply as possible.
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
}

output "finetune" {
  value = {
    where       = "${data.gpu_recommendation.finetune.best.cloud} ${data.gpu_recommendation.finetune.best.instance_type} × ${data.gpu_recommendation.finetune.best.nodes} in ${data.gpu_recommendation.finetune.best.region}"
    hours       = data.gpu_recommendation.finetune.best.estimated_hours
    cost_usd    = data.gpu_recommendation.finetune.best.estimated_cost_usd
    co2e_kg     = data.gpu_recommendation.finetune.best.estimated_co2e_kg
    why         = data.gpu_recommendation.finetune.best.explanation
    rejected    = data.gpu_recommendation.finetune.rejected
    catalog_day = data.gpu_recommendation.finetune.catalog_date
  }
}

# The candidates as a table in the plan, one line per candidate, the best
# marked ✔: cloud, region, instance × nodes, GPUs, pricing, hours, cost, CO2e.
output "finetune_table" {
  value = data.gpu_recommendation.finetune.summary
}

# Serve an 8B model at 5,000 output tokens/s with at most 50 ms per token,
# on on-demand or 1-year reserved capacity, ranked by a cost/time/carbon blend.
data "gpu_recommendation" "serve" {
  workload = {
    kind                         = "inference"
    model_parameters_b           = 8
    tokens_per_second            = 5000
    max_time_per_output_token_ms = 50
  }
  constraints = {
    pricing_models = ["on_demand", "reserved_1y"]
    clouds         = ["aws", "gcp", "azure"]
  }
  objective = "balanced"
  top       = 3
}

output "serving_options" {
  value = [for c in data.gpu_recommendation.serve.candidates :
  "${c.cloud}/${c.region} ${c.nodes}× ${c.instance_type} ${c.pricing_model}: ${format("$%.2f", c.estimated_cost_usd)}/month, ${c.tokens_per_second} tok/s"]
}

# An internal assistant used now and then: the load is there about 2% of
# the month (duty_cycle), in bursts. Serverless GPU workers are billed only
# for those hours (plus each platform's idle tail and cold starts), while
# dedicated instances are billed around the clock.
data "gpu_recommendation" "bursty" {
  workload = {
    kind              = "inference"
    model             = "llama-3.1-8b"
    tokens_per_second = 500
    duty_cycle        = 0.02
  }
}

output "bursty" {
  value = "${data.gpu_recommendation.bursty.best.pricing_model} on ${data.gpu_recommendation.bursty.best.cloud} ${data.gpu_recommendation.bursty.best.instance_type}: ${format("$%.2f", data.gpu_recommendation.bursty.best.estimated_cost_usd)}/month. ${data.gpu_recommendation.bursty.best.explanation}"
}
