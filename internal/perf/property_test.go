// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package perf_test

import (
	"strings"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
)

var propWorkloads = []perf.Workload{
	{Kind: "training", ModelParametersB: 7, TrainingTokensB: 100},
	{Kind: "training", ModelParametersB: 70, TrainingTokensB: 1000, Precision: "fp8"},
	{Kind: "training", ModelParametersB: 175, TrainingTokensB: 300, SequenceLength: 2048},
	{Kind: "fine_tuning", ModelParametersB: 13, TrainingTokensB: 1, FineTuningMethod: "full"},
	{Kind: "fine_tuning", ModelParametersB: 70, TrainingTokensB: 1},
	{Kind: "fine_tuning", ModelParametersB: 70, TrainingTokensB: 1, FineTuningMethod: "qlora"},
	{Kind: "inference", ModelParametersB: 8},
	{Kind: "inference", ModelParametersB: 70, Precision: "fp8", MaxTimePerOutputTokenMs: 60},
	{Kind: "inference", ModelParametersB: 46.7, ActiveParametersB: 12.9},
	{Kind: "inference", ModelParametersB: 405, Precision: "fp8", InputTokens: 8000, OutputTokens: 500},
}

// More GPUs never make a job slower unless communication dominates, and
// then the explanation says so.
func TestPropertyMoreGPUsNotSlower(t *testing.T) {
	m := model(t)
	for _, id := range []string{"H100", "A100-80GB", "L40S", "MI300X"} {
		a := acc(t, id)
		for _, fabric := range []catalog.Fabric{catalog.FabricInfiniBand, catalog.FabricNone} {
			gbps := 3200.0
			if fabric == catalog.FabricNone {
				gbps = 25
			}
			for _, w := range propWorkloads {
				if a.PeakTFLOPS[m.WithDefaults(w, perf.ValidateOptions{}).Precision] == 0 {
					continue
				}
				prev := perf.Estimate{}
				for _, g := range []int{1, 2, 3, 4, 8, 12, 16, 24, 32, 64, 128, 512, 2048} {
					e, err := m.Estimate(w, perf.Hardware{Accelerator: a, GPUs: g, GPUsPerNode: 8, NetworkGbps: gbps, Fabric: fabric})
					if err != nil {
						t.Fatal(err)
					}
					if prev.Fits && e.Fits && e.TokensPerSecond < prev.TokensPerSecond*(1-1e-9) {
						if e.Binding != perf.BindNetwork || !strings.Contains(e.Explanation, "communication") {
							t.Errorf("%s %s %+v: %d GPUs %.0f tok/s < %.0f with fewer GPUs, binding %s: %s",
								id, fabric, w, g, e.TokensPerSecond, prev.TokensPerSecond, e.Binding, e.Explanation)
						}
					}
					if prev.Fits && !e.Fits {
						t.Errorf("%s %+v: fits on fewer GPUs but not on %d", id, w, g)
					}
					prev = e
				}
			}
		}
	}
}

// Higher memory bandwidth never lowers decode speed.
func TestPropertyBandwidthMonotone(t *testing.T) {
	m := model(t)
	base := *acc(t, "H100")
	for _, w := range propWorkloads {
		if w.Kind != "inference" {
			continue
		}
		prev := -1.0
		for _, bw := range []float64{1, 2, 3.35, 4.8, 8} {
			a := base
			a.MemoryBandwidthTBps = bw
			e, err := m.Estimate(w, perf.Hardware{Accelerator: &a, GPUs: 8})
			if err != nil {
				t.Fatal(err)
			}
			if e.TokensPerSecond < prev*(1-1e-9) {
				t.Errorf("%+v: %.1f TB/s gives %.0f tok/s < %.0f at lower bandwidth", w, bw, e.TokensPerSecond, prev)
			}
			prev = e.TokensPerSecond
		}
	}
}

// A workload that does not fit is never reported as fitting: the memory
// reported for a fitting estimate is within the usable memory, and a
// non-fitting one reports a positive shortfall.
func TestPropertyFitConsistent(t *testing.T) {
	m := model(t)
	for _, a := range fixtureAccelerators(t) {
		for _, w := range propWorkloads {
			if a.PeakTFLOPS[m.WithDefaults(w, perf.ValidateOptions{}).Precision] == 0 {
				continue
			}
			for _, g := range []int{1, 2, 8, 64} {
				e, err := m.Estimate(w, perf.Hardware{Accelerator: a, GPUs: g})
				if err != nil {
					t.Fatal(err)
				}
				if e.Fits && e.MemoryPerGPUGB > e.UsableMemoryPerGPUGB+1e-9 {
					t.Errorf("%s×%d %+v: fits but needs %.1f GB of %.1f", a.ID, g, w, e.MemoryPerGPUGB, e.UsableMemoryPerGPUGB)
				}
				if !e.Fits && (e.MemoryShortfallGB <= 0 || e.TokensPerSecond != 0) {
					t.Errorf("%s×%d %+v: does not fit but shortfall %.1f, tok/s %.0f", a.ID, g, w, e.MemoryShortfallGB, e.TokensPerSecond)
				}
				if e.Fits && e.MemoryPerGPUGB > a.MemoryGB {
					t.Errorf("%s×%d: reported fitting with %.1f GB > %.0f GB", a.ID, g, e.MemoryPerGPUGB, a.MemoryGB)
				}
			}
		}
	}
}

