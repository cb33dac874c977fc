// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner_test

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/inputerr"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
	"github.com/gpuplan/terraform-provider-gpu/internal/planner"
)

// TestConstraintsHold: every returned candidate satisfies every constraint
// of the request.
func TestConstraintsHold(t *testing.T) {
	p, _ := builtin(t)
	cat := p.Catalog()
	tests := []struct {
		name string
		w    perf.Workload
		c    planner.Constraints
		obj  planner.Objective
	}{
		{"clouds", llama70BLoRA, planner.Constraints{Clouds: []string{"gcp", "azure"}}, planner.ObjectiveCost},
		{"regions", llama70BLoRA, planner.Constraints{Regions: []string{"us-east-1", "europe-west4"}}, planner.ObjectiveTime},
		{"geographies", serve8B, planner.Constraints{Geographies: []string{"eu"}}, planner.ObjectiveCost},
		{"accelerators by alias", llama8BPre, planner.Constraints{Accelerators: []string{"h100-sxm", "A100-80GB"}}, planner.ObjectiveCost},
		{"pricing models", llama8BPre, planner.Constraints{PricingModels: []catalog.PricingModel{catalog.OnDemand}}, planner.ObjectiveBalanced},
		{"hourly budget", llama8BPre, planner.Constraints{MaxHourlyCostUSD: 30}, planner.ObjectiveTime},
		{"total budget", llama8BPre, planner.Constraints{MaxTotalCostUSD: 9000}, planner.ObjectiveTime},
		{"deadline", llama8BPre, planner.Constraints{DeadlineHours: 48}, planner.ObjectiveCost},
		{"max gpus", llama70BLoRA, planner.Constraints{MaxGPUs: 8}, planner.ObjectiveTime},
		{"max nodes", llama8BPre, planner.Constraints{MaxNodes: 2}, planner.ObjectiveTime},
		{"min gpu memory", serve8B, planner.Constraints{MinGPUMemoryGB: 80}, planner.ObjectiveCost},
		{"min network", llama8BPre, planner.Constraints{MinNetworkGbps: 3200}, planner.ObjectiveCost},
		{"gdpr", serve70B, planner.Constraints{Compliance: []string{"gdpr"}}, planner.ObjectiveCarbon},
		{"mlps2", serve8B, planner.Constraints{Compliance: []string{"mlps2"}}, planner.ObjectiveCost},
		{"fedramp", llama70BLoRA, planner.Constraints{Compliance: []string{"fedramp_high"}}, planner.ObjectiveCost},
		{"max co2e", llama8BPre, planner.Constraints{MaxCO2eKg: 2000}, planner.ObjectiveCost},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := request(t, tc.w, tc.c, tc.obj)
			req.Top = planner.MaxTop
			res, err := p.Recommend(req)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Candidates) == 0 || !reflect.DeepEqual(res.Best, res.Candidates[0]) {
				t.Fatal("best must be candidates[0]")
			}
			c := tc.c
			for i, x := range res.Candidates {
				r, _ := cat.Region(x.Cloud, x.Region)
				o := offerOf(t, cat, x)
				fail := func(format string, args ...any) {
					t.Errorf("candidate %d %s/%s/%s: %s", i, x.Cloud, x.Region, x.InstanceType, fmt.Sprintf(format, args...))
				}
				switch {
				case c.Clouds != nil && !slices.Contains(c.Clouds, x.Cloud):
					fail("cloud outside %v", c.Clouds)
				case c.Regions != nil && !slices.Contains(c.Regions, x.Region):
					fail("region outside %v", c.Regions)
				case c.Geographies != nil && !slices.Contains(c.Geographies, r.Geography):
					fail("geography %s", r.Geography)
				case c.Accelerators != nil && x.Accelerator != "H100" && x.Accelerator != "A100-80GB":
					fail("accelerator %s", x.Accelerator)
				case c.PricingModels != nil && !slices.Contains(c.PricingModels, x.PricingModel):
					fail("pricing model %s", x.PricingModel)
				case c.MaxHourlyCostUSD > 0 && x.HourlyCostUSD > c.MaxHourlyCostUSD:
					fail("hourly %v", x.HourlyCostUSD)
				case c.MaxTotalCostUSD > 0 && x.EstimatedCostUSD > c.MaxTotalCostUSD:
					fail("total %v", x.EstimatedCostUSD)
				case c.DeadlineHours > 0 && x.EstimatedHours > c.DeadlineHours:
					fail("hours %v", x.EstimatedHours)
				case c.MaxGPUs > 0 && x.TotalGPUs > c.MaxGPUs:
					fail("gpus %d", x.TotalGPUs)
				case c.MaxNodes > 0 && x.Nodes > c.MaxNodes:
					fail("nodes %d", x.Nodes)
				case c.MinGPUMemoryGB > 0 && o.GPUMemoryGB/float64(o.GPUs) < c.MinGPUMemoryGB:
					fail("memory %v", o.GPUMemoryGB)
				case c.MinNetworkGbps > 0 && o.NetworkGbps < c.MinNetworkGbps:
					fail("network %v", o.NetworkGbps)
				case slices.Contains(c.Compliance, "gdpr") && !slices.Contains(r.Compliance, "gdpr"):
					fail("not a GDPR region (%s)", r.Country)
				case slices.Contains(c.Compliance, "mlps2") && r.Country != "CN":
					fail("not mainland China (%s)", r.Country)
				case slices.Contains(c.Compliance, "fedramp_high") && r.Partition != "gov" && !slices.Contains(r.Compliance, "fedramp_high"):
					fail("not a government partition (%s)", r.Partition)
				case c.MaxCO2eKg > 0 && (!x.CO2eKnown || x.EstimatedCO2eKg > c.MaxCO2eKg):
					fail("co2e %v (known %v)", x.EstimatedCO2eKg, x.CO2eKnown)
				case x.TotalGPUs != x.Nodes*x.GPUsPerNode:
					fail("total_gpus %d != %d × %d", x.TotalGPUs, x.Nodes, x.GPUsPerNode)
				case x.Explanation == "" || strings.Contains(x.Explanation, "%!"):
					fail("explanation %q", x.Explanation)
				}
				if i > 0 && res.Candidates[i-1].Score > x.Score {
					fail("out of order: score %v after %v", x.Score, res.Candidates[i-1].Score)
				}
			}
			for _, rj := range res.Rejected {
				if !slices.Contains(planner.Reasons[:], rj.Reason) || rj.Count <= 0 {
					t.Errorf("rejection %+v: unknown reason or empty count", rj)
				}
			}
		})
	}
}

