// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package cost_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/cost"
)

func TestDefaultModel(t *testing.T) {
	t.Parallel()
	m, err := cost.DefaultModel()
	if err != nil {
		t.Fatal(err)
	}
	if m.HoursPerMonth != 730 || m.TermMonths[catalog.Reserved1Y] != 12 || m.TermMonths[catalog.Reserved3Y] != 36 {
		t.Errorf("model = %+v", m)
	}
	// Risk factor of the fixture cloud: 1 + 0.48/24 × (0.5 × 1 + 0.25) = 1.015.
	cl, _, _, _ := fixtures()
	approx(t, "spot risk", m.SpotRiskFactor(cl), 1.015)
	// A 24 h maximum runtime (GCP preemptible) adds one restart a day:
	// 1 + λ = 0.02 + 1/24 = 0.061667/h; 1 + 0.061667 × 0.75 = 1.04625.
	gcp := *cl
	gcp.Spot.MaxRuntimeHours = 24
	approx(t, "spot risk with max runtime", m.SpotRiskFactor(&gcp), 1.04625)
}

// Every constant in cost_model.json carries a source.
func TestCostModelSources(t *testing.T) {
	t.Parallel()
	raw, err := catalog.ReadDataFile("cost_model.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		obj, ok := v.(map[string]any)
		if !ok {
			return
		}
		if _, leaf := obj["value"]; leaf {
			if s, _ := obj["source"].(string); strings.TrimSpace(s) == "" {
				t.Errorf("%s has no source", path)
			}
			return
		}
		for k, c := range obj {
			walk(path+"."+k, c)
		}
	}
	walk("", doc)
}

func TestParseModelRejects(t *testing.T) {
	t.Parallel()
	raw, err := catalog.ReadDataFile("cost_model.json")
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string]string{
		"missing_source":   strings.Replace(string(raw), `"value": 730,`, `"value": 730, "source": "", "x":`, 1),
		"load_factor_over": strings.Replace(string(raw), `"value": 0.80,`, `"value": 1.5,`, 1),
		"not_json":         "{",
		"no_serving_time":  strings.Replace(string(raw), `"spot_serving_replacement_hours"`, `"renamed"`, 1),
	}
	for name, doc := range tests {
		if _, err := cost.ParseModel([]byte(doc)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
