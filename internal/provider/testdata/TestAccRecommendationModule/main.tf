# The examples/modules/gpu-recommendation module, through the symlink
# testdata/TestAccRecommendationModule/gpu-recommendation.
module "finetune" {
  source = "./testdata/TestAccRecommendationModule/gpu-recommendation"
  workload = {
    kind               = "fine_tuning"
    model_parameters_b = 70
    training_tokens_b  = 2
  }
  constraints = {
    compliance     = ["gdpr"]
    deadline_hours = 48
  }
}

module "serve" {
  source = "./testdata/TestAccRecommendationModule/gpu-recommendation"
  workload = {
    kind               = "inference"
    model_parameters_b = 8
    tokens_per_second  = 5000
  }
  objective    = "balanced"
  alternatives = 4
}

output "finetune_launch" {
  value = "${module.finetune.node_count} × ${module.finetune.instance_type} in ${module.finetune.cloud}/${module.finetune.region}"
}

output "finetune_hours" {
  value = module.finetune.estimated_hours
}

output "serve_alternatives" {
  value = length(module.serve.alternatives)
}
