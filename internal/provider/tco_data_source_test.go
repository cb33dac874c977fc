// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/numfmt"
)

// errRe compiles a diagnostic pattern in which each space matches any run
// of white space, since Terraform wraps diagnostic text at 80 columns.
func errRe(pattern string) *regexp.Regexp {
	return regexp.MustCompile("(?s)" + strings.ReplaceAll(pattern, " ", `\s+`))
}

// usd checks a money attribute to within one cent of a value derived by
// hand in the test (independent rounding order may differ by a cent).
func usd(want float64) knownvalue.Check {
	return knownvalue.Float64Func(func(got float64) error {
		if math.Abs(got-want) > 0.0100001 {
			return fmt.Errorf("got %.2f, want %.4f ± 0.01", got, want)
		}
		return nil
	})
}

// tcoOffer reads g5.xlarge in us-east-1 from the built-in catalog: the
// expectations below are derived from its listed prices.
func tcoOffer(t *testing.T) (*catalog.Catalog, *catalog.Offer, *catalog.Cloud, *catalog.Region, *catalog.Accelerator) {
	t.Helper()
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	o, ok := cat.Offer("aws", "g5.xlarge", "us-east-1")
	if !ok {
		t.Fatal("catalog lacks aws g5.xlarge in us-east-1")
	}
	cl, _ := cat.Cloud("aws")
	rg, _ := cat.Region("aws", "us-east-1")
	acc, _ := cat.Accelerator(o.Accelerator)
	if rg == nil || acc == nil || o.SpotUSD == 0 || o.Reserved1YUSD == 0 || o.Reserved3YUSD == 0 {
		t.Fatal("catalog lacks the region, accelerator or prices the test derives from")
	}
	return cat, o, cl, rg, acc
}

