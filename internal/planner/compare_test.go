// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
	"github.com/gpuplan/terraform-provider-gpu/internal/planner"
)

// TestCompare on the fixture catalog: a row per (cloud, pricing model)
// pair, in order; a pair with a candidate has the best one of the whole
// ranking for that pair, and a pair without one says why (the cloud does
// not sell it so, or the constraints leave it nothing).
func TestCompare(t *testing.T) {
	t.Parallel()
	p := fixturePlanner(t)
	w := perf.Workload{Kind: perf.KindTraining, ModelParametersB: 7, TrainingTokensB: 1}
	c := planner.Constraints{Clouds: []string{"alpha", "beta", "delta"},
		PricingModels: []catalog.PricingModel{catalog.Reserved3Y, catalog.Spot, catalog.OnDemand}}
	rows, err := p.Compare(fixtureRequest(w, c, planner.ObjectiveCost))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		cloud, pm, reason string // reason "" = a candidate
	}{
		{"alpha", "on_demand", ""},
		{"alpha", "spot", ""},
		{"alpha", "reserved_3y", "alpha sells no offer as reserved_3y in the catalog."},
		{"beta", "on_demand", ""},
		{"beta", "spot", "beta sells no offer as spot in the catalog."},
		{"beta", "reserved_3y", ""},
		{"delta", "on_demand", "delta sells no offer as on_demand in the catalog."},
		{"delta", "spot", "delta sells no offer as spot in the catalog."},
		{"delta", "reserved_3y", "delta sells no offer as reserved_3y in the catalog."},
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d: %+v", len(rows), len(want), rows)
	}
	// The whole ranking, every deployment: the first candidate of each pair
	// is the pair's best.
	all := fixtureRequest(w, planner.Constraints{Clouds: c.Clouds}, planner.ObjectiveCost)
	all.DistinctBy, all.Top = planner.DistinctDeployment, planner.MaxTop
	res, err := p.Recommend(all)
	if err != nil {
		t.Fatal(err)
	}
	first := map[string]planner.Candidate{}
	for _, cand := range res.Candidates {
		key := cand.Cloud + "/" + string(cand.PricingModel)
		if _, seen := first[key]; !seen {
			first[key] = cand
		}
	}
	for i, r := range rows {
		w := want[i]
		key := w.cloud + "/" + w.pm
		if r.Cloud != w.cloud || string(r.PricingModel) != w.pm {
			t.Fatalf("row %d is %s/%s, want %s", i, r.Cloud, r.PricingModel, key)
		}
		switch {
		case w.reason != "" && (r.Best != nil || r.Reason != w.reason):
			t.Errorf("%s: best %v, reason %q, want %q", key, r.Best, r.Reason, w.reason)
		case w.reason == "" && r.Best == nil:
			t.Errorf("%s: no candidate: %s", key, r.Reason)
		case w.reason == "" && (r.Best.Cloud != w.cloud || string(r.Best.PricingModel) != w.pm ||
			r.Best.InstanceType != first[key].InstanceType || r.Best.Region != first[key].Region ||
			r.Best.Nodes != first[key].Nodes || r.Best.EstimatedCostUSD != first[key].EstimatedCostUSD):
			t.Errorf("%s: best %s %s × %d at %v, the ranking's first %s %s × %d at %v", key, r.Best.Region, r.Best.InstanceType,
				r.Best.Nodes, r.Best.EstimatedCostUSD, first[key].Region, first[key].InstanceType, first[key].Nodes, first[key].EstimatedCostUSD)
		}
	}
}

// TestCompareNarrowsEachPair: each pair keeps the request's other
// constraints (regions narrowed to the pair's cloud), and a pair the
// constraints leave nothing gets the no-candidate reason; the clouds
// default to the provider's allow-list.
func TestCompareNarrowsEachPair(t *testing.T) {
	t.Parallel()
	p := fixturePlanner(t)
	w := perf.Workload{Kind: perf.KindTraining, ModelParametersB: 7, TrainingTokensB: 1}
	req := fixtureRequest(w, planner.Constraints{Regions: []string{"eu-1"}, PricingModels: []catalog.PricingModel{catalog.OnDemand}},
		planner.ObjectiveCost)
	req.AllowedClouds = []string{"alpha", "gamma"}
	rows, err := p.Compare(req)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]string, len(rows))
	for i, r := range rows {
		got[i] = r.Cloud + "/" + string(r.PricingModel) + ": " + r.Reason
		if r.Best != nil {
			got[i] += r.Best.Region
		}
	}
	want := []string{"alpha/on_demand: eu-1", "gamma/on_demand: constraints.regions names no region of gamma."}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("rows %q, want %q", got, want)
	}

	// A deadline no pair meets alone: each row says what binds.
	req = fixtureRequest(w, planner.Constraints{Clouds: []string{"alpha"}, DeadlineHours: 0.05,
		PricingModels: []catalog.PricingModel{catalog.OnDemand}}, planner.ObjectiveCost)
	rows, err = p.Compare(req)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Best != nil || !strings.Contains(rows[0].Reason, "deadline_hours = 0.05: the fastest candidate") {
		t.Errorf("rows %+v, want the deadline's no-candidate reason", rows)
	}
}
