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

// Defaults applied by Workload.WithDefaults, documented on the Terraform
// attributes.
const (
	DefaultPrecision        = "bf16"
	DefaultSequenceLength   = 4096
	DefaultFineTuningMethod = MethodLoRA
	DefaultInputTokens      = 1024
	DefaultOutputTokens     = 256
)

// Kinds and Methods list the accepted values, in documentation order.
var (
	Kinds   = []string{KindTraining, KindFineTuning, KindInference}
	Methods = []string{MethodFull, MethodLoRA, MethodQLoRA}
)

// Workload is what the user wants to run. Zero values mean "use the
// default" (see WithDefaults). Field comments give the Terraform attribute.
type Workload struct {
	Kind              string  // kind: "training" | "fine_tuning" | "inference"
	ModelParametersB  float64 // model_parameters_b: total parameters, billions
	ActiveParametersB float64 // active_parameters_b: per-token active parameters (MoE); 0 = total
	Precision         string  // precision: fp32 tf32 bf16 fp16 fp8 fp4 int8 int4; "" = bf16

	SequenceLength   int     // sequence_length (training / fine-tuning); 0 = 4096
	TrainingTokensB  float64 // training_tokens_b: tokens to process, billions
	FineTuningMethod string  // fine_tuning_method: full | lora | qlora; "" = lora

	TokensPerSecond         float64 // tokens_per_second: inference target, aggregate output tokens/s (0 = none)
	InputTokens             int     // input_tokens: mean prompt length; 0 = 1024
	OutputTokens            int     // output_tokens: mean generated length; 0 = 256
	MaxTimeToFirstTokenMs   float64 // max_time_to_first_token_ms; 0 = no limit
	MaxTimePerOutputTokenMs float64 // max_time_per_output_token_ms; 0 = no limit

	// Architecture overrides; 0 = derived from the parameter count (see
	// Architecture).
	Layers, HiddenSize, KVHeads int

	// BeamWidth is the number of beams per request for beam-search decoding
	// (0 or 1 = greedy/sampling). Not exposed in Terraform; used to compare
	// with MLPerf GPT-J, which runs 4 beams.
	BeamWidth int
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
}

// WithDefaults returns the workload with every zero-valued optional field
// set to its documented default. Kind, precision and method are lower-cased.
func (w Workload) WithDefaults() Workload {
	w.Kind = strings.ToLower(strings.TrimSpace(w.Kind))
	w.Precision = strings.ToLower(strings.TrimSpace(w.Precision))
	w.FineTuningMethod = strings.ToLower(strings.TrimSpace(w.FineTuningMethod))
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
	if w.BeamWidth == 0 {
		w.BeamWidth = 1
	}
	return w
}

// Validate checks the workload as the user wrote it (zero optional fields
// are fine: they take their defaults) and returns every problem found, in
// attribute order, each on the attribute's path under opts.Root.
func (w Workload) Validate(opts ValidateOptions) inputerr.List {
	v := workloadCheck{w: w, opts: opts, kind: strings.ToLower(strings.TrimSpace(w.Kind))}
	if v.opts.Root.IsEmpty() {
		v.opts.Root = inputerr.Root("workload")
	}
	v.names()
	v.sizes()
	v.serving()
	v.architecture()
	return v.errs
}

// workloadCheck collects the problems of one Validate call.
type workloadCheck struct {
	w    Workload
	opts ValidateOptions
	kind string // lower-cased kind
	errs inputerr.List
}

func (v *workloadCheck) known(attr string) bool { return v.opts.Known == nil || v.opts.Known(attr) }

// add reports attr = value: msg, unless attr (or, for rules that depend on
// the kind, the kind) is not known yet.
func (v *workloadCheck) add(attr string, value any, msg string) {
	if !v.known(attr) {
		return
	}
	p := v.opts.Root.Name(attr)
	v.errs.Add(p, "Invalid Workload", "%s = %v: %s.", p, value, msg)
}

func (v *workloadCheck) names() {
	w := &v.w
	switch v.kind {
	case KindTraining, KindFineTuning, KindInference:
	default:
		v.add("kind", fmt.Sprintf("%q", w.Kind), "must be one of "+catalog.QuoteList(Kinds))
	}
	if p := strings.ToLower(strings.TrimSpace(w.Precision)); p != "" && !slices.Contains(catalog.Precisions, p) {
		v.add("precision", fmt.Sprintf("%q", w.Precision), "must be one of "+catalog.QuoteList(catalog.Precisions))
	}
	if m := strings.ToLower(strings.TrimSpace(w.FineTuningMethod)); m != "" && !slices.Contains(Methods, m) {
		v.add("fine_tuning_method", fmt.Sprintf("%q", w.FineTuningMethod), "must be one of "+catalog.QuoteList(Methods))
	}
}

func (v *workloadCheck) sizes() {
	w := &v.w
	if !(w.ModelParametersB > 0) || math.IsInf(w.ModelParametersB, 0) {
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
	trainingKind := v.kind == KindTraining || v.kind == KindFineTuning
	if w.TrainingTokensB < 0 || math.IsNaN(w.TrainingTokensB) {
		v.add("training_tokens_b", w.TrainingTokensB, "must be a positive number of billions of tokens")
	} else if trainingKind && w.TrainingTokensB == 0 && v.known("kind") {
		v.add("training_tokens_b", w.TrainingTokensB, fmt.Sprintf("is required for kind = %q: the billions of tokens to train on (e.g. 2000 for 2T tokens)", v.kind))
	}
}

func (v *workloadCheck) serving() {
	w := &v.w
	if w.TokensPerSecond < 0 || math.IsNaN(w.TokensPerSecond) {
		v.add("tokens_per_second", w.TokensPerSecond, "must be a positive aggregate output tokens/s")
	} else if v.kind == KindInference && v.opts.RequireTokensPerSecond && w.TokensPerSecond == 0 && v.known("kind") {
		v.add("tokens_per_second", w.TokensPerSecond, `is required for kind = "inference": the aggregate output tokens/s to serve`)
	}
	if w.InputTokens < 0 {
		v.add("input_tokens", w.InputTokens, "must be a positive number of prompt tokens")
	}
	if w.OutputTokens < 0 {
		v.add("output_tokens", w.OutputTokens, "must be a positive number of generated tokens")
	}
	if w.MaxTimeToFirstTokenMs < 0 || math.IsNaN(w.MaxTimeToFirstTokenMs) {
		v.add("max_time_to_first_token_ms", w.MaxTimeToFirstTokenMs, "must be positive milliseconds (omit for no limit)")
	}
	if w.MaxTimePerOutputTokenMs < 0 || math.IsNaN(w.MaxTimePerOutputTokenMs) {
		v.add("max_time_per_output_token_ms", w.MaxTimePerOutputTokenMs, "must be positive milliseconds (omit for no limit)")
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
