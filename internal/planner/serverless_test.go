// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner_test

import (
	"math"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/cost"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
	"github.com/gpuplan/terraform-provider-gpu/internal/planner"
)

// serveSmall is a small model served at a modest rate: one GPU holds a
// replica, so serverless workers (one GPU each) can serve it.
var serveSmall = perf.Workload{Kind: "inference", ModelParametersB: 8, TokensPerSecond: 500}

func withDuty(w perf.Workload, d float64) perf.Workload { w.DutyCycle = d; return w }

// TestServerlessPricingMatchesCostModel: every serverless candidate costs
// what cost.Model.ServerlessCost bills its workers over the planner's
// inference horizon at the workload's duty cycle, per month.
func TestServerlessPricingMatchesCostModel(t *testing.T) {
	p, _ := builtin(t)
	cat := p.Catalog()
	cm, err := cost.DefaultModel()
	if err != nil {
		t.Fatal(err)
	}
	for _, duty := range []float64{0.01, 0.3, 1} {
		req := request(t, withDuty(serveSmall, duty), planner.Constraints{PricingModels: []catalog.PricingModel{catalog.Serverless}}, planner.ObjectiveCost)
		req.Top, req.DistinctBy = planner.MaxTop, planner.DistinctDeployment
		req.Discounts = map[string]float64{"modal": 0.1}
		req.CarbonPriceUSDPerTonne = 85
		res, err := p.Recommend(req)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Candidates) < 5 {
			t.Fatalf("duty %v: %d serverless candidates", duty, len(res.Candidates))
		}
		months := cm.TermMonths[catalog.Reserved1Y]
		for _, c := range res.Candidates {
			s, ok := cat.ServerlessOffer(c.Cloud, c.InstanceType, c.Region)
			if !ok || c.PricingModel != catalog.Serverless {
				t.Fatalf("candidate %s/%s/%q (%s) is not a serverless offer", c.Cloud, c.InstanceType, c.Region, c.PricingModel)
			}
			cl, _ := cat.Cloud(c.Cloud)
			rg, _ := cat.Region(c.Cloud, c.Region)
			acc, _ := cat.Accelerator(c.Accelerator)
			sc, err := cm.ServerlessCost(cost.ServerlessInput{Offer: s, Cloud: cl, Region: rg, Accelerator: acc, Workers: c.Nodes,
				Hours: cm.HoursPerMonth * months, DutyCycle: duty, Discount: req.Discounts[c.Cloud], CarbonPriceUSDPerTonne: 85})
			if err != nil {
				t.Fatal(err)
			}
			want := sc.ComputeUSD / months
			if math.Abs(c.EstimatedCostUSD-want) > 1e-6*math.Max(1, want) || math.Abs(c.EstimatedCO2eKg-sc.CO2eKg/months) > 1e-6*math.Max(1, sc.CO2eKg) ||
				math.Abs(c.HourlyCostUSD-sc.WorkerUSDPerHour*float64(c.Nodes)) > 1e-9 || c.CO2eKnown != (sc.CO2eKg > 0) {
				t.Errorf("duty %v %s/%s: planner %v $ %v kg %v $/h, cost model %v $ %v kg %v $/h", duty, c.Cloud, c.InstanceType,
					c.EstimatedCostUSD, c.EstimatedCO2eKg, c.HourlyCostUSD, want, sc.CO2eKg/months, sc.WorkerUSDPerHour*float64(c.Nodes))
			}
		}
	}
}

// TestServerlessWinsAtLowDutyCycle: with the default pricing models, a
// small model busy 2 % of the time is cheapest on a serverless offer,
// whose bill follows the busy share, while the same load constant is
// cheapest on capacity billed around the clock (a dedicated instance or
// an always-on worker); dedicated costs do not depend on
// the duty cycle, serverless costs grow with it.
func TestServerlessWinsAtLowDutyCycle(t *testing.T) {
	p, _ := builtin(t)
	best := func(duty float64, pms []catalog.PricingModel) planner.Candidate {
		res, err := p.Recommend(request(t, withDuty(serveSmall, duty), planner.Constraints{PricingModels: pms}, planner.ObjectiveCost))
		if err != nil {
			t.Fatal(err)
		}
		return res.Best
	}
	low, constant := best(0.02, nil), best(1, nil)
	if low.PricingModel != catalog.Serverless {
		t.Errorf("duty 0.02: best is %s %s (%s), want a serverless offer", low.Cloud, low.InstanceType, low.PricingModel)
	}
	if constant.PricingModel == catalog.Serverless {
		// Under constant load only capacity billed around the clock wins:
		// a dedicated instance, or an always-on serverless worker.
		if s, ok := p.Catalog().ServerlessOffer(constant.Cloud, constant.InstanceType, constant.Region); !ok || !s.AlwaysOn {
			t.Errorf("duty 1: best is serverless %s %s, want a dedicated instance or an always-on worker", constant.Cloud, constant.InstanceType)
		}
	}
	dedicated := []catalog.PricingModel{catalog.OnDemand, catalog.Spot, catalog.Reserved1Y, catalog.Reserved3Y, catalog.CapacityBlock}
	serverless := []catalog.PricingModel{catalog.Serverless}
	if a, b := best(0.02, dedicated), best(1, dedicated); a.EstimatedCostUSD != b.EstimatedCostUSD {
		t.Errorf("dedicated: $%v a month at duty 0.02, $%v at 1: instances are billed around the clock", a.EstimatedCostUSD, b.EstimatedCostUSD)
	}
	prev := 0.0
	for _, d := range []float64{0.01, 0.05, 0.2, 0.6, 1} {
		c := best(d, serverless)
		if !(c.EstimatedCostUSD > prev) {
			t.Errorf("serverless at duty %v: $%v, not above $%v at the lower duty", d, c.EstimatedCostUSD, prev)
		}
		prev = c.EstimatedCostUSD
	}
}

// TestServerlessRejectedForJobs: every serverless offer is rejected for
// training and fine-tuning, under serverless_inference_only.
func TestServerlessRejectedForJobs(t *testing.T) {
	p, _ := builtin(t)
	for _, w := range []perf.Workload{llama8BPre, llama70BLoRA} {
		res, err := p.Recommend(request(t, w, planner.Constraints{}, planner.ObjectiveCost))
		if err != nil {
			t.Fatal(err)
		}
		if got := rejectedFor(res, planner.ReasonServerlessInferenceOnly); got != len(p.Catalog().Serverless) {
			t.Errorf("%s: serverless_inference_only %d, want every serverless offer (%d)", w.Kind, got, len(p.Catalog().Serverless))
		}
		for _, c := range res.Candidates {
			if c.PricingModel == catalog.Serverless {
				t.Errorf("%s: serverless candidate %s %s", w.Kind, c.Cloud, c.InstanceType)
			}
		}
	}
}
