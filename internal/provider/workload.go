// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
	"github.com/gpuplan/terraform-provider-gpu/internal/planner"
)

// The workload object is shared by gpu_estimate and gpu_recommendation.
// Field-level rules are schema validators, so `terraform validate` reports
// them; the rules of perf.Workload.Validate (training needs
// training_tokens_b, ...) run in each data source's ValidateConfig on the
// values known then, and when the workload is prepared in Read.

// workloadModel is the Terraform shape of the workload object.
type workloadModel struct {
	Kind                    types.String  `tfsdk:"kind"`
	Model                   types.String  `tfsdk:"model"`
	ModelParametersB        types.Float64 `tfsdk:"model_parameters_b"`
	ActiveParametersB       types.Float64 `tfsdk:"active_parameters_b"`
	Precision               types.String  `tfsdk:"precision"`
	SequenceLength          types.Int64   `tfsdk:"sequence_length"`
	TrainingTokensB         types.Float64 `tfsdk:"training_tokens_b"`
	FineTuningMethod        types.String  `tfsdk:"fine_tuning_method"`
	TokensPerSecond         types.Float64 `tfsdk:"tokens_per_second"`
	InputTokens             types.Int64   `tfsdk:"input_tokens"`
	OutputTokens            types.Int64   `tfsdk:"output_tokens"`
	OutputTokensP99         types.Int64   `tfsdk:"output_tokens_p99"`
	MaxConcurrency          types.Int64   `tfsdk:"max_concurrency"`
	GlobalBatchTokens       types.Int64   `tfsdk:"global_batch_tokens"`
	MaxTimeToFirstTokenMs   types.Float64 `tfsdk:"max_time_to_first_token_ms"`
	MaxTimePerOutputTokenMs types.Float64 `tfsdk:"max_time_per_output_token_ms"`
	DutyCycle               types.Float64 `tfsdk:"duty_cycle"`
	Layers                  types.Int64   `tfsdk:"layers"`
	HiddenSize              types.Int64   `tfsdk:"hidden_size"`
	KVHeads                 types.Int64   `tfsdk:"kv_heads"`
	SpeculativeDecoding     types.Object  `tfsdk:"speculative_decoding"`
}

// speculativeModel is the workload's speculative_decoding object.
type speculativeModel struct {
	Method                types.String  `tfsdk:"method"`
	AcceptanceRate        types.Float64 `tfsdk:"acceptance_rate"`
	DraftTokens           types.Int64   `tfsdk:"draft_tokens"`
	DraftModelParametersB types.Float64 `tfsdk:"draft_model_parameters_b"`
}

