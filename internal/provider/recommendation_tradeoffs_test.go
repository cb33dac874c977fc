// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/gpuplan/terraform-provider-gpu/internal/planner"
)

// allStateFunc is a state check over the attributes of every data source,
// by address.
type allStateFunc func(attrs map[string]map[string]any) error

func (f allStateFunc) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	if req.State == nil || req.State.Values == nil || req.State.Values.RootModule == nil {
		resp.Error = fmt.Errorf("no state")
		return
	}
	attrs := map[string]map[string]any{}
	for _, r := range req.State.Values.RootModule.Resources {
		attrs[r.Address] = r.AttributeValues
	}
	resp.Error = f(attrs)
}

// tradeOffRows reads a recommendation's trade_offs, checking the factors
// are the policy's (and 1) in ascending order.
func tradeOffRows(attrs map[string]any, factors []float64) ([]map[string]any, error) {
	raw, _ := attrs["trade_offs"].([]any)
	if len(raw) != len(factors) {
		return nil, fmt.Errorf("%d trade-off rows, want %d (factors %v)", len(raw), len(factors), factors)
	}
	rows := make([]map[string]any, len(raw))
	for i, x := range raw {
		rows[i], _ = x.(map[string]any)
		if f, err := num(rows[i]["factor"]); err != nil || f != factors[i] {
			return nil, fmt.Errorf("row %d: factor %v, want %v", i, rows[i]["factor"], factors[i])
		}
	}
	return rows, nil
}

// cheapestCost is a row's cheapest candidate's cost; ok is false when none
// meets the row's limit.
func cheapestCost(row map[string]any) (map[string]any, float64, bool) {
	c, _ := row["cheapest"].(map[string]any)
	if c == nil {
		return nil, 0, false
	}
	v, err := num(c["estimated_cost_usd"])
	return c, v, err == nil
}

// bestCost is a recommendation's best candidate's cost.
func bestCost(attrs map[string]any) float64 {
	b, _ := attrs["best"].(map[string]any)
	v, _ := num(b["estimated_cost_usd"])
	return v
}

// withOne is the policy's trade-off factors with 1, ascending.
func withOne(t *testing.T) []float64 {
	pol, err := planner.BuiltinPolicy()
	if err != nil {
		t.Fatal(err)
	}
	var out []float64
	for _, f := range pol.TradeOffFactors {
		if f > 1 && (len(out) == 0 || out[len(out)-1] < 1) {
			out = append(out, 1)
		}
		out = append(out, f)
	}
	if out[len(out)-1] < 1 {
		out = append(out, 1)
	}
	return out
}

// TestAccTradeOffs: gpu_recommendation gives, beside the ranking, the
// cheapest answer at each deadline or latency limit tried, and each row
// is what a recommendation of its own at that limit answers (checked
// against a second data source at the loosest one); for serving the
// duty cycle where serverless stops being cheaper holds either side (a
// serverless-only recommendation at the break-even costs less than the
// dedicated side, one a little above it does not); both are in the
// summary.
func TestAccTradeOffs(t *testing.T) {
	factors := withOne(t)
	loosest := factors[len(factors)-1]
	job := `
data "gpu_recommendation" "job" {
  workload    = { kind = "fine_tuning", model_parameters_b = 8, training_tokens_b = 1 }
  constraints = { deadline_hours = 24 }
}
data "gpu_recommendation" "job_loose" {
  workload    = { kind = "fine_tuning", model_parameters_b = 8, training_tokens_b = 1 }
  constraints = { deadline_hours = %v }
}
`
	serve := `
data "gpu_recommendation" "serve" {
  workload = { kind = "inference", model_parameters_b = 8, tokens_per_second = 2000 }
}
data "gpu_recommendation" "serve_loose" {
  workload = {
    kind = "inference", model_parameters_b = 8, tokens_per_second = 2000
    max_time_to_first_token_ms = %[1]v, max_time_per_output_token_ms = %[2]v
  }
}
data "gpu_recommendation" "at_break_even" {
  workload    = { kind = "inference", model_parameters_b = 8, tokens_per_second = 2000,
                  duty_cycle = data.gpu_recommendation.serve.serverless_break_even.duty_cycle }
  constraints = { pricing_models = ["serverless"] }
}
data "gpu_recommendation" "above_break_even" {
  workload    = { kind = "inference", model_parameters_b = 8, tokens_per_second = 2000,
                  duty_cycle = min(1, data.gpu_recommendation.serve.serverless_break_even.duty_cycle + 0.01) }
  constraints = { pricing_models = ["serverless"] }
}
`
	pol, err := planner.BuiltinPolicy()
	if err != nil {
		t.Fatal(err)
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:            fmt.Sprintf(job, 24*loosest),
				ConfigStateChecks: []statecheck.StateCheck{allStateFunc(func(a map[string]map[string]any) error { return checkJobTradeOffs(a, factors) })},
			},
			{
				Config: fmt.Sprintf(serve, pol.DefaultMaxTimeToFirstTokenMs*loosest, pol.DefaultMaxTimePerOutputTokenMs*loosest),
				ConfigStateChecks: []statecheck.StateCheck{allStateFunc(func(a map[string]map[string]any) error {
					return checkServingTradeOffs(a, factors, pol)
				})},
			},
		},
	})
}

