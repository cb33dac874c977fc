# A 70B model on one 8× H100 node: what it sustains without limits, and
# under interactive latency limits with a 20,000 tokens/s target.
data "gpu_estimate" "unlimited" {
  workload = {
    kind               = "inference"
    model_parameters_b = 70
  }
  accelerator = "H100"
  gpu_count   = 8
}

data "gpu_estimate" "interactive" {
  workload = {
    kind                         = "inference"
    model_parameters_b           = 70
    tokens_per_second            = 20000
    max_time_to_first_token_ms   = 500
    max_time_per_output_token_ms = 30
  }
  accelerator = "H100"
  gpu_count   = 8
}

# An 8B model: one replica per GPU, 50,000 tokens/s needs more than 8.
data "gpu_estimate" "small" {
  workload = {
    kind               = "inference"
    model_parameters_b = 8
    tokens_per_second  = 50000
  }
  accelerator   = "H100"
  gpu_count     = 8
  gpus_per_node = 8
  network_gbps  = 3200
}
