// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
	"github.com/gpuplan/terraform-provider-gpu/internal/planner"
	"github.com/gpuplan/terraform-provider-gpu/internal/textdiff"
)

// identityCase is one recommendation over the built-in catalog whose whole
// ranked answer is kept in testdata/identity.golden.
type identityCase struct {
	name string
	w    perf.Workload
	c    planner.Constraints
	obj  planner.Objective
	req  func(*planner.Request) // provider-level settings, top, distinct_by
}

var (
	pm = func(m ...catalog.PricingModel) []catalog.PricingModel { return m }
	// identityCases spans the kinds of workload (pre-training, the three
	// fine-tuning methods, dense and MoE serving, presets, long context,
	// FP4, a pinned global batch), every objective, the limits and the
	// provider-level settings, and the README's and examples' workloads.
	identityCases = []identityCase{
		{name: "pre-training 8B by cost", w: llama8BPre},
		{name: "pre-training 70B by time", w: perf.Workload{Kind: "training", ModelParametersB: 70, TrainingTokensB: 2000}, obj: planner.ObjectiveTime},
		{name: "pre-training 405B fp8 by cost", w: perf.Workload{Kind: "training", ModelParametersB: 405, TrainingTokensB: 15000, Precision: "fp8"}},
		{name: "pre-training 70B fp4 by time", w: perf.Workload{Kind: "training", ModelParametersB: 70, TrainingTokensB: 1000, Precision: "fp4"}, obj: planner.ObjectiveTime},
		{name: "pre-training 70B at 32k context by time", w: perf.Workload{Kind: "training", ModelParametersB: 70, TrainingTokensB: 500, SequenceLength: 32768}, obj: planner.ObjectiveTime},
		{name: "preset with a global batch by time", w: perf.Workload{Kind: "training", Model: "llama-3.1-70b", TrainingTokensB: 10, GlobalBatchTokens: 4194304}, obj: planner.ObjectiveTime},
		{name: "MoE pre-training by cost", w: perf.Workload{Kind: "training", Model: "deepseek-v3", TrainingTokensB: 1000}},
		{name: "MoE pre-training by time", w: perf.Workload{Kind: "training", Model: "qwen3-30b-a3b", TrainingTokensB: 200}, obj: planner.ObjectiveTime},
		{name: "pre-training balanced", w: perf.Workload{Kind: "training", ModelParametersB: 13, TrainingTokensB: 300}, obj: planner.ObjectiveBalanced},
		{name: "pre-training by carbon with a carbon price", w: llama8BPre, obj: planner.ObjectiveCarbon, req: func(r *planner.Request) { r.CarbonPriceUSDPerTonne = 100 }},
		{name: "pre-training within limits", w: perf.Workload{Kind: "training", ModelParametersB: 70, TrainingTokensB: 200},
			c: planner.Constraints{DeadlineHours: 300, MaxTotalCostUSD: 2e6, MaxHourlyCostUSD: 5000, MaxNodes: 64}},
		{name: "pre-training on spot by time", w: llama8BPre, c: planner.Constraints{PricingModels: pm(catalog.Spot)}, obj: planner.ObjectiveTime},
		{name: "pre-training committed", w: llama8BPre, c: planner.Constraints{PricingModels: pm(catalog.Reserved1Y, catalog.Reserved3Y, catalog.CapacityBlock)}},
		{name: "pre-training every deployment, discounted", w: llama8BPre, req: func(r *planner.Request) {
			r.DistinctBy, r.Discounts = planner.DistinctDeployment, map[string]float64{"aws": 0.2, "gcp": 0.1}
		}},
		{name: "pre-training by region on a few clouds", w: llama8BPre, req: func(r *planner.Request) {
			r.DistinctBy, r.AllowedClouds = planner.DistinctRegion, []string{"aws", "gcp", "azure", "lambda"}
		}},
		{name: "LoRA 70B by cost (the benchmark)", w: llama70BLoRA},
		{name: "LoRA 70B by time", w: llama70BLoRA, obj: planner.ObjectiveTime},
		{name: "README: LoRA 70B gdpr within 48 h", w: perf.Workload{Kind: "fine_tuning", ModelParametersB: 70, TrainingTokensB: 2, FineTuningMethod: "lora"},
			c: planner.Constraints{Compliance: []string{"gdpr"}, DeadlineHours: 48}},
		{name: "README: fine-tuning 8B", w: perf.Workload{Kind: "fine_tuning", ModelParametersB: 8, TrainingTokensB: 1}},
		{name: "QLoRA 8B by cost", w: perf.Workload{Kind: "fine_tuning", ModelParametersB: 8, TrainingTokensB: 0.1, FineTuningMethod: "qlora"}},
		{name: "full fine-tuning 70B balanced", w: perf.Workload{Kind: "fine_tuning", ModelParametersB: 70, TrainingTokensB: 1, FineTuningMethod: "full"}, obj: planner.ObjectiveBalanced},
		{name: "fine-tuning within max GPUs", w: llama70BLoRA, c: planner.Constraints{MaxGPUs: 16, MinGPUMemoryGB: 80}, obj: planner.ObjectiveTime},
		{name: "serving 70B by cost (the benchmark)", w: serve70B},
		{name: "serving 70B by time", w: serve70B, obj: planner.ObjectiveTime},
		{name: "serving 70B fp8 with long prompts", w: perf.Workload{Kind: "inference", ModelParametersB: 70, Precision: "fp8", TokensPerSecond: 20000,
			InputTokens: 9000, OutputTokens: 512, MaxTimeToFirstTokenMs: 3000, MaxTimePerOutputTokenMs: 50}},
		{name: "README: serving 8B balanced", w: perf.Workload{Kind: "inference", ModelParametersB: 8, TokensPerSecond: 5000, MaxTimePerOutputTokenMs: 50},
			c: planner.Constraints{PricingModels: pm(catalog.OnDemand, catalog.Reserved1Y), Clouds: []string{"aws", "gcp", "azure"}}, obj: planner.ObjectiveBalanced},
		{name: "README: serving 8B in the us", w: perf.Workload{Kind: "inference", ModelParametersB: 8, TokensPerSecond: 5000, MaxTimePerOutputTokenMs: 50},
			c: planner.Constraints{Geographies: []string{"us"}, PricingModels: pm(catalog.OnDemand, catalog.Reserved1Y)}},
		{name: "bursty serving (serverless)", w: perf.Workload{Kind: "inference", Model: "llama-3.1-8b", TokensPerSecond: 500, DutyCycle: 0.02}},
		{name: "serving on spot", w: serve8B, c: planner.Constraints{PricingModels: pm(catalog.Spot)}},
		{name: "serving by carbon", w: serve8B, obj: planner.ObjectiveCarbon},
		{name: "serving in the eu under gdpr", w: serve70B, c: planner.Constraints{Geographies: []string{"eu"}, Compliance: []string{"gdpr"}}},
		{name: "MoE serving fp4 with MTP", w: perf.Workload{Kind: "inference", Model: "deepseek-r1", Precision: "fp4", TokensPerSecond: 50000,
			InputTokens: 8192, OutputTokens: 1024, MaxTimePerOutputTokenMs: 40, SpeculativeDecoding: perf.SpeculativeDecoding{Method: "mtp"}}},
		{name: "MoE serving by time", w: perf.Workload{Kind: "inference", Model: "qwen3-235b-a22b", TokensPerSecond: 20000}, obj: planner.ObjectiveTime},
		{name: "MoE serving balanced", w: perf.Workload{Kind: "inference", Model: "gpt-oss-120b", TokensPerSecond: 10000}, obj: planner.ObjectiveBalanced},
		{name: "serving with a long tail and a concurrency cap", w: perf.Workload{Kind: "inference", Model: "llama-3.3-70b", Precision: "fp8",
			TokensPerSecond: 10000, OutputTokens: 512, OutputTokensP99: 4096, MaxConcurrency: 512}},
		{name: "serving within limits", w: serve70B, c: planner.Constraints{MaxHourlyCostUSD: 200, MaxNodes: 8, MaxCO2eKg: 50000}},
		{name: "no candidate: too big", w: perf.Workload{Kind: "training", ModelParametersB: 5000, TrainingTokensB: 10}},
		{name: "no candidate: deadline", w: llama8BPre, c: planner.Constraints{DeadlineHours: 0.5}},
		{name: "no candidate: latency", w: perf.Workload{Kind: "inference", ModelParametersB: 70, TokensPerSecond: 100, MaxTimePerOutputTokenMs: 1}},
	}
)

