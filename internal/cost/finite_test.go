// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package cost_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/cost"
	"github.com/gpuplan/terraform-provider-gpu/internal/numfmt"
)

// limitCase is a priced offer with its cloud, region and accelerator.
type limitCase struct {
	name string
	o    *catalog.Offer
	cl   *catalog.Cloud
	rg   *catalog.Region
	acc  *catalog.Accelerator
}

// extremeCases are offers at the edges of the catalog limits
// (input_limits.json): the largest figures everywhere, and the smallest.
func extremeCases() []limitCase {
	big := limitCase{name: "largest",
		o: &catalog.Offer{Cloud: "max", Region: "r", InstanceType: "pod", Accelerator: "X", GPUs: 65536,
			OnDemandUSD: 1e6, SpotUSD: 999_999, Reserved1YUSD: 999_998, Reserved3YUSD: 999_997},
		cl: &catalog.Cloud{ID: "max", PUE: 5, EgressTiers: []catalog.EgressTier{{UpToGB: 1e9, USDPerGB: 100}, {UpToGB: 0, USDPerGB: 100}},
			InterRegionUSDPerGB: 100, BlockStorageUSDPerGBMonth: 100, ObjectStorageUSDPerGBMonth: 100,
			Spot: catalog.SpotInfo{Available: true, InterruptionsPerDay: 1440, MaxRuntimeHours: 1}},
		rg:  &catalog.Region{Cloud: "max", ID: "r", PUE: 5, GridGCO2ePerKWh: 2000},
		acc: &catalog.Accelerator{ID: "X", TDPWatts: 100_000},
	}
	small := limitCase{name: "smallest",
		o:   &catalog.Offer{Cloud: "min", Region: "r", InstanceType: "tiny", Accelerator: "Y", GPUs: 1, OnDemandUSD: 0.0001, SpotUSD: 0.0001 * 0.5, Reserved1YUSD: 0.0001 * 0.9},
		cl:  &catalog.Cloud{ID: "min", PUE: 1, Spot: catalog.SpotInfo{Available: true}},
		rg:  &catalog.Region{Cloud: "min", ID: "r"},
		acc: &catalog.Accelerator{ID: "Y"},
	}
	return []limitCase{big, small}
}

// catalogCases are every offer of the built-in catalog.
func catalogCases(t testing.TB) []limitCase {
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	var out []limitCase
	for _, o := range cat.Offers {
		cl, _ := cat.Cloud(o.Cloud)
		rg, _ := cat.Region(o.Cloud, o.Region)
		acc, _ := cat.Accelerator(o.Accelerator)
		out = append(out, limitCase{name: o.Cloud + "/" + o.InstanceType + "/" + o.Region, o: o, cl: cl, rg: rg, acc: acc})
	}
	return out
}

// within draws a value of a limit: an end point or a log-uniform value
// inside (uniform for ranges that start at 0 and end at 1).
func within(r *rand.Rand, name string) float64 {
	l, ok := catalog.InputLimit(name)
	if !ok {
		panic("no limit " + name)
	}
	lo := l.Min
	if l.MinExclusive {
		lo = math.Nextafter(lo, math.Inf(1))
	}
	hi := l.Max
	if l.MaxExclusive {
		hi = math.Nextafter(hi, math.Inf(-1))
	}
	var v float64
	switch k := r.IntN(6); {
	case k == 0:
		v = lo
	case k == 1:
		v = hi
	case hi <= 1:
		v = lo + r.Float64()*(hi-lo)
	default:
		a := math.Log10(math.Max(lo, 1e-6))
		v = math.Min(hi, math.Max(lo, math.Pow(10, a+r.Float64()*(math.Log10(hi)-a))))
	}
	if l.Integer {
		v = math.Min(math.Floor(hi), math.Max(math.Ceil(lo), math.Round(v)))
	}
	return v
}