// workloadAttribute is the `workload` schema. tokensPerSecondRequired
// only changes the documentation; the rule is perf's (ValidateOptions.RequireTokensPerSecond).
func workloadAttribute(tokensPerSecondRequired bool) schema.SingleNestedAttribute {
	tps := "Inference: aggregate output tokens per second to serve across all users, for example `5000`."
	tpotDefault := "Default: no limit (the estimate reports what the GPUs sustain)."
	if tokensPerSecondRequired {
		if pol, err := planner.BuiltinPolicy(); err == nil {
			tpotDefault = fmt.Sprintf("Default `%v`, the MLPerf Inference bar for interactive chat (p99 TPOT of its Interactive scenario), "+
				"so a serving recommendation is interactive; set a looser limit for batch or offline work.", pol.DefaultMaxTimePerOutputTokenMs)
		}
	}
	if tokensPerSecondRequired {
		tps += " Required when `kind = \"inference\"`."
	} else {
		tps += " Optional here: without it the estimate reports what the GPUs sustain."
	}
	seq, latency := limitOf(catalog.LimitSequenceTokens), limitOf(catalog.LimitLatencyMs)
	return schema.SingleNestedAttribute{
		Required: true,
		MarkdownDescription: "What to run. Sizes are in billions (`_b`) of parameters or tokens; " +
			"unset optional fields take the defaults below. Terraform silently drops a misspelled attribute inside this object " +
			"(`max_time_per_token_ms` for `max_time_per_output_token_ms` is planned as if it were not there): check the reported " +
			"latencies (`time_per_output_token_ms`) and the recommendation's `limits applied`.",
		Attributes: withModelAttributes(map[string]schema.Attribute{
			"kind": schema.StringAttribute{Required: true,
				MarkdownDescription: "`training` (pre-training from scratch), `fine_tuning` or `inference`."},
			"sequence_length": intInput(fmt.Sprintf("Training / fine-tuning sequence length in tokens. Default `%d`.", perf.DefaultSequenceLength), seq),
			"training_tokens_b": floatInput("Training and fine-tuning: tokens to process, billions (epochs × dataset tokens), for example "+
				"`2000` for 2T tokens. Required for those kinds.", limitOf(catalog.LimitTrainingTokensB)),
			"fine_tuning_method": schema.StringAttribute{Optional: true,
				MarkdownDescription: "`full`, `lora` (frozen weights plus adapters) or `qlora` (4-bit frozen weights plus adapters). Default `lora`.",
				Validators:          []validator.String{notEmpty{"give one of " + catalog.QuoteList(perf.Methods) + ", or omit fine_tuning_method for its default"}}},
			"tokens_per_second": floatInput(tps, limitOf(catalog.LimitTokensPerSecond)),
			"input_tokens":      intInput(fmt.Sprintf("Inference: mean prompt length in tokens. Default `%d`.", perf.DefaultInputTokens), seq),
			"output_tokens":     intInput(fmt.Sprintf("Inference: mean generated length in tokens. Default `%d`.", perf.DefaultOutputTokens), seq),
			"output_tokens_p99": intInput("Inference: the spread of the generated length, as its 99th percentile in tokens (at least "+
				"`output_tokens`), for example `4096` beside `output_tokens = 1024` for chat whose answers are mostly short. The model takes "+
				"the lengths as log-normal with this mean and p99: a long answer holds its place in the batch longer, so the requests in "+
				"flight reserve KV-cache memory for more tokens than the mean (fewer fit per GPU) and each decode step reads more cache; one "+
				"request of this length must fit; the explanation gives its time (tail latency). Default: `output_tokens` (every request "+
				"the same length).", seq),
			"max_concurrency": intInput("Inference: the most requests in flight, for example `256` for a client or gateway that keeps "+
				"256 requests open. gpu_estimate: across all its replicas; gpu_recommendation: per serving unit it adds. Beyond it, requests "+
				"queue and time to first token grows instead of the batch. Default: as many as memory, the latency limits and the serving "+
				"engine allow; the engine's limit is "+engineLimitDoc()+".", limitOf(catalog.LimitConcurrency)),
			"global_batch_tokens": intInput("Training and fine-tuning: tokens of one optimizer step (global batch size × sequence_length), "+
				"for example `4194304` for Llama 2's 4M-token batch. Data parallelism is bounded by it: each data-parallel rank needs at "+
				"least one sequence (context parallelism splits sequences further). Default: "+batchDefaultDoc()+".",
				limitOf(catalog.LimitGlobalBatchTokens)),
			"max_time_to_first_token_ms": floatInput("Inference: limit on the **99th percentile** time to first token, milliseconds (as "+
				"MLPerf Server and InferenceX p99). The model computes means and holds the mean to the limit divided by the p99/mean ratio "+
				"fitted on InferenceX ("+latencyRatioDoc("ttft")+"). Default: no limit.", latency),
			"max_time_per_output_token_ms": floatInput("Inference: limit on the **99th percentile** time per generated token, milliseconds "+
				"(50 ms ≈ 20 tokens/s per user). The mean is held to the limit over the fitted p99/mean ratio ("+latencyRatioDoc("tpot")+
				"). "+tpotDefault, latency),
			"layers": intInput("Architecture override: transformer layers. Default: the preset's, or derived from the parameter count.",
				limitOf(catalog.LimitModelLayers)),
			"hidden_size": intInput("Architecture override: model width. Default: the preset's, or derived from the parameter count.",
				limitOf(catalog.LimitModelHiddenSize)),
			"kv_heads": intInput("Architecture override: key/value heads (grouped-query attention). Default: the preset's, or derived.",
				limitOf(catalog.LimitModelKVHeads)),
			"speculative_decoding": speculativeAttribute(),
			"duty_cycle":           dutyCycleAttribute(tokensPerSecondRequired),
		}),
	}
}