func TestAccTCODataSource(t *testing.T) {
	t.Parallel()
	_, o, cl, rg, acc := tcoOffer(t)

	// --- testdata/TestAccTCODataSource/test.tf: discount 10 %, $100/t. ---
	// Catalog (2026 snapshot): g5.xlarge us-east-1 $/h on_demand 1.006, spot 0.4213,
	// reserved_1y 0.63378, reserved_3y 0.43459; A10G 300 W; us-east-1 PUE 1.15,
	// grid 379.069 g/kWh; AWS block 0.08, object 0.023 $/GB-mo, egress 100 GB free
	// then 0.09, inter-region 0.02 $/GB, 0.01 spot interruptions/day.
	const d = 0.9
	// Useful instance-hours D = 2 × 12 × 730 × 0.5 = 8,760.
	D := 2 * 12 * 730 * 0.5
	// compute: on_demand 0.5 × 8,760 = 4,380 h × 1.006·0.9 = 3,965.652
	//        + reserved_1y ceil(0.5 × 2) = 1 instance × 12 × 730 = 8,760 h × 0.63378·0.9 = 4,996.72
	//        = 8,962.37
	compute := 0.5*D*o.OnDemandUSD*d + 1*12*730*o.Reserved1YUSD*d
	block := 500 * cl.BlockStorageUSDPerGBMonth * 12 * d    // 500 × 0.08 × 12 × 0.9 = 432
	object := 2000 * cl.ObjectStorageUSDPerGBMonth * 12 * d // 2,000 × 0.023 × 12 × 0.9 = 496.8
	// egress: 1,100 GB/mo = 100 free + 1,000 × 0.09 = 90/mo × 12 × 0.9 = 972
	egress := (1100 - cl.EgressTiers[0].UpToGB) * cl.EgressTiers[1].USDPerGB * 12 * d
	inter := 100 * cl.InterRegionUSDPerGB * 12 * d // 100 × 0.02 × 12 × 0.9 = 21.6
	eks := 73.0 * 12                               // 876, not discounted
	// energy: all 8,760 useful hours run (reserved idle hours draw nothing);
	// a node draws its GPU at the training load plus the host:
	// 8,760 × 1 GPU × 0.3 kW × (0.8 training + 0.575 host) × 1.15 = 4,155.5 kWh;
	// × 379.069 g = 1,575.2 kg; × $100/t = 157.52.
	kwhPerHour := float64(o.GPUs) * acc.TDPWatts / 1000 * (0.8 + 0.575) * rg.PUE
	kwh := D * kwhPerHour
	co2 := kwh * rg.GridGCO2ePerKWh / 1000
	carbon := co2 / 1000 * 100
	lines := []float64{compute, block, object, egress, inter, eks, carbon}
	var total float64
	for _, l := range lines {
		total += math.Round(l*100) / 100
	}
	// total = 8,962.37 + 432 + 496.8 + 972 + 21.6 + 876 + 157.52 = 11,918.29;
	// monthly 993.19; per GPU-hour 11,918.29 / 8,760 = 1.36.
	hidden := block + object + egress + inter + eks // 2,798.40
	// Comparison, all compute one way (+ hidden 2,798.40 + carbon):
	//  on_demand   8,760 × 0.9054 = 7,931.30 + 91.65          → 10,821.35
	//  spot        both instances as one synchronous job, Λ = 2 × 0.01/24:
	//              R = (1/Λ + 0.25)(e^Λ − 1) = 1.00063, 8,765.5 h × 0.37917
	//              = 3,322.57; carbon on 8,762.74 h = 91.68   →  6,212.65, saves 4,608.70
	//  reserved_1y 2 × 8,760 h × 0.570402 = 9,993.44 + 91.65  → 12,883.49, saves −2,062.14
	//  reserved_3y 2 × 36 × 730 h × 0.391131 = 20,557.85      → 23,447.90, saves −12,626.55
	// spotR is the rework factor of n spot instances as one synchronous job
	// (τ = 1 h checkpoints, 0.25 h restart): (1/Λ + 0.25)(e^Λ − 1), Λ = n·λ.
	spotR := func(n float64) float64 {
		l := n * cl.Spot.InterruptionsPerDay / 24
		return (1/l + 0.25) * math.Expm1(l)
	}
	R := spotR(2)
	cmp := map[string]float64{
		"on_demand":   D*o.OnDemandUSD*d + hidden + carbon,
		"spot":        D*R*o.SpotUSD*d + hidden + D*R*kwhPerHour*rg.GridGCO2ePerKWh/1e6*100,
		"reserved_1y": 2*12*730*o.Reserved1YUSD*d + hidden + carbon,
		"reserved_3y": 2*36*730*o.Reserved3YUSD*d + hidden + carbon,
	}
	// Break-even of a reservation (cost.BreakEven): utilization above which
	// whole terms over the horizon beat on-demand = terms × term × reserved /
	// (months × on-demand); months of use after which one term beats
	// on-demand = term × reserved / (utilization × on-demand).
	breakEven := func(pm string, months, util float64) (knownvalue.Check, knownvalue.Check) {
		var r, term float64
		switch pm {
		case "reserved_1y":
			r, term = o.Reserved1YUSD, 12
		case "reserved_3y":
			r, term = o.Reserved3YUSD, 36
		default:
			return knownvalue.Null(), knownvalue.Null()
		}
		terms := math.Ceil(months / term)
		return knownvalue.Float64Exact(numfmt.Ratio(terms * term * r / (months * o.OnDemandUSD))),
			knownvalue.Float64Exact(numfmt.Hours(term * r / (util * o.OnDemandUSD)))
	}
	cmpCheck := func(pm string) knownvalue.Check {
		beU, beM := breakEven(pm, 12, 0.5)
		return knownvalue.ObjectExact(map[string]knownvalue.Check{
			"pricing_model":            knownvalue.StringExact(pm),
			"available":                knownvalue.Bool(true),
			"reason":                   knownvalue.Null(),
			"region":                   knownvalue.StringExact("us-east-1"),
			"total_cost_usd":           usd(cmp[pm]),
			"savings_vs_on_demand_usd": usd(cmp["on_demand"] - cmp[pm]),
			"break_even_utilization":   beU,
			"break_even_months":        beM,
			"price_basis":              priceInfoOf(o, pm, true),
			"price_as_of":              priceInfoOf(o, pm, false),
		})
	}
	defBE := func(pm string) (knownvalue.Check, knownvalue.Check) { return breakEven(pm, 1, 1) }
	// The instance is not sold as a capacity block: a row that says so.
	noCapacityBlock := knownvalue.ObjectExact(map[string]knownvalue.Check{
		"pricing_model": knownvalue.StringExact("capacity_block"), "available": knownvalue.Bool(false),
		"reason": knownvalue.StringRegexp(regexp.MustCompile(`^aws ` + regexp.QuoteMeta(o.InstanceType) +
			` in us-east-1 has no "capacity_block" price in the catalog; it is sold as: "on_demand", "spot", "reserved_1y", "reserved_3y"\.$`)),
		"region": knownvalue.Null(), "total_cost_usd": knownvalue.Null(), "savings_vs_on_demand_usd": knownvalue.Null(),
		"break_even_utilization": knownvalue.Null(), "break_even_months": knownvalue.Null(),
		"price_basis": knownvalue.Null(), "price_as_of": knownvalue.Null(),
	})
	odU, odM := defBE("on_demand")
	r1U, r1M := defBE("reserved_1y")
	r3U, r3M := defBE("reserved_3y")
	line := func(cat string, v float64) knownvalue.Check {
		return knownvalue.ObjectExact(map[string]knownvalue.Check{"category": knownvalue.StringExact(cat), "cost_usd": usd(v)})
	}

	// --- defaults.tf: 1 instance, 1 month, on-demand, utilization 1, no carbon price. ---
	// compute 730 h × 1.006 = 734.38; per GPU-hour 1.006 → 1.01;
	// energy 730 × 0.3 × 1.375 × 1.15 = 346.29 kWh; CO2e × 0.379069 = 131.27 kg; carbon 0.
	defCompute := 730 * o.OnDemandUSD
	defKWh := 730 * kwhPerHour
	defR := spotR(1)

	ds := "data.gpu_tco.full"
	def := "data.gpu_tco.defaults"
	// Providers are set per step: the config files carry their own provider block.
	resource.UnitTest(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				ConfigFile:               config.TestNameFile("test.tf"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("total_cost_usd"), usd(total)),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("monthly_cost_usd"), usd(total/12)),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("cost_per_gpu_hour_usd"), usd(total/(D*float64(o.GPUs)))),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("breakdown"), knownvalue.ListExact([]knownvalue.Check{
						line("compute", compute), line("storage_block", block), line("storage_object", object),
						line("egress", egress), line("inter_region", inter), line("extra:eks", eks), line("carbon", carbon),
					})),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("pricing_model_comparison"), knownvalue.ListExact([]knownvalue.Check{
						cmpCheck("on_demand"), cmpCheck("spot"), cmpCheck("reserved_1y"), cmpCheck("reserved_3y"), noCapacityBlock,
					})),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("energy_kwh"), usd(kwh)),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("co2e_kg"), usd(co2)),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("carbon_cost_usd"), usd(carbon)),
					// Inputs round-trip.
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("instance_count"), knownvalue.Int64Exact(2)),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("pricing_mix"), knownvalue.MapExact(map[string]knownvalue.Check{
						"on_demand": knownvalue.Float64Exact(0.5), "reserved_1y": knownvalue.Float64Exact(0.5),
					})),
					breakdownSumsToTotal(ds),
				},
			},
			{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				ConfigFile:               config.TestNameFile("defaults.tf"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(def, tfjsonpath.New("total_cost_usd"), usd(defCompute)),
					statecheck.ExpectKnownValue(def, tfjsonpath.New("monthly_cost_usd"), usd(defCompute)),
					statecheck.ExpectKnownValue(def, tfjsonpath.New("cost_per_gpu_hour_usd"), usd(defCompute/730/float64(o.GPUs))),
					statecheck.ExpectKnownValue(def, tfjsonpath.New("breakdown"), knownvalue.ListExact([]knownvalue.Check{
						line("compute", defCompute), line("storage_block", 0), line("storage_object", 0),
						line("egress", 0), line("inter_region", 0),
					})),
					statecheck.ExpectKnownValue(def, tfjsonpath.New("pricing_model_comparison"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.ObjectExact(map[string]knownvalue.Check{"pricing_model": knownvalue.StringExact("on_demand"),
							"available": knownvalue.Bool(true), "reason": knownvalue.Null(), "region": knownvalue.StringExact("us-east-1"),
							"total_cost_usd": usd(defCompute), "savings_vs_on_demand_usd": usd(0),
							"break_even_utilization": odU, "break_even_months": odM,
							"price_basis": priceInfoOf(o, "on_demand", true), "price_as_of": priceInfoOf(o, "on_demand", false)}),
						knownvalue.ObjectExact(map[string]knownvalue.Check{"pricing_model": knownvalue.StringExact("spot"),
							"available": knownvalue.Bool(true), "reason": knownvalue.Null(), "region": knownvalue.StringExact("us-east-1"),
							"total_cost_usd": usd(730 * defR * o.SpotUSD), "savings_vs_on_demand_usd": usd(defCompute - 730*defR*o.SpotUSD),
							"break_even_utilization": odU, "break_even_months": odM,
							"price_basis": priceInfoOf(o, "spot", true), "price_as_of": priceInfoOf(o, "spot", false)}),
						// One 1-year term: 8,760 h × 0.63378 = 5,551.91.
						knownvalue.ObjectExact(map[string]knownvalue.Check{"pricing_model": knownvalue.StringExact("reserved_1y"),
							"available": knownvalue.Bool(true), "reason": knownvalue.Null(), "region": knownvalue.StringExact("us-east-1"),
							"total_cost_usd": usd(8760 * o.Reserved1YUSD), "savings_vs_on_demand_usd": usd(defCompute - 8760*o.Reserved1YUSD),
							"break_even_utilization": r1U, "break_even_months": r1M,
							"price_basis": priceInfoOf(o, "reserved_1y", true), "price_as_of": priceInfoOf(o, "reserved_1y", false)}),
						// One 3-year term: 26,280 h × 0.43459 = 11,421.03.
						knownvalue.ObjectExact(map[string]knownvalue.Check{"pricing_model": knownvalue.StringExact("reserved_3y"),
							"available": knownvalue.Bool(true), "reason": knownvalue.Null(), "region": knownvalue.StringExact("us-east-1"),
							"total_cost_usd": usd(26280 * o.Reserved3YUSD), "savings_vs_on_demand_usd": usd(defCompute - 26280*o.Reserved3YUSD),
							"break_even_utilization": r3U, "break_even_months": r3M,
							"price_basis": priceInfoOf(o, "reserved_3y", true), "price_as_of": priceInfoOf(o, "reserved_3y", false)}),
						noCapacityBlock,
					})),
					statecheck.ExpectKnownValue(def, tfjsonpath.New("energy_kwh"), usd(defKWh)),
					statecheck.ExpectKnownValue(def, tfjsonpath.New("co2e_kg"), usd(defKWh*rg.GridGCO2ePerKWh/1000)),
					statecheck.ExpectKnownValue(def, tfjsonpath.New("carbon_cost_usd"), knownvalue.Float64Exact(0)),
					breakdownSumsToTotal(def),
				},
			},
		},
	})
}

