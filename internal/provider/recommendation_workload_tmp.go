// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

// Interim workload schema for gpu_recommendation until the shared one in
// workload.go lands; then this file is deleted and the data source uses it.

import (
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
)

type recWorkloadModel struct {
	Kind                    types.String  `tfsdk:"kind"`
	ModelParametersB        types.Float64 `tfsdk:"model_parameters_b"`
	ActiveParametersB       types.Float64 `tfsdk:"active_parameters_b"`
	Precision               types.String  `tfsdk:"precision"`
	SequenceLength          types.Int64   `tfsdk:"sequence_length"`
	TrainingTokensB         types.Float64 `tfsdk:"training_tokens_b"`
	FineTuningMethod        types.String  `tfsdk:"fine_tuning_method"`
	TokensPerSecond         types.Float64 `tfsdk:"tokens_per_second"`
	InputTokens             types.Int64   `tfsdk:"input_tokens"`
	OutputTokens            types.Int64   `tfsdk:"output_tokens"`
	MaxTimeToFirstTokenMs   types.Float64 `tfsdk:"max_time_to_first_token_ms"`
	MaxTimePerOutputTokenMs types.Float64 `tfsdk:"max_time_per_output_token_ms"`
	Layers                  types.Int64   `tfsdk:"layers"`
	HiddenSize              types.Int64   `tfsdk:"hidden_size"`
	KVHeads                 types.Int64   `tfsdk:"kv_heads"`
}

func recWorkloadAttribute() schema.SingleNestedAttribute {
	f := func(d string) schema.Float64Attribute {
		return schema.Float64Attribute{Optional: true, MarkdownDescription: d}
	}
	i := func(d string) schema.Int64Attribute {
		return schema.Int64Attribute{Optional: true, MarkdownDescription: d}
	}
	return schema.SingleNestedAttribute{Required: true, MarkdownDescription: "The workload.",
		Attributes: map[string]schema.Attribute{
			"kind":                         schema.StringAttribute{Required: true, MarkdownDescription: "`training`, `fine_tuning` or `inference`."},
			"model_parameters_b":           schema.Float64Attribute{Required: true, MarkdownDescription: "Parameters, billions."},
			"active_parameters_b":          f("Active parameters per token (MoE), billions."),
			"precision":                    schema.StringAttribute{Optional: true, MarkdownDescription: "Precision, default `bf16`."},
			"sequence_length":              i("Sequence length, default 4096."),
			"training_tokens_b":            f("Training tokens, billions."),
			"fine_tuning_method":           schema.StringAttribute{Optional: true, MarkdownDescription: "`full`, `lora` or `qlora`."},
			"tokens_per_second":            f("Inference target, output tokens/s."),
			"input_tokens":                 i("Prompt tokens, default 1024."),
			"output_tokens":                i("Output tokens, default 256."),
			"max_time_to_first_token_ms":   f("TTFT limit, ms."),
			"max_time_per_output_token_ms": f("TPOT limit, ms."),
			"layers":                       i("Layers."),
			"hidden_size":                  i("Hidden size."),
			"kv_heads":                     i("KV heads."),
		}}
}

func (m *recWorkloadModel) toPerf() perf.Workload {
	return perf.Workload{
		Kind: m.Kind.ValueString(), ModelParamsB: m.ModelParametersB.ValueFloat64(), ActiveParamsB: m.ActiveParametersB.ValueFloat64(),
		Precision: m.Precision.ValueString(), SequenceLength: int(m.SequenceLength.ValueInt64()),
		TrainingTokensB: m.TrainingTokensB.ValueFloat64(), FineTuningMethod: m.FineTuningMethod.ValueString(),
		TokensPerSecond: m.TokensPerSecond.ValueFloat64(), InputTokens: int(m.InputTokens.ValueInt64()),
		OutputTokens: int(m.OutputTokens.ValueInt64()), MaxTTFTMs: m.MaxTimeToFirstTokenMs.ValueFloat64(),
		MaxTPOTMs: m.MaxTimePerOutputTokenMs.ValueFloat64(), Layers: int(m.Layers.ValueInt64()),
		HiddenSize: int(m.HiddenSize.ValueInt64()), KVHeads: int(m.KVHeads.ValueInt64()),
	}
}
