// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/gpuplan/terraform-provider-gpu/internal/numfmt"
)

// stateFunc is a statecheck.StateCheck running fn on the attribute values
// of one resource or data source of the root module, numbers as float64.
type stateFunc struct {
	address string
	fn      func(attrs map[string]any) error
}

var _ statecheck.StateCheck = stateFunc{}

func checkState(address string, fn func(attrs map[string]any) error) statecheck.StateCheck {
	return stateFunc{address: address, fn: fn}
}

func (s stateFunc) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	if req.State == nil || req.State.Values == nil || req.State.Values.RootModule == nil {
		resp.Error = fmt.Errorf("%s: no state", s.address)
		return
	}
	for _, r := range req.State.Values.RootModule.Resources {
		if r.Address != s.address {
			continue
		}
		attrs, err := plainValues(r)
		if err == nil {
			err = s.fn(attrs)
		}
		if err != nil {
			resp.Error = fmt.Errorf("%s: %w", s.address, err)
		}
		return
	}
	resp.Error = fmt.Errorf("%s is not in the state", s.address)
}

// plainValues round-trips a resource's values through JSON so numbers are
// float64 and nested values plain maps and slices.
func plainValues(r *tfjson.StateResource) (map[string]any, error) {
	raw, err := json.Marshal(r.AttributeValues)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	return out, json.Unmarshal(raw, &out)
}

// summaryHasEveryCandidate checks the summary table: a title, a header, a
// rule, then one line per candidate in rank order, each naming the
// candidate's cloud, region, instance type × nodes, pricing model and
// cost, the first marked as the best.
func summaryHasEveryCandidate(attrs map[string]any) error {
	summary, _ := attrs["summary"].(string)
	cands, _ := attrs["candidates"].([]any)
	if len(cands) < 2 {
		return fmt.Errorf("want several candidates, got %d", len(cands))
	}
	lines := strings.Split(strings.TrimSuffix(summary, "\n"), "\n")
	if len(lines) != 3+len(cands) {
		return fmt.Errorf("summary has %d lines for %d candidates:\n%s", len(lines), len(cands), summary)
	}
	for i, el := range cands {
		c, _ := el.(map[string]any)
		line := lines[3+i]
		cost, _ := c["estimated_cost_usd"].(float64)
		for _, want := range []string{
			fmt.Sprintf("  %d  ", i+1),
			fmt.Sprintf("  %s  ", c["cloud"]),
			fmt.Sprintf("  %s  ", c["region"]),
			fmt.Sprintf("  %s × %v  ", c["instance_type"], c["nodes"]),
			fmt.Sprintf("  %s  ", c["pricing_model"]),
			"  " + numfmt.Thousands(cost, 2),
		} {
			if !strings.Contains(line, want) {
				return fmt.Errorf("line %d of the summary lacks %q (candidate %d): %q\n%s", 4+i, want, i+1, line, summary)
			}
		}
		if strings.HasPrefix(line, "✔") != (i == 0) {
			return fmt.Errorf("only the best candidate's line starts with ✔: line %q\n%s", line, summary)
		}
	}
	return nil
}

func TestAccRecommendationSummary(t *testing.T) {
	t.Parallel()
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				// Every node count and pricing model of the feasible offers:
				// several lines of the same instance type.
				Config: `
data "gpu_recommendation" "train" {
  workload = {
    kind               = "fine_tuning"
    model_parameters_b = 13
    training_tokens_b  = 1
  }
  constraints = { clouds = ["aws", "gcp", "azure"] }
  distinct_by = "deployment"
  top         = 7
}

data "gpu_recommendation" "serve" {
  workload = {
    kind               = "inference"
    model_parameters_b = 8
    tokens_per_second  = 2000
  }
  top = 4
}

output "plan" { value = data.gpu_recommendation.train.summary }
`,
				ConfigStateChecks: []statecheck.StateCheck{
					checkState("data.gpu_recommendation.train", summaryHasEveryCandidate),
					checkState("data.gpu_recommendation.serve", summaryHasEveryCandidate),
					checkState("data.gpu_recommendation.serve", func(attrs map[string]any) error {
						if s, _ := attrs["summary"].(string); !strings.Contains(s, "TOK/S") || !strings.Contains(s, "USD/MONTH") {
							return fmt.Errorf("an inference summary shows tokens/s and monthly cost:\n%s", s)
						}
						return nil
					}),
				},
			},
		},
	})
}
