# Compare the specifications that decide real-world speed.
data "gpu_accelerators" "compare" {
  ids = ["H100", "H200", "MI300X", "B200"]
}

output "memory_bandwidth_tbps" {
  value = { for a in data.gpu_accelerators.compare.accelerators : a.id => a.memory_bandwidth_tbps }
}

output "bf16_tflops" {
  value = { for a in data.gpu_accelerators.compare.accelerators : a.id => a.peak_tflops["bf16"] }
}
