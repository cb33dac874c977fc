// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package perf

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/inputerr"
)

// Workload kinds.
const (
	KindTraining   = "training"
	KindFineTuning = "fine_tuning"
	KindInference  = "inference"
)

// Fine-tuning methods.
const (
	MethodFull  = "full"
	MethodLoRA  = "lora"
	MethodQLoRA = "qlora"
)

// Speculative-decoding methods: "mtp" drafts with a multi-token-prediction
// (or EAGLE-style) head of one transformer layer; "draft_model" with a
// separate small model of SpeculativeDecoding.DraftModelParametersB.
const (
	SpeculativeMTP        = "mtp"
	SpeculativeDraftModel = "draft_model"
)

// SpeculativeMethods lists the accepted speculative-decoding methods.
var SpeculativeMethods = []string{SpeculativeMTP, SpeculativeDraftModel}

// SpeculativeDecoding is the speculative_decoding object of a workload.
// Zero fields take the method's defaults (perf_model.json
// inference.speculative).
type SpeculativeDecoding struct {
	Method                string  // method: "mtp" | "draft_model"; "" = off
	AcceptanceRate        float64 // acceptance_rate: probability each draft token is accepted, (0, 1)
	DraftTokens           int     // draft_tokens: tokens drafted per step
	DraftModelParametersB float64 // draft_model_parameters_b: the draft model's size (draft_model only)
}

// Defaults applied by Model.WithDefaults, documented on the Terraform
// attributes.
const (
	DefaultPrecision        = "bf16"
	DefaultSequenceLength   = 4096
	DefaultFineTuningMethod = MethodLoRA
	DefaultInputTokens      = 1024
	DefaultOutputTokens     = 256
	DefaultDutyCycle        = 1 // constant load
)

// Kinds and Methods list the accepted values, in documentation order.
var (
	Kinds   = []string{KindTraining, KindFineTuning, KindInference}
	Methods = []string{MethodFull, MethodLoRA, MethodQLoRA}
)

// Workload is what the user wants to run. Zero values mean "use the
// default": Model.WithDefaults (which Model.Prepare applies once, before
// anything reads the workload) sets each. Field comments give the
// Terraform attribute and the default.
type Workload struct {
	Kind string // kind: "training" | "fine_tuning" | "inference"
	// Model is a preset ID or alias from the catalog's model presets
	// (model); "" = a model described by ModelParametersB and the
	// architecture overrides. With a preset, the size and architecture
	// fields below are optional overrides of its published values.
	Model             string
	ModelParametersB  float64 // model_parameters_b: total parameters, billions
	ActiveParametersB float64 // active_parameters_b: per-token active parameters (MoE); 0 = total
	Precision         string  // precision: fp32 tf32 bf16 fp16 fp8 fp4 int8 int4; "" = bf16

	SequenceLength   int     // sequence_length (training / fine-tuning); 0 = 4096
	TrainingTokensB  float64 // training_tokens_b: tokens to process, billions
	FineTuningMethod string  // fine_tuning_method: full | lora | qlora; "" = lora
	// GlobalBatchTokens (global_batch_tokens, training / fine-tuning) is
	// the tokens of one optimizer step; 0 = the published batch for the
	// model's size, grown with the cluster (Model.TrainingBatchTokens).
	GlobalBatchTokens float64

	TokensPerSecond float64 // tokens_per_second: inference target, aggregate output tokens/s (0 = none)
	// RequestsPerSecond (requests_per_second) is the alternative target:
	// requests/s, each of OutputTokens output tokens; WithDefaults turns
	// it into TokensPerSecond. Setting both is an error.
	RequestsPerSecond float64
	InputTokens       int // input_tokens: mean prompt length; 0 = 1024
	OutputTokens      int // output_tokens: mean generated length; 0 = 256
	// OutputTokensP99 (output_tokens_p99) is the 99th percentile of the
	// generated length; 0 = output_tokens (every request the same length).
	OutputTokensP99 int
	// MaxTimeToFirstTokenMs (max_time_to_first_token_ms): 0 = the
	// caller's default, ValidateOptions.DefaultMaxTimeToFirstTokenMs: no
	// limit for an estimate, planner_policy.json
	// default_max_time_to_first_token_ms for a recommendation.
	MaxTimeToFirstTokenMs float64
	// MaxTimePerOutputTokenMs (max_time_per_output_token_ms): 0 = the
	// caller's default, ValidateOptions.DefaultMaxTimePerOutputTokenMs: no
	// limit for an estimate, planner_policy.json
	// default_max_time_per_output_token_ms for a recommendation.
	MaxTimePerOutputTokenMs float64
	// DutyCycle (duty_cycle, inference) is the share of the time the load
	// is there, in (0, 1]; 0 = 1, constant load. TokensPerSecond is the
	// rate while it is there. It does not change the physics; the planner
	// prices serverless offers by it (billed for the busy share) while
	// dedicated instances are billed around the clock.
	DutyCycle float64

	// Architecture overrides; 0 = the preset's value, or derived from the
	// parameter count (see Architecture).
	Layers, HiddenSize, KVHeads int

	// SpeculativeDecoding (speculative_decoding, inference): draft tokens
	// verified by the model in one step; the zero value is off.
	SpeculativeDecoding SpeculativeDecoding

	// MaxConcurrency (max_concurrency) caps the requests in flight across
	// all replicas; 0 = as many as memory, the engine's batch limit
	// (perf_model.json inference.engines) and the latency limits allow.
	MaxConcurrency int

	// BeamWidth is the number of beams per request for beam-search decoding
	// (0 or 1 = greedy/sampling). Not exposed in Terraform; used to compare
	// with MLPerf GPT-J, which runs 4 beams.
	BeamWidth int
}

