# Fine-tune a 70B model with LoRA on 2B tokens in the EU within two days.

data "gpu_recommendation" "lora" {
  workload = {
    kind               = "fine_tuning"
    model_parameters_b = 70
    training_tokens_b  = 2
    fine_tuning_method = "lora"
  }
  constraints = {
    geographies    = ["eu"]
    deadline_hours = 48
  }
  top = 3
}

output "best" {
  value = data.gpu_recommendation.lora.best
}
