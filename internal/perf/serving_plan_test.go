// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package perf_test

import (
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
)

// TestServingCeilingBoundsEstimates: no estimate of the model serves more
// than GPUs × ServingCeiling, over presets and sizes, dense and mixtures
// of experts, with and without latency limits, on every accelerator that
// runs the precision, at several GPU counts.
func TestServingCeilingBoundsEstimates(t *testing.T) {
	m := model(t)
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	workloads := []perf.Workload{
		{Kind: "inference", ModelParametersB: 70},
		{Kind: "inference", ModelParametersB: 8, MaxTimePerOutputTokenMs: 40, InputTokens: 4096, OutputTokens: 64},
		{Kind: "inference", Model: "deepseek-r1", MaxTimePerOutputTokenMs: 40},
		{Kind: "inference", Model: "qwen3-235b-a22b", MaxTimeToFirstTokenMs: 2000},
		{Kind: "inference", Model: "llama-3.1-8b", Precision: "fp8", OutputTokens: 2048},
		{Kind: "inference", Model: "llama-3.1-70b", SpeculativeDecoding: perf.SpeculativeDecoding{Method: "draft_model", DraftModelParametersB: 1}},
	}
	worst := 0.0
	for _, w := range workloads {
		p, err := m.Prepare(w, perf.ValidateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range cat.Accelerators {
			ceiling := p.ServingCeiling(a)
			for _, gpus := range []int{1, 8, 32, 72, 128} {
				e, err := p.Estimate(perf.Hardware{Accelerator: a, GPUs: gpus, GPUsPerNode: min(gpus, 8)})
				if err != nil || !e.Fits {
					continue
				}
				if r := e.TokensPerSecond / (float64(gpus) * ceiling); r > worst {
					worst = r
				}
				if e.TokensPerSecond > float64(gpus)*ceiling*(1+1e-9) {
					t.Errorf("%s %v on %d× %s: %v tok/s above %d × ceiling %v", w.Model, w.ModelParametersB, gpus, a.ID,
						e.TokensPerSecond, gpus, ceiling)
				}
			}
		}
	}
	t.Logf("the estimates reach at most %.2f of the ceiling", worst)
}

// synthetic is a serving model for PlanServing's tests: output tokens/s of
// a unit of n nodes; it counts the estimates asked for.
type synthetic struct {
	tps   func(n int) float64
	calls []int
}

func (s *synthetic) estimate(n int) (perf.Estimate, error) {
	s.calls = append(s.calls, n)
	return perf.Estimate{Fits: true, TokensPerSecond: s.tps(n)}, nil
}

// TestPlanServing: the deployment with the fewest nodes among replicated
// smallest units, a whole scale-up domain spanning nodes, doublings over a
// fabric while they gain (twice in a row for a mixture of experts), the
// same nodes as one unit, and a single unit shrunk to the fewest nodes
// that meet the target; bounds on nodes and units; no growth without a
// fabric.
func TestPlanServing(t *testing.T) {
	nvl72 := &catalog.Accelerator{ID: "R", NVLinkDomainGPUs: 72}
	board := &catalog.Accelerator{ID: "B", NVLinkDomainGPUs: 8}
	linear := func(perNode float64) func(int) float64 { return func(n int) float64 { return perNode * float64(n) } }
	// superlinear gains up to 16 nodes: a unit of n nodes serves n × (100 + 10 × min(n, 16)).
	growing := func(n int) float64 { return float64(n) * (100 + 10*float64(min(n, 16))) }
	// gains only from 4 nodes on (a wide expert-parallel layout).
	late := func(n int) float64 {
		if n < 4 {
			return 100 * float64(n)
		}
		return 400 * float64(n)
	}
	for _, tc := range []struct {
		name             string
		acc              *catalog.Accelerator
		gpn, min, maxN   int
		fabric           catalog.Fabric
		target           float64
		moe, onlySmall   bool
		tps              func(int) float64
		wantUnit, wantNs int
	}{
		{"one unit meets the target", board, 8, 1, 0, catalog.FabricInfiniBand, 50, false, false, linear(100), 1, 1},
		{"no gain: replicas of the smallest unit", board, 8, 1, 0, catalog.FabricInfiniBand, 1000, false, false, linear(100), 1, 10},
		{"no fabric: no growth", board, 8, 1, 0, catalog.FabricNone, 4000, false, false, growing, 1, 37},
		{"smallest unit only", board, 8, 1, 0, catalog.FabricInfiniBand, 4000, false, true, growing, 1, 37},
		{"growing: doublings while they gain", board, 8, 1, 0, catalog.FabricInfiniBand, 4000, false, false, growing, 16, 1},
		{"growing, a smaller target: shrunk", board, 8, 1, 0, catalog.FabricInfiniBand, 3000, false, false, growing, 14, 1},
		{"dense stops doubling without gain; the whole deployment still shrinks", board, 8, 1, 0, catalog.FabricInfiniBand, 4000, false, false, late, 10, 1},
		{"a mixture of experts looks two doublings on", board, 8, 1, 0, catalog.FabricInfiniBand, 4000, true, false, late, 10, 1},
		{"a rack: the domain as a unit", nvl72, 4, 1, 0, catalog.FabricInfiniBand, 5000,
			false, false, func(n int) float64 { return map[bool]float64{true: 400, false: 100}[n >= 18] * float64(n) }, 18, 1},
		{"max nodes bounds the units tried", board, 8, 1, 16, catalog.FabricInfiniBand, 4000, false, false, growing, 16, 1},
		{"max nodes beyond reach: the smallest units, for the caller to refuse", board, 8, 1, 12, catalog.FabricInfiniBand, 4000, false, false, growing, 1, 37},
	} {
		t.Run(tc.name, func(t *testing.T) {
			syn := &synthetic{tps: tc.tps}
			plan, err := perf.PlanServing(perf.ServingSearch{Hardware: perf.Hardware{Accelerator: tc.acc, GPUsPerNode: tc.gpn, Fabric: tc.fabric},
				MinNodes: tc.min, MaxNodes: tc.maxN, Target: tc.target, Tolerance: 1e-9, MixtureOfExperts: tc.moe,
				SmallestUnitOnly: tc.onlySmall, Estimate: syn.estimate})
			if err != nil {
				t.Fatal(err)
			}
			if plan.UnitNodes != tc.wantUnit || plan.Units != tc.wantNs {
				t.Errorf("plan %d × %d nodes (estimates asked: %v), want %d × %d", plan.Units, plan.UnitNodes, syn.calls, tc.wantNs, tc.wantUnit)
			}
			if got := plan.Unit.TokensPerSecond * float64(plan.Units); got < tc.target {
				t.Errorf("the plan serves %v, below the target %v", got, tc.target)
			}
			// Fewest nodes: no smaller single unit meets the target.
			if tc.fabric != catalog.FabricNone && !tc.onlySmall {
				for n := 1; n < plan.Nodes() && (tc.maxN == 0 || n <= tc.maxN); n++ {
					if tc.tps(n) >= tc.target {
						t.Errorf("%d nodes meet the target, the plan has %d", n, plan.Nodes())
						break
					}
				}
			}
		})
	}
}

// TestPlanServingUnserved: a unit that serves nothing within the limits
// comes back with no units; an estimator error comes back as it is.
func TestPlanServingUnserved(t *testing.T) {
	board := &catalog.Accelerator{ID: "B", NVLinkDomainGPUs: 8}
	plan, err := perf.PlanServing(perf.ServingSearch{Hardware: perf.Hardware{Accelerator: board, GPUsPerNode: 8}, MinNodes: 2, Target: 100,
		Estimate: func(int) (perf.Estimate, error) { return perf.Estimate{Fits: true}, nil }})
	if err != nil || plan.Units != 0 || plan.UnitNodes != 2 {
		t.Errorf("plan %+v, err %v: want no units of 2 nodes", plan, err)
	}
}