// TestMonotone: tightening a budget or a deadline never improves the best
// on the objective; widening the clouds never makes it worse.
func TestMonotone(t *testing.T) {
	p, _ := builtin(t)
	best := func(c planner.Constraints, obj planner.Objective, clouds []string) (planner.Candidate, error) {
		req := request(t, llama8BPre, c, obj)
		req.AllowedClouds = clouds
		res, err := p.Recommend(req)
		if err != nil {
			return planner.Candidate{}, err
		}
		return res.Best, nil
	}
	prevCost, prevHours := math.Inf(1), 0.0
	for _, budget := range []float64{0, 100000, 20000, 10000, 7000, 6000} {
		b, err := best(planner.Constraints{MaxTotalCostUSD: budget}, planner.ObjectiveTime, nil)
		if err != nil {
			var nc *planner.NoCandidateError
			if !errors.As(err, &nc) || nc.Path.String() != "constraints.max_total_cost_usd" {
				t.Fatalf("budget %v: %v", budget, err)
			}
			break
		}
		if b.EstimatedCostUSD > prevCost+1e-9 || b.EstimatedHours < prevHours-1e-9 {
			t.Errorf("budget %v: best costs %v in %v h after %v in %v h", budget, b.EstimatedCostUSD, b.EstimatedHours, prevCost, prevHours)
		}
		prevCost, prevHours = b.EstimatedCostUSD, b.EstimatedHours
	}
	// Balanced scores are relative to the feasible set, so only the
	// absolute objectives are monotone in the clouds.
	for _, obj := range []planner.Objective{planner.ObjectiveCost, planner.ObjectiveTime, planner.ObjectiveCarbon} {
		prev := math.Inf(1)
		for _, clouds := range [][]string{{"lambda"}, {"lambda", "oci"}, {"lambda", "oci", "gcp"}, {"lambda", "oci", "gcp", "aws", "azure"}, nil} {
			b, err := best(planner.Constraints{}, obj, clouds)
			if err != nil {
				t.Fatal(err)
			}
			if b.Score > prev {
				t.Errorf("%s: clouds %v worsen the best score %v -> %v", obj, clouds, prev, b.Score)
			}
			prev = b.Score
		}
	}
}