// breakdownSumsToTotal checks, to the cent, that the breakdown adds up to
// total_cost_usd exactly as Terraform stores them.
func breakdownSumsToTotal(addr string) statecheck.StateCheck { return sumCheck{addr} }

type sumCheck struct{ addr string }

func (c sumCheck) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	var res *tfjson.StateResource
	if req.State != nil && req.State.Values != nil && req.State.Values.RootModule != nil {
		for _, r := range req.State.Values.RootModule.Resources {
			if r.Address == c.addr {
				res = r
			}
		}
	}
	if res == nil {
		resp.Error = fmt.Errorf("%s not in state", c.addr)
		return
	}
	num := func(v any) float64 {
		switch n := v.(type) {
		case json.Number:
			f, _ := n.Float64()
			return f
		case float64:
			return n
		}
		return math.NaN()
	}
	var cents int64
	lines, ok := res.AttributeValues["breakdown"].([]any)
	if !ok {
		resp.Error = fmt.Errorf("breakdown is %T, not a list", res.AttributeValues["breakdown"])
		return
	}
	for _, l := range lines {
		line, ok := l.(map[string]any)
		if !ok {
			resp.Error = fmt.Errorf("breakdown line is %T, not an object", l)
			return
		}
		cents += int64(math.Round(num(line["cost_usd"]) * 100))
	}
	if total := int64(math.Round(num(res.AttributeValues["total_cost_usd"]) * 100)); total != cents {
		resp.Error = fmt.Errorf("breakdown sums to %d cents, total_cost_usd is %d cents", cents, total)
	}
}

