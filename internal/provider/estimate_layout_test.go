// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/numfmt"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
)

// estPinned is the pure model's estimate on a pinned layout.
func estPinned(t *testing.T, m *perf.Model, cat *catalog.Catalog, w perf.Workload, accel string, gpus int, pin perf.Parallelism) perf.Estimate {
	t.Helper()
	acc, ok := cat.Accelerator(accel)
	if !ok {
		t.Fatalf("catalog lacks %s", accel)
	}
	e, err := m.Estimate(w, perf.Hardware{Accelerator: acc, GPUs: gpus, GPUsPerNode: min(gpus, 8), Layout: pin})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// layoutChecks checks the parallelism object of estimate name.
func layoutChecks(name string, tensor, pipeline, expert, context, data int) []statecheck.StateCheck {
	p := func(degree string, v int) statecheck.StateCheck {
		return statecheck.ExpectKnownValue("data.gpu_estimate."+name, tfjsonpath.New("parallelism").AtMapKey(degree), knownvalue.Int64Exact(int64(v)))
	}
	return []statecheck.StateCheck{p("tensor", tensor), p("pipeline", pipeline), p("expert", expert), p("context", context), p("data", data)}
}

const estTrainLlama70B = `    kind              = "training"
    model             = "llama-3.1-70b"
    training_tokens_b = 100`

// TestAccEstimate_parallelism: a pinned layout is the one the estimate
// runs and reports; without a pin the chosen layout is reported; a pin
// the hardware cannot run is an error on parallelism or the degree.
func TestAccEstimate_parallelism(t *testing.T) {
	m, cat := estModel(t)
	train := perf.Workload{Kind: "training", Model: "llama-3.1-70b", TrainingTokensB: 100}
	pinned := estPinned(t, m, cat, train, "H100", 64, perf.Parallelism{Tensor: 8, Pipeline: 4})
	free := estPinned(t, m, cat, train, "H100", 64, perf.Parallelism{})
	serve := perf.Workload{Kind: "inference", Model: "llama-3.1-70b", Precision: "fp8"}
	tp4 := estPinned(t, m, cat, serve, "H100", 16, perf.Parallelism{Tensor: 4})
	if pinned.TensorParallel != 8 || pinned.PipelineParallel != 4 || pinned.DataParallel != 2 || tp4.Replicas != 4 {
		t.Fatalf("pure model: pinned TP=%d PP=%d DP=%d, serving ×%d", pinned.TensorParallel, pinned.PipelineParallel, pinned.DataParallel, tp4.Replicas)
	}
	h100 := func(gpus int, pin string) string {
		return fmt.Sprintf("  accelerator = \"H100\"\n  gpu_count   = %d\n  parallelism = %s", gpus, pin)
	}
	serveBody := `    kind      = "inference"
    model     = "llama-3.1-70b"
    precision = "fp8"`
	checks := append(layoutChecks("pinned", 8, 4, 1, 1, 2),
		estCheck("pinned", "tokens_per_second", knownvalue.Float64Exact(numfmt.Measure(pinned.TokensPerSecond))),
		estCheck("pinned", "estimated_seconds", knownvalue.Float64Exact(numfmt.Measure(pinned.Seconds))),
		estCheck("pinned", "estimated_hours", knownvalue.Float64Exact(numfmt.Hours(pinned.Hours))),
		estCheck("pinned", "global_batch_tokens", knownvalue.Int64Exact(int64(pinned.GlobalBatchTokens))),
		estCheck("serve", "replicas", knownvalue.Int64Exact(4)),
		estCheck("serve", "tokens_per_second", knownvalue.Float64Exact(numfmt.Measure(tp4.TokensPerSecond))),
		estCheck("serve", "estimated_seconds", knownvalue.Null()),
		estCheck("serve", "global_batch_tokens", knownvalue.Null()))
	checks = append(checks, layoutChecks("free", free.TensorParallel, free.PipelineParallel, 1, free.ContextParallel, free.DataParallel)...)
	checks = append(checks, layoutChecks("serve", 4, 1, 1, 1, 4)...)
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      estConfig(estTrainLlama70B, h100(64, "{ tensor = 16 }")),
				ExpectError: errRe(`Invalid Parallelism.*parallelism.tensor = 16: tensor parallelism stays inside a node, and a node has 8 GPUs`),
			},
			{
				Config:      estConfig(estTrainLlama70B, h100(8, "{ tensor = 1, pipeline = 1, data = 8 }")),
				ExpectError: errRe(`Pinned Layout Does Not Fit.*parallelism = \{ tensor = 1, pipeline = 1, data = 8 \} cannot hold the model: it needs`),
			},
			{
				Config:      estConfig(serveBody, h100(8, "{ tensor = 3 }")),
				ExpectError: errRe(`parallelism = \{ tensor = 3 \}: replicas of 3 GPUs do not divide gpu_count = 8`),
			},
			{
				Config:      estConfig(serveBody, h100(8, "{ context = 2 }")),
				ExpectError: errRe(`parallelism.context = 2: context parallelism is a training layout`),
			},
			{
				Config:      estConfig(serveBody, h100(8, "{ tensor = 0 }")),
				ExpectError: errRe(`parallelism.tensor must be a whole number from 1 to 1,000,000 GPUs, got 0\.`),
			},
			{
				Config: fmt.Sprintf(`
data "gpu_estimate" "pinned" {
  workload = {
%s
  }
%s
}

data "gpu_estimate" "free" {
  workload = {
%s
  }
  accelerator = "H100"
  gpu_count   = 64
}

data "gpu_estimate" "serve" {
  workload = {
%s
  }
%s
}
`, estTrainLlama70B, h100(64, "{ tensor = 8, pipeline = 4 }"), estTrainLlama70B, serveBody, h100(16, "{ tensor = 4 }")),
				ConfigStateChecks: checks,
			},
		},
	})
}

