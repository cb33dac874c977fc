// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package perf_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
)

func TestValidate(t *testing.T) {
	cases := []struct {
		name  string
		w     perf.Workload
		opts  perf.ValidateOptions
		field string // "" = valid
	}{
		{"valid training", perf.Workload{Kind: "training", ModelParametersB: 7, TrainingTokensB: 100}, perf.ValidateOptions{}, ""},
		{"valid inference without target", perf.Workload{Kind: "inference", ModelParametersB: 7}, perf.ValidateOptions{}, ""},
		{"inference needs target when required", perf.Workload{Kind: "inference", ModelParametersB: 7}, perf.ValidateOptions{RequireTokensPerSecond: true}, "tokens_per_second"},
		{"unknown kind", perf.Workload{Kind: "serving", ModelParametersB: 7}, perf.ValidateOptions{}, "kind"},
		{"zero params", perf.Workload{Kind: "inference"}, perf.ValidateOptions{}, "model_parameters_b"},
		{"negative params", perf.Workload{Kind: "inference", ModelParametersB: -1}, perf.ValidateOptions{}, "model_parameters_b"},
		{"active above total", perf.Workload{Kind: "inference", ModelParametersB: 7, ActiveParametersB: 8}, perf.ValidateOptions{}, "active_parameters_b"},
		{"training without tokens", perf.Workload{Kind: "training", ModelParametersB: 7}, perf.ValidateOptions{}, "training_tokens_b"},
		{"fine-tuning without tokens", perf.Workload{Kind: "fine_tuning", ModelParametersB: 7}, perf.ValidateOptions{}, "training_tokens_b"},
		{"unknown precision", perf.Workload{Kind: "inference", ModelParametersB: 7, Precision: "fp64"}, perf.ValidateOptions{}, "precision"},
		{"unknown method", perf.Workload{Kind: "fine_tuning", ModelParametersB: 7, TrainingTokensB: 1, FineTuningMethod: "dora"}, perf.ValidateOptions{}, "fine_tuning_method"},
		{"negative sequence", perf.Workload{Kind: "training", ModelParametersB: 7, TrainingTokensB: 1, SequenceLength: -1}, perf.ValidateOptions{}, "sequence_length"},
		{"negative ttft", perf.Workload{Kind: "inference", ModelParametersB: 7, MaxTimeToFirstTokenMs: -5}, perf.ValidateOptions{}, "max_time_to_first_token_ms"},
		{"negative layers", perf.Workload{Kind: "inference", ModelParametersB: 7, Layers: -2}, perf.ValidateOptions{}, "layers"},
		{"low duty cycle", perf.Workload{Kind: "inference", ModelParametersB: 7, DutyCycle: 0.02}, perf.ValidateOptions{}, ""},
		{"constant load", perf.Workload{Kind: "inference", ModelParametersB: 7, DutyCycle: 1}, perf.ValidateOptions{}, ""},
		{"duty cycle above 1", perf.Workload{Kind: "inference", ModelParametersB: 7, DutyCycle: 1.5}, perf.ValidateOptions{}, "duty_cycle"},
		{"negative duty cycle", perf.Workload{Kind: "inference", ModelParametersB: 7, DutyCycle: -0.1}, perf.ValidateOptions{}, "duty_cycle"},
		{"NaN duty cycle", perf.Workload{Kind: "inference", ModelParametersB: 7, DutyCycle: math.NaN()}, perf.ValidateOptions{}, "duty_cycle"},
		{"duty cycle of a job", perf.Workload{Kind: "training", ModelParametersB: 7, TrainingTokensB: 1, DutyCycle: 0.5}, perf.ValidateOptions{}, "duty_cycle"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			errs := c.w.Validate(c.opts)
			if c.field == "" {
				if len(errs) > 0 {
					t.Fatalf("want valid, got %v", errs)
				}
				return
			}
			if len(errs) == 0 || errs[0].Path.String() != "workload."+c.field {
				t.Fatalf("want first error on workload.%s, got %v", c.field, errs)
			}
			if d := errs[0].Detail; !strings.HasPrefix(d, "workload."+c.field+" = ") && !strings.HasPrefix(d, "workload."+c.field+" is not set") {
				t.Fatalf("the detail does not name the attribute: %q", errs[0].Detail)
			}
		})
	}
}

