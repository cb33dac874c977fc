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

# DeepSeek-R1 from its model preset (671B parameters, 37B active, native
# FP8, MLA cache) served at FP4 with multi-token prediction on a GB200 NVL72
# rack (72 GPUs in one NVLink domain, trays of 4): whether it serves
# aggregated or disaggregated, and the throughput curve to pick an
# operating point from.
data "gpu_estimate" "deepseek" {
  workload = {
    kind                         = "inference"
    model                        = "deepseek-r1"
    precision                    = "fp4"
    input_tokens                 = 8192
    output_tokens                = 1024
    max_time_per_output_token_ms = 40 # p99
    speculative_decoding         = { method = "mtp" }
  }
  accelerator   = "GB200"
  gpu_count     = 72
  gpus_per_node = 4
}

output "deepseek_serving" {
  value = {
    tokens_per_second = data.gpu_estimate.deepseek.tokens_per_second
    serving_layout    = data.gpu_estimate.deepseek.serving_layout
    # Output tokens/s per GPU at 10 … 200 tokens/s per user.
    curve = {
      for p in data.gpu_estimate.deepseek.throughput_curve :
      p.interactivity => p.tokens_per_second_per_gpu
    }
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

# Reproduce a known deployment: Llama 3.1 70B pre-training pinned to
# TP 8 × PP 4 on 64 H100 (data parallelism fills the rest), a 4M-token
# global batch, and the time in seconds.
data "gpu_estimate" "pinned" {
  workload = {
    kind                = "training"
    model               = "llama-3.1-70b"
    training_tokens_b   = 10
    global_batch_tokens = 4194304
  }
  accelerator = "H100"
  gpu_count   = 64
  parallelism = { tensor = 8, pipeline = 4 }
}

output "pinned_layout" {
  value = {
    layout  = data.gpu_estimate.pinned.parallelism # { tensor = 8, pipeline = 4, data = 2, context = 1, expert = 1 }
    seconds = data.gpu_estimate.pinned.estimated_seconds
  }
}

# Chat serving whose answers are mostly short but sometimes long (mean
# 512, p99 4,096 tokens), behind a gateway that keeps at most 512
# requests open.
data "gpu_estimate" "chat" {
  workload = {
    kind              = "inference"
    model             = "llama-3.3-70b"
    precision         = "fp8"
    output_tokens     = 512
    output_tokens_p99 = 4096
    max_concurrency   = 512
  }
  accelerator = "H200"
  gpu_count   = 8
}
