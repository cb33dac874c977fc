# One A100-80GB: LoRA on an 8B model, QLoRA on a 70B model, and LoRA on the
# 70B model, whose bf16 frozen weights (140 GB) cannot fit.
data "gpu_estimate" "lora_8b" {
  workload = {
    kind               = "fine_tuning"
    model_parameters_b = 8
    training_tokens_b  = 1
    fine_tuning_method = "lora"
  }
  accelerator = "A100-80GB"
  gpu_count   = 1
}

data "gpu_estimate" "qlora_70b" {
  workload = {
    kind               = "fine_tuning"
    model_parameters_b = 70
    training_tokens_b  = 0.5
    fine_tuning_method = "qlora"
  }
  accelerator = "A100-80GB"
  gpu_count   = 1
}

data "gpu_estimate" "lora_70b" {
  workload = {
    kind               = "fine_tuning"
    model_parameters_b = 70
    training_tokens_b  = 0.5
    fine_tuning_method = "lora"
  }
  accelerator = "A100-80GB"
  gpu_count   = 1
}
