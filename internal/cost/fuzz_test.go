// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package cost_test

import (
	"errors"
	"math"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/cost"
	"github.com/gpuplan/terraform-provider-gpu/internal/numfmt"
)

// FuzzTCO (make fuzz): whatever the numbers (0, negatives, NaN, ±Inf,
// 1e308, 2^62), TCO and JobCost return either an *InputError naming the
// input or a result whose every number is finite; never a panic and never
// a NonFiniteError (inputs within the limits cannot overflow).
func FuzzTCO(f *testing.F) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, s := range []struct {
		offer                                  uint16
		instances                              int64
		months, util, block, object, egress    float64
		inter, x1, x2, discount, carbon, hours float64
		s0, s1, s2, s3                         float64
		workload                               uint8
	}{
		{0, 1, 12, 0.6, 100, 0, 500, 0, 73, 0, 0.1, 50, 10, 1, 0, 0, 0, 0},
		{1, 1000000, 1200, 1, 1e9, 1e9, 1e9, 1e9, 1e12, 1e12, 0.999999, 1e5, 876000, 0.25, 0.25, 0.25, 0.25, 1},
		{2, 1 << 62, 1e308, 1e308, 1e308, -1, nan, inf, 1e308, 1e308, 1, 1e308, -inf, nan, -1, 2, 0, 2},
		{3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3},
		{4, -1, -12, -0.5, -inf, nan, -0, 5e-324, -1e-300, 4.9e-324, nan, -inf, 1 << 62, 1, 1, 1, 1, 4},
		{0, 7, 0.001, 5e-324, 0, 0, 0, 0, 0, 0, 0, 0, 1e-300, 0.5, 0.5, 0, 0, 0},
	} {
		f.Add(s.offer, s.instances, s.months, s.util, s.block, s.object, s.egress, s.inter, s.x1, s.x2, s.discount, s.carbon,
			s.hours, s.s0, s.s1, s.s2, s.s3, s.workload)
	}
	cases := append(extremeCases(), catalogCases(f)...)
	f.Fuzz(func(t *testing.T, offer uint16, instances int64, months, util, block, object, egress, inter, x1, x2, discount, carbon,
		hours, s0, s1, s2, s3 float64, workload uint8) {
		c := cases[int(offer)%len(cases)]
		wl := []string{"", "training", "fine_tuning", "inference", "mining"}[int(workload)%5]
		mix := map[catalog.PricingModel]float64{}
		for i, s := range []float64{s0, s1, s2, s3} {
			if s != 0 {
				mix[catalog.PricingModels[i]] = s
			}
		}
		in := cost.Input{Offer: c.o, Cloud: c.cl, Region: c.rg, Accelerator: c.acc, InstanceCount: int(instances), Months: months,
			Utilization: util, PricingMix: mix, BlockGB: block, ObjectGB: object, EgressGBPerMonth: egress, InterRegionGBPerMonth: inter,
			ExtraMonthlyUSD: map[string]float64{"x1": x1, "x2": x2}, Discount: discount, CarbonPriceUSDPerTonne: carbon, Workload: wl}
		res, err := cost.TCO(in)
		check(t, "TCO", res, err)
		for _, pm := range catalog.PricingModels {
			jr, err := cost.JobCost(cost.JobInput{Offer: c.o, Cloud: c.cl, Region: c.rg, Accelerator: c.acc, Nodes: int(instances),
				Hours: hours, PricingModel: pm, Discount: discount, Workload: wl, CarbonPriceUSDPerTonne: carbon})
			check(t, "JobCost", jr, err)
		}
	})
}

func check(t *testing.T, what string, res any, err error) {
	t.Helper()
	if err != nil {
		var ie *cost.InputError
		if !errors.As(err, &ie) || ie.Field == "" || ie.Summary == "" || ie.Detail == "" {
			t.Fatalf("%s: error %v (%T), want an *InputError naming the input", what, err, err)
		}
		return
	}
	if p := numfmt.NonFinite(res, what); p != "" {
		t.Fatalf("%s: %s", what, p)
	}
}
