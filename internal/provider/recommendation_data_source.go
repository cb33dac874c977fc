// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/numfmt"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
	"github.com/gpuplan/terraform-provider-gpu/internal/planner"
)

var (
	_ datasource.DataSourceWithConfigure      = (*recommendationDataSource)(nil)
	_ datasource.DataSourceWithValidateConfig = (*recommendationDataSource)(nil)
)

// NewRecommendationDataSource returns the gpu_recommendation data source.
func NewRecommendationDataSource() datasource.DataSource {
	return &recommendationDataSource{}
}

type recommendationDataSource struct {
	data *providerData
}

func (d *recommendationDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_recommendation"
}

var (
	candidateAttrTypes = map[string]attr.Type{
		"cloud":                     types.StringType,
		"region":                    types.StringType,
		"country":                   types.StringType,
		"instance_type":             types.StringType,
		"accelerator":               types.StringType,
		"gpus_per_node":             types.Int64Type,
		"gpu_fraction":              types.Float64Type,
		"nodes":                     types.Int64Type,
		"total_gpus":                types.Int64Type,
		"pricing_model":             types.StringType,
		"hourly_cost_usd":           types.Float64Type,
		"estimated_hours":           types.Float64Type,
		"estimated_seconds":         types.Float64Type,
		"estimated_cost_usd":        types.Float64Type,
		"estimated_co2e_kg":         types.Float64Type,
		"estimated_carbon_cost_usd": types.Float64Type,
		"time_per_output_token_ms":  types.Float64Type,
		"time_to_first_token_ms":    types.Float64Type,
		"tokens_per_second":         types.Float64Type,
		"memory_per_gpu_gb":         types.Float64Type,
		"explanation":               types.StringType,
		"serving_layout":            types.ObjectType{AttrTypes: servingLayoutAttrTypes},
		"price_basis":               types.StringType,
		"price_as_of":               types.StringType,
		"price_source":              types.StringType,
	}
	candidateType = types.ObjectType{AttrTypes: candidateAttrTypes}
	rejectedType  = types.ObjectType{AttrTypes: map[string]attr.Type{"reason": types.StringType, "count": types.Int64Type}}
)

func candidateAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"cloud": schema.StringAttribute{Computed: true, MarkdownDescription: "Cloud ID, for example `aws`."},
		"region": schema.StringAttribute{Computed: true, MarkdownDescription: "The cloud's region code; empty for a serverless offer " +
			"whose platform places its workers."},
		"country": schema.StringAttribute{Computed: true, MarkdownDescription: "Country of the region, ISO 3166-1 alpha-2, for example `DE`."},
		"instance_type": schema.StringAttribute{Computed: true, MarkdownDescription: "The cloud's instance type, for example `p5.48xlarge`; " +
			"for pricing model `serverless`, the serverless offer's name, for example `functions-h100` (one worker is one node)."},
		"accelerator":   schema.StringAttribute{Computed: true, MarkdownDescription: "Canonical accelerator ID, for example `H100`."},
		"gpus_per_node": schema.Int64Attribute{Computed: true, MarkdownDescription: "Whole accelerators per instance; `0` for a fractional instance."},
		"gpu_fraction": schema.Float64Attribute{Computed: true, MarkdownDescription: "A fractional instance's share of one accelerator " +
			"(for example `0.25`), which gives it that share of the accelerator's memory and throughput; null for whole GPUs. Fractional " +
			"instances serve inference only: a training or fine-tuning job rejects them (`fractional_gpu`)."},
		"nodes": schema.Int64Attribute{Computed: true, MarkdownDescription: "Instances (nodes). For inference: nodes per replica × replicas; " +
			"on spot including the spare nodes that ride out interruptions; on a serverless offer, the workers serving at once while the load is there."},
		"total_gpus": schema.Int64Attribute{Computed: true, MarkdownDescription: "`nodes × gpus_per_node`."},
		"pricing_model": schema.StringAttribute{Computed: true, MarkdownDescription: "`on_demand`, `spot`, `reserved_1y`, `reserved_3y`, " +
			"`capacity_block` or `serverless`."},
		"hourly_cost_usd": schema.Float64Attribute{Computed: true,
			MarkdownDescription: "Price of all nodes for one hour under the pricing model, after the provider's `discounts`, USD (cents); " +
				"serverless: all workers for one billed hour."},
		"estimated_hours": schema.Float64Attribute{Computed: true,
			MarkdownDescription: "Training / fine-tuning: wall-clock hours of the job, spot including the risk-adjusted rework of interruptions. " +
				"Inference: the hours of one serving month (730)."},
		"estimated_seconds": schema.Float64Attribute{Computed: true,
			MarkdownDescription: "`estimated_hours` in seconds, to 0.01 s, for jobs of minutes (0.01 h is 36 s)."},
		"estimated_cost_usd": schema.Float64Attribute{Computed: true,
			MarkdownDescription: "Training / fine-tuning: the job's compute cost (reserved pricing bills its whole term). " +
				"Inference: the monthly cost of serving the target, averaged over a 12-month horizon (a 3-year reservation bills all 36 months; " +
				"spot bills every node, spares included, around the clock, with no rework factor; dedicated instances are billed around the " +
				"clock whatever `workload.duty_cycle`, a serverless offer only for the busy share and what its platform bills around each burst). " +
				"What the cloud bills: the carbon cost is `estimated_carbon_cost_usd`. USD, cents."},
		"estimated_carbon_cost_usd": schema.Float64Attribute{Computed: true,
			MarkdownDescription: "`estimated_co2e_kg` / 1000 × the provider's `carbon_price_usd_per_tonne` (inference: per month), USD; `0` " +
				"without a carbon price, null when the CO2e is unknown. Not part of `estimated_cost_usd`; the `cost` objective ranks by their sum."},
		"time_per_output_token_ms": schema.Float64Attribute{Computed: true,
			MarkdownDescription: "Inference: the 99th-percentile time per output token the deployment was sized for, milliseconds (what " +
				"`max_time_per_output_token_ms` bounds); null for training and fine-tuning."},
		"time_to_first_token_ms": schema.Float64Attribute{Computed: true,
			MarkdownDescription: "Inference: the 99th-percentile time to first token at that load, milliseconds (what " +
				"`max_time_to_first_token_ms` bounds); null for training and fine-tuning."},
		"estimated_co2e_kg": schema.Float64Attribute{Computed: true,
			MarkdownDescription: "Location-based kg CO2e of the job (inference: per month); null when the catalog lacks the accelerator's power or the region's grid intensity."},
		"tokens_per_second": schema.Float64Attribute{Computed: true,
			MarkdownDescription: "Training: tokens processed per second. Inference: output tokens/s the deployment sustains within the latency limits (≥ the target; " +
				"on spot, counting the spare replicas, and ≥ the target without them)."},
		"memory_per_gpu_gb": schema.Float64Attribute{Computed: true, MarkdownDescription: "Memory each GPU needs for the workload under the chosen layout, GB."},
		"explanation": schema.StringAttribute{Computed: true, MarkdownDescription: "One sentence: the binding resource, what the hardware " +
			"achieves and why the candidate ranks where it does; it says when the candidate is priced at a derived rate, not one the " +
			"cloud publishes for the instance."},
		"price_basis": schema.StringAttribute{Computed: true, MarkdownDescription: "What the price of `pricing_model` behind " +
			"`hourly_cost_usd` is: " + priceBasisDoc + ". Null where the catalog states none (a `catalog_file` entry without one)."},
		"price_as_of": schema.StringAttribute{Computed: true, MarkdownDescription: "Of that price, " + priceAsOfDoc +
			". Null where the catalog states none."},
		"price_source": schema.StringAttribute{Computed: true, MarkdownDescription: "Where the candidate's prices come from: the " +
			"built-in source file and its date, or the `catalog_file` entry that set them (as `gpu_offers` shows it)."},
		"serving_layout": candidateServingLayoutSchema(),
	}
}

// candidateServingLayoutSchema is a candidate's serving_layout: the same
// object as gpu_estimate's, counted over the whole deployment.
func candidateServingLayoutSchema() schema.SingleNestedAttribute {
	s := servingLayoutSchema()
	s.MarkdownDescription = "Inference: how the deployment serves, counted over all its nodes (spares included): `mode` " +
		"`aggregated` or `disaggregated`, the prefill and decode workers and their GPUs, and a replica's expert-parallel " +
		"width. Null for training and fine-tuning."
	return s
}