// TestIdentityBuiltin plans identityCases over the built-in catalog and
// compares every ranked candidate (all fields, floats to the last bit),
// the feasible count and the rejection counts with the golden file. The
// planner's and the benchmark model's speed-ups (pruned layout searches,
// memos, the price loop) must not change an answer: regenerate the file
// (-update) only for a deliberate change of the model or the catalog.
func TestIdentityBuiltin(t *testing.T) {
	checkGolden(t, "identity.golden", identityAnswers(t))
}

// TestIdentityParallel plans identityCases with the physics spread over
// workers (4 CPUs: the planner runs one worker below minParallelCPUs) and
// compares every answer with the golden file: the split must not change
// one.
func TestIdentityParallel(t *testing.T) {
	if testing.Short() {
		t.Skip("plans every identity case again")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	got := identityAnswers(t)
	want, err := os.ReadFile(filepath.Join("testdata", "identity.golden"))
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("on 4 CPUs the answers differ from testdata/identity.golden:\n%s", textdiff.First(got, string(want)))
	}
}

// identityAnswers renders the answers of identityCases.
func identityAnswers(t *testing.T) string {
	t.Helper()
	p, m := builtin(t)
	_, pol := models(t)
	var b strings.Builder
	for _, tc := range identityCases {
		prep, err := m.Prepare(tc.w, pol.WorkloadOptions())
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		req := planner.Request{Estimator: prep, Constraints: tc.c, Objective: tc.obj, Top: 12}
		if tc.req != nil {
			tc.req(&req)
		}
		res, err := p.Recommend(req)
		fmt.Fprintf(&b, "== %s\n", tc.name)
		writeExact(&b, res, err)
	}
	return b.String()
}

