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
				if a.PeakTFLOPS[w.WithDefaults().Precision] == 0 {
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
			if a.PeakTFLOPS[w.WithDefaults().Precision] == 0 {
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
