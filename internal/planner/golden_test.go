// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner_test

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/inputerr"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
	"github.com/gpuplan/terraform-provider-gpu/internal/planner"
	"github.com/gpuplan/terraform-provider-gpu/internal/textdiff"
)

// update rewrites the golden files (go test ./internal/planner -run Golden -update).
var update = flag.Bool("update", false, "rewrite the planner's testdata/*.golden files")

// goldenCase is one recommendation on the fixture catalog whose full text
// (candidates and explanations, or the error) is kept in a golden file.
type goldenCase struct {
	name string
	w    perf.Workload
	c    planner.Constraints
	obj  planner.Objective
	// carbonPrice sets the provider's carbon price, USD per tonne.
	carbonPrice float64
}

var (
	train8B  = perf.Workload{Kind: "training", ModelParametersB: 8, TrainingTokensB: 100}
	tune70B  = perf.Workload{Kind: "fine_tuning", ModelParametersB: 70, TrainingTokensB: 1}
	serve8BF = perf.Workload{Kind: "inference", ModelParametersB: 8, TokensPerSecond: 5000}
)

// explanationCases: one answer per objective and the explanation clauses
// (spot rework, spot spares, reserved terms, unknown CO2e, ties).
var explanationCases = []goldenCase{
	{name: "training by cost", w: train8B, obj: planner.ObjectiveCost},
	{name: "training by time", w: train8B, obj: planner.ObjectiveTime},
	{name: "training by carbon", w: train8B, obj: planner.ObjectiveCarbon},
	{name: "training balanced", w: train8B, obj: planner.ObjectiveBalanced},
	{name: "training reserved", w: train8B, c: planner.Constraints{PricingModels: []catalog.PricingModel{catalog.Reserved1Y, catalog.Reserved3Y}}},
	{name: "fine-tuning gdpr", w: tune70B, c: planner.Constraints{Compliance: []string{"gdpr"}}},
	{name: "fine-tuning with a carbon price", w: tune70B, carbonPrice: 100},
	{name: "serving by cost", w: serve8BF, obj: planner.ObjectiveCost},
	{name: "serving on spot", w: serve8BF, c: planner.Constraints{PricingModels: []catalog.PricingModel{catalog.Spot}}},
	{name: "serving by time", w: serve8BF, obj: planner.ObjectiveTime},
	{name: "serving unknown carbon", w: perf.Workload{Kind: "inference", ModelParametersB: 1, TokensPerSecond: 100}, c: planner.Constraints{Clouds: []string{"gamma"}}},
	{name: "serving in china", w: serve8BF, c: planner.Constraints{Compliance: []string{"mlps2"}}},
	{name: "limits stated", w: train8B, c: planner.Constraints{DeadlineHours: 400, MaxTotalCostUSD: 12500.5, MaxHourlyCostUSD: 30,
		MaxCO2eKg: 2000, MaxGPUs: 64, MaxNodes: 8, Countries: []string{"US", "de"}, Accelerators: []string{"X100"}}},
	{name: "serving at a low duty cycle", w: perf.Workload{Kind: "inference", ModelParametersB: 8, TokensPerSecond: 5000, DutyCycle: 0.02}},
	{name: "serving serverless under constant load", w: serve8BF, c: planner.Constraints{PricingModels: []catalog.PricingModel{catalog.Serverless}}},
	{name: "serving at a high duty cycle", w: perf.Workload{Kind: "inference", ModelParametersB: 8, TokensPerSecond: 5000, DutyCycle: 0.95},
		c: planner.Constraints{PricingModels: []catalog.PricingModel{catalog.Serverless, catalog.OnDemand}}},
}

