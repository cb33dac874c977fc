// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/inputerr"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
	"github.com/gpuplan/terraform-provider-gpu/internal/planner"
)

// TestNoPanicOnRandomInput throws random (often absurd) workloads and
// constraints at the planner: every answer is a result, an inputerr.List or a
// *NoCandidateError naming a field, never a panic.
func TestNoPanicOnRandomInput(t *testing.T) {
	p, _ := builtin(t)
	rng := rand.New(rand.NewPCG(1, 2))
	valid := false
	pick := func(ss []string) []string {
		if rng.IntN(3) > 0 {
			return nil
		}
		out := []string{}
		for range 1 + rng.IntN(3) {
			n := len(ss)
			if valid {
				n-- // the last name of each list is invalid
			}
			out = append(out, ss[rng.IntN(n)])
		}
		return out
	}
	num := func() float64 {
		switch k := rng.IntN(12); {
		case k == 0 && !valid:
			return math.NaN()
		case k == 1 && !valid:
			return math.Inf(1)
		case k == 2 && !valid:
			return -1
		case k < 9:
			return 0
		}
		return math.Exp(rng.Float64()*20 - 5)
	}
	kinds := []string{"training", "fine_tuning", "inference", "inference", "bogus"}
	var nOK, nInput, nNone int
	for i := range 300 {
		valid = rng.IntN(10) < 7 // mostly well-formed input, to exercise the engine
		w := perf.Workload{Kind: kinds[rng.IntN(len(kinds)-1)], ModelParametersB: math.Exp(rng.Float64()*8 - 2),
			TrainingTokensB: math.Exp(rng.Float64() * 10), TokensPerSecond: num(), MaxTimePerOutputTokenMs: num(), MaxTimeToFirstTokenMs: num()}
		if errs := w.Validate(perf.ValidateOptions{RequireTokensPerSecond: true}); len(errs) > 0 {
			w.MaxTimePerOutputTokenMs, w.MaxTimeToFirstTokenMs = 0, 0
			if w.TokensPerSecond < 0 || math.IsNaN(w.TokensPerSecond) || math.IsInf(w.TokensPerSecond, 0) {
				w.TokensPerSecond = 100
			}
		}
		pms := []catalog.PricingModel{}
		for _, s := range pick([]string{"on_demand", "spot", "reserved_1y", "reserved_3y", "weekly"}) {
			pms = append(pms, catalog.PricingModel(s))
		}
		if len(pms) == 0 {
			pms = nil
		}
		c := planner.Constraints{
			Clouds:      pick([]string{"aws", "gcp", "azure", "oci", "lambda", "nebius", "runpod", "awss"}),
			Regions:     pick([]string{"us-east-1", "europe-west4", "eastus", "cn-north-1", "nowhere-1"}),
			Geographies: pick([]string{"us", "eu", "cn", "apac", "mars"}), Accelerators: pick([]string{"H100", "a100-80gb", "T4", "TPU-V5E", "H1000"}),
			PricingModels: pms, Compliance: pick([]string{"gdpr", "mlps2", "hipaa", "fedramp_high", "sox"}),
			MaxHourlyCostUSD: num(), MaxTotalCostUSD: num(), DeadlineHours: num(), MaxCO2eKg: num(),
			MaxGPUs: max(rng.IntN(40)-2, 0), MaxNodes: max(rng.IntN(20)-2, 0), MinGPUMemoryGB: num(), MinNetworkGbps: num(),
		}
		req := planner.Request{Constraints: c, Objective: []planner.Objective{"", "cost", "time", "carbon", "balanced", "fast"}[rng.IntN(6)], Top: rng.IntN(120) - 5}
		prep, err := theModl.Prepare(w, perf.ValidateOptions{})
		if err != nil {
			t.Fatalf("case %d: the workload was made valid: %v", i, err)
		}
		req.Estimator = prep
		res, err := p.Recommend(req)
		var ie inputerr.List
		var nc *planner.NoCandidateError
		switch {
		case err == nil:
			nOK++
			if len(res.Candidates) == 0 || res.Best.Explanation == "" {
				t.Fatalf("case %d: empty result without error", i)
			}
		case errors.As(err, &ie):
			nInput++
			if ie[0].Path.IsEmpty() || ie[0].Detail == "" {
				t.Fatalf("case %d: input error without field: %v", i, err)
			}
		case errors.As(err, &nc):
			nNone++
			if nc.Detail == "" {
				t.Fatalf("case %d: no-candidate error without detail", i)
			}
		default:
			t.Fatalf("case %d: unexpected error %T %v", i, err, err)
		}
	}
	t.Logf("results %d, input errors %d, no candidate %d", nOK, nInput, nNone)
}
