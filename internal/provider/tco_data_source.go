// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/cost"
	"github.com/gpuplan/terraform-provider-gpu/internal/numfmt"
)

var _ datasource.DataSourceWithConfigure = (*tcoDataSource)(nil)

// NewTCODataSource returns the gpu_tco data source.
func NewTCODataSource() datasource.DataSource {
	return &tcoDataSource{}
}

type tcoDataSource struct {
	data *providerData
}

func (d *tcoDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_tco"
}

var (
	tcoLineAttrTypes       = map[string]attr.Type{"category": types.StringType, "cost_usd": types.Float64Type}
	tcoComparisonAttrTypes = map[string]attr.Type{
		"pricing_model":            types.StringType,
		"available":                types.BoolType,
		"reason":                   types.StringType,
		"region":                   types.StringType,
		"total_cost_usd":           types.Float64Type,
		"savings_vs_on_demand_usd": types.Float64Type,
		"break_even_utilization":   types.Float64Type,
		"break_even_months":        types.Float64Type,
		"price_basis":              types.StringType,
		"price_as_of":              types.StringType,
	}
)

func (d *tcoDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	months, fraction := limitOf(catalog.LimitMonths), limitOf(catalog.LimitFraction)
	resp.Schema = schema.Schema{
		MarkdownDescription: "The lifecycle cost (TCO) of a fleet of GPU instances over a number of months: compute under a mix of " +
			"pricing models (on-demand, spot with an interruption risk adjustment, 1- and 3-year reservations billed for the whole term), " +
			"block and object storage, tiered internet egress, inter-region transfer, your own monthly extras, and energy, CO2e and " +
			"(with the provider's `carbon_price_usd_per_tonne`) carbon cost. The provider's `discounts` apply to every list price of the cloud. " +
			"It also prices a serving deployment on a serverless offer (`instance_type` = the offer's name, for example `functions-h100` on " +
			"`modal`; `instance_count` = workers; `utilization` = the duty cycle): billed per second of use, not around the clock. " +
			"Money is rounded to cents; `breakdown` always sums to `total_cost_usd`. " +
			"See the [TCO worked example](../guides/tco-worked-example.md) for every formula.",
		Attributes: map[string]schema.Attribute{
			"cloud": schema.StringAttribute{Required: true,
				MarkdownDescription: "Cloud ID, for example `aws`, `gcp`, `azure`."},
			"region": schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: tcoRegionDoc +
				" For a serverless offer whose platform places its workers (Modal, Replicate, Beam, RunPod Serverless), `\"\"` " +
				"(or unset), as `gpu_offers` and the recommendation's candidates show it."},
			"instance_type": schema.StringAttribute{Required: true,
				MarkdownDescription: "The cloud's instance type, for example `p5.48xlarge`, or the name of a serverless offer, for " +
					"example `functions-h100` (`gpu_offers` rows with a `serverless_usd` price)."},
			"instance_count": intInput("Number of identical instances; for a serverless offer, the workers serving at once while the "+
				"load is there. Default `1`.", limitOf(catalog.LimitNodeCount)),
			"months": schema.Float64Attribute{Required: true,
				MarkdownDescription: "Horizon in months of 730 hours, for example `12`. Fractions are allowed." + months.Doc(),
				CustomType:          months.Float64()},
			"utilization": floatInput("Share of the horizon's hours the instances run. Default `1`. "+
				"Reservations are billed around the clock whatever the utilization. For a serverless offer, the duty cycle (the "+
				"recommendation's `workload.duty_cycle`): the share of the horizon the load is there, in bursts of "+serverlessBurstDoc()+
				"; each burst is billed with the platform's idle tail before scale-to-zero and a billed cold start, at least the "+
				"minimum, rounded up to the billing increment (an always-on worker is billed the whole horizon).", fraction),
			"pricing_mix": schema.MapAttribute{Optional: true, ElementType: fraction.Float64(),
				MarkdownDescription: "Map pricing model → share of the running GPU-hours; the shares sum to 1. Keys: `on_demand`, `spot`, " +
					"`reserved_1y`, `reserved_3y`, `capacity_block`, `serverless` (the only pricing model of a serverless offer, and no " +
					"instance's). Default `{ on_demand = 1 }`, or `{ serverless = 1 }` for a serverless offer. A reserved share `s` is served by `ceil(s × instance_count)` " +
					"reserved instances billed for whole terms (renewed when `months` outlasts the term); a capacity-block share books whole windows " +
					"(1-day increments to 14 days, 7-day increments to 182 days) on whole cluster sizes (1, 2, 4 … 64 instances) for the hours its " +
					"instances run; spot hours are multiplied by the interruption risk factor of the spot instances as one synchronous job. " +
					"Example: `{ reserved_1y = 0.6, spot = 0.4 }`." + fraction.DocAs("Each share"),
				Validators: []validator.Map{
					enumKeys{what: "a pricing model", values: catalog.PricingModelNames(catalog.AllPricingModels)},
					noNullValues{},
					sharesSumToOne{},
				}},
			"storage": objectAttribute(false, "Storage kept for the whole horizon, priced at the cloud's block and object "+
				"storage list prices.", tcoStorageKeys()),
			"network": objectAttribute(false, "Monthly data transfer.", tcoNetworkKeys()),
			"extra_monthly_usd": schema.MapAttribute{Optional: true, ElementType: limitOf(catalog.LimitMonthlyCostUSD).Float64(),
				MarkdownDescription: "Other monthly costs by name (managed Kubernetes, support, licences, load balancers), USD per month, " +
					"for example `{ eks = 73, support = 500 }`. Each becomes a breakdown line `extra:<name>`. Not discounted." +
					limitOf(catalog.LimitMonthlyCostUSD).DocAs("Each value"),
				Validators: []validator.Map{noNullValues{}}},

			"total_cost_usd": schema.Float64Attribute{Computed: true,
				MarkdownDescription: "Total cost over the horizon, USD: the sum of `breakdown`."},
			"monthly_cost_usd": schema.Float64Attribute{Computed: true,
				MarkdownDescription: "`total_cost_usd / months`, USD."},
			"cost_per_gpu_hour_usd": schema.Float64Attribute{Computed: true,
				MarkdownDescription: "`total_cost_usd` per useful GPU-hour (instances × GPUs × months × 730 × utilization), USD; 0 when nothing runs."},
			"breakdown": schema.ListNestedAttribute{Computed: true,
				MarkdownDescription: "Cost lines in this fixed order: `compute`, `storage_block`, `storage_object`, `egress`, `inter_region` " +
					"(always present, possibly 0), `extra:<name>` sorted by name, then `carbon` only when the provider's " +
					"`carbon_price_usd_per_tonne` is positive.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"category": schema.StringAttribute{Computed: true, MarkdownDescription: "Line category."},
					"cost_usd": schema.Float64Attribute{Computed: true, MarkdownDescription: "Cost over the horizon, USD."},
				}}},
			"pricing_model_comparison": schema.ListNestedAttribute{Computed: true,
				MarkdownDescription: "The whole TCO if all compute were bought one way: a row for every pricing model, in canonical " +
					"order `on_demand`, `spot`, `reserved_1y`, `reserved_3y`, `capacity_block` (a serverless offer: `serverless` alone). " +
					"A pricing model the instance cannot be bought under is a row with `available = false` and the `reason`, not an " +
					"error, so a comparison over clouds and pricing models never fails on one gap (see the " +
					"[Compare clouds guide](../guides/compare-clouds.md)). With `region` set every row is priced there; without it, " +
					"each row in the cheapest commercial region that sells the instance that way (its `region`), as `gpu_tco` " +
					"picks the region for the mix.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"pricing_model": schema.StringAttribute{Computed: true, MarkdownDescription: "Pricing model."},
					"available": schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether the fleet can be bought this way " +
						"(in `region`, or in any commercial region when `region` is unset). When `false`, the figures are null."},
					"reason": schema.StringAttribute{Computed: true, MarkdownDescription: "Why the fleet cannot be bought this way, for " +
						"example `azure Standard_ND96isr_H100_v5 has no \"spot\" price in any of its 12 regions in the catalog; it is " +
						"sold as: \"on_demand\", \"reserved_1y\", \"reserved_3y\".`; null when `available`."},
					"region": schema.StringAttribute{Computed: true, MarkdownDescription: "The region the row is priced in (`\"\"` for " +
						"workers a serverless platform places); null when not `available`."},
					"total_cost_usd": schema.Float64Attribute{Computed: true, MarkdownDescription: "Total cost under that model, USD " +
						"(the sum of its breakdown rounded as `total_cost_usd` is)."},
					"savings_vs_on_demand_usd": schema.Float64Attribute{Computed: true, MarkdownDescription: "The on-demand row's total " +
						"minus this total, USD (negative when it costs more); null when this row or the on-demand row is not `available`."},
					"break_even_utilization": schema.Float64Attribute{Computed: true, MarkdownDescription: "Reservations only: the utilization " +
						"above which reserving the fleet for whole terms over `months` costs less than on-demand " +
						"(above 1: never within the horizon). Null for on-demand, spot, or an instance without an on-demand price."},
					"break_even_months": schema.Float64Attribute{Computed: true, MarkdownDescription: "Reservations only: the months of use at " +
						"`utilization` after which one term of the reservation costs less than on-demand would have (longer than the term: never). " +
						"Null for on-demand, spot, zero utilization, or an instance without an on-demand price."},
					"price_basis": schema.StringAttribute{Computed: true, MarkdownDescription: "What the instance's list price under this " +
						"model is: " + priceBasisDoc + ". Null where the catalog states none. `summary` names a derived price of the mix."},
					"price_as_of": schema.StringAttribute{Computed: true, MarkdownDescription: "Of that price, " + priceAsOfDoc +
						". Null where the catalog states none."},
				}}},
			"energy_kwh": schema.Float64Attribute{Computed: true,
				MarkdownDescription: "Facility energy, kWh: running instance-hours × node power × PUE (region's, else cloud's). Node power = " +
					nodePowerDoc() + "." + noTDPDoc()},
			"co2e_kg": schema.Float64Attribute{Computed: true,
				MarkdownDescription: "Location-based emissions, kg CO2e: `energy_kwh` × the region's grid intensity (0 when unknown, with a warning)."},
			"carbon_cost_usd": schema.Float64Attribute{Computed: true,
				MarkdownDescription: "`co2e_kg` / 1000 × the provider's `carbon_price_usd_per_tonne`, USD (0 without a carbon price)."},
			"regions": tcoRegionsAttribute(),
			"summary": schema.StringAttribute{Computed: true, MarkdownDescription: tcoSummaryDoc},
		},
	}
}