// lookupPreset finds a built-in model preset by ID or alias; nil when the
// name is empty or unknown (Validate reports the latter).
func lookupPreset(name string) *catalog.ModelPreset {
	if strings.TrimSpace(name) == "" {
		return nil
	}
	presets, err := catalog.BuiltinModelPresets()
	if err != nil {
		return nil
	}
	p, _ := presets.Lookup(name)
	return p
}

// applyPreset fills the zero size and architecture fields from a preset.
// An active count above an overridden total is capped at the total.
func (w *Workload) applyPreset(p *catalog.ModelPreset) {
	w.Model = p.ID
	if w.ModelParametersB == 0 {
		w.ModelParametersB = p.TotalParametersB
	}
	if w.ActiveParametersB == 0 {
		w.ActiveParametersB = math.Min(p.ActiveParameters(), w.ModelParametersB)
	}
	if w.Precision == "" {
		w.Precision = nativePrecision(p)
	}
	if w.Layers == 0 {
		w.Layers = p.Layers
	}
	if w.HiddenSize == 0 {
		w.HiddenSize = p.HiddenSize
	}
	if w.KVHeads == 0 {
		w.KVHeads = p.KVHeads // 0 for MLA: the cache is one latent
	}
}

// nativePrecision is the precision a preset is served and trained in by
// default: its released weight precision, bf16 for fp32/tf32 releases.
func nativePrecision(p *catalog.ModelPreset) string {
	switch p.WeightPrecision {
	case "", "fp32", "tf32":
		return DefaultPrecision
	}
	return p.WeightPrecision
}

// ValidateOptions tunes Validate for the caller.
type ValidateOptions struct {
	// Root is the attribute holding the workload; error paths and messages
	// are under it. Zero: the "workload" attribute of the data sources.
	Root inputerr.Path
	// RequireTokensPerSecond makes tokens_per_second mandatory for
	// inference (gpu_recommendation); gpu_estimate leaves it optional.
	RequireTokensPerSecond bool
	// Known reports whether the named workload attribute's value is known;
	// nil means every value is. Rules that involve an attribute whose value
	// is not known yet (during validate, or a value from another resource)
	// are left for the next phase.
	Known func(attribute string) bool
	// DefaultMaxTimePerOutputTokenMs is the p99 limit on time per output
	// token WithDefaults gives an inference workload that sets none; 0 =
	// no limit. A recommendation passes its policy's (Planner.Prepare).
	DefaultMaxTimePerOutputTokenMs float64
	// DefaultMaxTimeToFirstTokenMs is the p99 limit on time to first token
	// WithDefaults gives an inference workload that sets none; 0 = no
	// limit.
	DefaultMaxTimeToFirstTokenMs float64
}

