// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package cost_test

import (
	"math"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/cost"
)

// TestBill: the one biller's rules, each figure derived by hand from the
// fixtures (gpu.8x: $40 on demand, $12 spot, $28 / $18 reserved, $30
// capacity block; acme spot λ = 0.02/h) and the built-in cost model
// (730 h a month, 12 / 36-month terms, capacity blocks of 1-day windows up
// to 14 days, 7-day windows up to 182 days, clusters of 1, 2, 4 … 64).
func TestBill(t *testing.T) {
	t.Parallel()
	m := builtinModel(t)
	cl, _, _, of := fixtures()
	of.CapacityBlockUSD = 30
	sl := serverlessFixture()
	sl.IdleBilledSeconds = 180 // Beam-like: 1,080 s billed per 900 s burst
	tests := []struct {
		name   string
		pm     pm
		u      cost.Usage
		hourly float64
		// billed instances, billed hours per instance, running hours per
		// instance, USD
		instances, billed, running, usd float64
	}{
		{"on demand", catalog.OnDemand, cost.Usage{Instances: 2, Hours: 100, HorizonHours: 100},
			40, 2, 100, 100, 8000},
		{"on demand, 10 % off", catalog.OnDemand, cost.Usage{Instances: 2, Hours: 100, HorizonHours: 100, Discount: 0.1},
			36, 2, 100, 100, 7200},
		// A TCO share of 2.5 instances bills 2.5 × the hours.
		{"on demand, fractional share", catalog.OnDemand, cost.Usage{Instances: 2.5, Hours: 100, HorizonHours: 1000},
			40, 2.5, 100, 100, 10000},
		// One synchronous job on 2 nodes: Λ = 0.04/h, R = (1/0.04 + 0.25)(e^0.04 − 1) = 1.0304720.
		{"spot job", catalog.Spot, cost.Usage{Instances: 2, Hours: 100, HorizonHours: 100},
			12, 2, 103.0472048, 103.0472048, 2473.132916},
		// 2.5 instances are 3 of one job: Λ = 0.06/h, R = (1/0.06 + 0.25)(e^0.06 − 1) = 1.0460682.
		{"spot job, fractional share", catalog.Spot, cost.Usage{Instances: 2.5, Hours: 100, HorizonHours: 100},
			12, 2.5, 104.6068246, 104.6068246, 3138.204737},
		{"spot serving: no rework", catalog.Spot, cost.Usage{Instances: 2, Hours: 100, HorizonHours: 100, Serving: true},
			12, 2, 100, 100, 2400},
		// 100 h bill one 8,760 h term: 2 × 8,760 × 28.
		{"reserved_1y, short use", catalog.Reserved1Y, cost.Usage{Instances: 2, Hours: 100, HorizonHours: 100},
			28, 2, 8760, 100, 490560},
		// Exactly one term is one term (no float round-up).
		{"reserved_1y, one term exactly", catalog.Reserved1Y, cost.Usage{Instances: 1, Hours: 8760, HorizonHours: 8760},
			28, 1, 8760, 8760, 245280},
		// 30,000 h span two 26,280 h terms: 52,560 h × 18.
		{"reserved_3y, renewed", catalog.Reserved3Y, cost.Usage{Instances: 1, Hours: 30000, HorizonHours: 30000},
			18, 1, 52560, 30000, 946080},
		// Terms follow the horizon, not the hours used: 13 months at 50 %
		// use are two 1-year terms; 2.5 instances reserve 3.
		{"reserved_1y, terms of the horizon", catalog.Reserved1Y, cost.Usage{Instances: 2.5, Hours: 4745, HorizonHours: 9490},
			28, 3, 17520, 4745, 1471680},
		// 100 h → 5 days = 120 h; 5 instances → a cluster of 8: 8 × 120 × 30.
		{"capacity block", catalog.CapacityBlock, cost.Usage{Instances: 5, Hours: 100, HorizonHours: 100},
			30, 8, 120, 100, 28800},
		// 70 instances → 64 + 8; 5,000 h → 4,368 h + 4 weeks = 5,040 h.
		{"capacity block, beyond the largest", catalog.CapacityBlock, cost.Usage{Instances: 70, Hours: 5000, HorizonHours: 5000},
			30, 72, 5040, 5000, 10886400},
		// 1.5 instances → 2 booked, each covering 1.5 × 100 / 2 = 75 h → 4 days.
		{"capacity block, fractional share", catalog.CapacityBlock, cost.Usage{Instances: 1.5, Hours: 100, HorizonHours: 200},
			30, 2, 96, 100, 5760},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, ok := m.Rate(of, cl, tc.pm)
			if !ok {
				t.Fatalf("gpu.8x not sold as %s", tc.pm)
			}
			checkBill(t, r.Bill(&tc.u), tc.hourly, tc.instances, tc.billed, tc.running, tc.usd)
		})
	}
	t.Run("serverless", func(t *testing.T) {
		t.Parallel()
		r := m.ServerlessRate(sl, cl)
		// 3 workers, 730 h at a 2 % duty cycle: 730 × 0.024 h each at $3.60 × 0.75.
		b := r.Bill(&cost.Usage{Instances: 3, Hours: 730, HorizonHours: 730, DutyCycle: 0.02, Discount: 0.25})
		checkBill(t, b, 2.7, 3, 17.52, 17.52, 3*17.52*2.7)
	})
	t.Run("not sold", func(t *testing.T) {
		t.Parallel()
		if _, ok := m.Rate(odOnlyOffer(), cl, catalog.Spot); ok {
			t.Error("an on-demand-only offer has a spot rate")
		}
		if _, ok := m.Rate(of, cl, catalog.Serverless); ok {
			t.Error("an instance has a serverless rate")
		}
	})
}

