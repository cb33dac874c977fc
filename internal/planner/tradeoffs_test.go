// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
	"github.com/gpuplan/terraform-provider-gpu/internal/planner"
)

// fakeRelimit prepares the fake model of w under other latency limits.
func fakeRelimit(w perf.Workload) planner.Relimit {
	return func(ttft, tpot float64) (planner.Estimator, error) {
		w.MaxTimeToFirstTokenMs, w.MaxTimePerOutputTokenMs = ttft, tpot
		return fake(w), nil
	}
}

// modelRelimit prepares w on the benchmark model m under other latency
// limits, as gpu_recommendation's Relimit does.
func modelRelimit(m *perf.Model, w perf.Workload, opts perf.ValidateOptions) planner.Relimit {
	return func(ttft, tpot float64) (planner.Estimator, error) {
		w.MaxTimeToFirstTokenMs, w.MaxTimePerOutputTokenMs = ttft, tpot
		return m.Prepare(w, opts)
	}
}

// tradeOffs recommends with the trade-offs of one request.
func tradeOffs(t *testing.T, p *planner.Planner, req planner.Request, w perf.Workload) (*planner.Result, *planner.TradeOffs) {
	t.Helper()
	req.TradeOffs, req.Relimit = true, fakeRelimit(w)
	res, err := p.Recommend(req)
	if err != nil {
		t.Fatal(err)
	}
	if res.TradeOffs == nil {
		t.Fatal("no trade-offs")
	}
	return res, res.TradeOffs
}

// cheapestAt is an independent answer to one row: the cost objective's
// best under the changed deadline (nil when nothing meets it).
func cheapestAt(t *testing.T, p *planner.Planner, req planner.Request, deadline float64) *planner.Candidate {
	t.Helper()
	req.Objective, req.Constraints.DeadlineHours = planner.ObjectiveCost, deadline
	res, err := p.Recommend(req)
	var none *planner.NoCandidateError
	if errors.As(err, &none) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return &res.Best
}

// TestTradeOffsDeadlines: each row is the cheapest answer at its deadline
// (as a recommendation of its own finds), within it, and no dearer than a
// tighter row; the request's own row is its best under the cost objective.
func TestTradeOffsDeadlines(t *testing.T) {
	p := fixturePlanner(t)
	pol, err := planner.BuiltinPolicy()
	if err != nil {
		t.Fatal(err)
	}
	for _, obj := range []planner.Objective{planner.ObjectiveCost, planner.ObjectiveTime} {
		req := fixtureRequest(train8B, planner.Constraints{DeadlineHours: 200}, obj)
		res, to := tradeOffs(t, p, req, train8B)
		if to.Inference || to.BaseFromBest || to.BreakEven != nil || len(to.Rows) != len(pol.TradeOffFactors)+1 {
			t.Fatalf("%s: %+v", obj, to)
		}
		prev := -1.0
		for _, r := range to.Rows {
			if r.DeadlineHours != 200*r.Factor {
				t.Errorf("%s: factor %v tried deadline %v", obj, r.Factor, r.DeadlineHours)
			}
			want := cheapestAt(t, p, req, r.DeadlineHours)
			switch {
			case (want == nil) != (r.Best == nil):
				t.Errorf("%s ×%v: got %v, a recommendation of its own %v", obj, r.Factor, r.Best, want)
			case want == nil:
				if r.Reason != planner.ReasonDeadline {
					t.Errorf("%s ×%v: reason %q", obj, r.Factor, r.Reason)
				}
			case r.Best.EstimatedCostUSD != want.EstimatedCostUSD || r.Best.EstimatedHours > r.DeadlineHours:
				t.Errorf("%s ×%v: $%v in %v h, want $%v", obj, r.Factor, r.Best.EstimatedCostUSD, r.Best.EstimatedHours, want.EstimatedCostUSD)
			case prev >= 0 && r.Best.EstimatedCostUSD > prev:
				t.Errorf("%s ×%v: a looser deadline costs more ($%v > $%v)", obj, r.Factor, r.Best.EstimatedCostUSD, prev)
			}
			if r.Best != nil {
				prev = r.Best.EstimatedCostUSD
			}
			if r.Factor == 1 && obj == planner.ObjectiveCost && r.Best.EstimatedCostUSD != res.Best.EstimatedCostUSD {
				t.Errorf("own row $%v, best $%v", r.Best.EstimatedCostUSD, res.Best.EstimatedCostUSD)
			}
		}
	}
}

