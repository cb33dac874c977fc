// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package cost_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/cost"
)

type pm = catalog.PricingModel

func TestTCO(t *testing.T) {
	t.Parallel()
	cl, rg, acc, of := fixtures()
	base := func() cost.Input {
		return cost.Input{Offer: of, Cloud: cl, Region: rg, Accelerator: acc, InstanceCount: 1, Months: 1, Utilization: 1}
	}
	type want struct {
		total, monthly, perGPUh float64
		lines                   map[string]float64 // every breakdown line, in order below
		order                   []string
		kwh, co2, carbon        float64
		comparison              map[pm][2]float64 // total, savings
		breakEven               map[pm][2]float64 // utilization, months
		neverPaysOff            bool              // BreakEven.Never of every reservation
	}
	tests := []struct {
		name string
		in   func() cost.Input
		want want
	}{
		{
			// D = 2 inst × 12 mo × 730 h × 0.5 = 8,760 instance-hours; GPU-hours 70,080.
			// compute        8,760 h × $40                              = 350,400
			// storage_block  1,000 GB × 0.08 × 12                       =     960
			// storage_object 5,000 GB × 0.023 × 12                      =   1,380
			// egress 20,000 GB/mo: 100×0 + 10,140×0.09 (912.6)
			//        + 9,760×0.085 (829.6) = 1,742.2/mo × 12            =  20,906.4
			// inter_region   500 × 0.02 × 12                            =     120
			// extra:k8s 73 × 12 = 876; extra:support 100 × 12           =   1,200
			// total = 375,842.4; monthly 31,320.2; per GPU-h /70,080 = 5.363065068...
			// energy 8,760 h × node 7.7 kW (8 × 0.7 × (0.8 training + 0.575 host)) × 1.1 (region PUE) = 74,197.2 kWh
			// CO2e ×400 g/kWh = 29,678.88 kg; carbon price 0: no carbon line.
			// Comparison (hidden costs 25,442.4 in every row):
			//  spot  2 instances as one synchronous job: R = (1/0.04 + 0.25)(e^0.04 − 1) = 1.0304720;
			//        8,760 × 1.030472 × 12 = 108,323.2217 → 133,765.6217, saves 242,076.7783
			//  r1y   2 inst × 1 term × 12 × 730 = 17,520 h × 28 = 490,560 → 516,002.4, saves −140,160
			//  r3y   2 × 36 × 730 = 52,560 h × 18 = 946,080 → 971,522.4, saves −595,680
			// Break-even r1y: u = 1·12·28/(12·40) = 0.7; months = 12·28/(0.5·40) = 16.8
			//            r3y: u = 36·18/(12·40) = 1.35; months = 36·18/(0.5·40) = 32.4
			name: "on_demand_with_hidden_costs",
			in: func() cost.Input {
				in := base()
				in.InstanceCount, in.Months, in.Utilization = 2, 12, 0.5
				in.BlockGB, in.ObjectGB, in.EgressGBPerMonth, in.InterRegionGBPerMonth = 1000, 5000, 20000, 500
				in.ExtraMonthlyUSD = map[string]float64{"support": 100, "k8s": 73}
				return in
			},
			want: want{
				total: 375842.4, monthly: 31320.2, perGPUh: 375842.4 / 70080,
				order: []string{"compute", "storage_block", "storage_object", "egress", "inter_region", "extra:k8s", "extra:support"},
				lines: map[string]float64{"compute": 350400, "storage_block": 960, "storage_object": 1380, "egress": 20906.4,
					"inter_region": 120, "extra:k8s": 876, "extra:support": 1200},
				kwh: 74197.2, co2: 29678.88, carbon: 0,
				comparison: map[pm][2]float64{
					catalog.OnDemand: {375842.4, 0}, catalog.Spot: {133765.6217234, 242076.7782766},
					catalog.Reserved1Y: {516002.4, -140160}, catalog.Reserved3Y: {971522.4, -595680},
				},
				breakEven: map[pm][2]float64{catalog.Reserved1Y: {0.7, 16.8}, catalog.Reserved3Y: {1.35, 32.4}},
			},
		},
		{
			// Mix with a 10 % discount, $100/t carbon, inference.
			// D = 4 × 8 × 730 × 0.75 = 17,520 instance-hours.
			// on_demand 0.25 × 17,520 = 4,380 h × 40·0.9 (36)              = 157,680
			// spot      ceil(0.25 × 4) = 1 instance: R = (1/0.02 + 0.25)(e^0.02 − 1) = 1.0151173;
			//           4,380 × 1.0151173 = 4,446.2139 h × 12·0.9 (10.8)    =  48,019.1105
			// r3y       N = ceil(0.5 × 4) = 2; 1 term (8 ≤ 36 months):
			//           2 × 36 × 730 = 52,560 h × 18·0.9 (16.2)            = 851,472
			// compute = 1,057,171.1105
			// running = 4,380 + 4,446.2139 + 0.5·17,520 (8,760) = 17,586.2139 instance-h
			// energy = 17,586.2139 × 8 × 0.7 × (0.5 inference + 0.575 host) × 1.1 = 116,455.9087 kWh
			// CO2e = × 0.4 = 46,582.3635 kg; carbon = 46.5823635 t × 100 = 4,658.2363
			// total = 1,061,829.3468; monthly /8 = 132,728.6684
			// GPU-hours 17,520 × 8 = 140,160.
			name: "mix_discount_carbon_inference",
			in: func() cost.Input {
				in := base()
				in.InstanceCount, in.Months, in.Utilization = 4, 8, 0.75
				in.PricingMix = map[pm]float64{catalog.Reserved3Y: 0.5, catalog.Spot: 0.25, catalog.OnDemand: 0.25}
				in.Discount, in.CarbonPriceUSDPerTonne, in.Workload = 0.1, 100, "inference"
				return in
			},
			want: want{
				total: 1061829.346825, monthly: 1061829.346825 / 8, perGPUh: 1061829.346825 / 140160,
				order: []string{"compute", "storage_block", "storage_object", "egress", "inter_region", "carbon"},
				lines: map[string]float64{"compute": 1057171.110478, "storage_block": 0, "storage_object": 0, "egress": 0,
					"inter_region": 0, "carbon": 4658.236347},
				kwh: 116455.908666, co2: 46582.363466, carbon: 4658.236347,
			},
		},
		{
			// Reserved renews: 40 months on reserved_1y = ceil(40/12) = 4 terms
			// = 48 months × 730 = 35,040 h × 28 = 981,120, at any utilization.
			// Energy: 1 × 40 × 730 × 0.1 = 2,920 h × 7.7 kW × 1.1 = 24,732.4 kWh; × 0.4 = 9,892.96 kg.
			// Break-even r1y: u = 4·12·28/(40·40) = 0.84; months = 12·28/(0.1·40) = 84.
			name: "reserved_1y_renewed",
			in: func() cost.Input {
				in := base()
				in.Months, in.Utilization = 40, 0.1
				in.PricingMix = map[pm]float64{catalog.Reserved1Y: 1}
				return in
			},
			want: want{
				total: 981120, monthly: 981120.0 / 40, perGPUh: 981120.0 / (2920 * 8),
				order: []string{"compute", "storage_block", "storage_object", "egress", "inter_region"},
				lines: map[string]float64{"compute": 981120, "storage_block": 0, "storage_object": 0, "egress": 0, "inter_region": 0},
				kwh:   24732.4, co2: 9892.96,
				breakEven: map[pm][2]float64{catalog.Reserved1Y: {0.84, 84}},
			},
		},
		{
			// Exactly two terms: 24 months on reserved_1y = 2 × 12 × 730 = 17,520 h × 28 = 490,560.
			// Energy 17,520 × 7.7 kW × 1.1 = 148,394.4 kWh.
			name: "reserved_1y_exact_terms",
			in: func() cost.Input {
				in := base()
				in.Months = 24
				in.PricingMix = map[pm]float64{catalog.Reserved1Y: 1}
				return in
			},
			want: want{
				total: 490560, monthly: 20440, perGPUh: 490560.0 / (17520 * 8),
				order: []string{"compute", "storage_block", "storage_object", "egress", "inter_region"},
				lines: map[string]float64{"compute": 490560, "storage_block": 0, "storage_object": 0, "egress": 0, "inter_region": 0},
				kwh:   148394.4, co2: 59357.76,
			},
		},
		{
			// 3-year reservation used 8 months still bills 36: 36 × 730 = 26,280 h × 18 = 473,040.
			// Energy: 8 × 730 = 5,840 h × 7.7 kW × 1.2 (no region: cloud PUE) = 53,961.6 kWh; no grid → 0 kg.
			name: "reserved_3y_short_use_no_region",
			in: func() cost.Input {
				in := base()
				in.Region = nil
				in.Months = 8
				in.PricingMix = map[pm]float64{catalog.Reserved3Y: 1}
				return in
			},
			want: want{
				total: 473040, monthly: 59130, perGPUh: 473040.0 / (5840 * 8),
				order: []string{"compute", "storage_block", "storage_object", "egress", "inter_region"},
				lines: map[string]float64{"compute": 473040, "storage_block": 0, "storage_object": 0, "egress": 0, "inter_region": 0},
				kwh:   53961.6, co2: 0,
			},
		},
		{
			// Zero utilization: nothing runs, on-demand costs 0, storage still bills:
			// 100 GB × 0.08 × 2 = 16. Per GPU-hour is 0 by definition (no GPU-hours).
			name: "idle_fleet",
			in: func() cost.Input {
				in := base()
				in.Months, in.Utilization, in.BlockGB = 2, 0, 100
				return in
			},
			want: want{
				total: 16, monthly: 8, perGPUh: 0,
				order: []string{"compute", "storage_block", "storage_object", "egress", "inter_region"},
				lines: map[string]float64{"compute": 0, "storage_block": 16, "storage_object": 0, "egress": 0, "inter_region": 0},
				breakEven: map[pm][2]float64{
					// u = 12·28/(2·40) = 4.2 (never), no break-even month at zero utilization (Never, months 0).
					catalog.Reserved1Y: {4.2, 0},
					catalog.Reserved3Y: {36 * 18 / 80.0, 0},
				},
				neverPaysOff: true,
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res, err := cost.TCO(tc.in())
			if err != nil {
				t.Fatal(err)
			}
			w := tc.want
			approx(t, "total", res.TotalUSD, w.total)
			approx(t, "monthly", res.MonthlyUSD, w.monthly)
			approx(t, "per GPU-hour", res.CostPerGPUHourUSD, w.perGPUh)
			approx(t, "kWh", res.EnergyKWh, w.kwh)
			approx(t, "CO2e", res.CO2eKg, w.co2)
			approx(t, "carbon USD", res.CarbonCostUSD, w.carbon)
			if len(res.Breakdown) != len(w.order) {
				t.Fatalf("breakdown = %+v, want categories %v", res.Breakdown, w.order)
			}
			var sum float64
			for i, l := range res.Breakdown {
				if l.Category != w.order[i] {
					t.Errorf("breakdown[%d] = %q, want %q", i, l.Category, w.order[i])
				}
				approx(t, l.Category, l.USD, w.lines[l.Category])
				sum += l.USD
			}
			approx(t, "sum of breakdown", sum, res.TotalUSD)
			if w.comparison != nil {
				checkComparison(t, tc.in(), w.comparison)
			}
			for p, exp := range w.breakEven {
				be, ok := res.BreakEven[p]
				if !ok {
					t.Fatalf("no break-even for %s", p)
				}
				approx(t, "break-even utilization "+string(p), be.Utilization, exp[0])
				approx(t, "break-even months "+string(p), be.Months, exp[1])
				if be.Never != w.neverPaysOff {
					t.Errorf("break-even %s: Never = %v, want %v", p, be.Never, w.neverPaysOff)
				}
			}
		})
	}
}