func (d *recommendationDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Recommends where and on what to run a workload: every offer of the catalog × node count × pricing model is " +
			"checked against the constraints and physics (memory fit, a scale-out fabric for multi-node training, the inference throughput and " +
			"latency targets), scored by `objective` and explained. The provider's `clouds` allow-list and `discounts` apply. " +
			"When nothing fits, planning fails with an error naming the binding constraint and the nearest miss.\n\n" +
			"Rejection reasons (`rejected[*].reason`, stable): " + codeList(planner.Reasons[:]) + ". " +
			"Each `(offer, pricing model)` pair with no surviving node count is counted once, under the furthest filter one of its node counts reached.\n\n" +
			"Node counts tried: training and fine-tuning, the fewest nodes that hold the workload, then every power of two above it up to " +
			"`max_nodes` (default " + defaultMaxNodesDoc() + ") while the job keeps getting faster; inference, the fewest nodes that hold one replica form a serving unit, " +
			"and units are added until `tokens_per_second` is met.\n\n" +
			"Spot: a training or fine-tuning job stops when any of its nodes is interrupted, so its hours are risk-adjusted for the rework " +
			"of interruptions arriving at nodes × λ (λ the cloud's interruptions per instance-hour): about × 1 + nodes·λ·(½ checkpoint interval + restart), " +
			"exactly (1/Λ + restart)(e^(Λ·interval) − 1)/interval; spot on so many nodes that the job would never finish is rejected (`spot_never_finishes`). " +
			"Serving loses no work but capacity, so an inference deployment on spot instead carries spare serving " +
			"units, billed like the others: " + spotServingSparesDoc() + "; the explanation says so (\"spot: +1 spare replica … to ride out interruptions\").\n\n" +
			"Serverless offers (pricing model `serverless`, in the default set): for inference only (training and fine-tuning reject them, " +
			"`serverless_inference_only`), one worker per node with no fabric between workers, billed for `workload.duty_cycle` of the month " +
			"plus the idle tail and billed cold start around each burst, where dedicated instances are billed around the clock; they win " +
			"for a bursty or low-duty load and the explanation says so (\"serverless: billed only for the 2% of the month the load is there\"). " +
			"See the [serverless guide](../guides/serverless.md).\n\n" +
			"Objectives: `cost` (lowest `estimated_cost_usd` + `estimated_carbon_cost_usd`), `time` (training: fewest `estimated_hours`; inference: lowest time per output token), " +
			"`carbon` (lowest `estimated_co2e_kg`, unknown figures last), `balanced` (lowest " + balancedObjectiveDoc() + "). " +
			"Ties: cloud, region, instance type, nodes, then pricing model.",
		Attributes: map[string]schema.Attribute{
			"workload": workloadAttribute(true),
			"constraints": objectAttribute(false, "Limits on the candidates; every attribute is optional, and an "+
				"explanation ends with the limits applied.", constraintsKeys()),
			"objective": schema.StringAttribute{Optional: true,
				MarkdownDescription: "What the ranking minimises: `cost` (default), `time`, `carbon` or `balanced`.",
				Validators:          []validator.String{oneOf(planner.ObjectiveNames())}},
			"distinct_by": schema.StringAttribute{Optional: true,
				MarkdownDescription: "Which candidates count as one row of the answer: `instance_type` (default: one candidate per cloud and " +
					"instance type, at its best region, node count and pricing model, like an optimizer table), `region` (one per cloud, " +
					"instance type and region: to compare regions) or `deployment` (every node count and pricing model of every offer).",
				Validators: []validator.String{oneOf(planner.DistinctByValues)}},
			"top": intInput(fmt.Sprintf("How many candidates to return. Default %d.", planner.DefaultTop), topLimit()),
			"compare": schema.BoolAttribute{Optional: true,
				MarkdownDescription: "When `true`, `comparison` lists the best candidate of every cloud × pricing model pair the " +
					"request allows (`constraints.clouds`, else the provider's `clouds`, else every cloud of the catalog, × " +
					"`constraints.pricing_models`, else every one), or why a pair has none, without failing the plan on a gap. " +
					"Each pair is the request narrowed to that cloud and pricing model (`constraints.regions` to the cloud's), ranked " +
					"by `objective`; it costs one more ranking per pair. Default `false`: `comparison` is null."},
			"comparison": schema.ListNestedAttribute{Computed: true,
				MarkdownDescription: "With `compare = true`: one row per cloud × pricing model pair, clouds in the order given, " +
					"pricing models in canonical order. Null otherwise.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"cloud":         schema.StringAttribute{Computed: true, MarkdownDescription: "Cloud ID."},
					"pricing_model": schema.StringAttribute{Computed: true, MarkdownDescription: "Pricing model."},
					"available": schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether the pair has a candidate " +
						"(`candidate` is set)."},
					"reason": schema.StringAttribute{Computed: true, MarkdownDescription: "Why the pair has no candidate, for example " +
						"`azure sells no offer as spot in the catalog.` or the binding constraint and nearest miss of the narrowed " +
						"request; null when `available`."},
					"candidate": schema.SingleNestedAttribute{Computed: true, Attributes: candidateAttributes(),
						MarkdownDescription: "The pair's best candidate, shaped like `best`; null when not `available`."},
				}}},
			"best": schema.SingleNestedAttribute{Computed: true, Attributes: candidateAttributes(),
				MarkdownDescription: "The top candidate (`candidates[0]`)."},
			"candidates": schema.ListNestedAttribute{Computed: true,
				NestedObject:        schema.NestedAttributeObject{Attributes: candidateAttributes()},
				MarkdownDescription: "The best `top` candidates, ranked."},
			"rejected": schema.ListNestedAttribute{Computed: true,
				MarkdownDescription: "Rejection counts by reason, largest first: `(offer, pricing model)` pairs removed by each filter.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"reason": schema.StringAttribute{Computed: true, MarkdownDescription: "A stable reason string (see above)."},
					"count":  schema.Int64Attribute{Computed: true, MarkdownDescription: "How many `(offer, pricing model)` pairs it removed."},
				}}},
			"catalog_date": schema.StringAttribute{Computed: true, MarkdownDescription: "Snapshot date of the catalog the answer comes from, `YYYY-MM-DD`."},
			"summary":      schema.StringAttribute{Computed: true, MarkdownDescription: recommendationSummaryDoc},
		},
	}
}

