// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package perf_test

import (
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
)

func benchEstimate(b *testing.B, w perf.Workload, id string, gpus int) {
	m := model(b)
	h := perf.Hardware{Accelerator: acc(b, id), GPUs: gpus, GPUsPerNode: 8}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := m.Estimate(w, h); err != nil {
			b.Fatal(err)
		}
	}
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