// normalized returns the workload with its enumerated names as the model
// reads them: kind, precision, fine-tuning method and speculative method
// trimmed and lower-cased (users may write any case). Validate checks the
// normalized names; WithDefaults starts from them.
func (w Workload) normalized() Workload {
	w.Kind = strings.ToLower(strings.TrimSpace(w.Kind))
	w.Precision = strings.ToLower(strings.TrimSpace(w.Precision))
	w.FineTuningMethod = strings.ToLower(strings.TrimSpace(w.FineTuningMethod))
	w.SpeculativeDecoding.Method = strings.ToLower(strings.TrimSpace(w.SpeculativeDecoding.Method))
	return w
}

// WithDefaults returns the workload as every reader sees it: normalized
// (names in lower case; a model preset's alias resolved to its ID) and
// with every zero-valued optional field set to its default, the
// constants above, the speculative-decoding method's defaults of
// perf_model.json, and the caller's latency limits
// (opts.DefaultMaxTimePerOutputTokenMs, DefaultMaxTimeToFirstTokenMs). It is the one place defaults are
// applied; Prepare calls it once.
//
// With Model naming a preset, the zero size and architecture fields take
// the preset's published values and the precision defaults to the
// preset's native weight precision (fp32 releases serve in bf16).
func (m *Model) WithDefaults(w Workload, opts ValidateOptions) Workload {
	w = w.normalized()
	if p := lookupPreset(w.Model); p != nil {
		w.applyPreset(p)
	}
	if w.ActiveParametersB == 0 {
		w.ActiveParametersB = w.ModelParametersB
	}
	if w.Precision == "" {
		w.Precision = DefaultPrecision
	}
	if w.SequenceLength == 0 {
		w.SequenceLength = DefaultSequenceLength
	}
	if w.FineTuningMethod == "" {
		w.FineTuningMethod = DefaultFineTuningMethod
	}
	if w.InputTokens == 0 {
		w.InputTokens = DefaultInputTokens
	}
	if w.OutputTokens == 0 {
		w.OutputTokens = DefaultOutputTokens
	}
	if w.TokensPerSecond == 0 && w.RequestsPerSecond > 0 {
		w.TokensPerSecond = w.RequestsPerSecond * float64(w.OutputTokens)
	}
	if w.OutputTokensP99 == 0 && w.Kind == KindInference {
		w.OutputTokensP99 = w.OutputTokens
	}
	if w.BeamWidth == 0 {
		w.BeamWidth = 1
	}
	if w.DutyCycle == 0 {
		w.DutyCycle = DefaultDutyCycle
	}
	if w.Kind == KindInference && w.MaxTimePerOutputTokenMs == 0 {
		w.MaxTimePerOutputTokenMs = opts.DefaultMaxTimePerOutputTokenMs
	}
	if w.Kind == KindInference && w.MaxTimeToFirstTokenMs == 0 {
		w.MaxTimeToFirstTokenMs = opts.DefaultMaxTimeToFirstTokenMs
	}
	m.applySpeculativeDefaults(&w.SpeculativeDecoding)
	return w
}

// Validate checks the workload as the user wrote it (zero optional fields
// are fine: they take their defaults) and returns every problem found, in
// attribute order, each on the attribute's path under opts.Root.
func (w Workload) Validate(opts ValidateOptions) inputerr.List {
	v := workloadCheck{w: w, norm: w.normalized(), opts: opts}
	if v.opts.Root.IsEmpty() {
		v.opts.Root = inputerr.Root("workload")
	}
	v.names()
	v.model()
	v.sizes()
	v.serving()
	v.speculative()
	v.architecture()
	return v.errs
}

// workloadCheck collects the problems of one Validate call.
type workloadCheck struct {
	w      Workload // as written (messages echo it)
	norm   Workload // normalized (the rules read it)
	opts   ValidateOptions
	preset *catalog.ModelPreset
	errs   inputerr.List
}