// dutyCycleAttribute is the workload's duty_cycle; recommendation says
// whether the schema is gpu_recommendation's (which prices by it) or
// gpu_estimate's (which accepts and ignores it).
func dutyCycleAttribute(recommendation bool) schema.Float64Attribute {
	burst := serverlessBurstDoc()
	desc := "Inference: the share of the time the load is there, more than 0 and at most 1, for example `0.02` (about 15 busy " +
		"hours a month) for an internal tool used now and then. Default `1`, constant load. `tokens_per_second` is the rate to serve " +
		"while the load is there. Assumptions: the busy time comes in bursts of " + burst + " spread over the month; dedicated " +
		"instances are sized for `tokens_per_second` and billed around the clock whatever the duty cycle (stopping them between " +
		"bursts is not modelled); a serverless offer (pricing model `serverless`) bills its workers for the busy time plus what its " +
		"platform bills around each burst (the idle tail before scale-to-zero, a billed cold start, the minimum and the billing " +
		"increment), so it wins when the duty cycle is low. See the [serverless guide](../guides/serverless.md)."
	if !recommendation {
		desc += " Accepted here for a workload shared with `gpu_recommendation`; the estimate does not depend on it."
	}
	return floatInput(desc, limitOf(catalog.LimitDutyCycle))
}

// floatInput is an optional float64 attribute bounded by limit, the range
// documented after desc.
func floatInput(desc string, limit inputLimit) schema.Float64Attribute {
	return schema.Float64Attribute{Optional: true, MarkdownDescription: desc + limit.Doc(), CustomType: limit.Float64()}
}

// intInput is an optional int64 attribute bounded by limit.
func intInput(desc string, limit inputLimit) schema.Int64Attribute {
	return schema.Int64Attribute{Optional: true, MarkdownDescription: desc + limit.Doc(), CustomType: limit.Int64()}
}

// withModelAttributes adds the workload's model attributes (the preset,
// its size overrides and the precision) to attrs.
func withModelAttributes(attrs map[string]schema.Attribute) map[string]schema.Attribute {
	params := limitOf(catalog.LimitModelParametersB)
	for name, a := range map[string]schema.Attribute{
		"model": schema.StringAttribute{Optional: true,
			MarkdownDescription: "A model preset from the catalog, by ID or alias (case-insensitive): its published architecture " +
				"(parameters, active parameters and experts of a mixture of experts, layers, width, KV heads or MLA ranks, native " +
				"precision) sizes the workload, and the size and architecture attributes below become optional overrides. " +
				"Presets: " + modelPresetList() + ". An unknown name is an error that lists the closest presets; for another " +
				"model omit `model` and set `model_parameters_b`.",
			Validators: []validator.String{notEmpty{"name a model preset such as \"llama-3.1-70b\", or omit model and set model_parameters_b"}}},
		"model_parameters_b": floatInput("Total model parameters in billions, for example `70` for Llama 3 70B or `46.7` for Mixtral 8x7B. "+
			"Required without `model`; with it, an override of the preset's count.", params),
		"active_parameters_b": floatInput("Parameters active per token, billions, for mixture-of-experts models (`12.9` for Mixtral 8x7B). "+
			"Default: the preset's, or `model_parameters_b`.", params),
		"precision": schema.StringAttribute{Optional: true,
			MarkdownDescription: "Numeric precision of weights and math: `fp32`, `tf32`, `bf16`, `fp16`, `fp8`, `fp4`, `int8` or `int4`. " +
				"Default `bf16`; with `model`, the preset's native weight precision (`fp8` for DeepSeek-R1, `bf16` for Llama; a " +
				"preset whose routed experts ship narrower, such as gpt-oss MXFP4 or Kimi K2.5 INT4, keeps them so). The " +
				"accelerator must support it (A100 has no `fp8`; `fp4` needs Blackwell or MI355X). Serving at `fp8` or `fp4` " +
				"keeps an FP8 KV cache.",
			Validators: []validator.String{notEmpty{"give one of " + catalog.QuoteList(catalog.Precisions) + ", or omit precision for its default"}}},
	} {
		attrs[name] = a
	}
	return attrs
}

