// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package perf_test

import (
	"maps"
	"math"
	"strings"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
)

func prepare(t *testing.T, w perf.Workload) *perf.Prepared {
	t.Helper()
	p, err := model(t).Prepare(w, perf.ValidateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// prepareWith prepares w under the built-in constants as edit changes them.
func prepareWith(t *testing.T, w perf.Workload, edit func(*perf.Params)) *perf.Prepared {
	t.Helper()
	params := cloneParams(model(t).Params())
	edit(&params)
	m, err := perf.WithParams(params)
	if err != nil {
		t.Fatal(err)
	}
	p, err := m.Prepare(w, perf.ValidateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func near(t *testing.T, what string, got, want, rel float64) {
	t.Helper()
	if math.Abs(got-want) > rel*math.Abs(want) {
		t.Errorf("%s = %.6g, want %.6g (±%.2g%%)", what, got, want, rel*100)
	}
}

// TestKVCachePerToken checks the cache size per token of context against
// hand-computed figures: MLA caches one latent of kv_lora_rank +
// qk_rope_head_dim per layer; GQA 2·kv_heads·head_dim per layer; FP8 and
// FP4 serving keep an FP8 cache.
func TestKVCachePerToken(t *testing.T) {
	cases := []struct {
		name string
		w    perf.Workload
		want float64 // bytes per token
	}{
		// DeepSeek-R1: 61 layers × (512 + 64) = 35,136 elements, FP8.
		{"deepseek-r1 fp8 (MLA)", perf.Workload{Kind: "inference", Model: "deepseek-r1"}, 35136},
		{"deepseek-r1 bf16 (MLA)", perf.Workload{Kind: "inference", Model: "deepseek-r1", Precision: "bf16"}, 70272},
		{"deepseek-r1 fp4 (MLA, FP8 cache)", perf.Workload{Kind: "inference", Model: "deepseek-r1", Precision: "fp4"}, 35136},
		// Llama 3.1 70B: 2 × 80 layers × 8 KV heads × 128 = 163,840, bf16.
		{"llama-3.1-70b bf16 (GQA)", perf.Workload{Kind: "inference", Model: "llama-3.1-70b"}, 327680},
		// A kv_heads override of a GQA preset scales the cache.
		{"llama-3.1-70b with 16 KV heads", perf.Workload{Kind: "inference", Model: "llama-3.1-70b", KVHeads: 16}, 655360},
		// Without a preset: the derived 70B shape, 8 KV heads of 128.
		{"70B by parameters", perf.Workload{Kind: "inference", ModelParametersB: 70, Layers: 80}, 327680},
	}
	for _, c := range cases {
		near(t, c.name, prepare(t, c.w).KVBytesPerToken(), c.want, 1e-9)
	}
}

// TestMoEMemory: a mixture of experts keeps every expert's weights in
// memory, and expert parallelism spreads the routed experts while
// data-parallel attention replicates the attention weights.
func TestMoEMemory(t *testing.T) {
	p := prepare(t, perf.Workload{Kind: "inference", Model: "deepseek-r1"})
	experts, other := p.WeightBytes()
	// DeepSeek-R1 recount: 58 MoE layers × 256 experts × 3 × 7,168 ×
	// 2,048 = 653.909e9 routed-expert parameters of 671.025e9, scaled to
	// the published 671e9; FP8 is one byte each.
	const scale = 671.0 / 671.025397760
	near(t, "routed-expert bytes", experts, 653.908770816e9*scale, 1e-9)
	near(t, "all weight bytes", experts+other, 671e9, 1e-9)
	// TP8: every weight split 8 ways.
	near(t, "TP8 weights per GPU", p.WeightsPerGPU(8, false), 671e9/8, 1e-9)
	// EP8: routed experts / 8, attention (61 × 187,105,280 = 11.413e9)
	// whole on every GPU, the rest (embeddings, head, dense layers, shared
	// experts, routers: 5.703e9) / 8.
	attention := 11.413422080e9 * scale
	rest := (671.025397760e9 - 653.908770816e9 - 11.413422080e9) * scale
	near(t, "EP8 weights per GPU", p.WeightsPerGPU(8, true), experts/8+attention+rest/8, 1e-9)
	near(t, "EP8 weights per GPU (rounded by hand)", p.WeightsPerGPU(8, true), 93.86e9, 1e-3)
	// Active parameters drive compute: 37B, not 671B.
	if w := p.Workload(); w.ActiveParametersB != 37 || w.ModelParametersB != 671 || w.Precision != "fp8" {
		t.Errorf("preset defaults: %+v", w)
	}
}

// TestNVL72TensorParallelOverTrays: GB200 NVL72 puts 72 GPUs in one
// NVLink domain across trays of 4, so a tensor-parallel group of 8 spans
// two trays without the scale-out network; the same part without the
// domain must pipeline across nodes instead.
func TestNVL72TensorParallelOverTrays(t *testing.T) {
	m := model(t)
	gb200 := acc(t, "GB200")
	if gb200.NVLinkDomainGPUs != 72 {
		t.Fatalf("fixture GB200 nvlink_domain_gpus = %d, want 72", gb200.NVLinkDomainGPUs)
	}
	// Llama 3.1 405B at bf16: 811.7 GB of weights need more than 4 ×
	// 171 GB usable, so one tray cannot hold a replica. Under a latency
	// limit the NVLink group is the faster layout: a pipeline pass reads
	// half the weights per GPU twice.
	w := perf.Workload{Kind: "inference", Model: "llama-3.1-405b", MaxTimePerOutputTokenMs: 40}
	e, err := m.Estimate(w, perf.Hardware{Accelerator: gb200, GPUs: 8, GPUsPerNode: 4})
	if err != nil {
		t.Fatal(err)
	}
	if e.TensorParallel != 8 || e.PipelineParallel != 1 || !strings.Contains(e.Explanation, "over 2 nodes of one NVLink domain") {
		t.Errorf("GB200 NVL72: TP=%d PP=%d, want TP=8 PP=1 across 2 trays: %s", e.TensorParallel, e.PipelineParallel, e.Explanation)
	}
	plain := *gb200
	plain.NVLinkDomainGPUs = 0
	e2, err := m.Estimate(w, perf.Hardware{Accelerator: &plain, GPUs: 8, GPUsPerNode: 4})
	if err != nil {
		t.Fatal(err)
	}
	if e2.TensorParallel != 4 || e2.PipelineParallel != 2 {
		t.Errorf("without the domain: TP=%d PP=%d, want TP=4 PP=2", e2.TensorParallel, e2.PipelineParallel)
	}
	if e.TokensPerSecond <= e2.TokensPerSecond {
		t.Errorf("NVLink TP over trays %.0f tok/s not faster than pipelining over the network %.0f", e.TokensPerSecond, e2.TokensPerSecond)
	}
}

// TestSpeculativeTokensPerStep: k draft tokens accepted with probability
// a each (given the previous one) emit (1 − a^(k+1)) / (1 − a) tokens per
// step.
func TestSpeculativeTokensPerStep(t *testing.T) {
	cases := []struct {
		sd   perf.SpeculativeDecoding
		want float64
	}{
		{perf.SpeculativeDecoding{}, 1},
		{perf.SpeculativeDecoding{Method: "mtp", AcceptanceRate: 0.8, DraftTokens: 1}, 1.8},
		{perf.SpeculativeDecoding{Method: "mtp", AcceptanceRate: 0.5, DraftTokens: 3}, 1.875},
		{perf.SpeculativeDecoding{Method: "draft_model", AcceptanceRate: 0.7, DraftTokens: 4, DraftModelParametersB: 1}, (1 - math.Pow(0.7, 5)) / 0.3},
	}
	for _, c := range cases {
		p := prepare(t, perf.Workload{Kind: "inference", Model: "deepseek-r1", SpeculativeDecoding: c.sd})
		near(t, "tokens per step of "+c.sd.Method, p.TokensPerStep(), c.want, 1e-12)
	}
}

// TestDisaggregatedSplit: on a GB200 NVL72 rack, DeepSeek-R1 with 8k-token
// prompts under a p99 TPOT limit is served disaggregated: the split
// balances the prefill workers' prompt rate against the decode workers'
// output rate to within one worker, and the estimate reports it.
func TestDisaggregatedSplit(t *testing.T) {
	w := perf.Workload{Kind: "inference", Model: "deepseek-r1", Precision: "fp4", InputTokens: 8192, OutputTokens: 1024, MaxTimePerOutputTokenMs: 50}
	p := prepare(t, w)
	h := perf.Hardware{Accelerator: acc(t, "GB200"), GPUs: 72, GPUsPerNode: 4}
	e, err := p.Estimate(h)
	if err != nil {
		t.Fatal(err)
	}
	d, ok := p.Split(h)
	if !ok || e.ServingLayout != perf.ServingDisaggregated {
		t.Fatalf("want disaggregated serving, got %s: %s", e.ServingLayout, e.Explanation)
	}
	if e.PrefillGPUs != d.PrefillWorkers*d.PrefillGPUs || e.DecodeGPUs != d.DecodeWorkers*d.DecodeGPUs ||
		e.PrefillGPUs+e.DecodeGPUs != e.GPUsUsed || e.GPUsUsed > 72 || e.TokensPerSecond != d.TokensPerSecond {
		t.Errorf("accounting: estimate %+v, split %+v", e, d)
	}
	// Throughput is the slower pool: prompts/s × output tokens, or decode.
	perWorker := float64(w.OutputTokens) / d.PrefillSeconds
	prefill := float64(d.PrefillWorkers) * perWorker
	near(t, "throughput", d.TokensPerSecond, math.Min(prefill, d.DecodeTokensPerSecond), 1e-9)
	// Balanced to within one worker of either pool.
	decodePerWorker := d.DecodeTokensPerSecond / float64(d.DecodeWorkers)
	if gap := math.Abs(prefill - d.DecodeTokensPerSecond); gap > math.Max(perWorker, decodePerWorker)*(1+1e-9) {
		t.Errorf("unbalanced split: prefill %.0f vs decode %.0f tok/s (one worker: %.0f / %.0f)", prefill, d.DecodeTokensPerSecond, perWorker, decodePerWorker)
	}
	if e.TTFTMs <= d.PrefillSeconds*1e3 {
		t.Errorf("TTFT %.1f ms must include the %.1f ms prefill, the KV transfer and a decode step", e.TTFTMs, d.PrefillSeconds*1e3)
	}
}

// TestNoDisaggregationWithoutFabric: nodes with no network between them
// (fabric none) can only disaggregate inside one scale-up domain, so an
// 8-GPU node, below the nodes engines disaggregate across, serves
// aggregated however many of them there are; a GB200 NVL72 rack (18
// nodes of 4 in one NVLink domain) still disaggregates inside it.
func TestNoDisaggregationWithoutFabric(t *testing.T) {
	w := perf.Workload{Kind: "inference", ModelParametersB: 70, InputTokens: 2048, OutputTokens: 256, MaxTimePerOutputTokenMs: 60}
	p := prepare(t, w)
	for _, nodes := range []int{1, 2, 4} {
		h := perf.Hardware{Accelerator: acc(t, "H100"), GPUs: 8 * nodes, GPUsPerNode: 8, NetworkGbps: 10, Fabric: catalog.FabricNone}
		e, err := p.Estimate(h)
		if err != nil {
			t.Fatal(err)
		}
		if e.ServingLayout != perf.ServingAggregated {
			t.Errorf("%d H100 nodes, no fabric: %s, want aggregated (%s)", nodes, e.ServingLayout, e.Explanation)
		}
	}
	r1 := prepare(t, perf.Workload{Kind: "inference", Model: "deepseek-r1", Precision: "fp4", InputTokens: 8192, OutputTokens: 1024, MaxTimePerOutputTokenMs: 50})
	e, err := r1.Estimate(perf.Hardware{Accelerator: acc(t, "GB200"), GPUs: 72, GPUsPerNode: 4, NetworkGbps: 10, Fabric: catalog.FabricNone})
	if err != nil {
		t.Fatal(err)
	}
	if e.ServingLayout != perf.ServingDisaggregated {
		t.Errorf("GB200 NVL72 rack, no fabric: %s, want disaggregated inside the rack", e.ServingLayout)
	}
}

// TestBeamPromptReads checks the cache one beam reads per decode step of
// MLPerf's GPT-J (28 layers, 16 KV heads of 256: 2 · 28 · 16 · 256 =
// 229,376 cache elements per token, one byte each in FP8; 870-token
// prompts, 4 beams). Where the engine reads the prompt per beam (NVIDIA:
// TensorRT-LLM's attention runs one thread block per head and beam and
// reads the shared prompt through the beam's cache-indirection row), a
// beam reads the whole prompt, as a lone sequence does; where the beams
// read the prompt once between them, each reads a quarter of it:
// 870 − 870/4 = 652.5 tokens less, 652.5 · 229,376 B = 149,667,840 B.
func TestBeamPromptReads(t *testing.T) {
	w := perf.Workload{Kind: perf.KindInference, Model: "gpt-j-6b", Precision: "fp8", InputTokens: 870, OutputTokens: 69, BeamWidth: 4}
	h := perf.Hardware{Accelerator: acc(t, "H100"), GPUs: 1, GPUsPerNode: 1}
	read := func(w perf.Workload, perBeam bool) float64 {
		p := prepareWith(t, w, func(params *perf.Params) {
			nv := params.Inference.Engines["nvidia"]
			nv.BeamPromptReadsPerBeam = perBeam
			params.Inference.Engines["nvidia"] = nv
		})
		if kv := p.KVBytesPerToken(); kv != 229376 {
			t.Fatalf("GPT-J cache %v B per token, want 229,376", kv)
		}
		read, _ := p.DecodeStep(h, 1)
		return read
	}
	one := w
	one.BeamWidth = 1
	perBeam := read(w, true)
	near(t, "per-beam read against a lone sequence's", perBeam, read(one, true), 1e-12)
	near(t, "bytes a beam saves sharing the prompt", perBeam-read(w, false), 149667840, 1e-9)
}

// TestMHADecodeAttentionOnCUDACores checks where decode attention's score
// math runs. GPT-J (16 attention heads, 16 KV heads: multi-head) on an
// H100 under the NVIDIA engines runs it on the CUDA cores at the engine's
// fraction of the FP32 peak: 67 TFLOPS × 0.125 = 8.375 TFLOPS (the H100
// SXM at 700 W runs at full clock). Everything else keeps the 16-bit
// tensor rate it had with the mechanism off: a GQA model (Llama 3.1 8B,
// 8 KV heads for 32 query heads), GPT-J with its KV heads overridden
// below its query heads, GPT-J on an AMD part (another engine class), and
// GPT-J on an NVIDIA part whose catalog entry has no FP32 peak.
func TestMHADecodeAttentionOnCUDACores(t *testing.T) {
	gptj := perf.Workload{Kind: perf.KindInference, Model: "gpt-j-6b", Precision: "fp8", InputTokens: 870, OutputTokens: 69, BeamWidth: 4}
	gqa := perf.Workload{Kind: perf.KindInference, Model: "llama-3.1-8b", Precision: "fp8", InputTokens: 1024, OutputTokens: 128}
	narrowed := gptj
	narrowed.KVHeads = 4
	noFP32 := *acc(t, "H100")
	noFP32.PeakTFLOPS = maps.Clone(noFP32.PeakTFLOPS)
	delete(noFP32.PeakTFLOPS, "fp32")
	rate := func(w perf.Workload, a *catalog.Accelerator, fraction float64) float64 {
		p := prepareWith(t, w, func(params *perf.Params) {
			nv := params.Inference.Engines["nvidia"]
			nv.MHADecodeAttentionFP32Fraction = fraction
			params.Inference.Engines["nvidia"] = nv
		})
		_, flops := p.DecodeStep(perf.Hardware{Accelerator: a, GPUs: 1, GPUsPerNode: 1}, 1)
		return flops
	}
	near(t, "GPT-J attention on H100 CUDA cores", rate(gptj, acc(t, "H100"), 0.125), 67e12*0.125, 1e-12)
	for _, c := range []struct {
		name string
		w    perf.Workload
		a    *catalog.Accelerator
	}{
		{"GQA on H100", gqa, acc(t, "H100")},
		{"GPT-J with 4 KV heads on H100", narrowed, acc(t, "H100")},
		{"GPT-J on MI300X", gptj, acc(t, "MI300X")},
		{"GPT-J on an H100 without an FP32 peak", gptj, &noFP32},
	} {
		off := rate(c.w, c.a, 0)
		if off <= 0 {
			t.Fatalf("%s: no tensor rate with the mechanism off", c.name)
		}
		near(t, c.name, rate(c.w, c.a, 0.125), off, 1e-12)
	}
}

// TestFP4CheckpointAttention: the published FP4 checkpoints of DeepSeek-R1
// (NVIDIA ModelOpt's recipe, AMD Quark's) leave the attention projections
// unquantized at BF16: they hold 2 bytes per parameter where the rest holds
// half a byte, and a prompt's projection GEMMs run at the 16-bit peak.
// Other precisions and presets without the field quantize them with the
// rest.
func TestFP4CheckpointAttention(t *testing.T) {
	w := perf.Workload{Kind: "inference", Model: "deepseek-r1", Precision: "fp4", InputTokens: 4096, OutputTokens: 256}
	p := prepare(t, w)
	flat := p.WithoutFP4Attention()
	attn := p.AttentionParams()
	if attn < 10e9 || attn > 13e9 {
		t.Fatalf("DeepSeek-R1 attention projections = %.4g parameters, want the recount's 11–12 B", attn)
	}
	_, other := p.WeightBytes()
	_, otherFlat := flat.WeightBytes()
	near(t, "non-expert bytes, attention at BF16", other, otherFlat+attn*(2-0.5), 1e-9)

	// Prefill on 8× B200 (TP 8): the projections' 2·in·attn FLOPs move
	// from the FP4 peak to the BF16 one.
	b200 := acc(t, "B200")
	h := perf.Hardware{Accelerator: b200, GPUs: 8, GPUsPerNode: 8}
	eff := model(t).Params().Families["blackwell"].PrefillEfficiency
	in := float64(w.InputTokens)
	want := 2 * in * attn / (8 * eff) * (1/(b200.PeakTFLOPS["bf16"]*1e12) - 1/(b200.PeakTFLOPS["fp4"]*1e12))
	near(t, "prefill seconds added", p.PrefillSeconds(h, 8, false)-flat.PrefillSeconds(h, 8, false), want, 1e-6)

	// FP8 serving of the same preset, and FP4 serving of a preset without
	// the field, are unchanged.
	for _, w := range []perf.Workload{
		{Kind: "inference", Model: "deepseek-r1", Precision: "fp8"},
		{Kind: "inference", Model: "llama-3.1-405b", Precision: "fp4"},
	} {
		q := prepare(t, w)
		_, a := q.WeightBytes()
		_, b := q.WithoutFP4Attention().WeightBytes()
		if a != b {
			t.Errorf("%s %s: non-expert bytes %.6g, want %.6g (attention quantized with the rest)", w.Model, w.Precision, a, b)
		}
	}
}
