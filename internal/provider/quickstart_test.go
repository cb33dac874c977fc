// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
)

// objectFunc is a knownvalue.Check running fn on an object value, numbers
// as float64.
type objectFunc func(map[string]any) error

func (f objectFunc) CheckValue(v any) error {
	obj, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("expected an object, got %T", v)
	}
	return f(numbersToFloat(obj))
}

func (f objectFunc) String() string { return "object satisfies the predicate" }

// TestAccQuickstartConsistent holds the quickstart to what it claims: the
// serving choice is named as its explanation names it (instances, not
// replicas of GPUs), the serve output carries CO2e and latency, and the
// one-year TCO of the recommended choice bills 12 × the recommendation's
// monthly compute (to 1 %).
func TestAccQuickstartConsistent(t *testing.T) {
	t.Setenv("TF_ACC_PROVIDER_NAMESPACE", "gpuplan")
	src, err := os.ReadFile("../../examples/quickstart/main.tf")
	if err != nil {
		t.Fatal(err)
	}
	var monthly float64
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: string(src),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownOutputValue("serve", objectFunc(func(o map[string]any) error {
					choice, _ := o["choice"].(string)
					expl, _ := o["explanation"].(string)
					// "2× gpu_1x_gh200 (2× GH200) on ..." and "... (2× gpu_1x_gh200, ...".
					instances, _, _ := strings.Cut(choice, " (")
					if instances == "" || !strings.Contains(expl, "("+instances) {
						return fmt.Errorf("choice %q names %q, the explanation does not: %q", choice, instances, expl)
					}
					for _, k := range []string{"monthly_co2e_kg", "time_per_output_token_ms", "time_to_first_token_ms", "monthly_cost_usd"} {
						if v, ok := o[k].(float64); !ok || v <= 0 {
							return fmt.Errorf("%s = %v, want a positive number", k, o[k])
						}
					}
					monthly, _ = o["monthly_cost_usd"].(float64)
					return nil
				})),
				statecheck.ExpectKnownOutputValue("serve_first_year", objectFunc(func(o map[string]any) error {
					raw, err := json.Marshal(o["breakdown"])
					if err != nil {
						return err
					}
					var lines map[string]float64
					if err := json.Unmarshal(raw, &lines); err != nil {
						return err
					}
					if c := lines["compute"]; monthly <= 0 || math.Abs(c-12*monthly) > 0.01*12*monthly {
						return fmt.Errorf("one year of compute %.2f vs 12 × %.2f a month", c, monthly)
					}
					return nil
				})),
				statecheck.ExpectKnownOutputValue("finetune_candidates", knownvalue.StringRegexp(errRe(`^\d+ of [\d,]+ feasible candidates`))),
			},
		}},
	})
}

// TestAccCompareCloudsGuide plans the "Compare clouds" guide's example and
// holds the guide's printed output to it: a catalog refresh that moves a
// price or a cheapest region fails here until the guide is updated.
func TestAccCompareCloudsGuide(t *testing.T) {
	t.Setenv("TF_ACC_PROVIDER_NAMESPACE", "gpuplan")
	src, err := os.ReadFile("../../examples/guides/compare-clouds/main.tf")
	if err != nil {
		t.Fatal(err)
	}
	guide, err := os.ReadFile("../../templates/guides/compare-clouds.md.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]knownvalue.Check{}
	for _, m := range regexp.MustCompile(`(?m)^\s+\+ "([a-z]+/[a-z_0-9]+)"\s+= "([^"]+)"$`).FindAllStringSubmatch(string(guide), -1) {
		want[m[1]] = knownvalue.StringExact(m[2])
	}
	if len(want) != 9 {
		t.Fatalf("the guide prints %d options, want 9 (3 clouds × 3 pricing models)", len(want))
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			// A plan: the state shims of terraform-plugin-testing do not
			// take string for_each keys.
			Config:             string(src),
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
			ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPreRefresh: []plancheck.PlanCheck{
				plancheck.ExpectKnownOutputValue("h100x8_for_a_year", knownvalue.MapExact(want)),
				// The one gap is reported with its reason, not a failed plan.
				plancheck.ExpectKnownOutputValue("not_available", knownvalue.MapExact(map[string]knownvalue.Check{
					"azure/spot": knownvalue.StringRegexp(regexp.MustCompile(`^azure Standard_ND96isr_H100_v5 has no "spot" price in any of its \d+ regions`)),
				})),
			}},
		}},
	})
}