// known reports whether a workload attribute's value is known; for a
// nested attribute ("speculative_decoding.method") the top-level
// attribute that holds it is asked.
func (v *workloadCheck) known(attr string) bool {
	top, _, _ := strings.Cut(attr, ".")
	return v.opts.Known == nil || v.opts.Known(top)
}

// add reports attr = value: msg, unless attr (or, for rules that depend on
// the kind, the kind) is not known yet. attr may name a nested attribute
// with dots.
func (v *workloadCheck) add(attr string, value any, msg string) {
	if !v.known(attr) {
		return
	}
	p := v.opts.Root
	for _, name := range strings.Split(attr, ".") {
		p = p.Name(name)
	}
	v.errs.Add(p, "Invalid Workload", "%s = %v: %s.", p, value, msg)
}

// missing reports a required attribute that is not set.
func (v *workloadCheck) missing(attr, msg string) {
	if !v.known(attr) {
		return
	}
	p := v.opts.Root
	for _, name := range strings.Split(attr, ".") {
		p = p.Name(name)
	}
	v.errs.Add(p, "Missing Workload Attribute", "%s is not set: %s.", p, msg)
}

func (v *workloadCheck) names() {
	w := &v.w
	n := &v.norm
	if !slices.Contains(Kinds, n.Kind) {
		v.add("kind", fmt.Sprintf("%q", w.Kind), "must be one of "+catalog.QuoteList(Kinds))
	}
	if p := n.Precision; p != "" && !slices.Contains(catalog.Precisions, p) {
		v.add("precision", fmt.Sprintf("%q", w.Precision), "must be one of "+catalog.QuoteList(catalog.Precisions))
	}
	if m := n.FineTuningMethod; m != "" && !slices.Contains(Methods, m) {
		v.add("fine_tuning_method", fmt.Sprintf("%q", w.FineTuningMethod), "must be one of "+catalog.QuoteList(Methods))
	}
}

// model checks the preset name and, with a preset, an active count that
// the preset's would exceed.
func (v *workloadCheck) model() {
	w := &v.w
	name := strings.TrimSpace(w.Model)
	if name == "" {
		return
	}
	presets, err := catalog.BuiltinModelPresets()
	if err != nil {
		v.add("model", fmt.Sprintf("%q", w.Model), "cannot be checked: the built-in model presets failed to load ("+err.Error()+")")
		return
	}
	p, ok := presets.Lookup(name)
	if !ok {
		v.add("model", fmt.Sprintf("%q", w.Model), "is not a model preset ID or alias; "+
			presets.UnknownModel(name)+". Presets: "+catalog.QuoteList(presets.IDs())+
			". For another model, omit model and set model_parameters_b")
		return
	}
	v.preset = p
	if w.ModelParametersB > 0 && w.ActiveParametersB == 0 && p.IsMoE() && p.ActiveParameters() > w.ModelParametersB {
		v.add("model_parameters_b", w.ModelParametersB, fmt.Sprintf("is below the %s preset's %v B active parameters; set active_parameters_b too", p.ID, p.ActiveParameters()))
	}
}

