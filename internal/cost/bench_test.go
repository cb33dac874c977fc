// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package cost_test

import (
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/cost"
)

// BenchmarkTCO is one full TCO with a three-way mix, every hidden cost, two
// extras and a carbon price (the budget is 50 µs).
func BenchmarkTCO(b *testing.B) {
	cl, rg, acc, of := fixtures()
	in := cost.Input{
		Offer: of, Cloud: cl, Region: rg, Accelerator: acc, InstanceCount: 4, Months: 18, Utilization: 0.7,
		PricingMix: map[pm]float64{catalog.OnDemand: 0.2, catalog.Spot: 0.3, catalog.Reserved1Y: 0.5},
		BlockGB:    2000, ObjectGB: 50000, EgressGBPerMonth: 30000, InterRegionGBPerMonth: 1000,
		ExtraMonthlyUSD: map[string]float64{"k8s": 73, "support": 500},
		Discount:        0.1, CarbonPriceUSDPerTonne: 85,
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := cost.TCO(in); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkJobCost(b *testing.B) {
	cl, rg, acc, of := fixtures()
	in := cost.JobInput{Offer: of, Cloud: cl, Region: rg, Accelerator: acc, Nodes: 4, Hours: 120, PricingModel: catalog.Spot}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := cost.JobCost(in); err != nil {
			b.Fatal(err)
		}
	}
}
