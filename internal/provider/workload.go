// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
	"github.com/gpuplan/terraform-provider-gpu/internal/planner"
)

// The workload object is shared by gpu_estimate and gpu_recommendation.
// Field-level rules are schema validators, so `terraform validate` reports
// them; the rules of perf.Workload.Validate (training needs
// training_tokens_b, ...) run in each data source's ValidateConfig on the
// values known then, and when the workload is prepared in Read.

// workloadKeys is the key table of the `workload` object. recommendation
// says whether it is gpu_recommendation's (tokens_per_second required for
// inference, a default latency limit, priced by duty_cycle) or
// gpu_estimate's; only the documentation differs, the rules are perf's
// (ValidateOptions).
func workloadKeys(recommendation bool) *objectKeys[perf.Workload] {
	type W = perf.Workload
	tps := "Inference: aggregate output tokens per second to serve across all users, for example `5000`."
	tpotDefault := "no limit (the estimate reports what the GPUs sustain)"
	if recommendation {
		tps += " Required when `kind = \"inference\"`."
		if pol, err := planner.BuiltinPolicy(); err == nil {
			tpotDefault = fmt.Sprintf("`%v`, the MLPerf Inference bar for interactive chat (p99 TPOT of its Interactive scenario), "+
				"so a serving recommendation is interactive; set a looser limit for batch or offline work", pol.DefaultMaxTimePerOutputTokenMs)
		}
	} else {
		tps += " Optional here: without it the estimate reports what the GPUs sustain."
	}
	seq, latency, params := limitOf(catalog.LimitSequenceTokens), limitOf(catalog.LimitLatencyMs), limitOf(catalog.LimitModelParametersB)
	derived := "the preset's, or derived from the parameter count"
	return &objectKeys[W]{keys: []key[W]{
		{name: "kind", required: true, doc: "`training` (pre-training from scratch), `fine_tuning` or `inference`.",
			is: text(perf.Kinds, func(w *W) *string { return &w.Kind })},
		{name: "model", doc: "A model preset from the catalog, by ID or alias (case-insensitive): its published architecture " +
			"(parameters, active parameters and experts of a mixture of experts, layers, width, KV heads or MLA ranks, native " +
			"precision) sizes the workload, and the size and architecture attributes below become optional overrides. " +
			"Presets: " + modelPresetList() + ". An unknown name is an error that lists the closest presets; for another " +
			"model omit `model` and set `model_parameters_b`.", is: text(nil, func(w *W) *string { return &w.Model }),
			blank: "name a model preset such as \"llama-3.1-70b\", or leave model out (or null) and set model_parameters_b"},
		{name: "model_parameters_b", doc: "Total model parameters in billions, for example `70` for Llama 3 70B or `46.7` for " +
			"Mixtral 8x7B. Required without `model`; with it, an override of the preset's count.",
			is: number(params, func(w *W) *float64 { return &w.ModelParametersB })},
		{name: "active_parameters_b", doc: "Parameters active per token, billions, for mixture-of-experts models (`12.9` for Mixtral 8x7B).",
			def: "the preset's, or `model_parameters_b`", is: number(params, func(w *W) *float64 { return &w.ActiveParametersB })},
		{name: "precision", doc: "Numeric precision of weights and math. The accelerator must support it (A100 has no `fp8`; " +
			"`fp4` needs Blackwell or MI355X). Serving at `fp8` or `fp4` keeps an FP8 KV cache.",
			def: "`" + perf.DefaultPrecision + "`; with `model`, the preset's native weight precision (`fp8` for DeepSeek-R1, `bf16` " +
				"for Llama; a preset whose routed experts ship narrower, such as gpt-oss MXFP4 or Kimi K2.5 INT4, keeps them so)",
			is: text(catalog.Precisions, func(w *W) *string { return &w.Precision })},
		{name: "sequence_length", doc: "Training / fine-tuning sequence length in tokens.", def: docInt(perf.DefaultSequenceLength),
			is: whole(seq, func(w *W) *int { return &w.SequenceLength })},
		{name: "training_tokens_b", doc: "Training and fine-tuning: tokens to process, billions (epochs × dataset tokens), for " +
			"example `2000` for 2T tokens. Required for those kinds.",
			is: number(limitOf(catalog.LimitTrainingTokensB), func(w *W) *float64 { return &w.TrainingTokensB })},
		{name: "fine_tuning_method", doc: "`full`, `lora` (frozen weights plus adapters) or `qlora` (4-bit frozen weights plus adapters).",
			def: "`" + perf.DefaultFineTuningMethod + "`", is: text(perf.Methods, func(w *W) *string { return &w.FineTuningMethod })},
		{name: "tokens_per_second", doc: tps, is: number(limitOf(catalog.LimitTokensPerSecond), func(w *W) *float64 { return &w.TokensPerSecond })},
		{name: "input_tokens", doc: "Inference: mean prompt length in tokens.", def: docInt(perf.DefaultInputTokens),
			is: whole(seq, func(w *W) *int { return &w.InputTokens })},
		{name: "output_tokens", doc: "Inference: mean generated length in tokens.", def: docInt(perf.DefaultOutputTokens),
			is: whole(seq, func(w *W) *int { return &w.OutputTokens })},
		{name: "output_tokens_p99", doc: "Inference: the spread of the generated length, as its 99th percentile in tokens (at least " +
			"`output_tokens`), for example `4096` beside `output_tokens = 1024` for chat whose answers are mostly short. The model takes " +
			"the lengths as log-normal with this mean and p99: a long answer holds its place in the batch longer, so the requests in " +
			"flight reserve KV-cache memory for more tokens than the mean (fewer fit per GPU) and each decode step reads more cache; one " +
			"request of this length must fit; the explanation gives its time (tail latency).",
			def: "`output_tokens` (every request the same length)", is: whole(seq, func(w *W) *int { return &w.OutputTokensP99 })},
		{name: "max_concurrency", doc: "Inference: the most requests in flight, for example `256` for a client or gateway that keeps " +
			"256 requests open. gpu_estimate: across all its replicas; gpu_recommendation: per serving unit it adds. Beyond it, requests " +
			"queue and time to first token grows instead of the batch.",
			def: "as many as memory, the latency limits and the serving engine allow; the engine's limit is " + engineLimitDoc(),
			is:  whole(limitOf(catalog.LimitConcurrency), func(w *W) *int { return &w.MaxConcurrency })},
		{name: "global_batch_tokens", doc: "Training and fine-tuning: tokens of one optimizer step (global batch size × " +
			"sequence_length), for example `4194304` for Llama 2's 4M-token batch. Data parallelism is bounded by it: each " +
			"data-parallel rank needs at least one sequence (context parallelism splits sequences further).", def: batchDefaultDoc(),
			is: whole(limitOf(catalog.LimitGlobalBatchTokens), func(w *W) *float64 { return &w.GlobalBatchTokens })},
		{name: "max_time_to_first_token_ms", doc: "Inference: limit on the **99th percentile** time to first token, milliseconds (as " +
			"MLPerf Server and InferenceX p99). The model computes means and holds the mean to the limit divided by the p99/mean ratio " +
			"fitted on InferenceX (" + latencyRatioDoc("ttft") + ").", def: "no limit",
			is: number(latency, func(w *W) *float64 { return &w.MaxTimeToFirstTokenMs })},
		{name: "max_time_per_output_token_ms", doc: "Inference: limit on the **99th percentile** time per generated token, milliseconds " +
			"(50 ms ≈ 20 tokens/s per user). The mean is held to the limit over the fitted p99/mean ratio (" + latencyRatioDoc("tpot") + ").",
			def: tpotDefault, is: number(latency, func(w *W) *float64 { return &w.MaxTimePerOutputTokenMs })},
		{name: "duty_cycle", doc: dutyCycleDoc(recommendation), def: "`1`, constant load",
			is: number(limitOf(catalog.LimitDutyCycle), func(w *W) *float64 { return &w.DutyCycle })},
		{name: "layers", doc: "Architecture override: transformer layers.", def: derived,
			is: whole(limitOf(catalog.LimitModelLayers), func(w *W) *int { return &w.Layers })},
		{name: "hidden_size", doc: "Architecture override: model width.", def: derived,
			is: whole(limitOf(catalog.LimitModelHiddenSize), func(w *W) *int { return &w.HiddenSize })},
		{name: "kv_heads", doc: "Architecture override: key/value heads (grouped-query attention).", def: "the preset's, or derived",
			is: whole(limitOf(catalog.LimitModelKVHeads), func(w *W) *int { return &w.KVHeads })},
		{name: "speculative_decoding", doc: "Inference: speculative decoding. Each decode step drafts `draft_tokens` tokens per " +
			"request and the model verifies them in one pass, emitting (1 − a^(k+1)) / (1 − a) tokens per step on average for " +
			"acceptance rate a and k draft tokens, at the cost of the larger verification pass and the drafting. Example: " +
			"`speculative_decoding = { method = \"mtp\" }`.", def: "off",
			is: objectOf(speculativeKeys(), func(w *W) *perf.SpeculativeDecoding { return &w.SpeculativeDecoding })},
	}}
}

