// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner_test

import (
	"syscall"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
	"github.com/gpuplan/terraform-provider-gpu/internal/planner"
)

// BenchmarkRecommendTraining: one recommendation over the full built-in
// catalog for fine-tuning a 70B model with LoRA (target ≤ 1 ms).
func BenchmarkRecommendTraining(b *testing.B) {
	p, _ := builtin(b)
	req := request(b, llama70BLoRA, planner.Constraints{}, planner.ObjectiveCost)
	benchRecommend(b, p, req)
}

// BenchmarkRecommendInference: serving a 70B model at 20,000 tok/s under a
// 50 ms time-per-output-token limit (target ≤ 2 ms).
func BenchmarkRecommendInference(b *testing.B) {
	p, _ := builtin(b)
	req := request(b, serve70B, planner.Constraints{}, planner.ObjectiveCost)
	benchRecommend(b, p, req)
}

// benchRecommend runs the benchmark and also reports the process CPU time
// per recommendation (cpu-ns/op), which a loaded shared machine inflates
// far less than wall-clock ns/op.
func benchRecommend(b *testing.B, p *planner.Planner, req planner.Request) {
	b.ReportAllocs()
	var before syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	n := 0
	for b.Loop() {
		if _, err := p.Recommend(req); err != nil {
			b.Fatal(err)
		}
		n++
	}
	var after syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	cpu := syscall.TimevalToNsec(after.Utime) - syscall.TimevalToNsec(before.Utime)
	b.ReportMetric(float64(cpu)/float64(max(n, 1)), "cpu-ns/op")
}

// BenchmarkRecommendTrainingWithTradeOffs: the training recommendation
// with its trade-offs (the deadlines tried), as gpu_recommendation runs it.
func BenchmarkRecommendTrainingWithTradeOffs(b *testing.B) {
	p, _ := builtin(b)
	req := request(b, llama70BLoRA, planner.Constraints{DeadlineHours: 100}, planner.ObjectiveCost)
	req.TradeOffs = true
	benchRecommend(b, p, req)
}

// BenchmarkRecommendInferenceWithTradeOffs: the serving recommendation
// with its trade-offs (the latency limits tried, each prepared again, and
// the serverless break-even), as gpu_recommendation runs it.
func BenchmarkRecommendInferenceWithTradeOffs(b *testing.B) {
	p, m := builtin(b)
	req := request(b, serve70B, planner.Constraints{}, planner.ObjectiveCost)
	w := req.Estimator.Workload()
	relimit := func(ttft, tpot float64) (planner.Estimator, error) {
		w := w
		w.MaxTimeToFirstTokenMs, w.MaxTimePerOutputTokenMs = ttft, tpot
		return m.Prepare(w, perf.ValidateOptions{})
	}
	req.TradeOffs, req.Relimit = true, relimit
	benchRecommend(b, p, req)
}
