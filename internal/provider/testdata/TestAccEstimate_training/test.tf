# Llama 2 70B: 2T tokens on 2,048 A100-80GB (Meta reported 1,720,320 GPU-hours).
data "gpu_estimate" "llama2_70b" {
  workload = {
    kind               = "training"
    model_parameters_b = 70
    training_tokens_b  = 2000
  }
  accelerator = "a100-80gb-sxm" # an alias of A100-80GB
  gpu_count   = 2048
}

# Too big: a 70B pre-training job on half a node.
data "gpu_estimate" "too_small" {
  workload = {
    kind               = "training"
    model_parameters_b = 70
    training_tokens_b  = 100
  }
  accelerator = "A100-80GB"
  gpu_count   = 4
}
