// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuplan/terraform-provider-gpu/internal/browse"
	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

var _ datasource.DataSource = (*modelsDataSource)(nil)

// NewModelsDataSource returns the gpu_models data source.
func NewModelsDataSource() datasource.DataSource {
	return &modelsDataSource{}
}

// modelsDataSource lists the built-in model presets. It needs no provider
// data: presets do not depend on the catalog or its overlay.
type modelsDataSource struct{}

func (d *modelsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_models"
}

var modelAttrTypes = map[string]attr.Type{
	"id":                  types.StringType,
	"name":                types.StringType,
	"model_parameters_b":  types.Float64Type,
	"active_parameters_b": types.Float64Type,
	"mixture_of_experts":  types.BoolType,
	"max_context_tokens":  types.Int64Type,
	"attention":           types.StringType,
	"weight_precision":    types.StringType,
	"license":             types.StringType,
	"aliases":             types.ListType{ElemType: types.StringType},
	"source":              types.StringType,
}

func (d *modelsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	str := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Lists the model presets `workload.model` accepts (`gpu_recommendation`, `gpu_estimate`): published " +
			"architectures with their total and active parameters, context window, attention kind, native weight precision, licence " +
			"and the other names each answers to. A preset is found by its ID, an alias, or its Hugging Face ID with or without the " +
			"organisation (`meta-llama/Llama-3.1-8B-Instruct`); a model that is not a preset is described with " +
			"`workload.model_parameters_b` and the architecture overrides instead.",
		Attributes: map[string]schema.Attribute{
			"ids": schema.ListAttribute{Optional: true, ElementType: types.StringType,
				MarkdownDescription: "Only these presets, by ID, alias or Hugging Face ID, any case (for example `[\"llama-3.1-70b\", " +
					"\"Qwen/Qwen3-32B\"]`), listed in this order. An unknown name is an error naming the closest presets.",
				Validators: []validator.List{nameList{empty: "an empty list lists no preset. Omit ids for every preset, or list at least one."}}},
			"max_parameters_b": floatInput("Only presets with at most this many parameters in total, billions.",
				limitOf(catalog.LimitModelParametersB)),
			"min_context_tokens": intInput("Only presets whose context window holds at least this many tokens.",
				limitOf(catalog.LimitSequenceTokens)),
			"licenses": schema.ListAttribute{Optional: true, ElementType: types.StringType,
				MarkdownDescription: "Only presets under one of these licences, any case, as `license` reports them (for example " +
					"`[\"apache-2.0\", \"mit\"]`).",
				Validators: []validator.List{nameList{empty: "an empty list lists no preset. Omit licenses for every licence, or list at least one."}}},
			"mixture_of_experts": schema.BoolAttribute{Optional: true,
				MarkdownDescription: "`true`: only mixture-of-experts presets; `false`: only dense ones. Default: both."},
			"models": schema.ListNestedAttribute{Computed: true,
				MarkdownDescription: "The presets, in the order of `ids` when given, otherwise sorted by `id`.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"id":   str("Preset ID, the value for `workload.model`, for example `llama-3.1-70b`."),
					"name": str("Display name, for example `Llama 3.1 70B`."),
					"model_parameters_b": schema.Float64Attribute{Computed: true,
						MarkdownDescription: "Total parameters as the publisher states them, billions."},
					"active_parameters_b": schema.Float64Attribute{Computed: true,
						MarkdownDescription: "Parameters used per token, billions: the total for a dense model, the routed share for a mixture of experts."},
					"mixture_of_experts": schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether the model routes tokens to experts."},
					"max_context_tokens": schema.Int64Attribute{Computed: true,
						MarkdownDescription: "Context window: the configuration's maximum position embeddings, tokens (no optional RoPE scaling)."},
					"attention": str("Attention kind: `mha` (multi-head), `gqa` (grouped-query), `mla` (multi-head latent, DeepSeek) " +
						"or `csa_hca` (DeepSeek-V4's compressed hybrid)."),
					"weight_precision": str("Precision of the released weights: " + codeList(catalog.Precisions) + "."),
					"license": str("Licence of the released weights as the model card names it: an SPDX identifier (`apache-2.0`, `mit`) " +
						"or the model's own licence (`llama3.1`, `modified-mit`); `proprietary` when the weights are not released."),
					"aliases": schema.ListAttribute{Computed: true, ElementType: types.StringType,
						MarkdownDescription: "Other names the preset answers to, lower case (Hugging Face IDs, benchmark names)."},
					"source": str("Where the architecture numbers come from (config.json, model card, paper)."),
				}},
			},
			"summary": schema.StringAttribute{Computed: true,
				MarkdownDescription: "The presets as a fixed-width text table (ID, parameters, active parameters, context window, " +
					"attention, weights, licence), for an `output`."},
		},
	}
}

func (d *modelsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m modelsModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	presets, err := catalog.BuiltinModelPresets()
	if err != nil {
		addBug(&resp.Diagnostics, "", err)
		return
	}
	f := browse.ModelFilter{MaxParametersB: m.MaxParametersB.ValueFloat64(), MinContextTokens: int(m.MinContextTokens.ValueInt64())}
	resp.Diagnostics.Append(optionalStrings(ctx, m.IDs, &f.IDs)...)
	resp.Diagnostics.Append(optionalStrings(ctx, m.Licenses, &f.Licenses)...)
	if !m.MixtureOfExperts.IsNull() {
		moe := m.MixtureOfExperts.ValueBool()
		f.MixtureOfExperts = &moe
	}
	if resp.Diagnostics.HasError() {
		return
	}
	list, errs := browse.Models(presets, f)
	addError(&resp.Diagnostics, errs.Err())
	if resp.Diagnostics.HasError() {
		return
	}
	objs := make([]attr.Value, 0, len(list))
	for i, p := range list {
		at := func(name string) string { return fmt.Sprintf("models[%d].%s", i, name) }
		obj, diags := types.ObjectValue(modelAttrTypes, map[string]attr.Value{
			"id":                  types.StringValue(p.ID),
			"name":                types.StringValue(p.Name),
			"model_parameters_b":  float64Value(&resp.Diagnostics, at("model_parameters_b"), p.TotalParametersB),
			"active_parameters_b": float64Value(&resp.Diagnostics, at("active_parameters_b"), p.ActiveParameters()),
			"mixture_of_experts":  types.BoolValue(p.IsMoE()),
			"max_context_tokens":  types.Int64Value(int64(p.MaxContextTokens)),
			"attention":           types.StringValue(p.Attention),
			"weight_precision":    types.StringValue(p.WeightPrecision),
			"license":             types.StringValue(p.License),
			"aliases":             stringList(p.Aliases),
			"source":              types.StringValue(p.Source),
		})
		resp.Diagnostics.Append(diags...)
		objs = append(objs, obj)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	m.Models = types.ListValueMust(types.ObjectType{AttrTypes: modelAttrTypes}, objs)
	m.Summary = types.StringValue(browse.ModelsSummary(list))
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

type modelsModel struct {
	IDs              types.List    `tfsdk:"ids"`
	MaxParametersB   types.Float64 `tfsdk:"max_parameters_b"`
	MinContextTokens types.Int64   `tfsdk:"min_context_tokens"`
	Licenses         types.List    `tfsdk:"licenses"`
	MixtureOfExperts types.Bool    `tfsdk:"mixture_of_experts"`
	Models           types.List    `tfsdk:"models"`
	Summary          types.String  `tfsdk:"summary"`
}
