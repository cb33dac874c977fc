module "serve" {
  source = "./testdata/TestAccObjectInput_module/mod"
  workload = {
    kind              = "inference"
    model             = "llama-3.1-8b"
    tokens_per_second = 500
  }
  constraints = { pricing_models = ["spot"] }
}

output "pricing_model" {
  value = module.serve.pricing_model
}
