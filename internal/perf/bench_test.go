// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package perf_test

import (
	"syscall"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
)

func benchEstimate(b *testing.B, w perf.Workload, id string, gpus int) {
	m := model(b)
	h := perf.Hardware{Accelerator: acc(b, id), GPUs: gpus, GPUsPerNode: 8}
	benchCPU(b, func() error { _, err := m.Estimate(w, h); return err })
}

// benchCPU runs fn per iteration and also reports the process CPU time
// per call (cpu-ns/op), which a loaded shared machine inflates far less
// than wall-clock ns/op.
func benchCPU(b *testing.B, fn func() error) {
	b.ReportAllocs()
	var before, after syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	n := 0
	for b.Loop() {
		if err := fn(); err != nil {
			b.Fatal(err)
		}
		n++
	}
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	cpu := syscall.TimevalToNsec(after.Utime) - syscall.TimevalToNsec(before.Utime)
	b.ReportMetric(float64(cpu)/float64(max(n, 1)), "cpu-ns/op")
}

func BenchmarkEstimateInference70B(b *testing.B) {
	benchEstimate(b, perf.Workload{Kind: "inference", ModelParametersB: 70, Precision: "fp8", MaxTimePerOutputTokenMs: 50, TokensPerSecond: 5000}, "H100", 16)
}

func BenchmarkEstimateTraining70B1024(b *testing.B) {
	benchEstimate(b, perf.Workload{Kind: "training", ModelParametersB: 70, TrainingTokensB: 2000}, "H100", 1024)
}

func BenchmarkEstimateTraining405B16384(b *testing.B) {
	benchEstimate(b, perf.Workload{Kind: "training", ModelParametersB: 405, TrainingTokensB: 15000, Precision: "fp8"}, "H100", 16384)
}

func BenchmarkEstimateLoRA(b *testing.B) {
	benchEstimate(b, perf.Workload{Kind: "fine_tuning", ModelParametersB: 70, TrainingTokensB: 1}, "A100-80GB", 8)
}

// BenchmarkEstimateMoE8B200: DeepSeek-R1 (preset) on one 8-GPU B200 node
// with a p99 TPOT limit: aggregated layouts only (a disaggregated split
// needs two workers).
func BenchmarkEstimateMoE8B200(b *testing.B) {
	benchEstimate(b, perf.Workload{Kind: "inference", Model: "deepseek-r1", MaxTimePerOutputTokenMs: 50}, "B200", 8)
}

// BenchmarkEstimateMoEDisaggregatedGB200: DeepSeek-R1 at FP4 with MTP on
// a 72-GPU GB200 NVL72 rack: TP and EP layouts across the NVLink domain
// and the disaggregated prefill/decode search.
func BenchmarkEstimateMoEDisaggregatedGB200(b *testing.B) {
	m := model(b)
	h := perf.Hardware{Accelerator: acc(b, "GB200"), GPUs: 72, GPUsPerNode: 4}
	w := perf.Workload{Kind: "inference", Model: "deepseek-r1", Precision: "fp4", MaxTimePerOutputTokenMs: 30,
		SpeculativeDecoding: perf.SpeculativeDecoding{Method: "mtp"}}
	benchCPU(b, func() error { _, err := m.Estimate(w, h); return err })
}

// BenchmarkThroughputCurveMoE: the throughput curve of DeepSeek-R1 on 16
// B200 (one estimate per interactivity level).
func BenchmarkThroughputCurveMoE(b *testing.B) {
	m := model(b)
	p, err := m.Prepare(perf.Workload{Kind: "inference", Model: "deepseek-r1", Precision: "fp4"}, perf.ValidateOptions{})
	if err != nil {
		b.Fatal(err)
	}
	h := perf.Hardware{Accelerator: acc(b, "B200"), GPUs: 16, GPUsPerNode: 8}
	benchCPU(b, func() error { _, err := p.ThroughputCurve(h); return err })
}
