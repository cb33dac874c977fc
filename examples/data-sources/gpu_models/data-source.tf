# Every model preset workload.model accepts, as a table.
data "gpu_models" "all" {}

output "models" {
  value = data.gpu_models.all.summary
}

# Open-weight mixture-of-experts models with a context of at least 128K
# tokens under a permissive licence.
data "gpu_models" "long_context_moe" {
  mixture_of_experts = true
  min_context_tokens = 131072
  licenses           = ["apache-2.0", "mit"]
}

output "long_context_moe" {
  value = [for m in data.gpu_models.long_context_moe.models : "${m.id}: ${m.model_parameters_b}B (${m.active_parameters_b}B active)"]
}

# A Hugging Face ID, with or without the organisation, finds its preset.
data "gpu_models" "by_hf_id" {
  ids = ["meta-llama/Llama-3.1-70B-Instruct", "Qwen/Qwen3-32B"]
}