// speculativeAttribute is the workload's speculative_decoding object.
func speculativeAttribute() schema.SingleNestedAttribute {
	mtp, draft := speculativeDefaultsDoc(perf.SpeculativeMTP), speculativeDefaultsDoc(perf.SpeculativeDraftModel)
	draftTokens := limitOf(catalog.LimitSequenceTokens).atMost(perf.MaxDraftTokens)
	return schema.SingleNestedAttribute{Optional: true,
		MarkdownDescription: "Inference: speculative decoding, off when omitted. Each decode step drafts `draft_tokens` tokens per " +
			"request and the model verifies them in one pass, emitting (1 − a^(k+1)) / (1 − a) tokens per step on average for " +
			"acceptance rate a and k draft tokens, at the cost of the larger verification pass and the drafting. Example: " +
			"`speculative_decoding = { method = \"mtp\" }`.",
		Attributes: map[string]schema.Attribute{
			"method": schema.StringAttribute{Required: true,
				MarkdownDescription: "`mtp`: the model's multi-token-prediction head (DeepSeek-V3/R1, GLM, Qwen3.5, MiniMax) or an " +
					"EAGLE-style one-layer head, run once per draft token; `draft_model`: a separate small model of " +
					"`draft_model_parameters_b`.",
				Validators: []validator.String{notEmpty{"give one of " + catalog.QuoteList(perf.SpeculativeMethods) +
					", or omit speculative_decoding to turn it off"}}},
			"acceptance_rate": floatInput("Probability that a draft token is accepted (given the previous one was). "+
				"Defaults: "+mtp.rate+" for `mtp`, "+draft.rate+" for `draft_model` (sources in the catalog's SOURCES.md).",
				limitOf(catalog.LimitFraction).exclusive()),
			"draft_tokens": intInput("Tokens drafted per step. Defaults: "+mtp.tokens+" for `mtp` (one MTP module), "+
				draft.tokens+" for `draft_model`.", draftTokens),
			"draft_model_parameters_b": floatInput("`draft_model` only (and required there): the draft model's parameters, billions, "+
				"for example `1`.", limitOf(catalog.LimitModelParametersB)),
		},
	}
}

// speculativeDoc is a method's defaults, formatted for the schema text.
type speculativeDoc struct{ rate, tokens string }

func speculativeDefaultsDoc(method string) speculativeDoc {
	m, err := perf.Builtin()
	if err != nil {
		return speculativeDoc{"the model's", "the model's"}
	}
	d := m.Params().Inference.Speculative[method]
	return speculativeDoc{fmt.Sprintf("`%v`", d.AcceptanceRate), fmt.Sprintf("`%d`", d.DraftTokens)}
}

// latencyRatioDoc is a fitted p99/mean ratio for the schema text.
func latencyRatioDoc(which string) string {
	m, err := perf.Builtin()
	if err != nil {
		return "see the accuracy guide"
	}
	l := m.Params().Inference.Latency
	if which == "ttft" {
		return fmt.Sprintf("%v: queueing for prefill gives time to first token a long tail", l.TTFTP99OverMean)
	}
	return fmt.Sprintf("%v, %v with speculative decoding", l.TPOTP99OverMean, l.TPOTP99OverMeanSpeculative)
}

// modelPresetList is the built-in preset IDs as Markdown code spans.
func modelPresetList() string {
	presets, err := catalog.BuiltinModelPresets()
	if err != nil {
		return "see the catalog"
	}
	ids := presets.IDs()
	for i, id := range ids {
		ids[i] = "`" + id + "`"
	}
	return strings.Join(ids, ", ")
}