// TestAccEstimate_workloadExtras: the output spread, the concurrency cap
// and the global batch reach the model and change what they physically
// change; each is refused where it does not apply.
func TestAccEstimate_workloadExtras(t *testing.T) {
	m, cat := estModel(t)
	long := perf.Workload{Kind: "inference", Model: "llama-3.1-70b", Precision: "fp8", InputTokens: 4096, OutputTokens: 1024}
	spread := long
	spread.OutputTokensP99 = 4096
	capped := long
	capped.MaxConcurrency = 16
	base, wide, few := estRun(t, m, cat, long, "H100", 8, 0, 0), estRun(t, m, cat, spread, "H100", 8, 0, 0), estRun(t, m, cat, capped, "H100", 8, 0, 0)
	ft := perf.Workload{Kind: "fine_tuning", Model: "llama-3.1-70b", TrainingTokensB: 1, GlobalBatchTokens: 1 << 20}
	ftDefault := ft
	ftDefault.GlobalBatchTokens = 0
	big, small := estRun(t, m, cat, ft, "H100", 256, 0, 0), estRun(t, m, cat, ftDefault, "H100", 256, 0, 0)
	if !(wide.TokensPerSecond < base.TokensPerSecond) || !(few.TokensPerSecond < base.TokensPerSecond) || !(big.TokensPerSecond > small.TokensPerSecond) {
		t.Fatalf("pure model: spread %.0f, capped %.0f vs %.0f tok/s; batch 1M %.0f vs default %.0f tok/s",
			wide.TokensPerSecond, few.TokensPerSecond, base.TokensPerSecond, big.TokensPerSecond, small.TokensPerSecond)
	}
	serveBody := func(extra string) string {
		return `    kind          = "inference"
    model         = "llama-3.1-70b"
    precision     = "fp8"
    input_tokens  = 4096
    output_tokens = 1024` + "\n" + extra
	}
	ftBody := func(extra string) string {
		return `    kind              = "fine_tuning"
    model             = "llama-3.1-70b"
    training_tokens_b = 1` + "\n" + extra
	}
	h100 := func(gpus int) string { return fmt.Sprintf("  accelerator = \"H100\"\n  gpu_count   = %d", gpus) }
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      estConfig(serveBody("    output_tokens_p99 = 512"), h100(8)),
				ExpectError: errRe(`workload.output_tokens_p99 = 512: must be at least output_tokens \(1024\)`),
			},
			{
				Config:      estConfig(ftBody("    max_concurrency = 64"), h100(8)),
				ExpectError: errRe(`workload.max_concurrency = 64: applies to kind = "inference" only \(kind is "fine_tuning"\)`),
			},
			{
				Config:      estConfig(serveBody("    global_batch_tokens = 4194304"), h100(8)),
				ExpectError: errRe(`workload.global_batch_tokens = 4,194,304: applies to kind = "training" or "fine_tuning" only`),
			},
			{
				Config:      estConfig(ftBody("    global_batch_tokens = 0"), h100(8)),
				ExpectError: errRe(`workload.global_batch_tokens must be a whole number from 1 to 10,000,000,000 tokens, got 0\.`),
			},
			{
				Config: fmt.Sprintf(`
data "gpu_estimate" "spread" {
  workload = {
%s
  }
%s
}

data "gpu_estimate" "capped" {
  workload = {
%s
  }
%s
}

data "gpu_estimate" "batch" {
  workload = {
%s
  }
%s
}
`, serveBody("    output_tokens_p99 = 4096"), h100(8), serveBody("    max_concurrency = 16"), h100(8),
					ftBody("    global_batch_tokens = 1048576"), h100(256)),
				ConfigStateChecks: []statecheck.StateCheck{
					estCheck("spread", "tokens_per_second", knownvalue.Float64Exact(numfmt.Measure(wide.TokensPerSecond))),
					estCheck("spread", "memory_per_gpu_gb", knownvalue.Float64Exact(numfmt.Measure(wide.MemoryPerGPUGB))),
					estCheck("spread", "explanation", knownvalue.StringExact(wide.Explanation)),
					estCheck("capped", "tokens_per_second", knownvalue.Float64Exact(numfmt.Measure(few.TokensPerSecond))),
					estCheck("batch", "tokens_per_second", knownvalue.Float64Exact(numfmt.Measure(big.TokensPerSecond))),
					estCheck("batch", "global_batch_tokens", knownvalue.Int64Exact(1<<20)),
					estCheck("batch", "estimated_seconds", knownvalue.Float64Exact(numfmt.Measure(big.Seconds))),
				},
			},
		},
	})
}
