terraform {
  required_version = ">= 1.5.0"
  required_providers {
    gpu = {
      source = "gpuplan/gpu"
    }
  }
}