// TestDeterministic: the same request gives the same answer, field for field.
func TestDeterministic(t *testing.T) {
	p, _ := builtin(t)
	for _, w := range []perf.Workload{llama70BLoRA, serve70B} {
		for _, obj := range planner.Objectives {
			req := request(t, w, planner.Constraints{}, obj)
			req.Top = 20
			a, err := p.Recommend(req)
			if err != nil {
				t.Fatal(err)
			}
			b, err := p.Recommend(req)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("%s %s: two runs differ", w.Kind, obj)
			}
			// Ties keep cloud, region, instance type, nodes order.
			for i := 1; i < len(a.Candidates); i++ {
				x, y := a.Candidates[i-1], a.Candidates[i]
				if x.Score == y.Score && x.Cloud+"/"+x.Region+"/"+x.InstanceType > y.Cloud+"/"+y.Region+"/"+y.InstanceType {
					t.Errorf("%s: tie out of order: %s/%s/%s before %s/%s/%s", obj, x.Cloud, x.Region, x.InstanceType, y.Cloud, y.Region, y.InstanceType)
				}
			}
		}
	}
}

// TestSingleNodeEstimateIgnoresNetwork guards the planner's memo: one-node
// estimates are shared across offers whose network differs.
func TestSingleNodeEstimateIgnoresNetwork(t *testing.T) {
	p, m := builtin(t)
	acc, _ := p.Catalog().Accelerator("H100")
	for _, w := range []perf.Workload{llama70BLoRA, serve70B} {
		a, errA := m.Estimate(w, perf.Hardware{Accelerator: acc, GPUs: 8, GPUsPerNode: 8, NetworkGbps: 3200, Fabric: catalog.FabricEFA})
		b, errB := m.Estimate(w, perf.Hardware{Accelerator: acc, GPUs: 8, GPUsPerNode: 8, NetworkGbps: 100, Fabric: catalog.FabricNone})
		if errA != nil || errB != nil {
			t.Fatal(errA, errB)
		}
		a.Explanation, b.Explanation = "", ""
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: a single-node estimate depends on the network:\n%+v\n%+v", w.Kind, a, b)
		}
	}
}

// TestInferenceReplicas: a target beyond one node is served by replicas.
func TestInferenceReplicas(t *testing.T) {
	p, _ := builtin(t)
	res, err := p.Recommend(request(t, serve70B, planner.Constraints{Accelerators: []string{"H100"}}, planner.ObjectiveCost))
	if err != nil {
		t.Fatal(err)
	}
	b := res.Best
	if b.Replicas < 2 || b.TokensPerSecond < serve70B.TokensPerSecond || b.TPOTMs > serve70B.MaxTimePerOutputTokenMs {
		t.Errorf("best %+v: want ≥ 2 replicas meeting %v tok/s within %v ms", b, serve70B.TokensPerSecond, serve70B.MaxTimePerOutputTokenMs)
	}
	if !strings.Contains(b.Explanation, fmt.Sprintf("%d replicas of", b.Replicas)) {
		t.Errorf("explanation %q does not name the replicas", b.Explanation)
	}
}

