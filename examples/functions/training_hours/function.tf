# Wall-clock hours to pre-train a 70B model on 2T tokens with 2,048
# A100-80GB (bf16, nodes of 8, the model's default RDMA network). Llama 2
# 70B reported 1.72 million GPU-hours.
output "llama2_70b_hours" {
  value = provider::gpu::training_hours(70, 2000, "A100-80GB", 2048)
}

output "llama2_70b_gpu_hours" {
  value = ceil(provider::gpu::training_hours(70, 2000, "A100-80GB", 2048) * 2048)
}

# Compare cluster sizes for an 8B model on 1T tokens of H100, in whole days.
locals {
  cluster_sizes = [64, 256, 1024]
}

output "llama_8b_days" {
  value = [for gpus in local.cluster_sizes : ceil(provider::gpu::training_hours(8, 1000, "H100", gpus) / 24)]
}