// The workload key tables, built once (the schema and every read use them).
var (
	estimateWorkloadKeys       = sync.OnceValue(func() *objectKeys[perf.Workload] { return workloadKeys(false) })
	recommendationWorkloadKeys = sync.OnceValue(func() *objectKeys[perf.Workload] { return workloadKeys(true) })
)

// workloadAttribute is the `workload` schema of a data source.
func workloadAttribute(recommendation bool) schema.DynamicAttribute {
	keys := estimateWorkloadKeys()
	if recommendation {
		keys = recommendationWorkloadKeys()
	}
	return objectAttribute(true, "What to run. Sizes are in billions (`_b`) of parameters or tokens; unset attributes take "+
		"their defaults.", keys)
}

// docInt is a whole-number default for the docs.
func docInt(n int) string { return fmt.Sprintf("`%d`", n) }

// dutyCycleDoc documents the workload's duty_cycle; recommendation says
// whether the schema is gpu_recommendation's (which prices by it) or
// gpu_estimate's (which accepts and ignores it).
func dutyCycleDoc(recommendation bool) string {
	desc := "Inference: the share of the time the load is there, more than 0 and at most 1, for example `0.02` (about 15 busy " +
		"hours a month) for an internal tool used now and then. `tokens_per_second` is the rate to serve " +
		"while the load is there. Assumptions: the busy time comes in bursts of " + serverlessBurstDoc() + " spread over the month; dedicated " +
		"instances are sized for `tokens_per_second` and billed around the clock whatever the duty cycle (stopping them between " +
		"bursts is not modelled); a serverless offer (pricing model `serverless`) bills its workers for the busy time plus what its " +
		"platform bills around each burst (the idle tail before scale-to-zero, a billed cold start, the minimum and the billing " +
		"increment), so it wins when the duty cycle is low. See the [serverless guide](../guides/serverless.md)."
	if !recommendation {
		desc += " Accepted here for a workload shared with `gpu_recommendation`; the estimate does not depend on it."
	}
	return desc
}

