// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package perf_test

import (
	"strings"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
)

// A board with less TDP per TFLOP than its family's full-power part
// sustains less than its datasheet peak, and the explanation says so; the
// full-power part is not limited.
func TestPowerLimitedParts(t *testing.T) {
	m := model(t)
	w := perf.Workload{Kind: "inference", ModelParametersB: 8, Precision: "fp8", InputTokens: 2000, OutputTokens: 100}
	sxm, err := m.Estimate(w, perf.Hardware{Accelerator: acc(t, "H100"), GPUs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(sxm.Explanation, "board limit") {
		t.Errorf("H100 SXM should not be power limited: %s", sxm.Explanation)
	}
	nvl, err := m.Estimate(w, perf.Hardware{Accelerator: acc(t, "H100-NVL"), GPUs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(nvl.Explanation, "400 W board limit") {
		t.Errorf("H100 NVL explanation lacks the power limit: %s", nvl.Explanation)
	}
	// More TDP never makes a part slower.
	a := *acc(t, "H100-NVL")
	prev := 0.0
	for _, watts := range []float64{300, 400, 600, 1000} {
		a.TDPWatts = watts
		e, err := m.Estimate(w, perf.Hardware{Accelerator: &a, GPUs: 1})
		if err != nil {
			t.Fatal(err)
		}
		if e.TokensPerSecond < prev*(1-1e-9) {
			t.Errorf("%v W: %.0f tok/s < %.0f at lower power", watts, e.TokensPerSecond, prev)
		}
		prev = e.TokensPerSecond
	}
}

// Integer weight quantisation keeps a 16-bit KV cache, FP8 an FP8 one.
func TestIntegerWeightsKeep16BitKV(t *testing.T) {
	m := model(t)
	i8, _ := m.VRAMRequiredGB(70, "int8", "inference")
	f8, _ := m.VRAMRequiredGB(70, "fp8", "inference")
	b16, _ := m.VRAMRequiredGB(70, "bf16", "inference")
	if !(f8 < i8 && i8 < b16) {
		t.Errorf("want fp8 %.2f < int8 %.2f < bf16 %.2f GB", f8, i8, b16)
	}
}

// Tensor parallelism over PCIe pays the PCIe all-reduce latency: raising it
// slows an L40S TP group and leaves NVLink H100s unchanged.
func TestPCIeAllReduceLatency(t *testing.T) {
	base := model(t)
	p := base.Params()
	p.Inference.PCIeAllReduceLatencyUS *= 4
	slow, err := perf.WithParams(p)
	if err != nil {
		t.Fatal(err)
	}
	w := perf.Workload{Kind: "inference", ModelParametersB: 70, Precision: "fp8"}
	for _, c := range []struct {
		id      string
		changed bool
	}{{"L40S", true}, {"H100", false}} {
		h := perf.Hardware{Accelerator: acc(t, c.id), GPUs: 8}
		a, _ := base.Estimate(w, h)
		b, _ := slow.Estimate(w, h)
		if a.TensorParallel < 2 {
			t.Fatalf("%s: expected a tensor-parallel layout, got TP=%d", c.id, a.TensorParallel)
		}
		if got := b.TokensPerSecond < a.TokensPerSecond*(1-1e-9); got != c.changed {
			t.Errorf("%s: %.0f → %.0f tok/s with 4× PCIe latency (changed=%v, want %v)", c.id, a.TokensPerSecond, b.TokensPerSecond, got, c.changed)
		}
	}
}
