// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner

import (
	"encoding/json"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// TestPolicyMatchesConstants: planner_policy.json parses, and the schema
// constants DefaultTop / MaxTop and the exported DefaultMaxNodes carry its
// values.
func TestPolicyMatchesConstants(t *testing.T) {
	p, err := BuiltinPolicy()
	if err != nil {
		t.Fatal(err)
	}
	if p.DefaultTop != DefaultTop || p.MaxTop != MaxTop {
		t.Errorf("planner_policy.json default_top/max_top = %d/%d, constants DefaultTop/MaxTop = %d/%d",
			p.DefaultTop, p.MaxTop, DefaultTop, MaxTop)
	}
	if p.DefaultMaxNodes != DefaultMaxNodes {
		t.Errorf("exported policy variables differ from planner_policy.json")
	}
	if w := p.BalancedWeights; w.Cost+w.Time+w.Carbon < 0.999 || w.Cost+w.Time+w.Carbon > 1.001 {
		t.Errorf("balanced weights sum to %v, want 1", w.Cost+w.Time+w.Carbon)
	}
}

func TestParsePolicyRejectsBadValues(t *testing.T) {
	for _, raw := range []string{
		`{`,
		`{"balanced_weights": {"cost": {"value": 0.5}, "time": {"value": 0.3}, "carbon": {"value": 0.2}}}`,
		`{"balanced_weights": {"cost": {"value": 0.5}, "time": {"value": 0.3}, "carbon": {"value": 0.2}},
		  "default_max_nodes": {"value": 1.5}, "max_serving_units": {"value": 10}, "inference_pricing_horizon_months": {"value": 12},
		  "spot_serving_min_spare_units": {"value": 1}, "default_top": {"value": 5}, "max_top": {"value": 100}}`,
		`{"balanced_weights": {"cost": {"value": 0.5}, "time": {"value": 0.3}, "carbon": {"value": 0.2}},
		  "default_max_nodes": {"value": 8}, "max_serving_units": {"value": 10}, "inference_pricing_horizon_months": {"value": 12},
		  "spot_serving_min_spare_units": {"value": 1}, "default_top": {"value": 500}, "max_top": {"value": 100}}`,
	} {
		if _, err := ParsePolicy([]byte(raw)); err == nil {
			t.Errorf("ParsePolicy(%s) accepted", raw)
		}
	}
}

// TestSpotServingMinSpareUnits: the built-in floor is 1 spare serving unit;
// the parser accepts integers >= 0 only.
func TestSpotServingMinSpareUnits(t *testing.T) {
	p, err := BuiltinPolicy()
	if err != nil {
		t.Fatal(err)
	}
	if p.SpotServingMinSpareUnits != 1 {
		t.Errorf("spot_serving_min_spare_units = %d, want 1", p.SpotServingMinSpareUnits)
	}
	const rest = `{"balanced_weights": {"cost": {"value": 0.5}, "time": {"value": 0.3}, "carbon": {"value": 0.2}},
	  "default_max_nodes": {"value": 8}, "max_serving_units": {"value": 10}, "inference_pricing_horizon_months": {"value": 12},
	  "default_top": {"value": 5}, "max_top": {"value": 100},
	  "relative_tolerance": {"value": 1e-9}, "spot_risk_mention": {"value": 1.0005},
	  "default_max_time_per_output_token_ms": {"value": 40}, "default_max_time_to_first_token_ms": {"value": 450}, "typical_region_quota_gpus": {"value": 256},
	  "typical_region_spot_capacity_gpus": {"value": 64}, "implausible_spot_price_ratio": {"value": 0.15},
	  "trade_off_factors": {"values": [0.5, 2]}, "serverless_break_even_min_duty_cycle": {"value": 0.001}`
	tests := []struct {
		field string
		ok    bool
		want  int
	}{
		{`, "spot_serving_min_spare_units": {"value": 0}}`, true, 0},
		{`, "spot_serving_min_spare_units": {"value": 2}}`, true, 2},
		{`, "spot_serving_min_spare_units": {"value": -1}}`, false, 0},
		{`, "spot_serving_min_spare_units": {"value": 1.5}}`, false, 0},
		{`}`, false, 0}, // missing
	}
	for _, tc := range tests {
		got, err := ParsePolicy([]byte(rest + tc.field))
		switch {
		case tc.ok && err != nil:
			t.Errorf("%s: %v", tc.field, err)
		case !tc.ok && err == nil:
			t.Errorf("%s: accepted", tc.field)
		case tc.ok && got.SpotServingMinSpareUnits != tc.want:
			t.Errorf("%s: parsed %d", tc.field, got.SpotServingMinSpareUnits)
		}
	}
}

// TestParsePolicyTradeOffs: the trade-off factors must be positive,
// ascending and leave out 1 (the request's own row); the break-even
// search's floor must lie in (0, 1).
func TestParsePolicyTradeOffs(t *testing.T) {
	raw, err := catalogPolicyJSON()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		factors string
		minDuty string
		ok      bool
	}{
		{`[0.5, 0.75, 1.5, 2]`, `0.001`, true},
		{`[2]`, `0.5`, true},
		{`[]`, `0.001`, false},
		{`[0.5, 1, 2]`, `0.001`, false},
		{`[2, 0.5]`, `0.001`, false},
		{`[0, 2]`, `0.001`, false},
		{`[0.5, 0.5]`, `0.001`, false},
		{`[0.5, 2]`, `1`, false},
		{`[0.5, 2]`, `0`, false},
	}
	for _, tc := range tests {
		doc := withPolicyField(t, raw, "trade_off_factors", `{"values": `+tc.factors+`}`)
		doc = withPolicyField(t, doc, "serverless_break_even_min_duty_cycle", `{"value": `+tc.minDuty+`}`)
		p, err := ParsePolicy(doc)
		switch {
		case tc.ok && err != nil:
			t.Errorf("%s / %s: %v", tc.factors, tc.minDuty, err)
		case !tc.ok && err == nil:
			t.Errorf("%s / %s: accepted (%v)", tc.factors, tc.minDuty, p.TradeOffFactors)
		}
	}
}

// catalogPolicyJSON is the built-in planner_policy.json.
func catalogPolicyJSON() ([]byte, error) { return catalog.ReadDataFile("planner_policy.json") }

// withPolicyField is a policy document with one top-level field replaced.
func withPolicyField(t *testing.T, raw []byte, name, value string) []byte {
	t.Helper()
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	doc[name] = json.RawMessage(value)
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