// TestTradeOffsWithoutDeadline: a job without a deadline tries fractions
// of the best's hours; under the cost objective only tighter ones (its
// best is already the cheapest), under time looser ones too.
func TestTradeOffsWithoutDeadline(t *testing.T) {
	p := fixturePlanner(t)
	for _, obj := range []planner.Objective{planner.ObjectiveCost, planner.ObjectiveTime} {
		req := fixtureRequest(train8B, planner.Constraints{}, obj)
		res, to := tradeOffs(t, p, req, train8B)
		if !to.BaseFromBest {
			t.Fatalf("%s: base not from the best", obj)
		}
		looser := false
		for _, r := range to.Rows {
			looser = looser || r.Factor > 1
			if want := res.Best.EstimatedHours * r.Factor; r.Factor != 1 && r.DeadlineHours != want {
				t.Errorf("%s ×%v: deadline %v, want %v", obj, r.Factor, r.DeadlineHours, want)
			}
			if r.Factor == 1 && (r.DeadlineHours != 0 || r.Best == nil) {
				t.Errorf("%s: own row %+v", obj, r)
			}
		}
		if looser != (obj == planner.ObjectiveTime) {
			t.Errorf("%s: looser rows %v", obj, looser)
		}
	}
}

// TestTradeOffsLatency: serving rows scale both latency limits; a looser
// limit never costs more.
func TestTradeOffsLatency(t *testing.T) {
	p := fixturePlanner(t)
	w := serve8BF
	w.MaxTimeToFirstTokenMs, w.MaxTimePerOutputTokenMs = 40, 15
	_, to := tradeOffs(t, p, fixtureRequest(w, planner.Constraints{}, ""), w)
	if !to.Inference || len(to.Rows) < 3 {
		t.Fatalf("%+v", to)
	}
	prev := -1.0
	for _, r := range to.Rows {
		if r.MaxTimeToFirstTokenMs != 40*r.Factor || r.MaxTimePerOutputTokenMs != 15*r.Factor {
			t.Errorf("×%v: limits %v / %v", r.Factor, r.MaxTimeToFirstTokenMs, r.MaxTimePerOutputTokenMs)
		}
		if r.Best == nil {
			continue
		}
		if r.Best.TPOTMs > r.MaxTimePerOutputTokenMs {
			t.Errorf("×%v: %v ms per token beyond %v", r.Factor, r.Best.TPOTMs, r.MaxTimePerOutputTokenMs)
		}
		if prev >= 0 && r.Best.EstimatedCostUSD > prev {
			t.Errorf("×%v: a looser limit costs more", r.Factor)
		}
		prev = r.Best.EstimatedCostUSD
	}
}

// TestServerlessBreakEven checks the break-even against recommendations
// at duty cycles either side of it: below it the cheapest serverless
// deployment costs less than the cheapest dedicated one, above it not.
func TestServerlessBreakEven(t *testing.T) {
	p := fixturePlanner(t)
	_, to := tradeOffs(t, p, fixtureRequest(serve8BF, planner.Constraints{}, ""), serve8BF)
	be := to.BreakEven
	if be == nil || !(be.DutyCycle > 0 && be.DutyCycle < 1) || be.Serverless.PricingModel != catalog.Serverless ||
		be.Dedicated.PricingModel == catalog.Serverless {
		t.Fatalf("break-even %+v", be)
	}
	cheapest := func(duty float64, pms ...catalog.PricingModel) float64 {
		w := serve8BF
		w.DutyCycle = duty
		res, err := p.Recommend(fixtureRequest(w, planner.Constraints{PricingModels: pms}, ""))
		if err != nil {
			t.Fatal(err)
		}
		return res.Best.EstimatedCostUSD
	}
	dedicated := cheapest(1, catalog.OnDemand, catalog.Reserved1Y, catalog.Reserved3Y, catalog.CapacityBlock)
	if d := be.ShownDutyCycle(); !(cheapest(d, catalog.Serverless) < dedicated) {
		t.Errorf("at %v serverless is not cheaper than $%v", d, dedicated)
	}
	if d := be.DutyCycle * 1.01; !(cheapest(d, catalog.Serverless) >= dedicated) {
		t.Errorf("at %v serverless is still cheaper than $%v", d, dedicated)
	}
	// Allowing no serverless (or nothing else): no break-even.
	for _, pms := range [][]catalog.PricingModel{{catalog.OnDemand}, {catalog.Serverless}} {
		if _, to := tradeOffs(t, p, fixtureRequest(serve8BF, planner.Constraints{PricingModels: pms}, ""), serve8BF); to.BreakEven != nil {
			t.Errorf("%v: break-even %+v", pms, to.BreakEven)
		}
	}
}