// randomInput is a valid TCO input for an offer, every number drawn from
// its limit.
func randomInput(r *rand.Rand, c limitCase) cost.Input {
	in := cost.Input{Offer: c.o, Cloud: c.cl, Region: c.rg, Accelerator: c.acc,
		InstanceCount: int(within(r, catalog.LimitNodeCount)),
		Months:        within(r, catalog.LimitMonths),
		Utilization:   within(r, catalog.LimitFraction),
		BlockGB:       within(r, catalog.LimitDataGB), ObjectGB: within(r, catalog.LimitDataGB),
		EgressGBPerMonth: within(r, catalog.LimitDataGB), InterRegionGBPerMonth: within(r, catalog.LimitDataGB),
		Discount:               within(r, catalog.LimitDiscountFraction),
		CarbonPriceUSDPerTonne: within(r, catalog.LimitCarbonPriceUSDPerTonne),
	}
	if r.IntN(3) == 0 { // a tiny but positive share of hours
		in.Utilization = math.Pow(10, -r.Float64()*12)
	}
	for i := range r.IntN(4) {
		if in.ExtraMonthlyUSD == nil {
			in.ExtraMonthlyUSD = map[string]float64{}
		}
		in.ExtraMonthlyUSD[fmt.Sprintf("x%d", i)] = within(r, catalog.LimitMonthlyCostUSD)
	}
	sold := cost.OfferedModels(c.o)
	in.PricingMix = map[catalog.PricingModel]float64{}
	left := 1.0
	for i, pm := range sold {
		s := left
		if i < len(sold)-1 {
			s = left * r.Float64()
		}
		in.PricingMix[pm] = s
		left -= s
	}
	in.Workload = []string{"", "training", "fine_tuning", "inference"}[r.IntN(4)]
	return in
}

// Every numeric output of TCO and JobCost is finite over random valid
// inputs, on every built-in offer and on offers at the catalog limits.
func TestCostOutputsFinite(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(15, 6))
	cases := append(extremeCases(), catalogCases(t)...)
	runs := 20_000
	if testing.Short() {
		runs = 2_000
	}
	for i := range runs {
		c := cases[i%len(cases)]
		if i%2 == 0 {
			c = cases[r.IntN(len(cases))]
		}
		in := randomInput(r, c)
		res, err := cost.TCO(in)
		var ie *cost.InputError
		if errors.As(err, &ie) && ie.Summary == "Spot Job Never Finishes" {
			continue // within the limits, but physically impossible: a clear error, not a number
		}
		if err != nil {
			t.Fatalf("%s: valid input %+v: %v", c.name, in, err)
		}
		if p := numfmt.NonFinite(res, "Result"); p != "" {
			t.Fatalf("%s: input %+v: %s", c.name, in, p)
		}
		for _, pm := range cost.OfferedModels(c.o) {
			jin := cost.JobInput{Offer: c.o, Cloud: c.cl, Region: c.rg, Accelerator: c.acc, PricingModel: pm,
				Nodes: int(within(r, catalog.LimitNodeCount)), Hours: within(r, catalog.LimitHours), Workload: in.Workload,
				Discount: in.Discount, CarbonPriceUSDPerTonne: in.CarbonPriceUSDPerTonne}
			jr, err := cost.JobCost(jin)
			if errors.As(err, &ie) && ie.Summary == "Spot Job Never Finishes" {
				continue
			}
			if err != nil {
				t.Fatalf("%s: valid job %+v: %v", c.name, jin, err)
			}
			if p := numfmt.NonFinite(jr, "JobResult"); p != "" {
				t.Fatalf("%s: job %+v: %s", c.name, jin, p)
			}
		}
	}
}

// A utilization so small that the fleet runs a denormal number of
// GPU-hours is refused with the input named, not returned as +Inf per
// GPU-hour.
func TestTCOVanishingUtilization(t *testing.T) {
	t.Parallel()
	c := extremeCases()[0]
	_, err := cost.TCO(cost.Input{Offer: c.o, Cloud: c.cl, Region: c.rg, Accelerator: c.acc, InstanceCount: 1, Months: 0.001,
		Utilization: 5e-324, BlockGB: 1e9})
	var ie *cost.InputError
	if !errors.As(err, &ie) || ie.Field != "utilization" {
		t.Fatalf("err = %v, want an InputError on utilization", err)
	}
}