// topLimit bounds top: the planner returns at most planner.MaxTop
// candidates.
func topLimit() inputLimit {
	return inputLimit{catalog.Limit{Name: "top", Min: 1, Max: planner.MaxTop, Integer: true, Unit: "candidates",
		Reason: "the planner ranks at most planner.MaxTop candidates"}}
}

func (d *recommendationDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = configuredData(req.ProviderData, &resp.Diagnostics)
}

// ValidateConfig catches, at `terraform validate`, what needs no catalog:
// the workload's rules on the values known now and compliance regimes of
// exclusive jurisdictions.
func (d *recommendationDataSource) ValidateConfig(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	var wl, cons types.Dynamic
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("workload"), &wl)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("constraints"), &cons)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if in, ok := readWorkload(ctx, wl, &resp.Diagnostics); ok {
		in.validate(perf.ValidateOptions{RequireTokensPerSecond: true}, &resp.Diagnostics)
	}
	var c planner.Constraints
	if r := readObject(ctx, constraintsKeys(), cons, path.Root("constraints"), &c, &resp.Diagnostics); r.known("compliance") {
		addError(&resp.Diagnostics, planner.JurisdictionConflicts(c.Compliance).Err())
	}
}

func (d *recommendationDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m recommendationModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() || d.data == nil {
		return
	}
	if !d.data.catalogKnown(&resp.Diagnostics, argClouds, argDiscounts, argCarbonPrice) {
		return
	}
	in, ok := readWorkload(ctx, m.Workload, &resp.Diagnostics)
	if !ok {
		return
	}
	pl, err := d.data.Planner()
	if err != nil {
		addBug(&resp.Diagnostics, "the planner failed to start", err)
		return
	}
	model, err := perf.Builtin()
	if err != nil {
		addBug(&resp.Diagnostics, "the embedded benchmark model failed to load", err)
		return
	}
	policy, err := planner.BuiltinPolicy()
	if err != nil {
		addBug(&resp.Diagnostics, "the embedded planner policy failed to load", err)
		return
	}
	prep, ok := in.prepare(model, policy.WorkloadOptions(), &resp.Diagnostics)
	if !ok {
		return
	}
	preq := planner.Request{
		Estimator:              prep,
		Objective:              planner.Objective(m.Objective.ValueString()),
		Top:                    int(m.Top.ValueInt64()),
		DistinctBy:             planner.DistinctBy(m.DistinctBy.ValueString()),
		AllowedClouds:          d.data.Clouds,
		Discounts:              d.data.Discounts,
		CarbonPriceUSDPerTonne: d.data.CarbonPriceUSDPerTonne,
	}
	if readObject(ctx, constraintsKeys(), m.Constraints, path.Root("constraints"), &preq.Constraints, &resp.Diagnostics); resp.Diagnostics.HasError() {
		return
	}
	for i, a := range preq.Constraints.Accelerators {
		warnAmbiguousAccelerator(&resp.Diagnostics, d.data.Catalog, path.Root("constraints").AtName("accelerators").AtListIndex(i),
			fmt.Sprintf("constraints.accelerators[%d]", i), a)
	}
	res, err := pl.Recommend(preq)
	if err != nil {
		addError(&resp.Diagnostics, err)
		return
	}
	m.Best = candidateValue(&res.Best, "best", &resp.Diagnostics)
	d.data.warnPriceAge(&resp.Diagnostics, candidatePriceWords(&res.Best), "this gpu_recommendation's best candidate", res.Best.PriceInfo())
	if w := pl.QuotaWarning(&res.Best); w != "" {
		resp.Diagnostics.AddWarning("GPU Capacity Beyond A Typical Quota", w)
	}
	cands := make([]attr.Value, len(res.Candidates))
	for i := range res.Candidates {
		cands[i] = candidateValue(&res.Candidates[i], fmt.Sprintf("candidates[%d]", i), &resp.Diagnostics)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	m.Candidates = types.ListValueMust(candidateType, cands)
	rej := make([]attr.Value, len(res.Rejected))
	for i, r := range res.Rejected {
		rej[i] = types.ObjectValueMust(rejectedType.AttrTypes, map[string]attr.Value{
			"reason": types.StringValue(r.Reason), "count": types.Int64Value(int64(r.Count)),
		})
	}
	m.Rejected = types.ListValueMust(rejectedType, rej)
	m.Comparison = types.ListNull(comparisonRowType)
	var pairs []planner.PairResult
	if m.Compare.ValueBool() {
		if pairs, err = pl.Compare(preq); err != nil {
			addError(&resp.Diagnostics, err)
			return
		}
		m.Comparison = comparisonRows(pairs, &resp.Diagnostics)
	}
	m.CatalogDate = types.StringValue(res.CatalogDate)
	m.Summary = types.StringValue(planner.Summary(res, planner.SummaryOptions{
		Inference: prep.Workload().Kind == perf.KindInference, Objective: preq.Objective, Comparison: pairs}))
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// candidatePriceWords names a candidate's price for the age warning.
func candidatePriceWords(c *planner.Candidate) string {
	return fmt.Sprintf("The %s price of %s %s in %s", c.PricingModel, c.Cloud, c.InstanceType, regionWords(c.Region))
}

func candidateValue(c *planner.Candidate, at string, diags *diag.Diagnostics) types.Object {
	num := func(name string, v float64) types.Float64 { return float64Value(diags, at+"."+name, v) }
	co2, carbon := types.Float64Null(), types.Float64Null()
	if c.CO2eKnown {
		co2 = num("estimated_co2e_kg", numfmt.Measure(c.EstimatedCO2eKg))
		carbon = num("estimated_carbon_cost_usd", numfmt.USD(c.CarbonCostUSD))
	}
	latency := func(name string, ms float64) types.Float64 {
		if ms > 0 {
			return num(name, numfmt.Measure(ms))
		}
		return types.Float64Null()
	}
	basis, asOf := priceInfoValues(c.PriceInfo())
	obj, dd := types.ObjectValue(candidateAttrTypes, map[string]attr.Value{
		"price_basis":               basis,
		"price_as_of":               asOf,
		"price_source":              types.StringValue(c.PriceSource()),
		"cloud":                     types.StringValue(c.Cloud),
		"region":                    types.StringValue(c.Region),
		"country":                   types.StringValue(c.Country),
		"instance_type":             types.StringValue(c.InstanceType),
		"accelerator":               types.StringValue(c.Accelerator),
		"gpus_per_node":             types.Int64Value(int64(c.GPUsPerNode)),
		"gpu_fraction":              gpuFraction(c.GPUFraction, at+".gpu_fraction", diags),
		"nodes":                     types.Int64Value(int64(c.Nodes)),
		"total_gpus":                types.Int64Value(int64(c.TotalGPUs)),
		"pricing_model":             types.StringValue(string(c.PricingModel)),
		"hourly_cost_usd":           num("hourly_cost_usd", numfmt.USD(c.HourlyCostUSD)),
		"estimated_hours":           num("estimated_hours", numfmt.Hours(c.EstimatedHours)),
		"estimated_seconds":         num("estimated_seconds", numfmt.Measure(c.EstimatedHours*3600)),
		"estimated_cost_usd":        num("estimated_cost_usd", numfmt.USD(c.EstimatedCostUSD)),
		"estimated_co2e_kg":         co2,
		"tokens_per_second":         num("tokens_per_second", numfmt.Measure(c.TokensPerSecond)),
		"memory_per_gpu_gb":         num("memory_per_gpu_gb", numfmt.Measure(c.MemoryPerGPUGB)),
		"explanation":               types.StringValue(c.Explanation),
		"estimated_carbon_cost_usd": carbon,
		"time_per_output_token_ms":  latency("time_per_output_token_ms", c.TPOTMs),
		"time_to_first_token_ms":    latency("time_to_first_token_ms", c.TTFTMs),
		"serving_layout":            servingLayoutObject(c.Serving),
	})
	diags.Append(dd...)
	return obj
}

type recommendationModel struct {
	Workload    types.Dynamic `tfsdk:"workload"`
	Constraints types.Dynamic `tfsdk:"constraints"`
	Objective   types.String  `tfsdk:"objective"`
	DistinctBy  types.String  `tfsdk:"distinct_by"`
	Top         types.Int64   `tfsdk:"top"`
	Compare     types.Bool    `tfsdk:"compare"`
	Comparison  types.List    `tfsdk:"comparison"`
	Best        types.Object  `tfsdk:"best"`
	Candidates  types.List    `tfsdk:"candidates"`
	Rejected    types.List    `tfsdk:"rejected"`
	CatalogDate types.String  `tfsdk:"catalog_date"`
	Summary     types.String  `tfsdk:"summary"`
}

// comparisonRowType is a row of comparison.
var comparisonRowType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"cloud": types.StringType, "pricing_model": types.StringType, "available": types.BoolType, "reason": types.StringType,
	"candidate": candidateType,
}}