func (v *workloadCheck) sizes() {
	w := &v.w
	switch {
	case w.ModelParametersB == 0 && strings.TrimSpace(w.Model) != "":
		// The preset's size (or Validate's model error).
	case w.ModelParametersB == 0:
		v.add("model_parameters_b", w.ModelParametersB, "is required without model: set model (a preset such as \"llama-3.1-70b\") or model_parameters_b (e.g. 70 for a 70B model)")
	case !(w.ModelParametersB > 0) || math.IsInf(w.ModelParametersB, 0):
		v.add("model_parameters_b", w.ModelParametersB, "must be a positive number of billions of parameters (e.g. 70 for a 70B model)")
	}
	if w.ActiveParametersB < 0 || math.IsNaN(w.ActiveParametersB) {
		v.add("active_parameters_b", w.ActiveParametersB, "must be positive (billions of parameters active per token); omit it for dense models")
	} else if w.ActiveParametersB > 0 && w.ModelParametersB > 0 && w.ActiveParametersB > w.ModelParametersB {
		v.add("active_parameters_b", w.ActiveParametersB, fmt.Sprintf("cannot exceed model_parameters_b (%v)", w.ModelParametersB))
	}
	if w.SequenceLength < 0 {
		v.add("sequence_length", w.SequenceLength, "must be a positive number of tokens")
	}
	trainingKind := v.norm.Kind == KindTraining || v.norm.Kind == KindFineTuning
	if w.TrainingTokensB < 0 || math.IsNaN(w.TrainingTokensB) {
		v.add("training_tokens_b", w.TrainingTokensB, "must be a positive number of billions of tokens")
	} else if trainingKind && w.TrainingTokensB == 0 && v.known("kind") {
		v.missing("training_tokens_b", fmt.Sprintf("it is required for kind = %q, the billions of tokens to train on (e.g. 2000 for 2T tokens)", v.norm.Kind))
	}
}

func (v *workloadCheck) serving() {
	w := &v.w
	if w.RequestsPerSecond < 0 || math.IsNaN(w.RequestsPerSecond) {
		v.add("requests_per_second", w.RequestsPerSecond, "must be a positive number of requests per second")
	} else if w.RequestsPerSecond > 0 && w.TokensPerSecond != 0 && v.known("tokens_per_second") {
		v.add("requests_per_second", w.RequestsPerSecond, fmt.Sprintf("and tokens_per_second = %v both set the target: set one "+
			"(requests_per_second × output_tokens is the tokens_per_second it stands for)", w.TokensPerSecond))
	}
	if w.TokensPerSecond < 0 || math.IsNaN(w.TokensPerSecond) {
		v.add("tokens_per_second", w.TokensPerSecond, "must be a positive aggregate output tokens/s")
	} else if v.norm.Kind == KindInference && v.opts.RequireTokensPerSecond && w.TokensPerSecond == 0 && w.RequestsPerSecond == 0 &&
		v.known("kind") && v.known("requests_per_second") {
		v.missing("tokens_per_second", `it (or requests_per_second) is required for kind = "inference", the aggregate output tokens/s to serve (for example 5000)`)
	}
	if w.InputTokens < 0 {
		v.add("input_tokens", w.InputTokens, "must be a positive number of prompt tokens")
	}
	if w.OutputTokens < 0 {
		v.add("output_tokens", w.OutputTokens, "must be a positive number of generated tokens")
	}
	v.contextWindow()
	v.servingExtras()
	if w.MaxTimeToFirstTokenMs < 0 || math.IsNaN(w.MaxTimeToFirstTokenMs) {
		v.add("max_time_to_first_token_ms", w.MaxTimeToFirstTokenMs, "must be positive milliseconds (omit for no limit)")
	}
	if w.MaxTimePerOutputTokenMs < 0 || math.IsNaN(w.MaxTimePerOutputTokenMs) {
		v.add("max_time_per_output_token_ms", w.MaxTimePerOutputTokenMs, "must be positive milliseconds (omit for no limit)")
	}
	v.dutyCycle()
}

// contextWindow checks that a request of a model preset (its prompt plus
// the output, with the defaults for either left unset) fits the preset's
// context window: a longer one cannot be served.
func (v *workloadCheck) contextWindow() {
	w, p := &v.w, v.preset
	if p == nil || p.MaxContextTokens <= 0 || v.norm.Kind != KindInference || w.InputTokens < 0 || w.OutputTokens < 0 {
		return
	}
	in, out := w.InputTokens, w.OutputTokens
	if in == 0 {
		in = DefaultInputTokens
	}
	if out == 0 {
		out = DefaultOutputTokens
	}
	if in+out > p.MaxContextTokens {
		v.add("input_tokens", in, fmt.Sprintf("plus output_tokens (%d) is %s tokens, beyond the context window of %s: %s tokens "+
			"(its config's max_position_embeddings). A request that long cannot be served; shorten the prompt or the output",
			out, catalog.FormatNumber(float64(in+out)), p.ID, catalog.FormatNumber(float64(p.MaxContextTokens))))
	}
}