func TestWithDefaults(t *testing.T) {
	m := model(t)
	w := m.WithDefaults(perf.Workload{Kind: " Inference", ModelParametersB: 70, Precision: "FP8",
		SpeculativeDecoding: perf.SpeculativeDecoding{Method: "MTP"}}, perf.ValidateOptions{})
	if w.Kind != "inference" || w.ActiveParametersB != 70 || w.Precision != "fp8" || w.SequenceLength != 4096 ||
		w.FineTuningMethod != "lora" || w.InputTokens != 1024 || w.OutputTokens != 256 || w.DutyCycle != 1 ||
		w.MaxTimePerOutputTokenMs != 0 || w.SpeculativeDecoding.Method != "mtp" || w.SpeculativeDecoding.DraftTokens == 0 {
		t.Fatalf("defaults not applied: %+v", w)
	}
	// The caller's latency limit applies to inference that sets none.
	opts := perf.ValidateOptions{DefaultMaxTimePerOutputTokenMs: 40}
	if w := m.WithDefaults(perf.Workload{Kind: "inference", ModelParametersB: 8}, opts); w.MaxTimePerOutputTokenMs != 40 {
		t.Errorf("inference without a limit: %v ms, want the caller's 40", w.MaxTimePerOutputTokenMs)
	}
	if w := m.WithDefaults(perf.Workload{Kind: "inference", ModelParametersB: 8, MaxTimePerOutputTokenMs: 90}, opts); w.MaxTimePerOutputTokenMs != 90 {
		t.Errorf("inference with a limit: %v ms, want its own 90", w.MaxTimePerOutputTokenMs)
	}
	if w := m.WithDefaults(perf.Workload{Kind: "training", ModelParametersB: 8}, opts); w.MaxTimePerOutputTokenMs != 0 {
		t.Errorf("a job got a latency limit: %v ms", w.MaxTimePerOutputTokenMs)
	}
}

func TestPrecisionUnsupported(t *testing.T) {
	m := model(t)
	_, err := m.Estimate(perf.Workload{Kind: "inference", ModelParametersB: 7, Precision: "fp8"}, perf.Hardware{Accelerator: acc(t, "A100-80GB"), GPUs: 1})
	var pe *perf.PrecisionError
	if !errors.As(err, &pe) {
		t.Fatalf("want PrecisionError, got %v", err)
	}
	for _, s := range []string{"fp8", "A100-80GB", "bf16"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not name %s", err, s)
		}
	}
}

func TestEstimateTable(t *testing.T) {
	m := model(t)
	cases := []struct {
		name        string
		w           perf.Workload
		acc         string
		gpus        int
		fits        bool
		minTPS      float64 // tokens/s lower bound (0 = skip)
		maxTPS      float64
		wantBinding string
		maxHours    float64
		minHours    float64
	}{
		{name: "70B bf16 inference fits 2x H100", w: perf.Workload{Kind: "inference", ModelParametersB: 70}, acc: "H100", gpus: 2, fits: true, minTPS: 200, maxTPS: 20000},
		{name: "70B bf16 inference does not fit 1x H100", w: perf.Workload{Kind: "inference", ModelParametersB: 70}, acc: "H100", gpus: 1, fits: false, wantBinding: "memory"},
		{name: "7B inference on L4", w: perf.Workload{Kind: "inference", ModelParametersB: 7}, acc: "L4", gpus: 1, fits: true, minTPS: 50, maxTPS: 3000},
		{name: "70B full training needs many GPUs", w: perf.Workload{Kind: "training", ModelParametersB: 70, TrainingTokensB: 100}, acc: "H100", gpus: 8, fits: false, wantBinding: "memory"},
		{name: "Llama-2-7B 2T tokens on 2048 A100", w: perf.Workload{Kind: "training", ModelParametersB: 7, TrainingTokensB: 2000}, acc: "A100-80GB", gpus: 2048, fits: true, minHours: 60, maxHours: 200},
		{name: "7B qlora on one L4", w: perf.Workload{Kind: "fine_tuning", ModelParametersB: 7, TrainingTokensB: 0.1, FineTuningMethod: "qlora"}, acc: "L4", gpus: 1, fits: true, minHours: 1},
		{name: "70B lora on 8x H100", w: perf.Workload{Kind: "fine_tuning", ModelParametersB: 70, TrainingTokensB: 1}, acc: "H100", gpus: 8, fits: true, minHours: 1, maxHours: 200},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, err := m.Estimate(c.w, perf.Hardware{Accelerator: acc(t, c.acc), GPUs: c.gpus})
			if err != nil {
				t.Fatal(err)
			}
			if e.Fits != c.fits {
				t.Fatalf("fits = %v, want %v (%s)", e.Fits, c.fits, e.Explanation)
			}
			if !e.Fits && e.MemoryShortfallGB <= 0 {
				t.Errorf("no shortfall for a non-fitting workload")
			}
			if c.wantBinding != "" && e.Binding != c.wantBinding {
				t.Errorf("binding %q, want %q", e.Binding, c.wantBinding)
			}
			if c.minTPS > 0 && (e.TokensPerSecond < c.minTPS || e.TokensPerSecond > c.maxTPS) {
				t.Errorf("tokens/s %.0f outside [%v, %v]", e.TokensPerSecond, c.minTPS, c.maxTPS)
			}
			if c.minHours > 0 && e.Hours < c.minHours {
				t.Errorf("hours %.1f < %v", e.Hours, c.minHours)
			}
			if c.maxHours > 0 && e.Hours > c.maxHours {
				t.Errorf("hours %.1f > %v", e.Hours, c.maxHours)
			}
			if e.Explanation == "" {
				t.Error("empty explanation")
			}
			if e.Fits && e.TensorParallel*e.PipelineParallel < 1 {
				t.Error("no layout")
			}
		})
	}
}

