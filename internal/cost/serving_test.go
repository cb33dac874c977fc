// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package cost_test

import (
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/cost"
)

// TestSpotServingSpares: the spare serving units of a spot serving fleet,
// derived by hand from the built-in spot_serving_replacement_hours T = 0.25 h.
func TestSpotServingSpares(t *testing.T) {
	t.Parallel()
	m, err := cost.DefaultModel()
	if err != nil {
		t.Fatal(err)
	}
	if m.ServingReplacementHours != 0.25 {
		t.Fatalf("spot_serving_replacement_hours = %v; the expectations below assume 0.25", m.ServingReplacementHours)
	}
	cl, _, _, _ := fixtures() // λ = 0.48 / 24 = 0.02 per hour: λ·T = 0.005
	busy := *cl               // λ = 4.8 / 24 = 0.2 per hour: λ·T = 0.05
	busy.Spot.InterruptionsPerDay = 4.8
	calm := *cl // λ = 0: no interruption, only the policy floor
	calm.Spot.InterruptionsPerDay = 0
	tests := []struct {
		name                      string
		cl                        *catalog.Cloud
		units, perUnit, minSpares int
		want                      int
	}{
		// 3 / (1 − 0.005) = 3.015 → 4 units: 1 spare.
		{"one_unit_down_covered", cl, 3, 1, 1, 1},
		// 300 / 0.995 = 301.51 → 302: 2 spares (expected 1.51 units down).
		{"large_fleet", cl, 300, 1, 1, 2},
		// Units of 4 instances are down 4 × 0.005 = 0.02: 300 / 0.98 = 306.12 → 307: 7 spares.
		{"multi_node_units", cl, 300, 4, 1, 7},
		// 100 / (1 − 0.05) = 105.26 → 106: 6 spares.
		{"busy_cloud", &busy, 100, 1, 1, 6},
		// The policy floor wins over a small expectation.
		{"policy_floor", cl, 3, 1, 2, 2},
		// No interruptions: the floor only; with a floor of 0, no spare.
		{"no_interruptions", &calm, 50, 2, 1, 1},
		{"no_interruptions_no_floor", &calm, 50, 2, 0, 0},
		// λ > 0 always asks for a spare, even with a floor of 0.
		{"expectation_without_floor", cl, 1, 1, 0, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := m.SpotServingSpares(tc.cl, tc.units, tc.perUnit, tc.minSpares)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("SpotServingSpares(units %d, per unit %d, floor %d) = %d, want %d", tc.units, tc.perUnit, tc.minSpares, got, tc.want)
			}
			// The fleet with its spares keeps the units up on average.
			total := float64(tc.units + got)
			if down := total * float64(tc.perUnit) * m.SpotServingDownFraction(tc.cl); total-down < float64(tc.units) {
				t.Errorf("%v units with %v down on average serve less than %d", total, down, tc.units)
			}
		})
	}
}

func TestSpotServingSparesErrors(t *testing.T) {
	t.Parallel()
	m, err := cost.DefaultModel()
	if err != nil {
		t.Fatal(err)
	}
	cl, _, _, _ := fixtures()
	stormy := *cl // λ·T = 96/24 × 0.25 = 1: a unit is never up
	stormy.Spot.InterruptionsPerDay = 96
	for name, f := range map[string]func() (int, error){
		"no_units":       func() (int, error) { return m.SpotServingSpares(cl, 0, 1, 1) },
		"no_nodes":       func() (int, error) { return m.SpotServingSpares(cl, 1, 0, 1) },
		"negative_floor": func() (int, error) { return m.SpotServingSpares(cl, 1, 1, -1) },
		"always_down":    func() (int, error) { return m.SpotServingSpares(&stormy, 1, 1, 1) },
	} {
		if n, err := f(); err == nil {
			t.Errorf("%s: accepted (%d spares)", name, n)
		}
	}
}

// TestSpotServingVsTrainingBilling: on spot, a serving month bills the
// hours (spares are extra nodes), a training job the risk-adjusted hours.
func TestSpotServingVsTrainingBilling(t *testing.T) {
	t.Parallel()
	cl, rg, acc, of := fixtures()
	m, err := cost.DefaultModel()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		kind       string
		wantBilled float64
	}{
		{"training", 730 * m.SpotRiskFactor(cl, 4)},
		{"fine_tuning", 730 * m.SpotRiskFactor(cl, 4)},
		{"inference", 730},
	} {
		r, err := m.JobCost(cost.JobInput{Offer: of, Cloud: cl, Region: rg, Accelerator: acc, Nodes: 4, Hours: 730,
			PricingModel: catalog.Spot, Workload: tc.kind})
		if err != nil {
			t.Fatal(err)
		}
		approx(t, tc.kind+" billed hours", r.BilledHours, tc.wantBilled)
		approx(t, tc.kind+" compute", r.ComputeUSD, 4*tc.wantBilled*12)
	}
}