// toWorkload converts the Terraform object to the workload as the user
// wrote it: a null attribute is the zero value, which means its default.
// Defaults are applied once, when the workload is prepared.
func (m workloadModel) toWorkload(ctx context.Context, diags *diag.Diagnostics) perf.Workload {
	w := perf.Workload{
		Kind:                    m.Kind.ValueString(),
		Model:                   m.Model.ValueString(),
		ModelParametersB:        m.ModelParametersB.ValueFloat64(),
		ActiveParametersB:       m.ActiveParametersB.ValueFloat64(),
		Precision:               m.Precision.ValueString(),
		SequenceLength:          int(m.SequenceLength.ValueInt64()),
		TrainingTokensB:         m.TrainingTokensB.ValueFloat64(),
		FineTuningMethod:        m.FineTuningMethod.ValueString(),
		TokensPerSecond:         m.TokensPerSecond.ValueFloat64(),
		InputTokens:             int(m.InputTokens.ValueInt64()),
		OutputTokens:            int(m.OutputTokens.ValueInt64()),
		OutputTokensP99:         int(m.OutputTokensP99.ValueInt64()),
		MaxConcurrency:          int(m.MaxConcurrency.ValueInt64()),
		GlobalBatchTokens:       float64(m.GlobalBatchTokens.ValueInt64()),
		MaxTimeToFirstTokenMs:   m.MaxTimeToFirstTokenMs.ValueFloat64(),
		MaxTimePerOutputTokenMs: m.MaxTimePerOutputTokenMs.ValueFloat64(),
		DutyCycle:               m.DutyCycle.ValueFloat64(),
		Layers:                  int(m.Layers.ValueInt64()),
		HiddenSize:              int(m.HiddenSize.ValueInt64()),
		KVHeads:                 int(m.KVHeads.ValueInt64()),
	}
	if obj := m.SpeculativeDecoding; !obj.IsNull() && !obj.IsUnknown() {
		var sd speculativeModel
		diags.Append(obj.As(ctx, &sd, basetypes.ObjectAsOptions{})...)
		w.SpeculativeDecoding = perf.SpeculativeDecoding{Method: sd.Method.ValueString(), AcceptanceRate: sd.AcceptanceRate.ValueFloat64(),
			DraftTokens: int(sd.DraftTokens.ValueInt64()), DraftModelParametersB: sd.DraftModelParametersB.ValueFloat64()}
	}
	return w
}

// workloadInput is the workload object of a configuration: the workload
// as written and which of its attributes are known yet.
type workloadInput struct {
	workload perf.Workload
	attrs    map[string]attr.Value
	// rejected holds the attributes whose numbers their limits reject:
	// the schema reports those, so the workload's own rules skip them.
	rejected map[string]bool
}

// readWorkload reads the workload object; ok is false while it is null or
// unknown (nothing to check yet) or cannot be read. Numbers outside their
// limits are read as unset and listed in rejected.
func readWorkload(ctx context.Context, obj types.Object, diags *diag.Diagnostics) (workloadInput, bool) {
	if obj.IsNull() || obj.IsUnknown() {
		return workloadInput{}, false
	}
	obj, rejected := withoutRejected(ctx, obj)
	var m workloadModel
	diags.Append(obj.As(ctx, &m, basetypes.ObjectAsOptions{})...)
	if diags.HasError() {
		return workloadInput{}, false
	}
	w := m.toWorkload(ctx, diags)
	if diags.HasError() {
		return workloadInput{}, false
	}
	return workloadInput{workload: w, attrs: obj.Attributes(), rejected: rejected}, true
}