// servingExtras checks output_tokens_p99, max_concurrency and
// global_batch_tokens: each applies to one kind of workload.
func (v *workloadCheck) servingExtras() {
	w := &v.w
	mean := w.OutputTokens
	if mean == 0 {
		mean = DefaultOutputTokens
	}
	inference := v.norm.Kind == KindInference || !v.known("kind")
	switch {
	case w.OutputTokensP99 < 0 || (w.OutputTokensP99 > 0 && w.OutputTokensP99 < mean && v.known("output_tokens")):
		v.add("output_tokens_p99", w.OutputTokensP99, fmt.Sprintf("must be at least output_tokens (%d): the 99th percentile of the generated length", mean))
	case w.OutputTokensP99 > 0 && !inference:
		v.add("output_tokens_p99", w.OutputTokensP99, fmt.Sprintf("applies to kind = %q only (kind is %q)", KindInference, v.norm.Kind))
	}
	switch {
	case w.MaxConcurrency < 0:
		v.add("max_concurrency", w.MaxConcurrency, "must be a positive number of requests in flight (omit it for the engine's limit)")
	case w.MaxConcurrency > 0 && !inference:
		v.add("max_concurrency", w.MaxConcurrency, fmt.Sprintf("applies to kind = %q only (kind is %q)", KindInference, v.norm.Kind))
	}
	switch {
	case w.GlobalBatchTokens < 0 || math.IsNaN(w.GlobalBatchTokens) || math.IsInf(w.GlobalBatchTokens, 0):
		v.add("global_batch_tokens", w.GlobalBatchTokens, "must be a positive number of tokens per optimizer step (e.g. 4194304 for a 4M-token batch)")
	case w.GlobalBatchTokens > 0 && v.norm.Kind == KindInference && v.known("kind"):
		v.add("global_batch_tokens", catalog.FormatNumber(w.GlobalBatchTokens), fmt.Sprintf("applies to kind = %q or %q only (kind is %q)", KindTraining, KindFineTuning, v.norm.Kind))
	}
}

// dutyCycle checks duty_cycle: a share of time in (0, 1], below 1 for
// inference only (1, constant load, is also what Model.WithDefaults gives a job).
func (v *workloadCheck) dutyCycle() {
	d := v.w.DutyCycle
	if d == 0 {
		return // omitted: constant load
	}
	l, ok := catalog.InputLimit(catalog.LimitDutyCycle)
	switch {
	case !ok:
		v.add("duty_cycle", d, "cannot be checked: the built-in input limits failed to load")
	case !l.Allows(d):
		v.add("duty_cycle", catalog.FormatNumber(d), "must be "+l.Range()+": the share of the time the load is there, for example 0.05 "+
			"for about 36 hours a month; omit it for constant load (1)")
	case v.norm.Kind != KindInference && d != DefaultDutyCycle && v.known("kind"):
		v.add("duty_cycle", catalog.FormatNumber(d), fmt.Sprintf("applies to kind = %q only (kind is %q): a job runs until it is done", KindInference, v.norm.Kind))
	}
}

// MaxDraftTokens bounds speculative_decoding.draft_tokens: engines
// draft at most a handful of tokens per step (acceptance decays
// geometrically), so more is a typo.
const MaxDraftTokens = 16

// speculative checks the speculative_decoding object.
func (v *workloadCheck) speculative() {
	sd := &v.w.SpeculativeDecoding
	method := v.norm.SpeculativeDecoding.Method
	if method == "" {
		if sd.AcceptanceRate != 0 || sd.DraftTokens != 0 || sd.DraftModelParametersB != 0 {
			v.add("speculative_decoding.method", `""`, "is required when speculative_decoding is set: one of "+catalog.QuoteList(SpeculativeMethods))
		}
		return
	}
	if !slices.Contains(SpeculativeMethods, method) {
		v.add("speculative_decoding.method", fmt.Sprintf("%q", sd.Method), "must be one of "+catalog.QuoteList(SpeculativeMethods))
	}
	if v.norm.Kind != KindInference && v.known("kind") {
		v.add("speculative_decoding.method", fmt.Sprintf("%q", sd.Method), fmt.Sprintf("applies to kind = %q only (kind is %q)", KindInference, v.norm.Kind))
	}
	if sd.AcceptanceRate != 0 && !(sd.AcceptanceRate > 0 && sd.AcceptanceRate < 1) {
		v.add("speculative_decoding.acceptance_rate", sd.AcceptanceRate, "must be a probability between 0 and 1 (exclusive), e.g. 0.7")
	}
	if sd.DraftTokens < 0 || sd.DraftTokens > MaxDraftTokens {
		v.add("speculative_decoding.draft_tokens", sd.DraftTokens, fmt.Sprintf("must be between 1 and %d", MaxDraftTokens))
	}
	v.draftModel(method)
}