func checkBill(t *testing.T, b cost.Bill, hourly, instances, billed, running, usd float64) {
	t.Helper()
	approx(t, "hourly", b.HourlyUSD, hourly)
	approx(t, "instances", b.Instances, instances)
	approx6(t, "billed hours", b.BilledHours, billed)
	approx6(t, "running hours", b.RunningHours, running)
	approx6(t, "USD", b.USD, usd)
	approx6(t, "instance-hours", b.InstanceHours(), instances*billed)
}

// TestBillsLike: rates that say they bill alike (another offer of the
// same pricing model at another price; for spot, of the same cloud) bill
// the same instances, billed and running hours for every usage, USD
// exactly instance-hours × hourly; a spot rate of another cloud, another
// pricing model and a serverless rate do not say so.
func TestBillsLike(t *testing.T) {
	t.Parallel()
	m := builtinModel(t)
	cl, _, _, of := fixtures()
	of.CapacityBlockUSD = 30
	cl2 := *cl
	cl2.ID, cl2.Spot.InterruptionsPerDay = "other", 5
	of2 := *of
	of2.Region, of2.OnDemandUSD, of2.SpotUSD, of2.Reserved1YUSD, of2.Reserved3YUSD, of2.CapacityBlockUSD = "us-test-2", 41.3, 7.7, 30.1, 19.9, 33.3
	uses := []cost.Usage{{Instances: 3, Hours: 500, HorizonHours: 500}, {Instances: 2.5, Hours: 4745, HorizonHours: 9490, Discount: 0.1},
		{Instances: 70, Hours: 5000, HorizonHours: 5000, Serving: true}, {Instances: 1, Hours: 0.3, HorizonHours: 0.3, Discount: 0.35}}
	for _, pm := range catalog.InstancePricingModels {
		r1, _ := m.Rate(of, cl, pm)
		r2, _ := m.Rate(&of2, cl, pm)
		if !r1.BillsLike(&r2) || !r2.BillsLike(&r1) {
			t.Errorf("%s: two offers of one cloud do not bill alike", pm)
		}
		for _, u := range uses {
			b1, b2 := r1.Bill(&u), r2.Bill(&u)
			if b1.Instances != b2.Instances || b1.BilledHours != b2.BilledHours || b1.RunningHours != b2.RunningHours {
				t.Errorf("%s %+v: %+v and %+v bill different hours", pm, u, b1, b2)
			}
			if b := b2; b.USD != b.InstanceHours()*b.HourlyUSD || b.HourlyUSD != r2.ListUSD()*(1-u.Discount) {
				t.Errorf("%s %+v: USD %v is not instance-hours × hourly", pm, u, b.USD)
			}
		}
		r3, _ := m.Rate(&of2, &cl2, pm)
		if want := pm != catalog.Spot; r1.BillsLike(&r3) != want {
			t.Errorf("%s: another cloud's rate bills alike %v, want %v", pm, !want, want)
		}
		for _, other := range catalog.InstancePricingModels {
			if r4, _ := m.Rate(of, cl, other); other != pm && r1.BillsLike(&r4) {
				t.Errorf("%s bills like %s", pm, other)
			}
		}
	}
	s := m.ServerlessRate(serverlessFixture(), cl)
	if s.BillsLike(&s) {
		t.Error("a serverless rate bills like another")
	}
}

