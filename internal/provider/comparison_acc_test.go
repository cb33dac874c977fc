// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// TestAccRecommendationComparison: with compare = true, gpu_recommendation
// lists every cloud × pricing model pair of the constraints in order; a
// pair the cloud does not sell is a row with available = false and the
// reason (the plan does not fail); every other row's candidate is of its
// own pair, and the overall best is the best of its pair. Without
// compare, comparison is null.
func TestAccRecommendationComparison(t *testing.T) {
	t.Parallel()
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: `
data "gpu_recommendation" "x" {
  workload    = { kind = "fine_tuning", model = "llama-3.1-8b", training_tokens_b = 1 }
  constraints = { clouds = ["aws", "gcp"], pricing_models = ["capacity_block", "on_demand"] }
  compare     = true
}

data "gpu_recommendation" "plain" {
  workload    = { kind = "fine_tuning", model = "llama-3.1-8b", training_tokens_b = 1 }
  constraints = { clouds = ["aws", "gcp"], pricing_models = ["capacity_block", "on_demand"] }
}

locals {
  rows = data.gpu_recommendation.x.comparison
  best = data.gpu_recommendation.x.best
}

output "pairs" {
  value = [for r in local.rows : "${r.cloud}/${r.pricing_model}"]
}

output "own_pair" {
  value = alltrue([for r in local.rows : r.available ? (r.candidate.cloud == r.cloud && r.candidate.pricing_model == r.pricing_model && r.reason == null) : r.candidate == null])
}

output "best_is_best_of_its_pair" {
  value = anytrue([for r in local.rows : r.available ? (r.candidate.cloud == local.best.cloud && r.candidate.pricing_model == local.best.pricing_model &&
  r.candidate.instance_type == local.best.instance_type && r.candidate.estimated_cost_usd == local.best.estimated_cost_usd) : false])
}
`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownOutputValue("pairs", knownvalue.ListExact([]knownvalue.Check{
					knownvalue.StringExact("aws/on_demand"), knownvalue.StringExact("aws/capacity_block"),
					knownvalue.StringExact("gcp/on_demand"), knownvalue.StringExact("gcp/capacity_block"),
				})),
				statecheck.ExpectKnownValue("data.gpu_recommendation.x", tfjsonpath.New("comparison").AtSliceIndex(3),
					knownvalue.ObjectExact(map[string]knownvalue.Check{
						"cloud": knownvalue.StringExact("gcp"), "pricing_model": knownvalue.StringExact("capacity_block"),
						"available": knownvalue.Bool(false), "candidate": knownvalue.Null(),
						"reason": knownvalue.StringExact("gcp sells no offer as capacity_block in the catalog."),
					})),
				statecheck.ExpectKnownValue("data.gpu_recommendation.x", tfjsonpath.New("comparison").AtSliceIndex(0).AtMapKey("available"),
					knownvalue.Bool(true)),
				statecheck.ExpectKnownOutputValue("own_pair", knownvalue.Bool(true)),
				statecheck.ExpectKnownOutputValue("best_is_best_of_its_pair", knownvalue.Bool(true)),
				statecheck.ExpectKnownValue("data.gpu_recommendation.x", tfjsonpath.New("summary"),
					knownvalue.StringRegexp(regexp.MustCompile(`(?m)^gcp +capacity_block +not available$`))),
				statecheck.ExpectKnownValue("data.gpu_recommendation.plain", tfjsonpath.New("comparison"), knownvalue.Null()),
			},
		}},
	})
}
