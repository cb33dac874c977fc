// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// TestAccRegionsDataSource: regions with their country, geography,
// partition, compliance, grid carbon and PUE; a country by name; every
// compliance regime listed must be carried; unknown names suggest.
func TestAccRegionsDataSource(t *testing.T) {
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	// Expected counts from the catalog, independently of browse's filter.
	germany, gov := 0, 0
	for _, r := range cat.Regions {
		if r.Country == "DE" {
			germany++
		}
		if r.Partition == catalog.PartitionGov {
			gov++
		}
	}
	fra, ok := cat.Region("aws", "eu-central-1")
	if !ok {
		t.Fatal("catalog lacks aws eu-central-1")
	}
	offers := 0
	for _, o := range cat.Offers {
		if o.Cloud == "aws" && o.Region == "eu-central-1" {
			offers++
		}
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: `
data "gpu_regions" "all" {}

data "gpu_regions" "germany" {
  countries = ["Germany"]
}

data "gpu_regions" "aws_frankfurt" {
  clouds    = ["AWS"]
  countries = ["deu"]
}

data "gpu_regions" "gov" {
  partitions = ["gov"]
  compliance = ["fedramp_high"]
}

output "summary" { value = data.gpu_regions.aws_frankfurt.summary }`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.gpu_regions.all", tfjsonpath.New("regions"), knownvalue.ListSizeExact(len(cat.Regions))),
					statecheck.ExpectKnownValue("data.gpu_regions.germany", tfjsonpath.New("regions"), knownvalue.ListSizeExact(germany)),
					statecheck.ExpectKnownValue("data.gpu_regions.gov", tfjsonpath.New("regions"), knownvalue.ListSizeExact(gov)),
					statecheck.ExpectKnownValue("data.gpu_regions.aws_frankfurt", tfjsonpath.New("regions"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.ObjectExact(map[string]knownvalue.Check{
							"cloud":              knownvalue.StringExact("aws"),
							"region":             knownvalue.StringExact("eu-central-1"),
							"city":               knownvalue.StringExact(fra.City),
							"country":            knownvalue.StringExact("DE"),
							"country_name":       knownvalue.StringExact("Germany"),
							"geography":          knownvalue.StringExact("eu"),
							"partition":          knownvalue.StringExact("commercial"),
							"compliance":         knownvalue.ListPartial(map[int]knownvalue.Check{0: knownvalue.StringExact(fra.Compliance[0])}),
							"grid_gco2e_per_kwh": knownvalue.Float64Exact(fra.GridGCO2ePerKWh),
							"pue":                knownvalue.NotNull(),
							"offers":             knownvalue.Int64Exact(int64(offers)),
						}),
					})),
					statecheck.ExpectKnownOutputValue("summary", knownvalue.StringFunc(func(s string) error {
						return wantLines(s, "1 region\n", "CLOUD", "eu-central-1", fra.City+", DE", "gdpr", fmt.Sprint(offers))
					})),
				},
			},
			{
				Config:      `data "gpu_regions" "typo" { countries = ["Germny"] }`,
				ExpectError: errRe(`Unknown Country.*countries\[0\] = "Germny" is not a country code or name. Closest: "DE" \(Germany\)`),
			},
			{
				Config:      `data "gpu_regions" "none" { countries = ["Portugal"] }`,
				ExpectError: errRe(`countries\[0\] = "Portugal" is Portugal \(PT\), which has no region in the catalog. Countries with regions:`),
			},
			{
				Config:      `data "gpu_regions" "typo" { geographies = ["europe"] }`,
				ExpectError: errRe(`Unknown Geography.*geographies\[0\] = "europe" is not a geography. Closest: "eu"`),
			},
		},
	})
}

// TestAccRecommendationCountryByName: constraints.countries takes country
// names as gpu_regions does; a misspelt one suggests the code and name.
func TestAccRecommendationCountryByName(t *testing.T) {
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: `
data "gpu_recommendation" "de" {
  workload    = { kind = "inference", model = "Llama-3.1-8B-Instruct", tokens_per_second = 500 }
  constraints = { countries = ["Germany"] }
}`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.gpu_recommendation.de", tfjsonpath.New("best").AtMapKey("country"), knownvalue.StringExact("DE")),
				},
			},
			{
				Config: `
data "gpu_recommendation" "de" {
  workload    = { kind = "inference", model = "llama-3.1-8b", tokens_per_second = 500 }
  constraints = { countries = ["Germnay"] }
}`,
				ExpectError: errRe(`constraints.countries\[0\] = "Germnay" is not a country code or name. Closest: "DE" \(Germany\)`),
			},
		},
	})
}