// checkComparison compares the available rows of in's comparison with
// want (pricing model → total, savings against on-demand).
func checkComparison(t *testing.T, in cost.Input, want map[pm][2]float64) {
	t.Helper()
	m, err := cost.DefaultModel()
	if err != nil {
		t.Fatal(err)
	}
	rows, err := m.Compare(in)
	if err != nil {
		t.Fatal(err)
	}
	var od float64
	for _, r := range rows {
		if r.PricingModel == catalog.OnDemand && r.Available() {
			od = r.Result.TotalUSD
		}
	}
	n := 0
	for _, r := range rows {
		if !r.Available() {
			continue
		}
		n++
		exp := want[r.PricingModel]
		approx(t, "comparison total "+string(r.PricingModel), r.Result.TotalUSD, exp[0])
		approx(t, "comparison savings "+string(r.PricingModel), od-r.Result.TotalUSD, exp[1])
	}
	if n != len(want) {
		t.Errorf("comparison has %d available rows, want %d: %+v", n, len(want), rows)
	}
}

// TestCompareHasARowPerPricingModel: every instance pricing model has a
// row, the ones the offer is not sold under with the reason, so a
// comparison never fails on a gap.
func TestCompareHasARowPerPricingModel(t *testing.T) {
	t.Parallel()
	cl, rg, acc, _ := fixtures()
	m, err := cost.DefaultModel()
	if err != nil {
		t.Fatal(err)
	}
	// 1 × 1 GPU × 730 h × $2 = 1,460 on-demand; the offer sells nothing else.
	in := cost.Input{Offer: odOnlyOffer(), Cloud: cl, Region: rg, Accelerator: acc, InstanceCount: 1, Months: 1, Utilization: 1}
	rows, err := m.Compare(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(catalog.InstancePricingModels) {
		t.Fatalf("%d rows, want one per instance pricing model: %+v", len(rows), rows)
	}
	for i, r := range rows {
		if r.PricingModel != catalog.InstancePricingModels[i] {
			t.Errorf("row %d is %s, want %s", i, r.PricingModel, catalog.InstancePricingModels[i])
		}
		if r.PricingModel == catalog.OnDemand {
			if !r.Available() {
				t.Fatalf("on_demand: %s", r.Reason)
			}
			approx(t, "on-demand total", r.Result.TotalUSD, 1460)
			continue
		}
		if r.Available() || !strings.Contains(r.Reason, "has no \""+string(r.PricingModel)+"\" price") || !strings.Contains(r.Reason, "sold as: \"on_demand\"") {
			t.Errorf("%s: available %v, reason %q", r.PricingModel, r.Available(), r.Reason)
		}
	}
	res, err := cost.TCO(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.BreakEven) != 0 {
		t.Errorf("break-even = %v, want none", res.BreakEven)
	}
}

func TestEgressTiersInOrder(t *testing.T) {
	t.Parallel()
	cl, _, _, _ := fixtures()
	bounded := []catalog.EgressTier{{UpToGB: 1000, USDPerGB: 0.1}, {UpToGB: 2000, USDPerGB: 0.05}}
	tests := []struct {
		name  string
		tiers []catalog.EgressTier
		gb    float64
		want  float64
	}{
		{"nothing", cl.EgressTiers, 0, 0},
		{"inside_free_tier", cl.EgressTiers, 50, 0},
		{"free_tier_edge", cl.EgressTiers, 100, 0},
		{"first_paid", cl.EgressTiers, 1100, 90},                              // 1,000 × 0.09
		{"first_paid_edge", cl.EgressTiers, 10240, 912.6},                     // 10,140 × 0.09
		{"all_tiers", cl.EgressTiers, 60000, 912.6 + 40960*0.085 + 8800*0.07}, // 912.6 + 3,481.6 + 616 = 5,010.2
		{"past_last_bound_uses_last_rate", bounded, 3000, 100 + 2000*0.05},    // 1,000×0.1 + (1,000 + 1,000)×0.05 = 200
		{"no_tiers_is_free", nil, 5000, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			approx(t, "egress", cost.EgressUSD(tc.tiers, tc.gb), tc.want)
		})
	}
	// Tiers in order: the cheaper later tiers never apply before the dearer early ones,
	// so the marginal price of each extra GB follows the ladder.
	prev := 0.0
	for gb := 0.0; gb <= 70000; gb += 500 {
		c := cost.EgressUSD(cl.EgressTiers, gb)
		if c < prev {
			t.Fatalf("egress not monotone at %v GB", gb)
		}
		prev = c
	}
}

