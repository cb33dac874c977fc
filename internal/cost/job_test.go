// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package cost_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/cost"
)

func TestJobCost(t *testing.T) {
	t.Parallel()
	cl, rg, acc, of := fixtures()
	tests := []struct {
		name                              string
		pm                                pm
		nodes                             int
		hours, discount                   float64
		kind                              string
		hourly, billed, running, usd, kwh float64
	}{
		// Node power: 8 GPUs × 0.7 kW × (load + host 0.575): training 7.7 kW,
		// inference 8 × 0.7 × 1.075 = 6.02 kW.
		// 2 nodes × 100 h × $40 = 8,000; energy 2 × 100 × 7.7 × 1.1 (PUE) = 1,694 kWh.
		{"on_demand", catalog.OnDemand, 2, 100, 0, "training", 40, 100, 100, 8000, 1694},
		// 10 % off: $36/h → 7,200.
		{"on_demand_discount", catalog.OnDemand, 2, 100, 0.1, "", 36, 100, 100, 7200, 1694},
		// spot training on 2 nodes, one synchronous job: Λ = 2 × 0.02 = 0.04/h,
		// R = (1/0.04 + 0.25)(e^0.04 − 1) = 1.0304720; 103.0472 h billed and run
		// (rework); 2 × 103.0472 × 12 = 2,473.133; energy 2 × 103.0472 × 7.7 × 1.1 = 1,745.620 kWh.
		{"spot_training", catalog.Spot, 2, 100, 0, "training", 12, 103.0472048, 103.0472048, 2473.132916, 1745.619650},
		// spot fine-tuning: the same rework rule.
		{"spot_fine_tuning", catalog.Spot, 2, 100, 0, "fine_tuning", 12, 103.0472048, 103.0472048, 2473.132916, 1745.619650},
		// spot default workload (training): the same rework rule.
		{"spot_default", catalog.Spot, 2, 100, 0, "", 12, 103.0472048, 103.0472048, 2473.132916, 1745.619650},
		// spot inference (serving): no rework, the spare nodes are in Nodes
		// (SpotServingSpares): 100 h billed and run; 2 × 100 × 12 = 2,400;
		// energy 2 × 100 × 6.02 × 1.1 = 1,324.4 kWh.
		{"spot_inference", catalog.Spot, 2, 100, 0, "inference", 12, 100, 100, 2400, 1324.4},
		// reserved_1y for a 100 h job bills one 8,760 h term: 2 × 8,760 × 28 = 490,560.
		{"reserved_1y_short_job", catalog.Reserved1Y, 2, 100, 0, "training", 28, 8760, 100, 490560, 1694},
		// reserved_3y for 30,000 h (> 26,280): two terms, 52,560 h × 18 = 946,080;
		// energy 30,000 × 7.7 × 1.1 = 254,100 kWh.
		{"reserved_3y_renewed", catalog.Reserved3Y, 1, 30000, 0, "fine_tuning", 18, 52560, 30000, 946080, 254100},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, err := cost.JobCost(cost.JobInput{Offer: of, Cloud: cl, Region: rg, Accelerator: acc,
				Nodes: tc.nodes, Hours: tc.hours, PricingModel: tc.pm, Discount: tc.discount, Workload: tc.kind,
				CarbonPriceUSDPerTonne: 50})
			if err != nil {
				t.Fatal(err)
			}
			approx(t, "hourly", r.HourlyUSD, tc.hourly)
			approx6(t, "billed hours", r.BilledHours, tc.billed)
			approx6(t, "running hours", r.RunningHours, tc.running)
			approx6(t, "compute", r.ComputeUSD, tc.usd)
			approx6(t, "kWh", r.EnergyKWh, tc.kwh)
			approx6(t, "CO2e", r.CO2eKg, tc.kwh*0.4)                  // 400 g/kWh
			approx6(t, "carbon", r.CarbonCostUSD, tc.kwh*0.4/1000*50) // $50/t
		})
	}
}

// JobCost and TCO agree: a job of H hours on N nodes costs what a fleet of
// N instances at utilization H / (months × 730) costs in compute.
func TestJobCostMatchesTCO(t *testing.T) {
	t.Parallel()
	cl, rg, acc, of := fixtures()
	for _, p := range []pm{catalog.OnDemand, catalog.Spot, catalog.Reserved1Y, catalog.Reserved3Y} {
		j, err := cost.JobCost(cost.JobInput{Offer: of, Cloud: cl, Region: rg, Accelerator: acc, Nodes: 3, Hours: 730 * 6, PricingModel: p})
		if err != nil {
			t.Fatal(err)
		}
		res, err := cost.TCO(cost.Input{Offer: of, Cloud: cl, Region: rg, Accelerator: acc, InstanceCount: 3, Months: 6, Utilization: 1,
			PricingMix: map[pm]float64{p: 1}})
		if err != nil {
			t.Fatal(err)
		}
		approx(t, string(p)+" compute", j.ComputeUSD, res.Breakdown[0].USD)
		approx(t, string(p)+" energy", j.EnergyKWh, res.EnergyKWh)
	}
}

