# One variable switches the whole cluster between clouds.
variable "cloud" {
  type = string
}

resource "gpu_cluster_spec" "test" {
  name          = "llm-train"
  cloud         = var.cloud
  accelerator   = "H100"
  gpus_per_node = 8
  nodes         = 2

  storage = {
    block_gb = 2000
  }

  labels = {
    team = "research"
  }
}