// FP8 never needs more memory than BF16.
func TestPropertyFP8NotMoreMemory(t *testing.T) {
	m := model(t)
	h100 := acc(t, "H100")
	for _, kind := range []string{"training", "fine_tuning", "inference"} {
		for _, p := range []float64{1, 7, 70, 405} {
			b, _ := m.VRAMRequiredGB(p, "bf16", kind)
			f, _ := m.VRAMRequiredGB(p, "fp8", kind)
			if f > b {
				t.Errorf("%s %vB: fp8 %.1f GB > bf16 %.1f GB", kind, p, f, b)
			}
			w := perf.Workload{Kind: kind, ModelParametersB: p, TrainingTokensB: 1}
			wf := w
			wf.Precision = "fp8"
			gb, gf := minGPUs(t, m, w, h100), minGPUs(t, m, wf, h100)
			if gb > 0 && (gf == 0 || gf > gb) {
				t.Errorf("%s %vB: fp8 needs %d GPUs, bf16 %d", kind, p, gf, gb)
			}
		}
	}
	for _, w := range propWorkloads {
		if w.Kind != "inference" {
			continue
		}
		w.Precision = "bf16"
		wf := w
		wf.Precision = "fp8"
		for _, g := range []int{1, 2, 8} {
			eb, _ := m.Estimate(w, perf.Hardware{Accelerator: h100, GPUs: g})
			ef, _ := m.Estimate(wf, perf.Hardware{Accelerator: h100, GPUs: g})
			if eb.Fits && !ef.Fits {
				t.Errorf("%+v on %d: bf16 fits, fp8 does not", w, g)
			}
		}
	}
}

// servingProps are the serving scenarios of the serving property tests:
// presets (dense, MoE, MLA, sliding window), speculative decoding,
// rack-scale and multi-node hardware, with and without latency limits.
var servingProps = []struct {
	w       perf.Workload
	acc     string
	gpus    int
	perNode int
}{
	{perf.Workload{Kind: "inference", Model: "deepseek-r1"}, "B200", 8, 8},
	{perf.Workload{Kind: "inference", Model: "deepseek-r1", MaxTimePerOutputTokenMs: 40}, "B200", 32, 8},
	{perf.Workload{Kind: "inference", Model: "deepseek-r1", Precision: "fp4", InputTokens: 8192, OutputTokens: 1024, MaxTimePerOutputTokenMs: 60,
		SpeculativeDecoding: perf.SpeculativeDecoding{Method: "mtp"}}, "GB200", 72, 4},
	{perf.Workload{Kind: "inference", Model: "deepseek-r1", MaxTimeToFirstTokenMs: 2000, MaxTimePerOutputTokenMs: 80}, "H100", 32, 8},
	{perf.Workload{Kind: "inference", Model: "deepseek-r1", Precision: "fp4", MaxTimePerOutputTokenMs: 50}, "MI355X", 16, 8},
	{perf.Workload{Kind: "inference", Model: "llama-3.1-70b", Precision: "fp8", MaxTimePerOutputTokenMs: 30}, "H200", 16, 8},
	{perf.Workload{Kind: "inference", Model: "gpt-oss-120b", MaxTimePerOutputTokenMs: 20}, "H100", 8, 8},
	{perf.Workload{Kind: "inference", Model: "mixtral-8x7b", Precision: "fp8"}, "MI300X", 8, 8},
}

// More HBM bandwidth never lowers serving throughput (decode reads
// weights and KV cache from HBM), on any scenario.
func TestPropertyBandwidthMonotoneServing(t *testing.T) {
	m := model(t)
	for _, c := range servingProps {
		base := *acc(t, c.acc)
		prev := -1.0
		for _, f := range []float64{0.5, 0.75, 1, 1.25, 1.5, 2} {
			a := base
			a.MemoryBandwidthTBps = base.MemoryBandwidthTBps * f
			e, err := m.Estimate(c.w, perf.Hardware{Accelerator: &a, GPUs: c.gpus, GPUsPerNode: c.perNode})
			if err != nil {
				t.Fatal(err)
			}
			if e.TokensPerSecond < prev*(1-1e-9) {
				t.Errorf("%s on %d× %s: %.2f× bandwidth gives %.0f tok/s < %.0f at less", c.w.Model, c.gpus, c.acc, f, e.TokensPerSecond, prev)
			}
			prev = e.TokensPerSecond
		}
	}
}