// speculativeKeys is the key table of workload.speculative_decoding.
func speculativeKeys() *objectKeys[perf.SpeculativeDecoding] {
	type S = perf.SpeculativeDecoding
	mtp, draft := speculativeDefaultsDoc(perf.SpeculativeMTP), speculativeDefaultsDoc(perf.SpeculativeDraftModel)
	return &objectKeys[S]{keys: []key[S]{
		{name: "method", required: true, doc: "`mtp`: the model's multi-token-prediction head (DeepSeek-V3/R1, GLM, Qwen3.5, " +
			"MiniMax) or an EAGLE-style one-layer head, run once per draft token; `draft_model`: a separate small model of " +
			"`draft_model_parameters_b`.", is: text(perf.SpeculativeMethods, func(s *S) *string { return &s.Method }),
			blank: "give one of " + catalog.QuoteList(perf.SpeculativeMethods) + ", or leave speculative_decoding out (or null) to turn it off"},
		{name: "acceptance_rate", doc: "Probability that a draft token is accepted (given the previous one was) (sources in the " +
			"catalog's SOURCES.md).", def: mtp.rate + " for `mtp`, " + draft.rate + " for `draft_model`",
			is: number(limitOf(catalog.LimitFraction).exclusive(), func(s *S) *float64 { return &s.AcceptanceRate })},
		{name: "draft_tokens", doc: "Tokens drafted per step.", def: mtp.tokens + " for `mtp` (one MTP module), " + draft.tokens +
			" for `draft_model`", is: whole(limitOf(catalog.LimitSequenceTokens).atMost(perf.MaxDraftTokens),
			func(s *S) *int { return &s.DraftTokens })},
		{name: "draft_model_parameters_b", doc: "`draft_model` only (and required there): the draft model's parameters, billions, " +
			"for example `1`.", is: number(limitOf(catalog.LimitModelParametersB), func(s *S) *float64 { return &s.DraftModelParametersB })},
	}}
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

// workloadInput is the workload object of a configuration: the workload
// as written (unset attributes zero: their defaults apply once, when it is
// prepared) and which of its attributes are known and valid yet.
type workloadInput struct {
	workload perf.Workload
	read     *objectRead
}

// readWorkload reads the workload object, reporting what its key table
// rejects on diags; ok is false while it is null or unknown (nothing to
// check yet) or was rejected as a whole.
func readWorkload(ctx context.Context, d types.Dynamic, diags *diag.Diagnostics) (workloadInput, bool) {
	var w perf.Workload
	r := readObject(ctx, estimateWorkloadKeys(), d, path.Root("workload"), &w, diags)
	if r.whole || d.IsNull() || d.IsUnderlyingValueNull() {
		return workloadInput{}, false
	}
	return workloadInput{workload: w, read: r}, true
}

// known reports whether an attribute's value is known (for an object,
// every value in it) and valid.
func (in workloadInput) known(name string) bool { return in.read.known(name) }

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
