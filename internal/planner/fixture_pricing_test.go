// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner_test

import (
	"errors"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
	"github.com/gpuplan/terraform-provider-gpu/internal/planner"
)

// How pricing models win and lose, on the fixture catalog with the fake
// model (fixture_test.go), so a catalog refresh cannot move the answers.

// fixtureBest is the best candidate of a request on the fixture planner.
func fixtureBest(t *testing.T, w perf.Workload, c planner.Constraints) planner.Candidate {
	t.Helper()
	res, err := fixturePlanner(t).Recommend(fixtureRequest(w, c, planner.ObjectiveCost))
	if err != nil {
		t.Fatal(err)
	}
	return res.Best
}

// TestFixtureReservedOnlyForLongUse: reserved pricing bills the whole
// term, so a job of hours never picks it (alpha's a.x8 at $14/h reserved
// is billed 8,760 h), while serving around the clock does.
func TestFixtureReservedOnlyForLongUse(t *testing.T) {
	t.Parallel()
	pms := []catalog.PricingModel{catalog.OnDemand, catalog.Reserved1Y, catalog.Reserved3Y}
	if b := fixtureBest(t, tune70B, planner.Constraints{PricingModels: pms}); b.PricingModel != catalog.OnDemand {
		t.Errorf("a %v h job picked %s", b.EstimatedHours, b.PricingModel)
	}
	serve := perf.Workload{Kind: "inference", ModelParametersB: 70, TokensPerSecond: 20000}
	if b := fixtureBest(t, serve, planner.Constraints{PricingModels: pms}); b.PricingModel == catalog.OnDemand {
		t.Errorf("serving for a year picked on_demand over reservations: %+v", b)
	}
}

// TestFixtureServerlessWinsAtLowDutyCycle: a serverless offer (delta's
// fn-x100, billed for the busy share and a 60 s idle tail) wins a load
// that is there 2% of the time and loses a constant one; dedicated
// instances cost the same whatever the duty cycle (billed around the
// clock), serverless more as the duty cycle grows.
func TestFixtureServerlessWinsAtLowDutyCycle(t *testing.T) {
	t.Parallel()
	best := func(duty float64, pms []catalog.PricingModel) planner.Candidate {
		return fixtureBest(t, withDuty(serve8BF, duty), planner.Constraints{PricingModels: pms})
	}
	low, constant := best(0.02, nil), best(1, nil)
	if low.PricingModel != catalog.Serverless {
		t.Errorf("duty 0.02: best is %s %s (%s), want a serverless offer", low.Cloud, low.InstanceType, low.PricingModel)
	}
	if constant.PricingModel == catalog.Serverless {
		t.Errorf("duty 1: best is serverless %s %s, want a dedicated instance", constant.Cloud, constant.InstanceType)
	}
	dedicated := []catalog.PricingModel{catalog.OnDemand, catalog.Spot, catalog.Reserved1Y, catalog.Reserved3Y, catalog.CapacityBlock}
	if a, b := best(0.02, dedicated), best(1, dedicated); a.EstimatedCostUSD != b.EstimatedCostUSD {
		t.Errorf("dedicated: $%v a month at duty 0.02, $%v at 1: instances are billed around the clock", a.EstimatedCostUSD, b.EstimatedCostUSD)
	}
	prev := 0.0
	for _, d := range []float64{0.01, 0.05, 0.2, 0.6, 1} {
		c := best(d, []catalog.PricingModel{catalog.Serverless})
		if !(c.EstimatedCostUSD > prev) {
			t.Errorf("serverless at duty %v: $%v, not above $%v at the lower duty", d, c.EstimatedCostUSD, prev)
		}
		prev = c.EstimatedCostUSD
	}
}

// TestFixtureServerlessRejectedForJobs: training and fine-tuning reject
// every serverless offer (serverless_inference_only) and none is a
// candidate.
func TestFixtureServerlessRejectedForJobs(t *testing.T) {
	t.Parallel()
	p := fixturePlanner(t)
	for _, w := range []perf.Workload{train8B, tune70B} {
		res, err := p.Recommend(fixtureRequest(w, planner.Constraints{}, planner.ObjectiveCost))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := rejectedFor(res, planner.ReasonServerlessInferenceOnly), len(p.Catalog().Serverless); got != want {
			t.Errorf("%s: serverless_inference_only %d, want every serverless offer (%d)", w.Kind, got, want)
		}
		for _, c := range res.Candidates {
			if c.PricingModel == catalog.Serverless {
				t.Errorf("%s: serverless candidate %s %s", w.Kind, c.Cloud, c.InstanceType)
			}
		}
	}
}

// TestFixtureSpotServingRespectsSizeLimits: the spares count against max_nodes and
// max_gpus; when only the spares break the limit the error names it.
func TestFixtureSpotServingRespectsSizeLimits(t *testing.T) {
	t.Parallel()
	p := fixturePlanner(t)
	tests := []struct {
		name  string
		c     planner.Constraints
		field string
	}{
		{"max_nodes", planner.Constraints{MaxNodes: 1, PricingModels: []catalog.PricingModel{catalog.Spot}}, "constraints.max_nodes"},
		{"max_gpus", planner.Constraints{MaxGPUs: 1, Accelerators: []string{"Y10"}, PricingModels: []catalog.PricingModel{catalog.Spot}}, "constraints.max_gpus"},
	}
	w := perf.Workload{Kind: "inference", ModelParametersB: 8, TokensPerSecond: 100}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// On demand, the target fits the limit ...
			odc := tc.c
			odc.PricingModels = []catalog.PricingModel{catalog.OnDemand}
			if _, err := p.Recommend(fixtureRequest(w, odc, planner.ObjectiveCost)); err != nil {
				t.Fatalf("on demand: %v", err)
			}
			// ... on spot, the spare unit does not.
			_, err := p.Recommend(fixtureRequest(w, tc.c, planner.ObjectiveCost))
			var nc *planner.NoCandidateError
			if !errors.As(err, &nc) || nc.Path.String() != tc.field {
				t.Fatalf("spot: err = %v, want a no-candidate error naming %s", err, tc.field)
			}
			// Spot allowed with on demand: every candidate keeps the limit.
			all := tc.c
			all.PricingModels = nil
			res, err := p.Recommend(fixtureRequest(w, all, planner.ObjectiveCost))
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range res.Candidates {
				if (all.MaxNodes > 0 && c.Nodes > all.MaxNodes) || (all.MaxGPUs > 0 && c.TotalGPUs > all.MaxGPUs) || c.PricingModel == catalog.Spot {
					t.Errorf("%s %s: %d nodes, %d GPUs break the limit", c.InstanceType, c.PricingModel, c.Nodes, c.TotalGPUs)
				}
			}
		})
	}
}
