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
