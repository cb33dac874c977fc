// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/cost"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
	"github.com/gpuplan/terraform-provider-gpu/internal/planner"
)

// candidatesBy returns the candidates of one pricing model, keyed by offer.
func candidatesBy(t *testing.T, p *planner.Planner, w perf.Workload, c planner.Constraints, pm catalog.PricingModel) map[string]planner.Candidate {
	t.Helper()
	c.PricingModels = []catalog.PricingModel{pm}
	req := request(t, w, c, planner.ObjectiveCost)
	req.Top, req.DistinctBy = planner.MaxTop, planner.DistinctDeployment
	res, err := p.Recommend(req)
	if err != nil {
		t.Fatalf("%s: %v", pm, err)
	}
	out := map[string]planner.Candidate{}
	for _, x := range res.Candidates {
		out[fmt.Sprintf("%s/%s/%s/%d", x.Cloud, x.Region, x.InstanceType, x.Nodes-x.SpareNodes)] = x
	}
	if res.Feasible > len(res.Candidates) {
		t.Fatalf("%s: %d feasible candidates, more than the %d returned: narrow the constraints", pm, res.Feasible, len(res.Candidates))
	}
	return out
}

// TestSpotServingCarriesSpares: an inference candidate on spot serves the
// target with spare serving units on top of the on-demand deployment of
// the same offer, pays for them (and no rework factor), and says so.
func TestSpotServingCarriesSpares(t *testing.T) {
	p, _ := builtin(t)
	cat := p.Catalog()
	cm, pol := models(t)
	tests := []struct {
		name string
		w    perf.Workload
		c    planner.Constraints
	}{
		{"8B on L40S", serve8B, planner.Constraints{Accelerators: []string{"L40S"}, Clouds: []string{"aws", "gcp"}}},
		{"8B on A100", serve8B, planner.Constraints{Accelerators: []string{"A100-80GB"}, Clouds: []string{"aws", "azure", "gcp"}}},
		{"70B on H100 with a latency limit", serve70B, planner.Constraints{Accelerators: []string{"H100"}, Clouds: []string{"aws", "gcp", "azure"}, Geographies: []string{"eu"}}},
		{"70B one unit per node", perf.Workload{Kind: "inference", ModelParametersB: 70, TokensPerSecond: 500},
			planner.Constraints{Accelerators: []string{"H100"}, Clouds: []string{"gcp"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			od := candidatesBy(t, p, tc.w, tc.c, catalog.OnDemand)
			spot := candidatesBy(t, p, tc.w, tc.c, catalog.Spot)
			matched := 0
			for key, s := range spot {
				o, ok := od[key]
				if !ok {
					continue
				}
				matched++
				cl, _ := cat.Cloud(s.Cloud)
				of, _ := cat.Offer(s.Cloud, s.InstanceType, s.Region)
				// More capacity than on demand: the same deployment plus spares.
				if s.Nodes <= o.Nodes || s.TotalGPUs <= o.TotalGPUs || s.Replicas <= o.Replicas || s.TokensPerSecond <= o.TokensPerSecond {
					t.Errorf("%s: spot %d nodes / %d GPUs / %d replicas / %v tok/s, on demand %d / %d / %d / %v: no spare capacity",
						key, s.Nodes, s.TotalGPUs, s.Replicas, s.TokensPerSecond, o.Nodes, o.TotalGPUs, o.Replicas, o.TokensPerSecond)
				}
				if s.Nodes-s.SpareNodes != o.Nodes || s.Replicas-s.SpareReplicas != o.Replicas || o.SpareNodes != 0 {
					t.Errorf("%s: spot minus spares (%d nodes, %d replicas) is not the on-demand deployment (%d, %d)",
						key, s.Nodes-s.SpareNodes, s.Replicas-s.SpareReplicas, o.Nodes, o.Replicas)
				}
				// The spares: at least the policy floor, in whole serving units
				// (the on-demand deployment's nodes and replicas per unit).
				if s.SpareNodes < pol.SpotServingMinSpareUnits || s.SpareReplicas < pol.SpotServingMinSpareUnits ||
					s.SpareNodes*o.Replicas != s.SpareReplicas*o.Nodes {
					t.Errorf("%s: %d spare nodes / %d spare replicas, on demand %d nodes / %d replicas, policy floor %d units",
						key, s.SpareNodes, s.SpareReplicas, o.Nodes, o.Replicas, pol.SpotServingMinSpareUnits)
				}
				if s.TokensPerSecond-(s.TokensPerSecond*float64(s.SpareReplicas)/float64(s.Replicas)) < tc.w.TokensPerSecond-1e-6 {
					t.Errorf("%s: without its spares the fleet serves less than the target", key)
				}
				// Priced: every node including the spares at the spot price for 730 h, no rework factor.
				want := of.SpotUSD * float64(s.Nodes) * cm.HoursPerMonth
				if math.Abs(s.EstimatedCostUSD-want) > 1e-6*want || math.Abs(s.HourlyCostUSD-of.SpotUSD*float64(s.Nodes)) > 1e-9*want {
					t.Errorf("%s: spot cost %v $/month, %v $/h; want %v (%d nodes × $%v × 730 h)", key, s.EstimatedCostUSD, s.HourlyCostUSD, want, s.Nodes, of.SpotUSD)
				}
				if withoutSpares := of.SpotUSD * float64(o.Nodes) * cm.HoursPerMonth; s.EstimatedCostUSD <= withoutSpares {
					t.Errorf("%s: spot cost %v does not include the spares (without: %v)", key, s.EstimatedCostUSD, withoutSpares)
				}
				if cm.SpotRiskFactor(cl, s.Nodes) > 1 && s.EstimatedHours != o.EstimatedHours {
					t.Errorf("%s: serving hours %v on spot vs %v on demand: serving has no rework", key, s.EstimatedHours, o.EstimatedHours)
				}
				phrase := fmt.Sprintf("spot: +%d spare replica", s.SpareReplicas)
				if !strings.Contains(s.Explanation, phrase) || !strings.Contains(s.Explanation, "ride out interruptions") ||
					strings.Contains(s.Explanation, "risk-adjusted") {
					t.Errorf("%s: explanation %q does not state the spares (%q)", key, s.Explanation, phrase)
				}
				if strings.Contains(o.Explanation, "spare") {
					t.Errorf("%s: on-demand explanation %q mentions spares", key, o.Explanation)
				}
			}
			t.Logf("%d offers compared", matched)
			if matched == 0 {
				t.Fatalf("no offer has both a spot and an on-demand candidate (%d spot, %d on demand)", len(spot), len(od))
			}
		})
	}
}

// TestSpotTrainingUnchanged: training and fine-tuning on spot keep the
// rework rule (hours × the cloud's risk factor, no spare nodes).
func TestSpotTrainingUnchanged(t *testing.T) {
	p, _ := builtin(t)
	cat := p.Catalog()
	cm, err := cost.DefaultModel()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		w    perf.Workload
		c    planner.Constraints
	}{
		{"fine-tune 70B LoRA", llama70BLoRA, planner.Constraints{Accelerators: []string{"H100"}, Clouds: []string{"aws", "gcp"},
			Geographies: []string{"us"}, MaxNodes: 8}},
		{"pre-train 8B", llama8BPre, planner.Constraints{Accelerators: []string{"A100-80GB"}, Clouds: []string{"gcp", "azure"},
			Geographies: []string{"eu"}, MaxNodes: 4}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			od := candidatesBy(t, p, tc.w, tc.c, catalog.OnDemand)
			spot := candidatesBy(t, p, tc.w, tc.c, catalog.Spot)
			matched := 0
			for key, s := range spot {
				o, ok := od[key]
				if !ok {
					continue
				}
				matched++
				cl, _ := cat.Cloud(s.Cloud)
				of, _ := cat.Offer(s.Cloud, s.InstanceType, s.Region)
				f := cm.SpotRiskFactor(cl, s.Nodes) // the job stops when any node is interrupted
				if s.Nodes != o.Nodes || s.SpareNodes != 0 || s.SpareReplicas != 0 {
					t.Errorf("%s: training on spot has %d nodes (%d spare), on demand %d", key, s.Nodes, s.SpareNodes, o.Nodes)
				}
				if math.Abs(s.EstimatedHours-o.EstimatedHours*f) > 1e-9*s.EstimatedHours {
					t.Errorf("%s: spot hours %v, want on-demand %v × risk factor %v", key, s.EstimatedHours, o.EstimatedHours, f)
				}
				if want := of.SpotUSD * float64(s.Nodes) * o.EstimatedHours * f; math.Abs(s.EstimatedCostUSD-want) > 1e-6*want {
					t.Errorf("%s: spot cost %v, want %v", key, s.EstimatedCostUSD, want)
				}
				rework := fmt.Sprintf("rework ×%s", strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.3f", f), "0"), "."))
				if s.Nodes == 1 {
					rework = "risk-adjusted"
				}
				if strings.Contains(s.Explanation, "spare") || (f >= 1.0005 && !strings.Contains(s.Explanation, rework)) {
					t.Errorf("%s: explanation %q", key, s.Explanation)
				}
			}
			t.Logf("%d offers compared", matched)
			if matched == 0 {
				t.Fatal("no offer has both a spot and an on-demand candidate")
			}
		})
	}
}
