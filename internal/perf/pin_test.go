// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package perf_test

import (
	"math"
	"strings"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/inputerr"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
)

// TestOutputSpread: the requests in flight are a length-biased sample of
// the output lengths, log-normal with the given mean and p99.
func TestOutputSpread(t *testing.T) {
	// No spread: every request has the mean length.
	near(t, "no spread", perf.InFlightOutputTokens(256, 256), 256, 1e-12)
	near(t, "p99 below mean", perf.InFlightOutputTokens(256, 0), 256, 1e-12)
	// MLPerf mixtral-8x7b: mean 145, p99 582. σ = z − √(z² − 2 ln 4.014)
	// = 2.32635 − √(5.41190 − 2.77975) = 0.70393; 145 · e^(σ²) = 238.0.
	near(t, "mixtral dataset", perf.InFlightOutputTokens(145, 582), 145*math.Exp(0.70393*0.70393), 1e-4)
	// A tail beyond what a log-normal holds (p99 = 40 × mean) is capped
	// at the p99.
	near(t, "heavy tail", perf.InFlightOutputTokens(100, 4000), 4000, 1e-12)
	// More spread, more held per request in flight.
	if a, b := perf.InFlightOutputTokens(256, 512), perf.InFlightOutputTokens(256, 1024); !(256 < a && a < b) {
		t.Errorf("in-flight length not increasing with the spread: %v, %v", a, b)
	}

	// On hardware: a KV-bound serving estimate holds fewer requests when
	// the outputs spread, each decode step reads more cache, and one
	// request of the p99 length must fit.
	h := perf.Hardware{Accelerator: acc(t, "H100"), GPUs: 8, GPUsPerNode: 8}
	base := perf.Workload{Kind: "inference", Model: "llama-3.1-70b", Precision: "fp8", InputTokens: 4096, OutputTokens: 1024}
	spread := base
	spread.OutputTokensP99 = 4096
	e0, e1 := estimate(t, base, h), estimate(t, spread, h)
	if e0.Binding != perf.BindHBM || e1.Batch >= e0.Batch || e1.TokensPerSecond >= e0.TokensPerSecond || e1.MemoryPerGPUGB <= e0.MemoryPerGPUGB {
		t.Errorf("spread did not shrink the batch: batch %d → %d, tok/s %.0f → %.0f, memory %.2f → %.2f GB, binding %s",
			e0.Batch, e1.Batch, e0.TokensPerSecond, e1.TokensPerSecond, e0.MemoryPerGPUGB, e1.MemoryPerGPUGB, e0.Binding)
	}
	// Tail latency: the p99 request's time is its first token and 4,095
	// more at the mean time per token; without a spread, the mean one's.
	near(t, "long request", e1.LongRequestMs, e1.TTFTMs+4095*e1.TPOTMs, 1e-12)
	near(t, "mean request", e0.LongRequestMs, e0.TTFTMs+1023*e0.TPOTMs, 1e-12)
	if !strings.Contains(e1.Explanation, "a request of 4,096 output tokens (the p99) takes") {
		t.Errorf("explanation does not give the long request's time: %s", e1.Explanation)
	}
}

