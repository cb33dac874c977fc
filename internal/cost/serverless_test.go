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

// serverlessFixture is a serverless offer of the acme cloud: 1 × ACC700 at
// $0.001 per GPU-second, per-second billing, no idle tail or cold start;
// tests override the billing rules. One worker-hour lists $3.60.
func serverlessFixture() *catalog.ServerlessOffer {
	return &catalog.ServerlessOffer{Cloud: "acme", Name: "fn-acc700", Product: "functions", Accelerator: "ACC700", GPUs: 1,
		GPUMemoryGB: 80, USDPerGPUSecond: 0.001, BillingIncrementSeconds: 1}
}

func builtinModel(t *testing.T) *cost.Model {
	t.Helper()
	m, err := cost.DefaultModel()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestServerlessBilledShare: billed hours per hour of the period, from the
// offer's billing rules and bursts of the model's burst length b.
func TestServerlessBilledShare(t *testing.T) {
	m := builtinModel(t)
	b := m.Serverless.BurstSeconds
	if b != 900 {
		t.Fatalf("burst_seconds = %v: the hand-derived figures below assume 900", b)
	}
	for _, tc := range []struct {
		name string
		edit func(*catalog.ServerlessOffer)
		duty float64
		want float64
	}{
		{"never busy", nil, 0, 0},
		{"busy all the time", nil, 1, 1},
		{"per second, no extras: the busy share", nil, 0.02, 0.02},
		// Beam: 180 s keep-warm after each 900 s burst: 1080 × 0.02 / 900.
		{"idle tail", func(o *catalog.ServerlessOffer) { o.IdleBilledSeconds = 180 }, 0.02, 0.024},
		// The gap between bursts, 900 × 0.1 / 0.9 = 100 s, is shorter than
		// the 180 s idle timeout: the worker never scales to zero.
		{"idle timeout outlasts the gap", func(o *catalog.ServerlessOffer) { o.IdleBilledSeconds = 180 }, 0.9, 1},
		// Cloud Run: a billed 5 s cold start, 0.1 s increments: 905 × 0.05 / 900.
		{"billed cold start", func(o *catalog.ServerlessOffer) {
			o.ColdStartSeconds, o.ColdStartBilled, o.BillingIncrementSeconds = 5, true, 0.1
		}, 0.05, 905 * 0.05 / 900},
		{"unbilled cold start", func(o *catalog.ServerlessOffer) { o.ColdStartSeconds = 30 }, 0.05, 0.05},
		// 905 s rounded up to whole minutes: 960 s a burst.
		{"billing increment", func(o *catalog.ServerlessOffer) { o.IdleBilledSeconds, o.BillingIncrementSeconds = 5, 60 }, 0.01, 960 * 0.01 / 900},
		// An hour billed per start: 3600 × 0.01 / 900.
		{"minimum per start", func(o *catalog.ServerlessOffer) { o.MinBilledSeconds = 3600 }, 0.01, 0.04},
		{"minimum never above the period", func(o *catalog.ServerlessOffer) { o.MinBilledSeconds = 86400 }, 0.2, 1},
		{"always on", func(o *catalog.ServerlessOffer) { o.AlwaysOn = true }, 0.01, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := serverlessFixture()
			if tc.edit != nil {
				tc.edit(o)
			}
			approx(t, "share", m.ServerlessBilledShare(o, tc.duty), tc.want)
		})
	}
}

// TestServerlessCost: compute = workers × period × billed share × the
// worker rate after the discount; energy over the billed hours at the
// inference load; bad inputs name the field.
func TestServerlessCost(t *testing.T) {
	m := builtinModel(t)
	cl, rg, acc, _ := fixtures()
	o := serverlessFixture()
	o.IdleBilledSeconds, o.MinCPUCores, o.CPUUSDPerCoreSecond = 180, 2, 0.0001 // worker: $0.0012/s = $4.32/h
	o.Region = rg.ID
	in := cost.ServerlessInput{Offer: o, Cloud: cl, Region: rg, Accelerator: acc, Workers: 3, Hours: 730, DutyCycle: 0.02,
		Discount: 0.25, CarbonPriceUSDPerTonne: 100}
	r, err := m.ServerlessCost(in)
	if err != nil {
		t.Fatal(err)
	}
	approx(t, "worker $/h", r.WorkerUSDPerHour, 4.32*0.75)
	approx(t, "busy hours", r.BusyHours, 14.6)
	approx(t, "billed hours", r.BilledHours, 730*0.024)
	approx(t, "compute", r.ComputeUSD, 3*730*0.024*4.32*0.75)
	// 0.7 kW × (0.5 inference + 0.575 host) × PUE 1.1 per worker-hour.
	kwh := 3 * 730 * 0.024 * 0.7 * (0.5 + 0.575) * 1.1
	approx(t, "energy", r.EnergyKWh, kwh)
	approx(t, "CO2e", r.CO2eKg, kwh*0.4)
	approx(t, "carbon", r.CarbonCostUSD, kwh*0.4/1000*100)

	for _, bad := range []struct {
		edit  func(*cost.ServerlessInput)
		field string
	}{
		{func(in *cost.ServerlessInput) { in.DutyCycle = 0 }, "duty_cycle"},
		{func(in *cost.ServerlessInput) { in.DutyCycle = 1.5 }, "duty_cycle"},
		{func(in *cost.ServerlessInput) { in.Workers = 0 }, "workers"},
		{func(in *cost.ServerlessInput) { in.Hours = -1 }, "hours"},
	} {
		x := in
		bad.edit(&x)
		_, err := m.ServerlessCost(x)
		var ie *cost.InputError
		if !errors.As(err, &ie) || ie.Field != bad.field {
			t.Errorf("err = %v, want an input error on %s", err, bad.field)
		}
	}
}