func TestAccTCODataSource_badInput(t *testing.T) {
	t.Parallel()
	cat, o, _, _, _ := tcoOffer(t)
	// An AWS region of the catalog where g5.xlarge is not offered.
	var notOffered string
	for _, r := range cat.RegionIDs("aws") {
		if _, ok := cat.Offer("aws", o.InstanceType, r); !ok {
			notOffered = r
			break
		}
	}
	if notOffered == "" {
		t.Fatal("g5.xlarge is offered in every AWS region; pick another instance type")
	}
	// An AWS instance type without a spot price, for "model not offered".
	var noSpot *catalog.Offer
	for _, x := range cat.Offers {
		if x.Cloud == "aws" && x.SpotUSD == 0 && x.OnDemandUSD > 0 {
			noSpot = x
			break
		}
	}
	tco := func(body string) string {
		return fmt.Sprintf(`
data "gpu_tco" "test" {
  cloud         = "aws"
  region        = "us-east-1"
  instance_type = "g5.xlarge"
  months        = 12
%s
}`, body)
	}
	steps := []resource.TestStep{
		{ // unknown cloud: the closest is named
			Config: `
data "gpu_tco" "test" {
  cloud         = "awz"
  region        = "us-east-1"
  instance_type = "g5.xlarge"
  months        = 12
}`,
			ExpectError: errRe(`Unknown Cloud.*cloud = "awz".*Closest: "aws"`),
		},
		{ // unknown instance type
			Config: `
data "gpu_tco" "test" {
  cloud         = "aws"
  region        = "us-east-1"
  instance_type = "g5.xlarg"
  months        = 12
}`,
			ExpectError: errRe(`Unknown Instance Type.*instance_type = "g5.xlarg".*Closest: "g5.xlarge"`),
		},
		{ // unknown region
			Config: `
data "gpu_tco" "test" {
  cloud         = "aws"
  region        = "us-east-9"
  instance_type = "g5.xlarge"
  months        = 12
}`,
			ExpectError: errRe(`Unknown Region.*region = "us-east-9".*Closest: "us-east-1"`),
		},
		{ // a known region that does not offer the instance type: the regions that do are named
			Config: fmt.Sprintf(`
data "gpu_tco" "test" {
  cloud         = "aws"
  region        = %q
  instance_type = "g5.xlarge"
  months        = 12
}`, notOffered),
			ExpectError: errRe(`Instance Type Not Offered In Region.*g5.xlarge is not offered in ` +
				regexp.QuoteMeta(notOffered) + `.*It is offered in: .*"us-east-1"`),
		},
		{ // shares not summing to 1 (caught by the schema validator at validate time)
			Config:      tco(`pricing_mix = { on_demand = 0.5, spot = 0.3 }`),
			ExpectError: errRe(`Invalid Pricing Mix.*pricing_mix shares sum to 0.8`),
		},
		{ // unknown pricing model key
			Config:      tco(`pricing_mix = { savings_plan = 1 }`),
			ExpectError: errRe(`Unknown Map Key.*pricing_mix\["savings_plan"\] is not a pricing model\. Closest: "[a-z_0-9]+"\. Keys \(any case\): "on_demand", "spot"`),
		},
		{ // share outside [0, 1]
			Config:      tco(`pricing_mix = { on_demand = 1.5, spot = -0.5 }`),
			ExpectError: errRe(`pricing_mix\["on_demand"\] must be from 0 to 1, got 1.5\..*pricing_mix\["spot"\] must be from 0 to 1, got -0.5\.`),
		},
		{ // utilization above 1
			Config:      tco(`utilization = 1.5`),
			ExpectError: errRe(`Invalid Number.*utilization must be from 0 to 1, got 1.5\.`),
		},
		{ // utilization below 0
			Config:      tco(`utilization = -0.1`),
			ExpectError: errRe(`utilization must be from 0 to 1, got -0.1\.`),
		},
		{ // negative sizes
			Config:      tco(`storage = { block_gb = -1 }`),
			ExpectError: errRe(`storage.block_gb must be from 0 to 1,000,000,000 GB, got -1\.`),
		},
		{
			Config:      tco(`storage = { object_gb = -5 }`),
			ExpectError: errRe(`storage.object_gb must be from 0 to 1,000,000,000 GB, got -5\.`),
		},
		{
			Config:      tco(`network = { egress_gb_per_month = -10 }`),
			ExpectError: errRe(`network.egress_gb_per_month must be from 0 to 1,000,000,000 GB, got -10\.`),
		},
		{
			Config:      tco(`network = { inter_region_gb_per_month = -10 }`),
			ExpectError: errRe(`network.inter_region_gb_per_month must be from 0 to 1,000,000,000 GB, got -10\.`),
		},
		{
			Config:      tco(`extra_monthly_usd = { support = -100 }`),
			ExpectError: errRe(`extra_monthly_usd\["support"\] must be from 0 to 1,000,000,000,000 USD/month, got -100\.`),
		},
		{
			Config:      tco(`instance_count = 0`),
			ExpectError: errRe(`instance_count must be a whole number from 1 to 1,000,000 nodes, got 0\.`),
		},
	}
	if noSpot != nil {
		steps = append(steps, resource.TestStep{ // a pricing model the instance is not sold under
			Config: fmt.Sprintf(`
data "gpu_tco" "test" {
  cloud         = "aws"
  region        = %q
  instance_type = %q
  months        = 12
  pricing_mix   = { spot = 1 }
}`, noSpot.Region, noSpot.InstanceType),
			ExpectError: errRe(`Pricing Model Not Offered.*no "spot" price in the catalog; it is sold as: "on_demand"`),
		})
	}
	for i := range steps {
		steps[i].PlanOnly = true
	}
	resource.UnitTest(t, resource.TestCase{ProtoV6ProviderFactories: testAccProtoV6ProviderFactories, Steps: steps})
}