// A looser latency limit never lowers the throughput the GPUs sustain.
func TestPropertyLooserLatencyNotLower(t *testing.T) {
	m := model(t)
	for _, c := range servingProps {
		h := perf.Hardware{Accelerator: acc(t, c.acc), GPUs: c.gpus, GPUsPerNode: c.perNode}
		for _, ttft := range []float64{0, 500, 3000} {
			prev := -1.0
			for _, tpot := range []float64{5, 10, 15, 20, 30, 50, 80, 120, 200, 0} {
				w := c.w
				w.MaxTimePerOutputTokenMs, w.MaxTimeToFirstTokenMs = tpot, ttft
				e, err := m.Estimate(w, h)
				if err != nil {
					t.Fatal(err)
				}
				if e.TokensPerSecond < prev*(1-1e-9) {
					t.Errorf("%s on %d× %s, TTFT %v: TPOT limit %v ms gives %.0f tok/s < %.0f under a tighter one", c.w.Model, c.gpus, c.acc, ttft, tpot, e.TokensPerSecond, prev)
				}
				prev = e.TokensPerSecond
			}
		}
	}
}

// FP4 never needs more memory than FP8, for presets (with their mixed
// native formats) and parameter counts alike.
func TestPropertyFP4NotMoreMemory(t *testing.T) {
	m := model(t)
	for _, id := range []string{"B200", "GB200", "MI355X"} {
		a := acc(t, id)
		for _, w := range []perf.Workload{
			{Kind: "inference", Model: "deepseek-r1"}, {Kind: "inference", Model: "kimi-k2.5"},
			{Kind: "inference", Model: "llama-3.1-405b"}, {Kind: "inference", Model: "gpt-oss-120b"},
			{Kind: "inference", ModelParametersB: 70}, {Kind: "inference", ModelParametersB: 235, ActiveParametersB: 22},
		} {
			w8, w4 := w, w
			w8.Precision, w4.Precision = "fp8", "fp4"
			g8, g4 := minGPUs(t, m, w8, a), minGPUs(t, m, w4, a)
			if g8 > 0 && (g4 == 0 || g4 > g8) {
				t.Errorf("%s %s%v: fp4 needs %d GPUs, fp8 %d", id, w.Model, w.ModelParametersB, g4, g8)
			}
			for _, g := range []int{1, 4, 8} {
				e8, _ := m.Estimate(w8, perf.Hardware{Accelerator: a, GPUs: g})
				e4, _ := m.Estimate(w4, perf.Hardware{Accelerator: a, GPUs: g})
				if e4.MemoryPerGPUGB > e8.MemoryPerGPUGB+1e-9 && e4.TensorParallel*e4.PipelineParallel == e8.TensorParallel*e8.PipelineParallel {
					t.Errorf("%s×%d %s: fp4 needs %.1f GB per GPU > fp8 %.1f", id, g, w.Model, e4.MemoryPerGPUGB, e8.MemoryPerGPUGB)
				}
				if e8.Fits && !e4.Fits {
					t.Errorf("%s×%d %s: fp8 fits, fp4 does not", id, g, w.Model)
				}
			}
		}
	}
}

// Both latency limits loosened together (as gpu_recommendation's
// trade-off rows loosen them) never lower the throughput the GPUs
// sustain, on single and multi-node hardware, where disaggregated
// prefill and decode compete with aggregated replicas: a split that met
// the tighter limits meets the looser ones.
func TestPropertyLooserLimitsNotLower(t *testing.T) {
	m := model(t)
	workloads := []perf.Workload{
		{Kind: "inference", ModelParametersB: 8},
		{Kind: "inference", ModelParametersB: 70},
		{Kind: "inference", ModelParametersB: 70, Precision: "fp8", InputTokens: 4096},
		{Kind: "inference", Model: "llama-3.1-405b", Precision: "fp8"},
		{Kind: "inference", Model: "mixtral-8x7b"},
		{Kind: "inference", Model: "deepseek-r1", Precision: "fp8"},
	}
	limits := [][2]float64{{200, 20}, {500, 50}, {1000, 30}, {3000, 100}}
	for _, id := range []string{"H100", "A100-80GB", "MI300X", "L40S", "B200"} {
		a := acc(t, id)
		for _, w := range workloads {
			if a.PeakTFLOPS[m.WithDefaults(w, perf.ValidateOptions{}).Precision] == 0 {
				continue
			}
			for _, gpus := range []int{8, 16, 32, 104} {
				for _, base := range limits {
					prev, prevF := -1.0, 0.0
					for _, f := range []float64{0.5, 0.75, 1, 1.5, 2, 3} {
						w := w
						w.MaxTimeToFirstTokenMs, w.MaxTimePerOutputTokenMs = base[0]*f, base[1]*f
						e, err := m.Estimate(w, perf.Hardware{Accelerator: a, GPUs: gpus, GPUsPerNode: 8})
						if err != nil {
							t.Fatal(err)
						}
						if e.Fits && e.TokensPerSecond < prev*(1-1e-9) {
							t.Errorf("%s %vB on %d× %s: limits %v×%v give %.0f tok/s (%s) < %.0f at %v×", w.Model, w.ModelParametersB, gpus, id,
								base, f, e.TokensPerSecond, e.ServingLayout, prev, prevF)
						}
						if e.Fits {
							prev, prevF = e.TokensPerSecond, f
						}
					}
				}
			}
		}
	}
}