// comparisonRows is the comparison attribute of a planner comparison.
func comparisonRows(pairs []planner.PairResult, diags *diag.Diagnostics) types.List {
	rows := make([]attr.Value, len(pairs))
	for i, pr := range pairs {
		cand, reason := types.ObjectNull(candidateAttrTypes), types.StringNull()
		if pr.Best != nil {
			cand = candidateValue(pr.Best, fmt.Sprintf("comparison[%d].candidate", i), diags)
		} else {
			reason = types.StringValue(pr.Reason)
		}
		rows[i] = types.ObjectValueMust(comparisonRowType.AttrTypes, map[string]attr.Value{
			"cloud": types.StringValue(pr.Cloud), "pricing_model": types.StringValue(string(pr.PricingModel)),
			"available": types.BoolValue(pr.Best != nil), "reason": reason, "candidate": cand,
		})
	}
	return types.ListValueMust(comparisonRowType, rows)
}

// gpuFraction is a fractional instance's share of one GPU, null otherwise.
func gpuFraction(f float64, at string, diags *diag.Diagnostics) types.Float64 {
	if f > 0 {
		return float64Value(diags, at, numfmt.Ratio(f))
	}
	return types.Float64Null()
}

// recommendationSummaryDoc documents the summary attribute.
const recommendationSummaryDoc = "The candidates as a fixed-width text table for plan output, one line per candidate in rank order, " +
	"the best marked `" + planner.BestMarker + "` (like SkyPilot's optimizer table): rank, cloud, region, instance type × nodes, GPUs in total " +
	"(a fractional instance: its share of one GPU × nodes), pricing model, `estimated_hours` (training, fine-tuning) or " +
	"`tokens_per_second` (inference), `estimated_cost_usd` (inference: per month) and `estimated_co2e_kg` (`n/a` when unknown), " +
	"rounded as the attributes are. A title line above the table counts the feasible candidates and names the objective " +
	"and the catalog date. Show it with `output \"plan\" { value = data.gpu_recommendation.x.summary }`."
