// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
	"github.com/gpuplan/terraform-provider-gpu/internal/planner"
)

// TestGoldenSummary keeps the summary tables of fixture recommendations
// (a job, a serving deployment, unknown CO2e, one candidate) in
// testdata/summary.golden (-update rewrites it).
func TestGoldenSummary(t *testing.T) {
	p := fixturePlanner(t)
	cases := []struct {
		goldenCase
		top int
	}{
		{goldenCase{name: "training by cost", w: train8B, obj: planner.ObjectiveCost}, 3},
		{goldenCase{name: "training by time", w: train8B, obj: planner.ObjectiveTime}, 3},
		{goldenCase{name: "serving by cost", w: serve8BF}, 3},
		{goldenCase{name: "serving unknown carbon", w: perf.Workload{Kind: "inference", ModelParametersB: 1, TokensPerSecond: 100},
			c: planner.Constraints{Clouds: []string{"gamma"}}}, 3},
		{goldenCase{name: "one candidate", w: train8B}, 1},
	}
	var b strings.Builder
	for _, tc := range cases {
		req := fixtureRequest(tc.w, tc.c, tc.obj)
		req.Top = tc.top
		res, err := p.Recommend(req)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got := planner.Summary(res, planner.SummaryOptions{Inference: tc.w.Kind == "inference", Objective: tc.obj})
		checkSummaryLines(t, tc.name, got, res)
		fmt.Fprintf(&b, "== %s\n%s\n", tc.name, got)
	}
	checkGolden(t, "summary.golden", b.String())
}

// checkSummaryLines checks what holds for any summary: a title, a header,
// a rule, then exactly one line per candidate in rank order naming its
// cloud, region and instance type, the first (only) one marked best.
func checkSummaryLines(t *testing.T, name, got string, res *planner.Result) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if len(lines) != 3+len(res.Candidates) {
		t.Fatalf("%s: %d lines for %d candidates:\n%s", name, len(lines), len(res.Candidates), got)
	}
	for i, c := range res.Candidates {
		l := lines[3+i]
		for _, want := range []string{c.Cloud, c.Region, fmt.Sprintf("%s × %d", c.InstanceType, c.Nodes), string(c.PricingModel)} {
			if !strings.Contains(l, want) {
				t.Errorf("%s: line of candidate %d lacks %q: %q", name, i+1, want, l)
			}
		}
		if marked := strings.HasPrefix(l, planner.BestMarker); marked != (i == 0) {
			t.Errorf("%s: line of candidate %d marked best = %v: %q", name, i+1, marked, l)
		}
	}
}