func TestJobCostErrors(t *testing.T) {
	t.Parallel()
	cl, rg, acc, _ := fixtures()
	tests := []struct {
		name, field, substr string
		in                  cost.JobInput
	}{
		{"not_sold", "pricing_model", `it is sold as: "on_demand"`,
			cost.JobInput{Offer: odOnlyOffer(), Cloud: cl, Nodes: 1, Hours: 1, PricingModel: catalog.Reserved3Y}},
		{"unknown_model", "pricing_model", "allowed", cost.JobInput{Offer: odOnlyOffer(), Cloud: cl, Nodes: 1, Hours: 1, PricingModel: "hourly"}},
		{"no_nodes", "nodes", "nodes must be a whole number from 1 to 1,000,000 nodes, got 0.", cost.JobInput{Offer: odOnlyOffer(), Cloud: cl, Hours: 1, PricingModel: catalog.OnDemand}},
		{"negative_hours", "hours", "hours must be from 0 to 876,000 h, got -1.", cost.JobInput{Offer: odOnlyOffer(), Cloud: cl, Nodes: 1, Hours: -1, PricingModel: catalog.OnDemand}},
		{"bad_workload", "workload", "allowed", cost.JobInput{Offer: odOnlyOffer(), Cloud: cl, Region: rg, Accelerator: acc, Nodes: 1, Hours: 1,
			PricingModel: catalog.OnDemand, Workload: "mining"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := cost.JobCost(tc.in)
			var ie *cost.InputError
			if !errors.As(err, &ie) || ie.Field != tc.field || !strings.Contains(ie.Detail, tc.substr) {
				t.Fatalf("err = %v, want field %q containing %q", err, tc.field, tc.substr)
			}
		})
	}
}

// TestCapacityBlockBilling: a capacity block books whole windows (1-day
// increments up to 14 days, 7-day increments up to 182 days, consecutive
// blocks beyond) on whole cluster sizes (1, 2, 4 … 64 instances, blocks of
// 64 beyond).
func TestCapacityBlockBilling(t *testing.T) {
	t.Parallel()
	cl, rg, acc, of := fixtures()
	cb := *of
	cb.CapacityBlockUSD = 30
	m, err := cost.DefaultModel()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		nodes          int
		hours          float64
		booked         float64 // window per instance
		billedNodes    int
		computeUSD     float64
		runningPerNode float64
	}{
		// 100 h → 5 days = 120 h; 5 instances → a cluster of 8: 8 × 120 × 30 = 28,800.
		{5, 100, 120, 8, 28800, 100},
		// 336 h (14 days exactly) on 1 instance: 336 × 30 = 10,080.
		{1, 336, 336, 1, 10080, 336},
		// 400 h → 3 weeks = 504 h; 64 instances: 64 × 504 × 30 = 967,680.
		{64, 400, 504, 64, 967680, 400},
		// 5,000 h → one 4,368 h block + 632 h (→ 4 weeks, 672 h) = 5,040 h;
		// 70 instances → 64 + 8: 72 × 5,040 × 30 = 10,886,400.
		{70, 5000, 5040, 72, 10886400, 5000},
	} {
		if got := m.CapacityBlockHours(tc.hours); got != tc.booked {
			t.Errorf("%v h: booked %v h, want %v", tc.hours, got, tc.booked)
		}
		if got := m.CapacityBlockInstances(tc.nodes); got != tc.billedNodes {
			t.Errorf("%d instances: cluster %d, want %d", tc.nodes, got, tc.billedNodes)
		}
		r, err := m.JobCost(cost.JobInput{Offer: &cb, Cloud: cl, Region: rg, Accelerator: acc, Nodes: tc.nodes, Hours: tc.hours,
			PricingModel: catalog.CapacityBlock, Workload: "training"})
		if err != nil {
			t.Fatal(err)
		}
		approx(t, "compute", r.ComputeUSD, tc.computeUSD)
		approx(t, "running hours", r.RunningHours, tc.runningPerNode)
	}
}
