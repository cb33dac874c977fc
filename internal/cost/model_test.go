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
	// Risk factor of one node of the fixture cloud, λ = 0.48/24 = 0.02 per
	// hour, τ = 1 h, R = 0.25 h: (1/0.02 + 0.25)(e^0.02 − 1) = 1.015117
	// (first order: 1 + 0.02 × (0.5 + 0.25) = 1.015).
	cl, _, _, _ := fixtures()
	approx6(t, "spot risk", m.SpotRiskFactor(cl, 1), 1.015117336)
	// A synchronous job on 4 nodes stops at any node's interruption:
	// Λ = 0.08, (12.5 + 0.25)(e^0.08 − 1) = 1.061910.
	approx6(t, "spot risk on 4 nodes", m.SpotRiskFactor(cl, 4), 1.061910113)
	// A 24 h maximum runtime (GCP preemptible) adds one restart a day:
	// λ = 0.02 + 1/24 = 0.061667/h; (16.2162 + 0.25)(e^0.061667 − 1) = 1.047379.
	gcp := *cl
	gcp.Spot.MaxRuntimeHours = 24
	approx6(t, "spot risk with max runtime", m.SpotRiskFactor(&gcp, 1), 1.047378960)
}

// TestSpotRiskGrowsWithNodes: a synchronous job's rework grows with its
// node count, matches the first-order 1 + N·λ·(τ/2 + R) while N·λ·τ is
// small, and exceeds it (interruptions outpacing checkpoints) when not:
// AWS-like λ = 0.01/day at 128 nodes ≈ 1.04, GCP-like 0.1/day ≈ 1.50.
func TestSpotRiskGrowsWithNodes(t *testing.T) {
	t.Parallel()
	m, err := cost.DefaultModel()
	if err != nil {
		t.Fatal(err)
	}
	cl, _, _, _ := fixtures()
	for _, perDay := range []float64{0.01, 0.1, 0.48} {
		c := *cl
		c.Spot.InterruptionsPerDay = perDay
		prev := 1.0
		for _, n := range []int{1, 2, 8, 64, 128, 1024} {
			f := m.SpotRiskFactor(&c, n)
			first := 1 + float64(n)*perDay/24*(m.CheckpointIntervalHours/2+m.RestartHours)
			if f <= prev || f < first-1e-12 {
				t.Errorf("λ %v/day, %d nodes: factor %v (previous %v, first order %v)", perDay, n, f, prev, first)
			}
			if x := float64(n) * perDay / 24 * m.CheckpointIntervalHours; x < 0.01 && f-first > 0.01*(first-1) {
				t.Errorf("λ %v/day, %d nodes: factor %v far from first order %v", perDay, n, f, first)
			}
			prev = f
		}
	}
	aws, gcp := *cl, *cl
	aws.Spot.InterruptionsPerDay, gcp.Spot.InterruptionsPerDay = 0.01, 0.1
	approx6(t, "AWS-like, 128 nodes", m.SpotRiskFactor(&aws, 128), 1.040842425)
	approx6(t, "GCP-like, 128 nodes", m.SpotRiskFactor(&gcp, 128), 1.497285339)
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