// draftModel checks draft_model_parameters_b against the method and the
// model's size.
func (v *workloadCheck) draftModel(method string) {
	sd := &v.w.SpeculativeDecoding
	d := sd.DraftModelParametersB
	total := v.w.ModelParametersB
	if total == 0 && v.preset != nil {
		total = v.preset.TotalParametersB
	}
	switch {
	case method == SpeculativeDraftModel && d == 0:
		v.add("speculative_decoding.draft_model_parameters_b", d, `is required for method = "draft_model": the draft model's size in billions of parameters (e.g. 1)`)
	case method != SpeculativeDraftModel && d != 0:
		v.add("speculative_decoding.draft_model_parameters_b", d, `applies to method = "draft_model" only`)
	case d < 0 || math.IsNaN(d) || (total > 0 && d >= total):
		v.add("speculative_decoding.draft_model_parameters_b", d, fmt.Sprintf("must be positive and below the model's %v B parameters", total))
	}
}

func (v *workloadCheck) architecture() {
	w := &v.w
	if w.Layers < 0 {
		v.add("layers", w.Layers, "must be a positive number of transformer layers")
	}
	if w.HiddenSize < 0 {
		v.add("hidden_size", w.HiddenSize, "must be a positive model width")
	}
	if w.KVHeads < 0 {
		v.add("kv_heads", w.KVHeads, "must be a positive number of key/value heads")
	}
}

// Arch is the transformer shape the model uses.
type Arch struct {
	Layers, Hidden, KVHeads, HeadDim int
	Derived                          bool // true when any field came from the rule
}

// Architecture returns the transformer shape of the workload: the given
// overrides, otherwise the documented rule on the active parameter count N:
// layers = round(layers_per_cube_root_param · N^(1/3)) (Llama 7B→33,
// 70B→72, 405B→129), hidden = sqrt(N / (12 · layers)) rounded to
// hidden_multiple (12·L·h² is the dense-transformer parameter count),
// kv_heads = default_kv_heads (GQA, as in every current open model above
// 7B), head_dim = head_dim. KV bytes/token = 2 · layers · kv_heads ·
// head_dim · bytes.
func (m *Model) Architecture(w Workload) Arch {
	a := m.p.Architecture
	n := w.ActiveParametersB
	if n <= 0 {
		n = w.ModelParametersB
	}
	n *= 1e9
	out := Arch{Layers: w.Layers, Hidden: w.HiddenSize, KVHeads: w.KVHeads, HeadDim: a.HeadDim}
	if out.Layers == 0 {
		out.Layers = int(math.Round(a.LayersPerCubeRootParam * math.Cbrt(n)))
		if out.Layers < a.MinLayers {
			out.Layers = a.MinLayers
		}
		out.Derived = true
	}
	if out.Hidden == 0 {
		h := math.Sqrt(n / (12 * float64(out.Layers)))
		mult := float64(a.HiddenMultiple)
		out.Hidden = int(math.Max(mult, math.Round(h/mult)*mult))
		out.Derived = true
	}
	if out.KVHeads == 0 {
		out.KVHeads = a.DefaultKVHeads
		if maxKV := out.Hidden / a.HeadDim; maxKV >= 1 && out.KVHeads > maxKV {
			out.KVHeads = maxKV
		}
		out.Derived = true
	}
	return out
}