// TestBillAllocatesNothing: the planner bills every candidate in its inner
// loop.
func TestBillAllocatesNothing(t *testing.T) {
	m := builtinModel(t)
	cl, _, _, of := fixtures()
	of.CapacityBlockUSD = 30
	for _, pm := range catalog.InstancePricingModels {
		r, _ := m.Rate(of, cl, pm)
		if n := testing.AllocsPerRun(100, func() { r.Bill(&cost.Usage{Instances: 3, Hours: 500, HorizonHours: 500}) }); n != 0 {
			t.Errorf("%s: %v allocations per bill", pm, n)
		}
	}
}

// BenchmarkBill: one bill of each instance pricing model.
func BenchmarkBill(b *testing.B) {
	m, err := cost.DefaultModel()
	if err != nil {
		b.Fatal(err)
	}
	cl, _, _, of := fixtures()
	of.CapacityBlockUSD = 30
	var rates []cost.Rate
	for _, pm := range catalog.InstancePricingModels {
		r, _ := m.Rate(of, cl, pm)
		rates = append(rates, r)
	}
	b.ReportAllocs()
	for b.Loop() {
		for i := range rates {
			rates[i].Bill(&cost.Usage{Instances: 4, Hours: 120, HorizonHours: 120})
		}
	}
}

// TestSpotBillTable: a spot rate bills a job with its cloud's precomputed
// risk factors exactly as SpotRiskFactor computes them (the same bits) for
// every node count, inside and beyond the table, and follows a changed
// model or cloud instead of keeping stale factors.
func TestSpotBillTable(t *testing.T) {
	t.Parallel()
	m := builtinModel(t)
	cl, _, _, of := fixtures()
	check := func(m *cost.Model, cl *catalog.Cloud) {
		t.Helper()
		rate, ok := m.Rate(of, cl, catalog.Spot)
		if !ok {
			t.Fatal("fixture offer has no spot price")
		}
		for n := 1; n <= 1100; n += 1 + n/50 {
			u := cost.Usage{Instances: float64(n), Hours: 37.5, HorizonHours: 37.5}
			b := rate.Bill(&u)
			if want := 37.5 * m.SpotRiskFactor(cl, n); b.BilledHours != want && !(math.IsInf(want, 1) && math.IsInf(b.BilledHours, 1)) {
				t.Fatalf("%d nodes: billed %v h, want %v", n, b.BilledHours, want)
			}
		}
	}
	check(m, cl)
	m2 := *m
	m2.CheckpointIntervalHours *= 3
	check(&m2, cl)
	cl2 := *cl
	cl2.Spot.InterruptionsPerDay *= 10
	check(m, &cl2)
	check(&cost.Model{CheckpointIntervalHours: 1, RestartHours: 0.2, MinCheckpointCompletion: 0.01}, cl) // no cache
}
