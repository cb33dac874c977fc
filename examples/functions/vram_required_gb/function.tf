# Memory a 70B model needs to serve one request, in GB, at three precisions
# (weights + KV cache + runtime reserve).
output "llama_70b_serving_gb" {
  value = {
    bf16 = provider::gpu::vram_required_gb(70, "bf16", "inference")
    fp8  = provider::gpu::vram_required_gb(70, "fp8", "inference")
    int4 = provider::gpu::vram_required_gb(70, "int4", "inference")
  }
}

# A lower bound on the GPUs a full pre-training run needs (16 bytes per
# parameter of mixed-precision Adam state plus activations), on 80 GB GPUs.
output "min_80gb_gpus_to_pretrain_70b" {
  value = ceil(provider::gpu::vram_required_gb(70, "bf16", "training") / 80)
}

# LoRA fine-tuning keeps the frozen weights at the precision: check a
# variable against one 80 GB GPU at plan time.
variable "model_parameters_b" {
  type    = number
  default = 13
}

check "lora_fits_one_gpu" {
  assert {
    condition     = provider::gpu::vram_required_gb(var.model_parameters_b, "bf16", "fine_tuning") <= 80
    error_message = "A LoRA fine-tune of this model needs more than one 80 GB GPU; use qlora or gpu_estimate with more GPUs."
  }
}
