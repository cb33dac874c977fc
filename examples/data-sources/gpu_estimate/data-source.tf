# Pre-training a 70B model on 2T tokens with 2,048 A100-80GB (256 nodes of 8
# on the default InfiniBand-class network): the Llama 2 70B run.
data "gpu_estimate" "pretrain" {
  workload = {
    kind               = "training"
    model_parameters_b = 70
    training_tokens_b  = 2000
  }
  accelerator = "A100-80GB"
  gpu_count   = 2048
}

output "pretrain_gpu_hours" {
  value = ceil(data.gpu_estimate.pretrain.estimated_hours * 2048)
}

output "pretrain_mfu" {
  value = data.gpu_estimate.pretrain.mfu
}

# Serving a 70B model on one 8× H100 node under interactive latency limits,
# with a throughput target: how many replicas fit, what they sustain and how
# many replicas the target needs.
data "gpu_estimate" "serve" {
  workload = {
    kind                         = "inference"
    model_parameters_b           = 70
    precision                    = "fp8"
    tokens_per_second            = 20000
    input_tokens                 = 2048
    output_tokens                = 512
    max_time_to_first_token_ms   = 1000
    max_time_per_output_token_ms = 50
  }
  accelerator   = "H100"
  gpu_count     = 8
  gpus_per_node = 8
  network_gbps  = 3200
}

output "serve" {
  value = {
    fits                     = data.gpu_estimate.serve.fits
    tokens_per_second        = data.gpu_estimate.serve.tokens_per_second
    replicas                 = data.gpu_estimate.serve.replicas
    replicas_needed          = data.gpu_estimate.serve.replicas_needed
    time_to_first_token_ms   = data.gpu_estimate.serve.time_to_first_token_ms
    time_per_output_token_ms = data.gpu_estimate.serve.time_per_output_token_ms
    why                      = data.gpu_estimate.serve.explanation
  }
}

# Fail the plan when a QLoRA fine-tune does not fit one 24 GB GPU.
data "gpu_estimate" "qlora" {
  workload = {
    kind               = "fine_tuning"
    model_parameters_b = 8
    training_tokens_b  = 0.1
    fine_tuning_method = "qlora"
  }
  accelerator = "L4"
  gpu_count   = 1

  lifecycle {
    postcondition {
      condition     = self.fits
      error_message = "The fine-tune does not fit one L4: ${self.explanation}"
    }
  }
}
