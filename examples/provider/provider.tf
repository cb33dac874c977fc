terraform {
  required_providers {
    gpu = {
      source = "gpuplan/gpu"
    }
  }
}

# Every argument is optional: with none, the provider uses its built-in,
# dated catalog of every cloud.
provider "gpu" {
  # Only consider these clouds by default.
  clouds = ["aws", "gcp", "azure", "lambda"]

  # Enterprise discounts off list price, per cloud.
  discounts = {
    aws = 0.12
  }

  # Internal carbon price added to TCO and recommendations.
  carbon_price_usd_per_tonne = 85

  # Warn when the catalog snapshot is older than this.
  max_catalog_age_days = 180

  # Negotiated prices and an on-prem cluster, overlaid on the built-in catalog.
  # catalog_file = "${path.module}/catalog.yaml"
}