// TestTCOServerless: gpu_tco of a serverless offer bills the workers the
// cost model's serverless hours (the same figure as ServerlessCost),
// defaults its mix to serverless, compares only serverless, counts useful
// GPU-hours from the busy share, and refuses instance pricing models on it
// (and serverless on an instance).
func TestTCOServerless(t *testing.T) {
	m := builtinModel(t)
	cl, _, acc, of := fixtures()
	o := serverlessFixture()
	o.IdleBilledSeconds = 180
	in := cost.Input{Serverless: o, Cloud: cl, Accelerator: acc, InstanceCount: 2, Months: 3, Utilization: 0.02,
		BlockGB: 100, Discount: 0.1}
	res, err := m.TCO(in)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := m.ServerlessCost(cost.ServerlessInput{Offer: o, Cloud: cl, Accelerator: acc, Workers: 2, Hours: 3 * 730,
		DutyCycle: 0.02, Discount: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	approx(t, "compute", res.Breakdown[0].USD, sc.ComputeUSD)
	approx(t, "storage", res.Breakdown[1].USD, 100*0.08*0.9*3)
	approx(t, "energy", res.EnergyKWh, sc.EnergyKWh)
	approx(t, "GPU-hours", res.GPUHours, 2*3*730*0.02)
	if len(res.Compute) != 1 || res.Compute[0].PricingModel != catalog.Serverless {
		t.Errorf("compute lines %+v, want one serverless line", res.Compute)
	}
	if rows, err := m.Compare(in); err != nil || len(rows) != 1 || rows[0].PricingModel != catalog.Serverless || !rows[0].Available() ||
		rows[0].Result.TotalUSD != res.TotalUSD {
		t.Errorf("comparison %+v (%v), want serverless alone, the TCO's total", rows, err)
	}
	if len(res.BreakEven) != 0 {
		t.Errorf("break-even %+v, want none", res.BreakEven)
	}
	placed := false
	for _, w := range res.Warnings {
		placed = placed || strings.Contains(w, "no stated region")
	}
	if !placed {
		t.Errorf("warnings %q lack the placed-workers one", res.Warnings)
	}
	explicit := in
	explicit.PricingMix = map[catalog.PricingModel]float64{catalog.Serverless: 1}
	if r2, err := m.TCO(explicit); err != nil || r2.TotalUSD != res.TotalUSD {
		t.Errorf("explicit serverless mix: %v, %v; want %v", r2.TotalUSD, err, res.TotalUSD)
	}

	for _, tc := range []struct {
		name string
		in   cost.Input
		want string
	}{
		{"on-demand on a serverless offer", func() cost.Input {
			x := in
			x.PricingMix = map[catalog.PricingModel]float64{catalog.OnDemand: 1}
			return x
		}(), `acme fn-acc700 (workers placed by the platform) has no "on_demand" price in the catalog; it is sold as: "serverless".`},
		{"serverless on an instance", cost.Input{Offer: of, Cloud: cl, InstanceCount: 1, Months: 1, Utilization: 1,
			PricingMix: map[catalog.PricingModel]float64{catalog.Serverless: 1}},
			`acme gpu.8x in us-test-1 has no "serverless" price in the catalog; it is sold as: "on_demand", "spot", "reserved_1y", "reserved_3y".`},
		{"both", func() cost.Input { x := in; x.Offer = of; return x }(), "exclude each other"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := m.TCO(tc.in)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}
