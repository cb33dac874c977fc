module "serve" {
  source = "./testdata/TestAccObjectInput_module/mod"
  workload = {
    kind                  = "inference"
    model                 = "llama-3.1-8b"
    tokens_per_second     = 500
    max_time_per_token_ms = 40
  }
  constraints = { pricing_model = ["spot"] }
}
