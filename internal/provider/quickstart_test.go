// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
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
