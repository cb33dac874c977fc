// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package perf

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
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

// Defaults applied by Workload.WithDefaults (DESIGN.md).
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
	Kind          string  // kind: "training" | "fine_tuning" | "inference"
	ModelParamsB  float64 // model_parameters_b: total parameters, billions
	ActiveParamsB float64 // active_parameters_b: per-token active parameters (MoE); 0 = total
	Precision     string  // precision: fp32 tf32 bf16 fp16 fp8 fp4 int8 int4; "" = bf16

	SequenceLength   int     // sequence_length (training / fine-tuning); 0 = 4096
	TrainingTokensB  float64 // training_tokens_b: tokens to process, billions
	FineTuningMethod string  // fine_tuning_method: full | lora | qlora; "" = lora

	TokensPerSecond float64 // tokens_per_second: inference target, aggregate output tokens/s (0 = none)
	InputTokens     int     // input_tokens: mean prompt length; 0 = 1024
	OutputTokens    int     // output_tokens: mean generated length; 0 = 256
	MaxTTFTMs       float64 // max_time_to_first_token_ms; 0 = no limit
	MaxTPOTMs       float64 // max_time_per_output_token_ms; 0 = no limit

	// Architecture overrides; 0 = derived from the parameter count (see
	// Architecture).
	Layers, HiddenSize, KVHeads int

	// BeamWidth is the number of beams per request for beam-search decoding
	// (0 or 1 = greedy/sampling). Not exposed in Terraform; used to compare
	// with MLPerf GPT-J, which runs 4 beams.
	BeamWidth int
}

// FieldError is a problem with one workload field. Field is the Terraform
// attribute name inside the workload object (e.g. "training_tokens_b").
type FieldError struct {
	Field   string
	Value   string
	Message string
}

func (e FieldError) Error() string {
	return fmt.Sprintf("%s = %s: %s", e.Field, e.Value, e.Message)
}

// WithDefaults returns the workload with every zero-valued optional field
// set to its documented default. Kind, precision and method are lower-cased.
func (w Workload) WithDefaults() Workload {
	w.Kind = strings.ToLower(strings.TrimSpace(w.Kind))
	w.Precision = strings.ToLower(strings.TrimSpace(w.Precision))
	w.FineTuningMethod = strings.ToLower(strings.TrimSpace(w.FineTuningMethod))
	if w.ActiveParamsB == 0 {
		w.ActiveParamsB = w.ModelParamsB
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

// ValidateOptions tunes Validate for the caller.
type ValidateOptions struct {
	// RequireTokensPerSecond makes tokens_per_second mandatory for
	// inference (gpu_recommendation); gpu_estimate leaves it optional.
	RequireTokensPerSecond bool
}

// Validate checks the workload (after WithDefaults semantics: zero optional
// fields are fine) and returns every problem found, in field order.
func (w Workload) Validate(opts ...ValidateOptions) []FieldError {
	var o ValidateOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	var errs []FieldError
	add := func(field string, v any, msg string) {
		errs = append(errs, FieldError{Field: field, Value: fmt.Sprint(v), Message: msg})
	}
	kind := strings.ToLower(strings.TrimSpace(w.Kind))
	switch kind {
	case KindTraining, KindFineTuning, KindInference:
	default:
		add("kind", fmt.Sprintf("%q", w.Kind), "must be one of "+catalog.QuoteList(Kinds))
	}
	if !(w.ModelParamsB > 0) || math.IsInf(w.ModelParamsB, 0) {
		add("model_parameters_b", w.ModelParamsB, "must be a positive number of billions of parameters (e.g. 70 for a 70B model)")
	}
	if w.ActiveParamsB < 0 || math.IsNaN(w.ActiveParamsB) {
		add("active_parameters_b", w.ActiveParamsB, "must be positive (billions of parameters active per token); omit it for dense models")
	} else if w.ActiveParamsB > 0 && w.ModelParamsB > 0 && w.ActiveParamsB > w.ModelParamsB {
		add("active_parameters_b", w.ActiveParamsB, fmt.Sprintf("cannot exceed model_parameters_b (%v)", w.ModelParamsB))
	}
	if p := strings.ToLower(strings.TrimSpace(w.Precision)); p != "" && !slices.Contains(catalog.Precisions, p) {
		add("precision", fmt.Sprintf("%q", w.Precision), "must be one of "+catalog.QuoteList(catalog.Precisions))
	}
	if w.SequenceLength < 0 {
		add("sequence_length", w.SequenceLength, "must be a positive number of tokens")
	}
	if m := strings.ToLower(strings.TrimSpace(w.FineTuningMethod)); m != "" && !slices.Contains(Methods, m) {
		add("fine_tuning_method", fmt.Sprintf("%q", w.FineTuningMethod), "must be one of "+catalog.QuoteList(Methods))
	}
	if w.TrainingTokensB < 0 || math.IsNaN(w.TrainingTokensB) {
		add("training_tokens_b", w.TrainingTokensB, "must be a positive number of billions of tokens")
	} else if (kind == KindTraining || kind == KindFineTuning) && w.TrainingTokensB == 0 {
		add("training_tokens_b", w.TrainingTokensB, fmt.Sprintf("is required for kind = %q: the billions of tokens to train on (e.g. 2000 for 2T tokens)", kind))
	}
	if w.TokensPerSecond < 0 || math.IsNaN(w.TokensPerSecond) {
		add("tokens_per_second", w.TokensPerSecond, "must be a positive aggregate output tokens/s")
	} else if kind == KindInference && o.RequireTokensPerSecond && w.TokensPerSecond == 0 {
		add("tokens_per_second", w.TokensPerSecond, `is required for kind = "inference": the aggregate output tokens/s to serve`)
	}
	if w.InputTokens < 0 {
		add("input_tokens", w.InputTokens, "must be a positive number of prompt tokens")
	}
	if w.OutputTokens < 0 {
		add("output_tokens", w.OutputTokens, "must be a positive number of generated tokens")
	}
	if w.MaxTTFTMs < 0 || math.IsNaN(w.MaxTTFTMs) {
		add("max_time_to_first_token_ms", w.MaxTTFTMs, "must be positive milliseconds (omit for no limit)")
	}
	if w.MaxTPOTMs < 0 || math.IsNaN(w.MaxTPOTMs) {
		add("max_time_per_output_token_ms", w.MaxTPOTMs, "must be positive milliseconds (omit for no limit)")
	}
	if w.Layers < 0 {
		add("layers", w.Layers, "must be a positive number of transformer layers")
	}
	if w.HiddenSize < 0 {
		add("hidden_size", w.HiddenSize, "must be a positive model width")
	}
	if w.KVHeads < 0 {
		add("kv_heads", w.KVHeads, "must be a positive number of key/value heads")
	}
	return errs
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
	n := w.ActiveParamsB
	if n <= 0 {
		n = w.ModelParamsB
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
