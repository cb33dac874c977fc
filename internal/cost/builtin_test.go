// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package cost_test

import (
	"math"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/cost"
)

// A real offer: p5.48xlarge (8 × H100) in us-east-1, listed at $55.04/h
// on-demand (pricing_notes.md section 5). One instance, one month, all the
// time: 730 h × 55.04 = 40,179.20. Energy: 730 h × a 7.7 kW node (8 × 0.7
// kW × (0.8 training load + 0.575 host)) × PUE 1.15 (us-east-1) = 6,464.15
// kWh: 1.1 kWh per GPU-hour, within the 0.71–1.05 kWh per GPU-hour that
// 8× H100 nodes measure in training, before PUE 0.96.
func TestTCOBuiltinP5(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	o, ok := cat.Offer("aws", "p5.48xlarge", "us-east-1")
	if !ok || o.OnDemandUSD != 55.04 {
		t.Fatalf("catalog p5.48xlarge us-east-1 = %+v", o)
	}
	cl, _ := cat.Cloud("aws")
	rg, _ := cat.Region("aws", "us-east-1")
	acc, _ := cat.Accelerator(o.Accelerator)
	res, err := cost.TCO(cost.Input{Offer: o, Cloud: cl, Region: rg, Accelerator: acc, InstanceCount: 1, Months: 1, Utilization: 1})
	if err != nil {
		t.Fatal(err)
	}
	approx(t, "total", res.TotalUSD, 40179.2)
	approx(t, "per GPU-hour", res.CostPerGPUHourUSD, 55.04/8)
	approx(t, "kWh", res.EnergyKWh, 730*8*0.7*(0.8+0.575)*rg.PUE)
}

// Every priced offer of the built-in catalog goes through TCO and JobCost
// under each model it sells, with finite results and a breakdown that sums
// to the total.
func TestTCOWholeBuiltinCatalog(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range cat.Offers {
		cl, ok := cat.Cloud(o.Cloud)
		if !ok {
			t.Fatalf("offer %s/%s: unknown cloud", o.Cloud, o.InstanceType)
		}
		rg, _ := cat.Region(o.Cloud, o.Region)
		acc, _ := cat.Accelerator(o.Accelerator)
		for _, pm := range cost.OfferedModels(o) {
			res, err := cost.TCO(cost.Input{Offer: o, Cloud: cl, Region: rg, Accelerator: acc, InstanceCount: 2, Months: 7,
				Utilization: 0.6, PricingMix: map[catalog.PricingModel]float64{pm: 1}, BlockGB: 100, EgressGBPerMonth: 500,
				CarbonPriceUSDPerTonne: 50})
			if err != nil {
				t.Fatalf("%s/%s/%s %s: %v", o.Cloud, o.InstanceType, o.Region, pm, err)
			}
			var sum float64
			for _, l := range res.Breakdown {
				sum += l.USD
			}
			if math.IsNaN(res.TotalUSD) || math.IsInf(res.TotalUSD, 0) || res.TotalUSD <= 0 ||
				math.Abs(sum-res.TotalUSD) > 1e-6*res.TotalUSD {
				t.Fatalf("%s/%s/%s %s: total %v, breakdown sum %v", o.Cloud, o.InstanceType, o.Region, pm, res.TotalUSD, sum)
			}
			if _, err := cost.JobCost(cost.JobInput{Offer: o, Cloud: cl, Region: rg, Accelerator: acc, Nodes: 1, Hours: 10, PricingModel: pm}); err != nil {
				t.Fatalf("%s/%s/%s %s: JobCost: %v", o.Cloud, o.InstanceType, o.Region, pm, err)
			}
		}
	}
}

// Every serverless offer of the built-in catalog goes through TCO and
// ServerlessCost at a low and a full duty cycle: finite, positive, the same
// compute both ways, and a worker busy 2 % of the time never billed more
// than one busy all the time.
func TestServerlessWholeBuiltinCatalog(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.Serverless) == 0 {
		t.Fatal("the built-in catalog has no serverless offers")
	}
	for _, o := range cat.Serverless {
		cl, _ := cat.Cloud(o.Cloud)
		rg, _ := cat.Region(o.Cloud, o.Region)
		acc, _ := cat.Accelerator(o.Accelerator)
		var computes []float64
		for _, duty := range []float64{0.02, 1} {
			res, err := cost.TCO(cost.Input{Serverless: o, Cloud: cl, Region: rg, Accelerator: acc, InstanceCount: 2, Months: 1,
				Utilization: duty, ObjectGB: 10, CarbonPriceUSDPerTonne: 50})
			if err != nil {
				t.Fatalf("%s/%s duty %v: %v", o.Cloud, o.Name, duty, err)
			}
			sc, err := cost.ServerlessCost(cost.ServerlessInput{Offer: o, Cloud: cl, Region: rg, Accelerator: acc, Workers: 2,
				Hours: 730, DutyCycle: duty})
			if err != nil {
				t.Fatalf("%s/%s duty %v: ServerlessCost: %v", o.Cloud, o.Name, duty, err)
			}
			if !(res.TotalUSD > 0) || math.Abs(res.Breakdown[0].USD-sc.ComputeUSD) > 1e-9*sc.ComputeUSD {
				t.Fatalf("%s/%s duty %v: TCO total %v compute %v, ServerlessCost %v", o.Cloud, o.Name, duty, res.TotalUSD,
					res.Breakdown[0].USD, sc.ComputeUSD)
			}
			computes = append(computes, sc.ComputeUSD)
		}
		if computes[0] > computes[1] {
			t.Errorf("%s/%s: 2 %% busy bills %v, more than constant load %v", o.Cloud, o.Name, computes[0], computes[1])
		}
	}
}
