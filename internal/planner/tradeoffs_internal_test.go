// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner

import (
	"errors"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
)

// servingCases are serving workloads on the built-in catalog for the
// trade-off property tests: dense and mixture-of-experts, small and
// large, latency limits binding and not.
var servingCases = []perf.Workload{
	{Kind: perf.KindInference, ModelParametersB: 8, TokensPerSecond: 5000},
	{Kind: perf.KindInference, ModelParametersB: 70, TokensPerSecond: 20000, MaxTimePerOutputTokenMs: 50},
	{Kind: perf.KindInference, Model: "mixtral-8x7b", TokensPerSecond: 10000, MaxTimeToFirstTokenMs: 300},
	{Kind: perf.KindInference, Model: "deepseek-r1", TokensPerSecond: 50000},
}

// builtinPlanner is the planner and model of the built-in catalog.
func builtinPlanner(t *testing.T) (*Planner, *perf.Model) {
	t.Helper()
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	m, err := perf.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(cat, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p, m
}

// prepareScaled prepares w with both p99 latency limits (their defaults
// when unset) scaled by f.
func prepareScaled(t *testing.T, m *perf.Model, w perf.Workload, f float64) *perf.Prepared {
	t.Helper()
	opts := mustPolicy().WorkloadOptions()
	base, err := m.Prepare(w, opts)
	if err != nil {
		t.Fatal(err)
	}
	bw := base.Workload()
	w.MaxTimeToFirstTokenMs, w.MaxTimePerOutputTokenMs = bw.MaxTimeToFirstTokenMs*f, bw.MaxTimePerOutputTokenMs*f
	prep, err := m.Prepare(w, opts)
	if err != nil {
		t.Fatal(err)
	}
	return prep
}

// TestServingTradeOffsMatchRecommend: every serving row's cheapest
// candidate costs what a recommendation of its own (the cost objective,
// the row's limits) finds, on the built-in catalog; a row nothing meets
// is one where that recommendation finds nothing.
func TestServingTradeOffsMatchRecommend(t *testing.T) {
	p, m := builtinPlanner(t)
	opts := mustPolicy().WorkloadOptions()
	for _, w := range servingCases {
		req := Request{Estimator: prepareScaled(t, m, w, 1), TradeOffs: true}
		req.Relimit = func(ttft, tpot float64) (Estimator, error) {
			w := w
			w.MaxTimeToFirstTokenMs, w.MaxTimePerOutputTokenMs = ttft, tpot
			return m.Prepare(w, opts)
		}
		res, err := p.Recommend(req)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.TradeOffs.Rows) != len(mustPolicy().TradeOffFactors)+1 {
			t.Errorf("%s %vB: %d rows", w.Model, w.ModelParametersB, len(res.TradeOffs.Rows))
		}
		for _, row := range res.TradeOffs.Rows {
			q := Request{Estimator: prepareScaled(t, m, w, row.Factor), Objective: ObjectiveCost, Top: 1}
			want, err := p.Recommend(q)
			var none *NoCandidateError
			switch {
			case errors.As(err, &none):
				if row.Best != nil || row.Reason != none.Reason {
					t.Errorf("%s %vB ×%v: got %+v, want none (%s)", w.Model, w.ModelParametersB, row.Factor, row.Best, none.Reason)
				}
			case err != nil:
				t.Fatal(err)
			case row.Best == nil:
				t.Errorf("%s %vB ×%v: none (%s), want $%.2f", w.Model, w.ModelParametersB, row.Factor, row.Reason, want.Best.EstimatedCostUSD)
			case row.Best.EstimatedCostUSD != want.Best.EstimatedCostUSD:
				t.Errorf("%s %vB ×%v: $%.2f (%s %s ×%d), want $%.2f (%s %s ×%d)", w.Model, w.ModelParametersB, row.Factor,
					row.Best.EstimatedCostUSD, row.Best.Cloud, row.Best.InstanceType, row.Best.Nodes,
					want.Best.EstimatedCostUSD, want.Best.Cloud, want.Best.InstanceType, want.Best.Nodes)
			}
		}
	}
}