// checkJobTradeOffs: each row within its deadline, no dearer than a
// tighter one, the own row the best, the loosest what a recommendation at
// that deadline answers, and the table in the summary.
func checkJobTradeOffs(a map[string]map[string]any, factors []float64) error {
	j := a["data.gpu_recommendation.job"]
	rows, err := tradeOffRows(j, factors)
	if err != nil {
		return err
	}
	prev := math.Inf(1)
	for i, row := range rows {
		d, _ := num(row["deadline_hours"])
		if d != 24*factors[i] {
			return fmt.Errorf("row %d: deadline %v, want %v", i, d, 24*factors[i])
		}
		c, cost, ok := cheapestCost(row)
		if !ok {
			if textOf(row["reason"]) != planner.ReasonDeadline {
				return fmt.Errorf("row %d: none meets %v h, reason %v", i, d, row["reason"])
			}
			continue
		}
		if h, _ := num(c["estimated_hours"]); h > d {
			return fmt.Errorf("row %d: %v h beyond its deadline %v", i, h, d)
		}
		if cost > prev {
			return fmt.Errorf("row %d: a looser deadline costs more ($%v > $%v)", i, cost, prev)
		}
		prev = cost
		if factors[i] == 1 && cost != bestCost(j) {
			return fmt.Errorf("own row $%v, best $%v", cost, bestCost(j))
		}
	}
	if _, cost, _ := cheapestCost(rows[len(rows)-1]); cost != bestCost(a["data.gpu_recommendation.job_loose"]) {
		return fmt.Errorf("loosest row $%v, a recommendation at that deadline $%v", cost, bestCost(a["data.gpu_recommendation.job_loose"]))
	}
	if s := textOf(j["summary"]); !strings.Contains(s, "Cheapest at other deadlines (hours):") || !strings.Contains(s, "24.0 h (yours)") {
		return fmt.Errorf("summary lacks the trade-offs:\n%s", s)
	}
	if j["serverless_break_even"] != nil {
		return fmt.Errorf("a job has a serverless break-even: %v", j["serverless_break_even"])
	}
	return nil
}

// checkServingTradeOffs: each row within its limits, the loosest what a
// recommendation at those limits answers, the break-even on either side,
// and both in the summary.
func checkServingTradeOffs(a map[string]map[string]any, factors []float64, pol *planner.Policy) error {
	s := a["data.gpu_recommendation.serve"]
	rows, err := tradeOffRows(s, factors)
	if err != nil {
		return err
	}
	for i, row := range rows {
		ttft, _ := num(row["max_time_to_first_token_ms"])
		tpot, _ := num(row["max_time_per_output_token_ms"])
		if math.Abs(ttft-pol.DefaultMaxTimeToFirstTokenMs*factors[i]) > 0.01 || math.Abs(tpot-pol.DefaultMaxTimePerOutputTokenMs*factors[i]) > 0.01 {
			return fmt.Errorf("row %d: limits %v / %v ms", i, ttft, tpot)
		}
		c, _, ok := cheapestCost(row)
		if !ok {
			continue
		}
		if got, _ := num(c["time_per_output_token_ms"]); got > tpot {
			return fmt.Errorf("row %d: %v ms per token beyond %v", i, got, tpot)
		}
	}
	if _, cost, _ := cheapestCost(rows[len(rows)-1]); cost != bestCost(a["data.gpu_recommendation.serve_loose"]) {
		return fmt.Errorf("loosest row $%v, a recommendation at those limits $%v", cost, bestCost(a["data.gpu_recommendation.serve_loose"]))
	}
	be, _ := s["serverless_break_even"].(map[string]any)
	duty, err := num(be["duty_cycle"])
	if err != nil || !(duty > 0 && duty < 1) {
		return fmt.Errorf("break-even %v: want a duty cycle strictly between 0 and 1 for this workload", be)
	}
	ded, _ := be["dedicated"].(map[string]any)
	dedCost, _ := num(ded["estimated_cost_usd"])
	if below, above := bestCost(a["data.gpu_recommendation.at_break_even"]), bestCost(a["data.gpu_recommendation.above_break_even"]); !(below < dedCost) || !(above >= dedCost) {
		return fmt.Errorf("serverless at the break-even %v costs $%v, above it $%v; the dedicated side $%v", duty, below, above, dedCost)
	}
	if sum := textOf(s["summary"]); !strings.Contains(sum, "Cheapest at other latency limits") || !strings.Contains(sum, "Serverless break-even: below a duty cycle of") {
		return fmt.Errorf("summary lacks the trade-offs or the break-even:\n%s", sum)
	}
	return nil
}