// writeExact renders a result with every candidate field, floats in the
// shortest form that reads back to the same bits, or the error.
func writeExact(b *strings.Builder, res *planner.Result, err error) {
	if err != nil {
		var sb strings.Builder
		writeAnswer(&sb, res, err)
		b.WriteString(sb.String())
		return
	}
	g := func(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
	for i, c := range res.Candidates {
		fmt.Fprintf(b, "%d. %s %s %s %s %s gpn=%d frac=%s nodes=%d gpus=%d %s hourly=%s hours=%s cost=%s co2=%s/%t carbon=%s tps=%s mem=%s reps=%d spare=%d/%d ttft=%s tpot=%s quota=%t score=%s",
			i+1, c.Cloud, c.Region, c.Country, c.InstanceType, c.Accelerator, c.GPUsPerNode, g(c.GPUFraction), c.Nodes, c.TotalGPUs, c.PricingModel,
			g(c.HourlyCostUSD), g(c.EstimatedHours), g(c.EstimatedCostUSD), g(c.EstimatedCO2eKg), c.CO2eKnown, g(c.CarbonCostUSD),
			g(c.TokensPerSecond), g(c.MemoryPerGPUGB), c.Replicas, c.SpareNodes, c.SpareReplicas, g(c.TTFTMs), g(c.TPOTMs), c.BeyondTypicalQuota, g(c.Score))
		if s := c.Serving; s != nil {
			fmt.Fprintf(b, " serving=%s/%d×%d/%d×%d/ep%d", s.Mode, s.PrefillWorkers, s.PrefillGPUs, s.DecodeWorkers, s.DecodeGPUs, s.ExpertParallel)
		}
		fmt.Fprintf(b, "\n   %s\n", c.Explanation)
	}
	rej := make([]string, len(res.Rejected))
	for i, r := range res.Rejected {
		rej[i] = fmt.Sprintf("%s %d", r.Reason, r.Count)
	}
	fmt.Fprintf(b, "feasible %d; rejected: %s\n", res.Feasible, strings.Join(rej, ", "))
}