func (d *tcoDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = configuredData(req.ProviderData, &resp.Diagnostics)
}

func (d *tcoDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m tcoModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() || d.data == nil {
		return
	}
	if !d.data.catalogKnown(&resp.Diagnostics, argDiscounts, argCarbonPrice) {
		return
	}
	f := m.toFleet(ctx, d.data, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	cm, err := cost.DefaultModel()
	if err != nil {
		addBug(&resp.Diagnostics, "the cost model", err)
		return
	}
	fr, err := cm.FleetTCO(d.data.Catalog, f)
	if err != nil {
		addError(&resp.Diagnostics, err)
		return
	}
	for _, w := range fr.Result.Warnings {
		d.data.warnings.add(&resp.Diagnostics, "TCO Rests On An Assumption", w)
	}
	m.setResult(&fr.Input, &fr.Result, &resp.Diagnostics)
	m.PricingModelComparison = comparisonValue(fr.Comparison, &resp.Diagnostics)
	if pm, info, ok := fr.Input.OldestMixPrice(); ok {
		where := fr.Input.Offer
		if fr.Input.Serverless != nil {
			where = fr.Input.Serverless.InstanceView()
		}
		d.data.warnPriceAge(&resp.Diagnostics, fmt.Sprintf("The %s price of %s %s in %s", pm, where.Cloud, where.InstanceType, regionWords(where.Region)),
			"this gpu_tco", info)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	m.Region = types.StringValue(fr.Region)
	m.Regions = tcoRegionsValue(fr.Others, fr.Result.ShownTotalUSD(), &resp.Diagnostics)
	m.Summary = types.StringValue(fr.Summary)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// toFleet converts the configuration into the cost model's question.
func (m *tcoModel) toFleet(ctx context.Context, data *providerData, diags *diag.Diagnostics) cost.Fleet {
	f := cost.Fleet{Cloud: m.Cloud.ValueString(), InstanceType: m.InstanceType.ValueString(),
		Region: m.Region.ValueString(), RegionUnset: m.Region.IsNull()}
	in := &f.Input
	in.InstanceCount, in.Months, in.Utilization = 1, m.Months.ValueFloat64(), 1
	in.Discount, in.CarbonPriceUSDPerTonne = data.Discount(f.Cloud), data.CarbonPriceUSDPerTonne
	if !m.InstanceCount.IsNull() {
		in.InstanceCount = int(m.InstanceCount.ValueInt64())
	}
	if !m.Utilization.IsNull() {
		in.Utilization = m.Utilization.ValueFloat64()
	}
	if !m.PricingMix.IsNull() {
		var mix map[string]float64
		diags.Append(m.PricingMix.ElementsAs(ctx, &mix, false)...)
		in.PricingMix = make(map[catalog.PricingModel]float64, len(mix))
		for _, k := range slices.Sorted(maps.Keys(mix)) {
			pm := catalog.PricingModelOf(k)
			if _, dup := in.PricingMix[pm]; dup {
				diags.AddAttributeError(path.Root("pricing_mix").AtMapKey(k), "Duplicate Pricing Model",
					fmt.Sprintf("pricing_mix names %q twice (keys are case-insensitive): give each pricing model once.", string(pm)))
			}
			in.PricingMix[pm] = mix[k]
		}
	}
	readObject(ctx, tcoStorageKeys(), m.Storage, path.Root("storage"), in, diags)
	readObject(ctx, tcoNetworkKeys(), m.Network, path.Root("network"), in, diags)
	if !m.ExtraMonthlyUSD.IsNull() {
		diags.Append(m.ExtraMonthlyUSD.ElementsAs(ctx, &in.ExtraMonthlyUSD, false)...)
	}
	return f
}

// setResult writes a TCO result into the model, money rounded to cents,
// every number through the guarded conversion. Each line is rounded to
// cents, then the rounded lines are summed, so the breakdown adds up to
// the total exactly as Terraform shows it.
func (m *tcoModel) setResult(in *cost.Input, res *cost.Result, diags *diag.Diagnostics) {
	months := in.Months
	lines := make([]attr.Value, len(res.Breakdown))
	var total float64
	for i, l := range res.Breakdown {
		usd := numfmt.USD(l.USD)
		total += usd
		lines[i] = types.ObjectValueMust(tcoLineAttrTypes, map[string]attr.Value{
			"category": types.StringValue(l.Category),
			"cost_usd": float64Value(diags, fmt.Sprintf("breakdown[%d].cost_usd", i), usd),
		})
	}
	total = numfmt.USD(total)
	m.TotalCostUSD = float64Value(diags, "total_cost_usd", total)
	m.MonthlyCostUSD = float64Value(diags, "monthly_cost_usd", numfmt.USD(total/months))
	perGPUh := 0.0
	if res.GPUHours > 0 {
		perGPUh = numfmt.USD(total / res.GPUHours)
	}
	m.CostPerGPUHourUSD = float64Value(diags, "cost_per_gpu_hour_usd", perGPUh)
	m.Breakdown = types.ListValueMust(types.ObjectType{AttrTypes: tcoLineAttrTypes}, lines)
	m.EnergyKWh = float64Value(diags, "energy_kwh", numfmt.Measure(res.EnergyKWh))
	m.CO2eKg = float64Value(diags, "co2e_kg", numfmt.Measure(res.CO2eKg))
	m.CarbonCostUSD = float64Value(diags, "carbon_cost_usd", numfmt.USD(res.CarbonCostUSD))
}

// comparisonValue is pricing_model_comparison: each row's figures rounded
// as the TCO's are, null where the row is not available.
func comparisonValue(rows []cost.ComparisonRow, diags *diag.Diagnostics) types.List {
	odTotal, hasOD := 0.0, false
	for i := range rows {
		if rows[i].PricingModel == catalog.OnDemand && rows[i].Available() {
			odTotal, hasOD = rows[i].Result.ShownTotalUSD(), true
		}
	}
	out := make([]attr.Value, len(rows))
	for i := range rows {
		r := &rows[i]
		num := func(name string, v float64) types.Float64 {
			return float64Value(diags, fmt.Sprintf("pricing_model_comparison[%d].%s", i, name), v)
		}
		vals := map[string]attr.Value{
			"pricing_model": types.StringValue(string(r.PricingModel)), "available": types.BoolValue(r.Available()),
			"reason": types.StringNull(), "region": types.StringNull(), "total_cost_usd": types.Float64Null(),
			"savings_vs_on_demand_usd": types.Float64Null(), "break_even_utilization": types.Float64Null(),
			"break_even_months": types.Float64Null(), "price_basis": types.StringNull(), "price_as_of": types.StringNull(),
		}
		if !r.Available() {
			vals["reason"] = types.StringValue(r.Reason)
			out[i] = types.ObjectValueMust(tcoComparisonAttrTypes, vals)
			continue
		}
		total := r.Result.ShownTotalUSD()
		vals["region"] = types.StringValue(r.Region())
		vals["total_cost_usd"] = num("total_cost_usd", total)
		if hasOD {
			vals["savings_vs_on_demand_usd"] = num("savings_vs_on_demand_usd", numfmt.USD(odTotal-total))
		}
		if be, ok := r.Result.BreakEven[r.PricingModel]; ok {
			vals["break_even_utilization"] = num("break_even_utilization", numfmt.Ratio(be.Utilization))
			if !be.Never {
				vals["break_even_months"] = num("break_even_months", numfmt.Hours(be.Months))
			}
		}
		vals["price_basis"], vals["price_as_of"] = priceInfoValues(r.Input.PriceInfo(r.PricingModel))
		out[i] = types.ObjectValueMust(tcoComparisonAttrTypes, vals)
	}
	return types.ListValueMust(types.ObjectType{AttrTypes: tcoComparisonAttrTypes}, out)
}

// serverlessBurstDoc is the cost model's burst length for the schema text.
func serverlessBurstDoc() string {
	if m, err := cost.DefaultModel(); err == nil {
		return numfmt.Trim(m.Serverless.BurstSeconds/60, 1) + " minutes"
	}
	return "the cost model's burst length"
}

// sharesSumToOne checks at validate time that pricing_mix shares sum to 1
// within the cost model's tolerance.
type sharesSumToOne struct{}

var _ validator.Map = sharesSumToOne{}

func (sharesSumToOne) Description(context.Context) string {
	return "the shares sum to 1"
}

func (v sharesSumToOne) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (sharesSumToOne) ValidateMap(ctx context.Context, req validator.MapRequest, resp *validator.MapResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	var sum float64
	for _, el := range req.ConfigValue.Elements() {
		f, ok := el.(types.Float64)
		if !ok || f.IsUnknown() {
			return
		}
		sum += f.ValueFloat64()
	}
	tol := 1e-3
	if m, err := cost.DefaultModel(); err == nil {
		tol = m.ShareSumTolerance
	}
	if math.Abs(sum-1) > tol {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Pricing Mix",
			fmt.Sprintf("The %s shares sum to %v; they must sum to 1 (within %v), for example { on_demand = 0.3, reserved_1y = 0.7 }.",
				req.Path, numfmt.Ratio(sum), tol))
	}
}

// tcoStorageKeys is the key table of gpu_tco's `storage`.
var tcoStorageKeys = sync.OnceValue(func() *objectKeys[cost.Input] {
	size := limitOf(catalog.LimitDataGB)
	return &objectKeys[cost.Input]{keys: []key[cost.Input]{
		{name: "block_gb", doc: "Total block storage (volumes) across the fleet, GB.", def: "`0`",
			is: number(size, func(in *cost.Input) *float64 { return &in.BlockGB })},
		{name: "object_gb", doc: "Object storage, GB.", def: "`0`", is: number(size, func(in *cost.Input) *float64 { return &in.ObjectGB })},
	}}
})

// tcoNetworkKeys is the key table of gpu_tco's `network`.
var tcoNetworkKeys = sync.OnceValue(func() *objectKeys[cost.Input] {
	size := limitOf(catalog.LimitDataGB)
	return &objectKeys[cost.Input]{keys: []key[cost.Input]{
		{name: "egress_gb_per_month", doc: "Internet egress per month, GB, priced on the cloud's tiers in order (free allowance first).",
			def: "`0`", is: number(size, func(in *cost.Input) *float64 { return &in.EgressGBPerMonth })},
		{name: "inter_region_gb_per_month", doc: "Transfer to other regions of the same cloud per month, GB, at the cloud's " +
			"inter-region price.", def: "`0`", is: number(size, func(in *cost.Input) *float64 { return &in.InterRegionGBPerMonth })},
	}}
})

type tcoModel struct {
	Cloud                  types.String  `tfsdk:"cloud"`
	Region                 types.String  `tfsdk:"region"`
	InstanceType           types.String  `tfsdk:"instance_type"`
	InstanceCount          types.Int64   `tfsdk:"instance_count"`
	Months                 types.Float64 `tfsdk:"months"`
	Utilization            types.Float64 `tfsdk:"utilization"`
	PricingMix             types.Map     `tfsdk:"pricing_mix"`
	Storage                types.Dynamic `tfsdk:"storage"`
	Network                types.Dynamic `tfsdk:"network"`
	ExtraMonthlyUSD        types.Map     `tfsdk:"extra_monthly_usd"`
	TotalCostUSD           types.Float64 `tfsdk:"total_cost_usd"`
	MonthlyCostUSD         types.Float64 `tfsdk:"monthly_cost_usd"`
	CostPerGPUHourUSD      types.Float64 `tfsdk:"cost_per_gpu_hour_usd"`
	Breakdown              types.List    `tfsdk:"breakdown"`
	PricingModelComparison types.List    `tfsdk:"pricing_model_comparison"`
	EnergyKWh              types.Float64 `tfsdk:"energy_kwh"`
	CO2eKg                 types.Float64 `tfsdk:"co2e_kg"`
	CarbonCostUSD          types.Float64 `tfsdk:"carbon_cost_usd"`
	Regions                types.List    `tfsdk:"regions"`
	Summary                types.String  `tfsdk:"summary"`
}