// noCandidateCases: every kind of no-candidate message.
var noCandidateCases = []goldenCase{
	{name: "deadline", w: train8B, c: planner.Constraints{DeadlineHours: 3}},
	{name: "deadline within narrowed limits", w: train8B, c: planner.Constraints{DeadlineHours: 30, MaxNodes: 4, MaxGPUs: 32, Accelerators: []string{"X100"}}},
	{name: "hourly budget", w: train8B, c: planner.Constraints{MaxHourlyCostUSD: 1}},
	{name: "total budget", w: train8B, c: planner.Constraints{MaxTotalCostUSD: 100}},
	{name: "co2e", w: train8B, c: planner.Constraints{MaxCO2eKg: 1}},
	{name: "limits together", w: train8B, c: planner.Constraints{DeadlineHours: 200, MaxHourlyCostUSD: 25}},
	{name: "max gpus", w: train8B, c: planner.Constraints{MaxGPUs: 1}},
	{name: "max nodes", w: perf.Workload{Kind: "training", ModelParametersB: 70, TrainingTokensB: 10}, c: planner.Constraints{MaxNodes: 1}},
	{name: "does not fit", w: perf.Workload{Kind: "training", ModelParametersB: 5000, TrainingTokensB: 10}},
	{name: "no fabric", w: train8B, c: planner.Constraints{Accelerators: []string{"Y10"}}},
	{name: "serverless training", w: train8B, c: planner.Constraints{PricingModels: []catalog.PricingModel{catalog.Serverless}}},
	{name: "latency", w: perf.Workload{Kind: "inference", ModelParametersB: 8, TokensPerSecond: 100, MaxTimePerOutputTokenMs: 5}},
	{name: "precision", w: perf.Workload{Kind: "inference", ModelParametersB: 1, TokensPerSecond: 100, Precision: "fp8"}, c: planner.Constraints{Accelerators: []string{"Z1"}}},
	{name: "geography", w: train8B, c: planner.Constraints{Geographies: []string{"apac"}, Accelerators: []string{"X100"}}},
	{name: "compliance contradiction", w: train8B, c: planner.Constraints{Compliance: []string{"gdpr"}, Clouds: []string{"gamma"}}},
	{name: "unknown names", w: train8B, c: planner.Constraints{Clouds: []string{"alhpa"}, Regions: []string{"eu-3"}, Accelerators: []string{"X10O"}}},
}

func TestGoldenExplanations(t *testing.T) { runGolden(t, "explanations.golden", explanationCases) }

func TestGoldenNoCandidate(t *testing.T) { runGolden(t, "nocandidate.golden", noCandidateCases) }

func runGolden(t *testing.T, file string, cases []goldenCase) {
	p := fixturePlanner(t)
	var b strings.Builder
	for _, tc := range cases {
		req := fixtureRequest(tc.w, tc.c, tc.obj)
		req.Top = 3
		req.CarbonPriceUSDPerTonne = tc.carbonPrice
		res, err := p.Recommend(req)
		fmt.Fprintf(&b, "== %s\n", tc.name)
		writeAnswer(&b, res, err)
		b.WriteString("\n")
	}
	checkGolden(t, file, b.String())
}

// checkGolden compares got with testdata/file, or rewrites the file with
// -update.
func checkGolden(t *testing.T, file, got string) {
	t.Helper()
	path := filepath.Join("testdata", file)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs; run `go test ./internal/planner -run Golden -update` and review the diff.\n%s", path, textdiff.First(got, string(want)))
	}
}

// writeAnswer renders a result or error in a stable, reviewable form.
func writeAnswer(b *strings.Builder, res *planner.Result, err error) {
	var nc *planner.NoCandidateError
	switch {
	case err == nil:
		for i, c := range res.Candidates {
			carbon := ""
			if c.CarbonCostUSD > 0 {
				carbon = fmt.Sprintf(" (+$%.2f carbon)", c.CarbonCostUSD)
			}
			fmt.Fprintf(b, "%d. %s %s %s ×%d %s $%.2f/h $%.2f%s %.2f h\n   %s\n", i+1, c.Cloud, c.Region, c.InstanceType, c.Nodes,
				c.PricingModel, c.HourlyCostUSD, c.EstimatedCostUSD, carbon, c.EstimatedHours, c.Explanation)
		}
		rej := make([]string, len(res.Rejected))
		for i, r := range res.Rejected {
			rej[i] = fmt.Sprintf("%s %d", r.Reason, r.Count)
		}
		fmt.Fprintf(b, "feasible %d; rejected: %s\n", res.Feasible, strings.Join(rej, ", "))
	case errors.As(err, &nc):
		fmt.Fprintf(b, "no candidate [%s] at %s: %s\n", nc.Reason, nc.Path, nc.Detail)
	default:
		for _, e := range inputerr.From(err) {
			fmt.Fprintf(b, "input error at %s (%s): %s\n", e.Path, e.Summary, e.Detail)
		}
		if len(inputerr.From(err)) == 0 {
			fmt.Fprintf(b, "error: %v\n", err)
		}
	}
}