func TestTPNeverCrossesNode(t *testing.T) {
	m := model(t)
	for _, gpn := range []int{1, 2, 4, 8} {
		e, err := m.Estimate(perf.Workload{Kind: "training", ModelParametersB: 70, TrainingTokensB: 10}, perf.Hardware{Accelerator: acc(t, "H100"), GPUs: 64, GPUsPerNode: gpn})
		if err != nil {
			t.Fatal(err)
		}
		if e.TensorParallel > gpn {
			t.Errorf("gpus_per_node %d: TP %d crosses nodes", gpn, e.TensorParallel)
		}
	}
}

func TestInferenceTargetAndLatency(t *testing.T) {
	m := model(t)
	w := perf.Workload{Kind: "inference", ModelParametersB: 70, Precision: "fp8", TokensPerSecond: 5000, MaxTimePerOutputTokenMs: 50}
	e, err := m.Estimate(w, perf.Hardware{Accelerator: acc(t, "H100"), GPUs: 8})
	if err != nil {
		t.Fatal(err)
	}
	if e.TPOTMs > 50 {
		t.Errorf("TPOT %.1f ms above the 50 ms limit", e.TPOTMs)
	}
	if e.ReplicasNeeded < 1 || e.Replicas < 1 || e.ReplicaGPUs < 1 {
		t.Errorf("replicas not set: %+v", e)
	}
	loose := w
	loose.MaxTimePerOutputTokenMs = 0
	e2, _ := m.Estimate(loose, perf.Hardware{Accelerator: acc(t, "H100"), GPUs: 8})
	if e2.TokensPerSecond < e.TokensPerSecond {
		t.Errorf("removing the latency limit lowered throughput: %.0f < %.0f", e2.TokensPerSecond, e.TokensPerSecond)
	}
}

func TestVRAMRequired(t *testing.T) {
	m := model(t)
	cases := []struct {
		params     float64
		prec, kind string
		lo, hi     float64
	}{
		{70, "bf16", "inference", 140, 175},
		{70, "fp8", "inference", 70, 95},
		{7, "bf16", "training", 112, 160},
		{70, "bf16", "fine_tuning", 140, 200},
	}
	for _, c := range cases {
		got, err := m.VRAMRequiredGB(c.params, c.prec, c.kind)
		if err != nil {
			t.Fatal(err)
		}
		if got < c.lo || got > c.hi {
			t.Errorf("%v %s %s: %.1f GB outside [%v, %v]", c.params, c.prec, c.kind, got, c.lo, c.hi)
		}
	}
	if _, err := m.VRAMRequiredGB(-1, "bf16", "inference"); err == nil {
		t.Error("want error for negative params")
	}
	if _, err := m.VRAMRequiredGB(7, "fp64", "inference"); err == nil {
		t.Error("want error for unknown precision")
	}
}

func TestMinGPUsToFit(t *testing.T) {
	m := model(t)
	h100 := acc(t, "H100")
	if g := minGPUs(t, m, perf.Workload{Kind: "inference", ModelParametersB: 70}, h100); g != 2 {
		t.Errorf("70B bf16 inference on H100: min GPUs %d, want 2", g)
	}
	g := minGPUs(t, m, perf.Workload{Kind: "training", ModelParametersB: 70, TrainingTokensB: 1}, h100)
	if g < 16 {
		t.Errorf("70B full training: min GPUs %d, want ≥ 16", g)
	}
	e, _ := m.Estimate(perf.Workload{Kind: "training", ModelParametersB: 70, TrainingTokensB: 1}, perf.Hardware{Accelerator: h100, GPUs: g, GPUsPerNode: 8})
	if !e.Fits {
		t.Errorf("MinGPUsToFit %d does not fit by Estimate", g)
	}
}

func TestArchitectureRule(t *testing.T) {
	m := model(t)
	a := m.Architecture(m.WithDefaults(perf.Workload{ModelParametersB: 70}, perf.ValidateOptions{}))
	if a.Layers < 60 || a.Layers > 90 || a.Hidden < 7000 || a.Hidden > 10000 || a.KVHeads != 8 {
		t.Errorf("70B derived architecture implausible: %+v", a)
	}
	b := m.Architecture(m.WithDefaults(perf.Workload{ModelParametersB: 70, Layers: 80, HiddenSize: 8192, KVHeads: 8}, perf.ValidateOptions{}))
	if b.Layers != 80 || b.Hidden != 8192 || b.Derived {
		t.Errorf("overrides not used: %+v", b)
	}
}

var _ = catalog.FabricNone