func TestTCOInvariants(t *testing.T) {
	t.Parallel()
	cl, rg, acc, of := fixtures()
	r := rand.New(rand.NewPCG(4, 2))
	models := catalog.PricingModels
	for i := 0; i < 2000; i++ {
		mix := map[pm]float64{}
		a, b := r.Float64(), r.Float64()
		if a > b {
			a, b = b, a
		}
		mix[models[r.IntN(4)]] += a
		mix[models[r.IntN(4)]] += b - a
		mix[models[r.IntN(4)]] += 1 - b
		in := cost.Input{
			Offer: of, Cloud: cl, Region: rg, Accelerator: acc,
			InstanceCount: 1 + r.IntN(16), Months: 0.5 + r.Float64()*60, Utilization: r.Float64(),
			PricingMix: mix, BlockGB: r.Float64() * 1e4, ObjectGB: r.Float64() * 1e5,
			EgressGBPerMonth: r.Float64() * 2e5, InterRegionGBPerMonth: r.Float64() * 1e4,
			ExtraMonthlyUSD: map[string]float64{"a": r.Float64() * 1000},
			Discount:        r.Float64() * 0.5, CarbonPriceUSDPerTonne: float64(r.IntN(2)) * 200,
		}
		res, err := cost.TCO(in)
		if err != nil {
			t.Fatal(err)
		}
		// The breakdown always sums to the total.
		var sum float64
		for _, l := range res.Breakdown {
			sum += l.USD
		}
		approx(t, "sum of breakdown", sum, res.TotalUSD)
		hours := float64(in.InstanceCount) * in.Months * 730 * in.Utilization
		for _, c := range res.Compute {
			price, _ := of.Price(c.PricingModel)
			rate := price * (1 - in.Discount)
			switch c.PricingModel {
			case catalog.Spot:
				// Spot never ends cheaper than its undiscounted-by-risk hours allow.
				if c.USD < c.Share*hours*rate-1e-6 {
					t.Fatalf("spot %v < %v", c.USD, c.Share*hours*rate)
				}
			case catalog.Reserved1Y, catalog.Reserved3Y:
				// Reserved costs at least one full term per reserved instance, whatever the utilization.
				term := 12.0
				if c.PricingModel == catalog.Reserved3Y {
					term = 36
				}
				full := float64(c.ReservedInstances) * math.Ceil(in.Months/term-1e-9) * term * 730 * rate
				approx(t, "reserved full term", c.USD, full)
				if c.ReservedInstances < 1 {
					t.Fatalf("reserved share %v with no instance", c.Share)
				}
			}
		}
	}
}