// TestBadInput: unknown names come back with the closest valid ones,
// contradictions and impossible limits name the attribute.
func TestBadInput(t *testing.T) {
	p, _ := builtin(t)
	tests := []struct {
		name      string
		w         perf.Workload
		c         planner.Constraints
		obj       planner.Objective
		field     string
		substr    string
		noOffer   bool
		providerC []string
	}{
		{"accelerator", llama70BLoRA, planner.Constraints{Accelerators: []string{"H1000"}}, "", "constraints.accelerators[0]", `Closest: "H100"`, false, nil},
		{"cloud", llama70BLoRA, planner.Constraints{Clouds: []string{"gpc"}}, "", "constraints.clouds[0]", `"gcp"`, false, nil},
		{"region", llama70BLoRA, planner.Constraints{Regions: []string{"europe-west44"}}, "", "constraints.regions[0]", `"europe-west4"`, false, nil},
		{"geography", llama70BLoRA, planner.Constraints{Geographies: []string{"europe"}}, "", "constraints.geographies[0]", `"eu"`, false, nil},
		{"compliance", llama70BLoRA, planner.Constraints{Compliance: []string{"gdrp"}}, "", "constraints.compliance[0]", `"gdpr"`, false, nil},
		{"pricing model", llama70BLoRA, planner.Constraints{PricingModels: []catalog.PricingModel{"spots"}}, "", "constraints.pricing_models[0]", `"spot"`, false, nil},
		{"objective", llama70BLoRA, planner.Constraints{}, "fastest", "objective", `"time"`, false, nil},
		{"gdpr+mlps2", llama70BLoRA, planner.Constraints{Compliance: []string{"gdpr", "mlps2"}}, "", "constraints.compliance[1]", "cannot be in both jurisdictions", false, nil},
		{"gdpr in us", llama70BLoRA, planner.Constraints{Compliance: []string{"gdpr"}, Geographies: []string{"us"}}, "", "constraints.geographies", "cannot be met within geographies", false, nil},
		{"region not in clouds", llama70BLoRA, planner.Constraints{Clouds: []string{"gcp"}, Regions: []string{"us-east-1"}}, "", "constraints.regions[0]", "not in clouds", false, nil},
		{"cloud not in provider list", llama70BLoRA, planner.Constraints{Clouds: []string{"aws"}}, "", "constraints.clouds[0]", "allow-list", false, []string{"gcp"}},
		{"max gpus", perf.Workload{Kind: "training", ModelParametersB: 405, TrainingTokensB: 10}, planner.Constraints{MaxGPUs: 8}, "", "constraints.max_gpus", "max_gpus = 8: the smallest deployment", true, nil},
		{"max nodes", perf.Workload{Kind: "training", ModelParametersB: 405, TrainingTokensB: 10}, planner.Constraints{MaxNodes: 1}, "", "constraints.max_nodes", "max_nodes = 1", true, nil},
		{"deadline", perf.Workload{Kind: "training", ModelParametersB: 70, TrainingTokensB: 15000}, planner.Constraints{DeadlineHours: 24}, "", "constraints.deadline_hours", "deadline_hours = 24: the fastest candidate", true, nil},
		{"hourly", llama70BLoRA, planner.Constraints{MaxHourlyCostUSD: 0.05}, "", "constraints.max_hourly_cost_usd", "the cheapest per hour", true, nil},
		{"co2", llama70BLoRA, planner.Constraints{MaxCO2eKg: 0.01}, "", "constraints.max_co2e_kg", "the lowest-carbon candidate", true, nil},
		{"latency", perf.Workload{Kind: "inference", ModelParametersB: 70, TokensPerSecond: 100, MaxTimePerOutputTokenMs: 0.5}, planner.Constraints{}, "", "workload.max_time_per_output_token_ms", "lowest time per output token", true, nil},
		{"inference without target", perf.Workload{Kind: "inference", ModelParametersB: 8}, planner.Constraints{}, "", "workload.tokens_per_second", "tokens/s", false, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := request(t, tc.w, tc.c, tc.obj)
			req.AllowedClouds = tc.providerC
			_, err := p.Recommend(req)
			var field, detail string
			var ie inputerr.List
			var nc *planner.NoCandidateError
			switch {
			case errors.As(err, &ie) && !tc.noOffer:
				field, detail = ie[0].Path.String(), ie[0].Detail
			case errors.As(err, &nc) && tc.noOffer:
				field, detail = nc.Path.String(), nc.Detail
			default:
				t.Fatalf("got %T %v", err, err)
			}
			if field != tc.field || !strings.Contains(detail, tc.substr) {
				t.Errorf("got %s: %s\nwant %s containing %q", field, detail, tc.field, tc.substr)
			}
		})
	}
}

// TestDoesNotFitSaysByHowMuch: a model too large for the default node
// count names the smallest deployment that would hold it.
func TestDoesNotFitSaysByHowMuch(t *testing.T) {
	p, _ := builtin(t)
	_, err := p.Recommend(request(t, perf.Workload{Kind: "training", ModelParametersB: 5000, TrainingTokensB: 10},
		planner.Constraints{Accelerators: []string{"H100"}}, planner.ObjectiveCost))
	var nc *planner.NoCandidateError
	if !errors.As(err, &nc) || nc.Reason != planner.ReasonDoesNotFit ||
		!regexp.MustCompile(`the smallest deployment that holds it, \d+× H100 \((\d+) nodes of 8\), needs more than the 128 nodes allowed`).MatchString(nc.Detail) {
		t.Fatalf("err = %v", err)
	}
}