// The examples/modules/budget-guard module fails the plan through its
// precondition when the projected monthly cost exceeds the budget, and
// passes under it.
func TestAccTCOBudgetGuard(t *testing.T) {
	_, o, _, _, _ := tcoOffer(t)
	// The module declares source = "gpuplan/gpu", the provider's real address.
	t.Setenv("TF_ACC_PROVIDER_NAMESPACE", "gpuplan")
	// 2 × g5.xlarge on-demand all month: 2 × 730 × 1.006 = 1,468.76 $/month.
	monthly := 2 * 730 * o.OnDemandUSD
	// Providers are set per step and the configuration comes from a file so
	// that `terraform init` runs with it and installs the module.
	resource.UnitTest(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				ConfigFile:               config.TestNameFile("main.tf"),
				ConfigVariables:          config.Variables{"budget": config.IntegerVariable(1000)},
				ExpectError: errRe(`Module output value precondition failed.*Projected monthly cost ` +
					fmt.Sprintf("%.2f", math.Round(monthly*100)/100) + ` USD exceeds the budget of 1000 USD`),
			},
			{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				ConfigFile:               config.TestNameFile("main.tf"),
				ConfigVariables:          config.Variables{"budget": config.IntegerVariable(1500)},
				// Plan only: the harness's state reader does not support child
				// modules, and the guard's job is done at plan time anyway.
				PlanOnly:           true,
				ExpectNonEmptyPlan: true, // the new output
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPreRefresh: []plancheck.PlanCheck{
						plancheck.ExpectKnownOutputValue("monthly_cost_usd", usd(monthly)),
					},
				},
			},
		},
	})
}

