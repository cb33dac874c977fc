# Every region in Germany or France, by country name or code.
data "gpu_regions" "de_fr" {
  countries = ["Germany", "FR"]
}

output "de_fr" {
  value = data.gpu_regions.de_fr.summary
}

# EU regions of AWS and GCP that carry GDPR and HIPAA, lowest grid carbon
# first.
data "gpu_regions" "eu_health" {
  clouds      = ["aws", "gcp"]
  geographies = ["eu"]
  compliance  = ["gdpr", "hipaa"]
}

output "cleanest_eu_health_region" {
  value = try(
    [for r in data.gpu_regions.eu_health.regions : "${r.cloud} ${r.region} (${r.country_name})" if r.grid_gco2e_per_kwh == min([for x in data.gpu_regions.eu_health.regions : x.grid_gco2e_per_kwh if x.grid_gco2e_per_kwh != null]...)][0],
    null,
  )
}