func TestTCOErrors(t *testing.T) {
	t.Parallel()
	cl, rg, acc, of := fixtures()
	good := func() cost.Input {
		return cost.Input{Offer: of, Cloud: cl, Region: rg, Accelerator: acc, InstanceCount: 1, Months: 1, Utilization: 1}
	}
	tests := []struct {
		name         string
		mod          func(*cost.Input)
		field, key   string
		detailSubstr string
	}{
		{"zero_instances", func(in *cost.Input) { in.InstanceCount = 0 }, "instance_count", "", "instance_count must be a whole number from 1 to 1,000,000 nodes, got 0."},
		{"zero_months", func(in *cost.Input) { in.Months = 0 }, "months", "", "months must be from 0.001 to 1200 months, got 0."},
		{"utilization_above_1", func(in *cost.Input) { in.Utilization = 1.2 }, "utilization", "", "utilization must be from 0 to 1, got 1.2."},
		{"utilization_negative", func(in *cost.Input) { in.Utilization = -0.1 }, "utilization", "", "got -0.1"},
		{"utilization_nan", func(in *cost.Input) { in.Utilization = math.NaN() }, "utilization", "", "must be a finite number from 0 to 1, got NaN"},
		{"negative_block", func(in *cost.Input) { in.BlockGB = -1 }, "storage.block_gb", "", "storage.block_gb must be from 0 to 1,000,000,000 GB, got -1."},
		{"negative_object", func(in *cost.Input) { in.ObjectGB = -1 }, "storage.object_gb", "", "got -1"},
		{"negative_egress", func(in *cost.Input) { in.EgressGBPerMonth = -5 }, "network.egress_gb_per_month", "", "got -5"},
		{"negative_inter_region", func(in *cost.Input) { in.InterRegionGBPerMonth = -5 }, "network.inter_region_gb_per_month", "", "got -5"},
		{"negative_extra", func(in *cost.Input) { in.ExtraMonthlyUSD = map[string]float64{"k8s": -73} }, "extra_monthly_usd", "k8s", `extra_monthly_usd["k8s"] must be from 0 to 1,000,000,000,000 USD/month, got -73.`},
		{"discount_one", func(in *cost.Input) { in.Discount = 1 }, "discount", "", "discount must be at least 0 and less than 1, got 1."},
		{"negative_carbon_price", func(in *cost.Input) { in.CarbonPriceUSDPerTonne = -1 }, "carbon_price_usd_per_tonne", "", "must be from 0 to 100,000 USD/t, got -1."},
		// Overflow-sized inputs (they made NaN and crashed the plugin) name the input and the limit.
		{"months_1e308", func(in *cost.Input) { in.Months = 1e308 }, "months", "", "months must be from 0.001 to 1200 months, got 1 × 10^308."},
		{"block_1e308", func(in *cost.Input) { in.BlockGB = 1e308 }, "storage.block_gb", "", "got 1 × 10^308"},
		{"egress_1e308", func(in *cost.Input) { in.EgressGBPerMonth = 1e308 }, "network.egress_gb_per_month", "", "got 1 × 10^308"},
		{"extras_1e308", func(in *cost.Input) { in.ExtraMonthlyUSD = map[string]float64{"x": 1e308, "y": 1e308} }, "extra_monthly_usd", "x", "got 1 × 10^308"},
		{"carbon_1e308", func(in *cost.Input) { in.CarbonPriceUSDPerTonne = 1e308 }, "carbon_price_usd_per_tonne", "", "got 1 × 10^308"},
		{"instances_2^62", func(in *cost.Input) { in.InstanceCount = 1 << 62 }, "instance_count", "", "got 4.612 × 10^18"},
		{"months_inf", func(in *cost.Input) { in.Months = math.Inf(1) }, "months", "", "must be a finite number from 0.001 to 1200 months, got infinity"},
		{"unknown_workload", func(in *cost.Input) { in.Workload = "gaming" }, "load", "", `"inference"`},
		{"load_factor_above_1", func(in *cost.Input) { in.LoadFactor = 1.5 }, "load_factor", "", "at most 1"},
		{"shares_below_1", func(in *cost.Input) { in.PricingMix = map[pm]float64{catalog.OnDemand: 0.5, catalog.Spot: 0.3} }, "pricing_mix", "", "sum to 0.8"},
		{"shares_above_1", func(in *cost.Input) { in.PricingMix = map[pm]float64{catalog.OnDemand: 0.9, catalog.Spot: 0.3} }, "pricing_mix", "", "sum to 1.2"},
		{"share_negative", func(in *cost.Input) { in.PricingMix = map[pm]float64{catalog.OnDemand: 1.5, catalog.Spot: -0.5} }, "pricing_mix", "on_demand", "must be from 0 to 1, got 1.5"},
		{"unknown_model", func(in *cost.Input) { in.PricingMix = map[pm]float64{"savings_plan": 1} }, "pricing_mix", "savings_plan", `"reserved_3y"`},
		{"model_not_sold", func(in *cost.Input) {
			in.Offer = odOnlyOffer()
			in.PricingMix = map[pm]float64{catalog.Spot: 1}
		}, "pricing_mix", "spot", `no "spot" price in the catalog; it is sold as: "on_demand"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := good()
			tc.mod(&in)
			_, err := cost.TCO(in)
			var ie *cost.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("err = %v, want *cost.InputError", err)
			}
			if ie.Field != tc.field || ie.MapKey != tc.key {
				t.Errorf("field = %q[%q], want %q[%q]", ie.Field, ie.MapKey, tc.field, tc.key)
			}
			if !strings.Contains(ie.Detail, tc.detailSubstr) {
				t.Errorf("detail %q does not contain %q", ie.Detail, tc.detailSubstr)
			}
			if ie.Summary == "" {
				t.Error("empty summary")
			}
		})
	}
	// Shares within the tolerance are accepted and normalised: thirds written
	// as 0.333 sum to 0.999; the blend then bills exactly 1/3 each.
	in := good()
	in.PricingMix = map[pm]float64{catalog.OnDemand: 0.333, catalog.Spot: 0.333, catalog.Reserved1Y: 0.333}
	res, err := cost.TCO(in)
	if err != nil {
		t.Fatal(err)
	}
	approx(t, "normalised share", res.Compute[0].Share, 1.0/3)
	// Missing offer or cloud is a programming error, not an InputError.
	if _, err := cost.TCO(cost.Input{}); err == nil {
		t.Error("empty input accepted")
	}
}

func TestTCOWarnings(t *testing.T) {
	t.Parallel()
	cl, _, _, of := fixtures()
	bare := *cl
	bare.PUE = 0
	bare.BlockStorageUSDPerGBMonth = 0
	// No region, no accelerator, no cloud PUE: energy is 0 and warned about;
	// block storage unpriced is warned about.
	res, err := cost.TCO(cost.Input{Offer: of, Cloud: &bare, InstanceCount: 1, Months: 1, Utilization: 1, BlockGB: 10})
	if err != nil {
		t.Fatal(err)
	}
	approx(t, "PUE falls back", res.PUE, 1.25)
	if res.EnergyKWh != 0 || len(res.Warnings) != 4 {
		t.Errorf("energy %v, warnings %q", res.EnergyKWh, res.Warnings)
	}
}

// TestTCOLoad: the energy follows what the GPUs do: node power = GPUs ×
// TDP × (load factor + host share), so serving at the inference load
// factor bills (0.50 + h) / (0.80 + h) of training's energy, and a load
// factor given outright replaces the kind's.
func TestTCOLoad(t *testing.T) {
	t.Parallel()
	cl, rg, acc, of := fixtures()
	m, err := cost.DefaultModel()
	if err != nil {
		t.Fatal(err)
	}
	energy := func(mod func(*cost.Input)) (float64, float64) {
		in := cost.Input{Offer: of, Cloud: cl, Region: rg, Accelerator: acc, InstanceCount: 2, Months: 1, Utilization: 1}
		mod(&in)
		res, err := m.TCO(in)
		if err != nil {
			t.Fatal(err)
		}
		return res.EnergyKWh, res.LoadFactor
	}
	train, lfTrain := energy(func(*cost.Input) {})
	serve, lfServe := energy(func(in *cost.Input) { in.Workload = "inference" })
	given, lfGiven := energy(func(in *cost.Input) { in.LoadFactor = 0.3 })
	h := m.HostPowerPerGPUTDP
	if lfTrain != m.LoadFactor["training"] || lfServe != m.LoadFactor["inference"] || lfGiven != 0.3 {
		t.Errorf("load factors %v, %v, %v", lfTrain, lfServe, lfGiven)
	}
	if want := (m.LoadFactor["inference"] + h) / (m.LoadFactor["training"] + h); math.Abs(serve/train-want) > 1e-12 {
		t.Errorf("serving energy / training energy = %v, want %v", serve/train, want)
	}
	if want := (0.3 + h) / (m.LoadFactor["training"] + h); math.Abs(given/train-want) > 1e-12 {
		t.Errorf("load factor 0.3 energy / training energy = %v, want %v", given/train, want)
	}
}