// TestGoldenTradeOffs keeps the trade-off lines of the summary in
// testdata/tradeoffs.golden (-update rewrites it).
func TestGoldenTradeOffs(t *testing.T) {
	p := fixturePlanner(t)
	serve := serve8BF
	serve.MaxTimeToFirstTokenMs, serve.MaxTimePerOutputTokenMs = 40, 15
	cases := []struct {
		name string
		w    perf.Workload
		c    planner.Constraints
	}{
		{"deadline", train8B, planner.Constraints{DeadlineHours: 200}},
		{"no deadline", train8B, planner.Constraints{}},
		{"serving", serve, planner.Constraints{}},
	}
	var b strings.Builder
	for _, tc := range cases {
		req := fixtureRequest(tc.w, tc.c, "")
		req.Top = 2
		res, to := tradeOffs(t, p, req, tc.w)
		fmt.Fprintf(&b, "== %s\n%s\n", tc.name, planner.Summary(res, planner.SummaryOptions{Inference: to.Inference}))
	}
	checkGolden(t, "tradeoffs.golden", b.String())
}

// TestTradeOffsLooserNeverDearerBuiltin: over the built-in catalog, for
// dense models from 8B to 405B at tight and loose limits, restricted to
// one accelerator or not, a trade-off row at looser latency limits never
// costs more than the row at tighter ones (multi-node deployments, where
// disaggregated prefill and decode compete, included).
func TestTradeOffsLooserNeverDearerBuiltin(t *testing.T) {
	p, m := builtin(t)
	pairs := 0
	for _, acc := range []string{"", "MI300X", "A100-80GB", "H100", "B200", "L40S"} {
		for _, params := range []float64{8, 32, 70, 405} {
			for _, tps := range []float64{2000, 20000, 100000} {
				for _, lim := range [][2]float64{{200, 20}, {500, 50}, {10000, 30}} {
					w := perf.Workload{Kind: "inference", ModelParametersB: params, TokensPerSecond: tps,
						MaxTimeToFirstTokenMs: lim[0], MaxTimePerOutputTokenMs: lim[1]}
					c := planner.Constraints{}
					if acc != "" {
						c.Accelerators = []string{acc}
					}
					if acc == "MI300X" {
						c.SoftwareStacks = []string{"rocm"}
					}
					prep, err := m.Prepare(w, perf.ValidateOptions{})
					if err != nil {
						t.Fatal(err)
					}
					r, err := p.Recommend(planner.Request{Estimator: prep, Constraints: c, TradeOffs: true,
						Relimit: modelRelimit(m, w, perf.ValidateOptions{})})
					if err != nil {
						continue // nothing meets the limits on this accelerator
					}
					var prev *planner.TradeOff
					for i := range r.TradeOffs.Rows {
						row := &r.TradeOffs.Rows[i]
						if row.Best == nil {
							continue
						}
						if prev != nil {
							pairs++
							if row.Best.EstimatedCostUSD > prev.Best.EstimatedCostUSD*(1+1e-9) {
								t.Errorf("%q %vB at %v tok/s, limits %v: ×%v costs $%.0f (%s %s ×%d) > $%.0f at ×%v (%s %s ×%d)",
									acc, params, tps, lim, row.Factor, row.Best.EstimatedCostUSD, row.Best.Cloud, row.Best.InstanceType,
									row.Best.Nodes, prev.Best.EstimatedCostUSD, prev.Factor, prev.Best.Cloud, prev.Best.InstanceType, prev.Best.Nodes)
							}
						}
						prev = row
					}
				}
			}
		}
	}
	if pairs < 200 {
		t.Errorf("only %d pairs of rows compared", pairs)
	}
}