// withoutRejected returns obj with every number its limit rejects set to
// null (in nested objects too), and the top-level attributes that held
// one. Reading the object as it is would fail on such a number with the
// diagnostic the schema already reports.
func withoutRejected(ctx context.Context, obj types.Object) (types.Object, map[string]bool) {
	attrTypes := obj.AttributeTypes(ctx)
	out := obj.Attributes()
	rejected := map[string]bool{}
	for name, v := range out {
		switch val := v.(type) {
		case types.Object:
			if val.IsNull() || val.IsUnknown() {
				continue
			}
			if inner, r := withoutRejected(ctx, val); len(r) > 0 {
				out[name], rejected[name] = inner, true
			}
		case types.Float64:
			if l, ok := limitOfType(attrTypes[name]); ok && !val.IsNull() && !val.IsUnknown() && !l.allows(val.ValueFloat64()) {
				out[name], rejected[name] = types.Float64Null(), true
			}
		case types.Int64:
			if l, ok := limitOfType(attrTypes[name]); ok && !val.IsNull() && !val.IsUnknown() && !l.allows(float64(val.ValueInt64())) {
				out[name], rejected[name] = types.Int64Null(), true
			}
		}
	}
	if len(rejected) == 0 {
		return obj, nil
	}
	cleaned, diags := types.ObjectValue(attrTypes, out)
	if diags.HasError() {
		return obj, rejected // cannot happen: the values keep their types
	}
	return cleaned, rejected
}

// known reports whether an attribute's value is known (for an object,
// every value in it) and within its limit.
func (in workloadInput) known(name string) bool {
	if in.rejected[name] {
		return false
	}
	v, ok := in.attrs[name]
	if !ok || v.IsNull() {
		return true
	}
	if o, isObj := v.(types.Object); isObj && !o.IsUnknown() {
		for _, a := range o.Attributes() {
			if a.IsUnknown() {
				return false
			}
		}
	}
	return !v.IsUnknown()
}

// validate reports the workload's problems on their attributes, leaving
// rules on values not known yet for the next phase. It returns false when
// an error was reported.
func (in workloadInput) validate(opts perf.ValidateOptions, diags *diag.Diagnostics) bool {
	opts.Known = in.known
	errs := in.workload.Validate(opts)
	addError(diags, errs.Err())
	return len(errs) == 0
}

// prepare validates the workload and applies its defaults (the library
// does both, once per read: ValidateConfig may have seen some values
// unknown, and physics must never see an invalid workload).
func (in workloadInput) prepare(model *perf.Model, opts perf.ValidateOptions, diags *diag.Diagnostics) (*perf.Prepared, bool) {
	p, err := model.Prepare(in.workload, opts)
	if err != nil {
		addError(diags, err)
		return nil, false
	}
	return p, true
}

// engineLimitDoc is the serving engines' batch limits for the schema text
// (perf_model.json inference.max_batch and inference.engines).
func engineLimitDoc() string {
	m, err := perf.Builtin()
	if err != nil {
		return "the model's (see the accuracy guide)"
	}
	ip := m.Params().Inference
	return fmt.Sprintf("`%d` sequences per tensor-parallel replica, `%d` per GPU of data-parallel attention (TensorRT-LLM, "+
		"SGLang and vLLM batch limits)", ip.MaxBatch, ip.Engines["default"].MaxBatchPerDPRank)
}

// batchDefaultDoc is the default global batch for the schema text
// (perf_model.json training.global_batch_tokens and friends).
func batchDefaultDoc() string {
	m, err := perf.Builtin()
	if err != nil {
		return "the published batch for the model's size"
	}
	tp := m.Params().Training
	var parts []string
	for _, b := range tp.BatchTokensBySize {
		parts = append(parts, fmt.Sprintf("`%s` up to %v B parameters", catalog.FormatNumber(b.Tokens), b.MaxParamsB))
	}
	parts = append(parts, fmt.Sprintf("`%s` beyond", catalog.FormatNumber(tp.GlobalBatchTokens)))
	return fmt.Sprintf("pre-training, the published batch for the model's size (%s; GPT-3 and Llama 2 papers), grown to `%s` tokens "+
		"per GPU on large clusters; fine-tuning `%s`", strings.Join(parts, ", "), catalog.FormatNumber(tp.MinBatchTokensPerGPU),
		catalog.FormatNumber(tp.FineTuneBatchTokens))
}