// An idle reservation never pays off: with utilization 0 a reserved
// pricing model has no break-even month (null), not 0 or infinity.
func TestAccTCOIdleNeverBreaksEven(t *testing.T) {
	t.Parallel()
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: `
data "gpu_tco" "idle" {
  cloud         = "aws"
  region        = "us-east-1"
  instance_type = "g5.xlarge"
  months        = 12
  utilization   = 0
}`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.gpu_tco.idle", tfjsonpath.New("pricing_model_comparison"), knownvalue.ListPartial(map[int]knownvalue.Check{
					0: knownvalue.ObjectPartial(map[string]knownvalue.Check{"pricing_model": knownvalue.StringExact("on_demand"), "break_even_months": knownvalue.Null()}),
				})),
				statecheck.ExpectKnownValue("data.gpu_tco.idle", tfjsonpath.New("pricing_model_comparison").AtSliceIndex(2).AtMapKey("break_even_months"), knownvalue.Null()),
				statecheck.ExpectKnownValue("data.gpu_tco.idle", tfjsonpath.New("pricing_model_comparison").AtSliceIndex(2).AtMapKey("pricing_model"), knownvalue.StringExact("reserved_1y")),
			},
		}},
	})
}

// priceInfoOf is a comparison row's price_basis (basis) or price_as_of,
// read from the catalog offer's fields.
func priceInfoOf(o *catalog.Offer, pm string, basis bool) knownvalue.Check {
	info := *o.PriceInfos.Of(catalog.PricingModel(pm))
	switch {
	case basis && info.Basis != "":
		return knownvalue.StringExact(string(info.Basis))
	case !basis && !info.AsOf.IsZero():
		return knownvalue.StringExact(info.AsOf.Format("2006-01-02"))
	}
	return knownvalue.Null()
}
