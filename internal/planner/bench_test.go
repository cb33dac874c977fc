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
	benchRecommend(b, llama70BLoRA, planner.Constraints{}, false)
}

// BenchmarkRecommendInference: serving a 70B model at 20,000 tok/s under a
// 50 ms time-per-output-token limit (target ≤ 2 ms).
func BenchmarkRecommendInference(b *testing.B) {
	benchRecommend(b, serve70B, planner.Constraints{}, false)
}

// BenchmarkRecommendTrainingWithTradeOffs: the training recommendation
// with its trade-offs (the deadlines tried), as gpu_recommendation runs it.
func BenchmarkRecommendTrainingWithTradeOffs(b *testing.B) {
	benchRecommend(b, llama70BLoRA, planner.Constraints{DeadlineHours: 100}, true)
}

// BenchmarkRecommendInferenceWithTradeOffs: the serving recommendation
// with its trade-offs (the latency limits tried, each prepared again and
// searched for its cheapest, and the serverless break-even), as
// gpu_recommendation runs it.
func BenchmarkRecommendInferenceWithTradeOffs(b *testing.B) {
	benchRecommend(b, serve70B, planner.Constraints{}, true)
}

// benchRecommend runs the benchmark and also reports the process CPU time
// per recommendation (cpu-ns/op), which a loaded shared machine inflates
// far less than wall-clock ns/op. Each recommendation prepares its
// workload, as a data source's Read does: what a prepared workload
// memoizes (per accelerator, per GPU count) is not carried from one
// recommendation to the next. tradeOffs asks for the trade-offs too.
func benchRecommend(b *testing.B, w perf.Workload, c planner.Constraints, tradeOffs bool) {
	p, m := builtin(b)
	relimit := modelRelimit(m, w, perf.ValidateOptions{})
	b.ReportAllocs()
	var before syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	n := 0
	for b.Loop() {
		prep, err := m.Prepare(w, perf.ValidateOptions{})
		if err != nil {
			b.Fatal(err)
		}
		req := planner.Request{Estimator: prep, Constraints: c, Objective: planner.ObjectiveCost, TradeOffs: tradeOffs}
		if tradeOffs {
			req.Relimit = relimit
		}
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