func estimate(t *testing.T, w perf.Workload, h perf.Hardware) perf.Estimate {
	t.Helper()
	e, err := model(t).Estimate(w, h)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestPinnedLayout: a pinned layout is what the estimate runs, for
// training and serving; pinning the layout the search chose gives the
// same estimate.
func TestPinnedLayout(t *testing.T) {
	h100 := func(gpus int, pin perf.Parallelism) perf.Hardware {
		return perf.Hardware{Accelerator: acc(t, "H100"), GPUs: gpus, GPUsPerNode: 8, Layout: pin}
	}
	train := perf.Workload{Kind: "training", Model: "llama-3.1-70b", TrainingTokensB: 100}
	e := estimate(t, train, h100(64, perf.Parallelism{Tensor: 8, Pipeline: 4}))
	if e.TensorParallel != 8 || e.PipelineParallel != 4 || e.DataParallel != 2 || e.ContextParallel != 1 {
		t.Errorf("training pinned TP8 PP4: got TP=%d PP=%d DP=%d CP=%d", e.TensorParallel, e.PipelineParallel, e.DataParallel, e.ContextParallel)
	}
	serve := perf.Workload{Kind: "inference", Model: "llama-3.1-70b", Precision: "fp8"}
	e = estimate(t, serve, h100(16, perf.Parallelism{Tensor: 4}))
	if e.TensorParallel != 4 || e.Replicas != 4 || e.DataParallel != 4 || e.ServingLayout != perf.ServingAggregated {
		t.Errorf("serving pinned TP4: got TP=%d ×%d (%s)", e.TensorParallel, e.Replicas, e.ServingLayout)
	}
	e = estimate(t, serve, h100(16, perf.Parallelism{Tensor: 2, Data: 3}))
	if e.TensorParallel != 2 || e.Replicas != 3 || e.GPUsUsed != 6 {
		t.Errorf("serving pinned TP2 × 3: got TP=%d ×%d on %d GPUs", e.TensorParallel, e.Replicas, e.GPUsUsed)
	}
	moe := perf.Workload{Kind: "inference", Model: "deepseek-r1", Precision: "fp4"}
	b200 := perf.Hardware{Accelerator: acc(t, "B200"), GPUs: 16, GPUsPerNode: 8, Layout: perf.Parallelism{Expert: 16}}
	e = estimate(t, moe, b200)
	if e.ExpertParallel != 16 || e.Serving.ExpertParallel != 16 || e.Replicas != 1 || e.ServingLayout != perf.ServingAggregated {
		t.Errorf("serving pinned EP16: got EP=%d ×%d (%s)", e.ExpertParallel, e.Replicas, e.ServingLayout)
	}

	// Round trip: pinning what the search chose changes nothing.
	for _, c := range []struct {
		w perf.Workload
		h perf.Hardware
	}{
		{train, h100(256, perf.Parallelism{})},
		{serve, h100(8, perf.Parallelism{})},
		{perf.Workload{Kind: "fine_tuning", Model: "llama-3.1-70b", TrainingTokensB: 1, SequenceLength: 16384}, h100(64, perf.Parallelism{})},
	} {
		free := estimate(t, c.w, c.h)
		pinned := c.h
		pinned.Layout = perf.Parallelism{Tensor: free.TensorParallel, Pipeline: free.PipelineParallel, Context: free.ContextParallel, Data: free.DataParallel}
		got := estimate(t, c.w, pinned)
		if got.TokensPerSecond != free.TokensPerSecond || got.TensorParallel != free.TensorParallel || got.DataParallel != free.DataParallel {
			t.Errorf("%s on %d GPUs: pinned %s gives %.6g tok/s (TP=%d DP=%d), the search %.6g (TP=%d DP=%d)", c.w.Kind, c.h.GPUs, pinned.Layout,
				got.TokensPerSecond, got.TensorParallel, got.DataParallel, free.TokensPerSecond, free.TensorParallel, free.DataParallel)
		}
	}
}

// TestPinnedLayoutErrors: a pin the hardware cannot run, or whose memory
// does not hold the model, is an error on parallelism (or the degree at
// fault) that says what is allowed.
func TestPinnedLayoutErrors(t *testing.T) {
	train := perf.Workload{Kind: "training", Model: "llama-3.1-70b", TrainingTokensB: 100}
	serve := perf.Workload{Kind: "inference", Model: "llama-3.1-70b", Precision: "fp8"}
	cases := []struct {
		name string
		w    perf.Workload
		gpus int
		pin  perf.Parallelism
		path string
		want string
	}{
		{"training TP beyond the node", train, 64, perf.Parallelism{Tensor: 16}, "parallelism.tensor", "stays inside a node"},
		{"more GPUs than there are", train, 64, perf.Parallelism{Tensor: 8, Pipeline: 16}, "parallelism", "more than gpu_count = 64"},
		{"more stages than layers", train, 128, perf.Parallelism{Pipeline: 96}, "parallelism.pipeline", "80 layers"},
		{"data beyond the batch", perf.Workload{Kind: "fine_tuning", Model: "llama-3.1-70b", TrainingTokensB: 1}, 512,
			perf.Parallelism{Data: 64}, "parallelism.data", "global batch holds 32 sequences"},
		{"expert on a dense model", train, 64, perf.Parallelism{Expert: 8}, "parallelism.expert", "dense"},
		{"negative degree", train, 64, perf.Parallelism{Tensor: -2}, "parallelism.tensor", "positive degree"},
		{"training layout that does not fit", train, 8, perf.Parallelism{Tensor: 1, Pipeline: 1, Data: 8}, "parallelism", "cannot hold the model"},
		{"serving context", serve, 8, perf.Parallelism{Context: 2}, "parallelism.context", "training layout"},
		{"serving replicas do not divide", serve, 8, perf.Parallelism{Tensor: 3}, "parallelism", "do not divide gpu_count = 8"},
		{"serving replicas beyond the GPUs", serve, 8, perf.Parallelism{Tensor: 4, Data: 3}, "parallelism", "takes 12 GPUs"},
		{"expert-parallel replicas beyond the GPUs", perf.Workload{Kind: "inference", Model: "deepseek-r1"}, 16, perf.Parallelism{Expert: 8, Data: 3},
			"parallelism.data", "take 24 GPUs, more than gpu_count = 16"},
		{"serving replica that does not fit", perf.Workload{Kind: "inference", Model: "llama-3.1-70b"}, 8, perf.Parallelism{Tensor: 1},
			"parallelism", "cannot hold the model"},
		{"serving tensor and expert differ", perf.Workload{Kind: "inference", Model: "deepseek-r1"}, 16, perf.Parallelism{Tensor: 8, Expert: 16},
			"parallelism.tensor", "data-parallel"},
	}
	for _, c := range cases {
		_, err := model(t).Estimate(c.w, perf.Hardware{Accelerator: acc(t, "H100"), GPUs: c.gpus, GPUsPerNode: 8, Layout: c.pin})
		errs := inputerr.From(err)
		if len(errs) == 0 {
			t.Errorf("%s: no input error (%v)", c.name, err)
			continue
		}
		if got := errs[0].Path.String(); got != c.path || !strings.Contains(errs[0].Detail, c.want) {
			t.Errorf("%s: %s: %s; want %s mentioning %q", c.name, got, errs[0].Detail, c.path, c.want)
		}
	}
}
