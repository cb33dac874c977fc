// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package perf

import (
	"math"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// shape is the transformer the serving physics works on, resolved once
// when a workload is prepared: a model preset's published architecture
// with the workload's overrides applied, or the architecture rule on the
// parameter counts. Counts are parameters or cache elements; bytes come
// from the precisions.
type shape struct {
	arch   Arch
	preset *catalog.ModelPreset // nil without workload.model

	// Serving lengths: outInFlight is the mean final output length of the
	// requests in flight (length-biased by the output spread, see
	// inFlightOutputTokens), outLongest the 99th-percentile request's.
	outInFlight, outLongest float64

	params, active float64 // total and per-token active parameters
	// Mixture of experts: routed-expert parameters over all layers,
	// routed experts per MoE layer and per token, and the MoE layers.
	// experts is 0 for dense models and for a mixture of experts given
	// only by its parameter counts (routing is then approximated by the
	// active fraction of the whole model).
	expertParams            float64
	experts, expertsUsed    int
	moeLayers               int
	attnParams              float64 // attention projections: what data-parallel attention replicates
	expertBytes, otherBytes float64 // bytes per parameter of routed experts and of everything else
	// attnBytes is the bytes per attention-projection parameter: otherBytes,
	// or a preset's FP4AttentionPrecision in an FP4 checkpoint, whose
	// projections then also compute at 16 bits (attnProj16).
	attnBytes                float64
	attnProj16               bool
	weightBytes, expertTotal float64 // all weights and the routed experts, bytes

	// KV cache: elements per token of context held by the full-attention
	// layers, per token by the sliding-window layers (capped at swWindow
	// tokens), a fixed per-sequence state (linear attention) and the
	// sparse-attention indexer's keys per token.
	kvPerToken, swPerToken, stateElems, indexPerToken float64
	swWindow                                          int
	// kvShards is how many ways tensor parallelism splits the cache: the
	// KV heads (1 for MLA, whose single latent every TP rank holds).
	kvShards int
	// sparseTopK: sparse attention reads this many context tokens per
	// query (0 = all).
	sparseTopK int
	// mha: a preset whose attention is multi-head (one KV head per query
	// head, no GQA, MQA or MLA) and whose KV heads are not overridden
	// below its attention heads.
	mha bool

	// Attention-score FLOPs over all layers: decode, per generated token
	// and context token (full-attention and sliding-window layers);
	// prefill, per squared prompt token (causal); sparse prefill, per
	// (query, selected key) pair.
	attnDecodeFull, attnDecodeWindow, attnPrefill float64
	attnPrefillSparse                             float64
	indexDecode                                   float64 // indexer FLOPs per token and context token
}

// resolveShape builds the shape of a workload with its defaults applied.
// expertPrecision is the routed experts' precision when it differs from
// the workload's (a preset's native mixed format), "" otherwise.
func (m *Model) resolveShape(w *Workload, preset *catalog.ModelPreset, expertPrecision string) shape {
	s := shape{arch: m.Architecture(*w), preset: preset}
	s.params = w.ModelParametersB * 1e9
	s.active = w.ActiveParametersB * 1e9
	s.otherBytes = m.bytesPer(w.Precision)
	s.expertBytes = s.otherBytes
	if preset != nil {
		s.presetArchitecture(preset)
		if expertPrecision != "" {
			s.expertBytes = m.bytesPer(expertPrecision)
		}
	} else {
		s.ruleArchitecture()
	}
	s.attnBytes = s.otherBytes
	if preset != nil && preset.FP4AttentionPrecision != "" && w.Precision == "fp4" {
		s.attnBytes, s.attnProj16 = m.bytesPer(preset.FP4AttentionPrecision), true
	}
	s.expertTotal = s.expertParams * s.expertBytes
	s.weightBytes = s.expertTotal + (s.params-s.expertParams)*s.otherBytes
	if s.attnProj16 {
		s.weightBytes += s.attnParams * (s.attnBytes - s.otherBytes)
	}
	out, p99 := float64(w.OutputTokens), float64(w.OutputTokensP99)
	s.outInFlight, s.outLongest = inFlightOutputTokens(out, p99), math.Max(out, p99)
	return s
}

// ruleArchitecture fills the shape of a model known by its parameter
// counts: GQA with the derived layers, width and KV heads.
func (s *shape) ruleArchitecture() {
	a := s.arch
	l, h := float64(a.Layers), float64(a.Hidden)
	kvWidth := float64(a.KVHeads * a.HeadDim)
	s.attnParams = l * (2*h*h + 2*h*kvWidth)
	s.kvPerToken = 2 * l * kvWidth
	s.kvShards = max(1, a.KVHeads)
	s.attnDecodeFull = 4 * l * h
	s.attnPrefill = 2 * l * h
	if s.moe() {
		s.expertParams = s.params // routing approximated over the whole model
	}
}

// presetArchitecture fills the shape from a model preset.
func (s *shape) presetArchitecture(p *catalog.ModelPreset) {
	layers := float64(s.arch.Layers)
	scale := layers / float64(p.Layers) // a layers override scales the per-layer terms
	if p.IsMoE() {
		s.experts, s.expertsUsed = p.ExpertsTotal, p.ExpertsActive
		s.moeLayers = max(1, s.arch.Layers-p.DenseLayers)
		k := float64(p.ExpertsActive) / float64(p.ExpertsTotal)
		s.expertParams = (s.params - s.active) / (1 - k)
	}
	if pc, ok := p.ParameterCount(); ok {
		share := s.params / pc.Total()
		s.attnParams = pc.Attention * share
		if p.IsMoE() {
			s.expertParams = pc.RoutedExperts * share
		}
	} else {
		h := float64(s.arch.Hidden)
		s.attnParams = layers * 2 * h * float64(p.AttentionHeads*p.HeadDim)
	}
	s.expertParams = math.Min(s.expertParams, s.params)
	s.cache(p, scale)
	s.attentionFlops(p, scale)
}

// cache fills the KV-cache terms of a preset (KVElementsPerToken and
// friends from the catalog) with a KV-heads override for GQA/MHA.
func (s *shape) cache(p *catalog.ModelPreset, scale float64) {
	kv, ok := p.KVElementsPerToken()
	if !ok {
		// Compressed attention whose cache size is not recorded:
		// assume the derived GQA cache, an upper bound.
		a := s.arch
		kv = int64(2 * a.Layers * a.KVHeads * a.HeadDim)
		scale = 1
	}
	s.kvPerToken = float64(kv) * scale
	s.kvShards = max(1, p.KVHeads)
	if p.Attention == catalog.AttentionMLA {
		s.kvShards = 1
	}
	if s.arch.KVHeads != p.KVHeads && p.KVHeads > 0 && s.arch.KVHeads > 0 {
		s.kvPerToken *= float64(s.arch.KVHeads) / float64(p.KVHeads)
		s.kvShards = s.arch.KVHeads
	}
	if p.SlidingWindowLayers > 0 && p.FullAttentionLayers() > 0 {
		perLayer := s.kvPerToken / float64(p.FullAttentionLayers()) / scale
		s.swPerToken = perLayer * float64(p.SlidingWindowLayers) * scale
		s.swWindow = p.SlidingWindowTokens
	}
	s.stateElems = float64(p.RecurrentStateElements()) * scale
	if idx, ok := p.IndexerKeyElementsPerToken(); ok {
		s.indexPerToken = float64(idx) * scale
	}
	if p.SparseAttention != nil {
		s.sparseTopK = p.SparseAttention.IndexTopK
	}
	s.mha = p.Attention == catalog.AttentionMHA && p.SparseAttention == nil &&
		(s.arch.KVHeads == p.KVHeads || s.arch.KVHeads == p.AttentionHeads)
}

// attentionFlops fills the attention-score FLOPs of a preset: GQA/MHA
// 2·heads·head_dim per token pair for QK and as much for PV; MLA decode
// runs absorbed (QK over kv_lora_rank + rope dims, PV over kv_lora_rank)
// and prefill expanded (QK over the nope + rope head dims, PV over
// v_head_dim). Prefill is causal: half the pairs.
func (s *shape) attentionFlops(p *catalog.ModelPreset, scale float64) {
	heads := float64(p.AttentionHeads)
	var qk, v, qkPrefill, vPrefill float64
	if a := p.MLA; a != nil {
		qk, v = float64(a.KVLoRARank+a.QKRopeHeadDim), float64(a.KVLoRARank)
		qkPrefill, vPrefill = float64(a.QKNopeHeadDim+a.QKRopeHeadDim), float64(a.VHeadDim)
	} else {
		qk, v = float64(p.HeadDim), float64(p.HeadDim)
		qkPrefill, vPrefill = qk, v
	}
	full := float64(p.FullAttentionLayers()) * scale
	window := float64(p.SlidingWindowLayers) * scale
	perLayer := 2 * heads * (qk + v)
	s.attnDecodeFull = full * perLayer
	s.attnDecodeWindow = window * perLayer
	s.attnPrefill = (full + window) * heads * (qkPrefill + vPrefill)
	if sa := p.SparseAttention; sa != nil {
		s.indexDecode = float64(p.Layers) * scale * 2 * float64(sa.IndexHeads*sa.IndexHeadDim)
		// A prompt longer than the top-k attends to the selected keys
		// in MLA's MQA (absorbed) mode, as decode does: a dense
		// expanded kernel cannot skip the unselected keys.
		s.attnPrefillSparse = s.attnDecodeFull + s.attnDecodeWindow
	}
}

// kvElements is the cache one sequence holds at ctx tokens of context.
func (s *shape) kvElements(ctx float64) float64 { return s.cacheElements(ctx, ctx) }

// kvReadElements is the cache one decode step reads for one sequence at
// ctx tokens of context: sparse attention reads only its top-k tokens'
// entries (and every indexer key).
func (s *shape) kvReadElements(ctx float64) float64 { return s.cacheElements(s.attended(ctx), ctx) }

// cacheElements is the full-attention cache of attended tokens, the
// indexer keys of ctx tokens, the sliding-window layers' window and the
// fixed recurrent state.
func (s *shape) cacheElements(attended, ctx float64) float64 {
	e := s.kvPerToken*attended + s.indexPerToken*ctx + s.stateElems
	if s.swPerToken > 0 {
		e += s.swPerToken * math.Min(ctx, float64(s.swWindow))
	}
	return e
}

// attended is the context tokens a query attends to: all of them, or a
// sparse-attention model's top-k.
func (s *shape) attended(ctx float64) float64 {
	if s.sparseTopK > 0 {
		return math.Min(ctx, float64(s.sparseTopK))
	}
	return ctx
}

// attnDecodeFlops is the attention-score FLOPs of one generated token at
// ctx tokens of context.
func (s *shape) attnDecodeFlops(ctx float64) float64 {
	f := s.attnDecodeFull*s.attended(ctx) + s.indexDecode*ctx
	if s.attnDecodeWindow > 0 {
		f += s.attnDecodeWindow * math.Min(ctx, float64(s.swWindow))
	}
	return f
}

// attnPrefillFlops is the attention-score FLOPs of a prompt of in tokens:
// causal, so attnPrefill (half a pair's FLOPs) per squared token, plus
// the sparse-attention indexer's scores over every earlier token. Sparse
// attention with a prompt longer than its top-k k runs on the selected
// keys in MQA mode (attnPrefillSparse per pair): the first k queries
// attend to every earlier token, the other in − k to k each, k²/2 +
// (in − k)·k pairs (DeepSeek-V3.2 report §2.1; SGLang's NSA backend runs
// dense MHA only for prompts within the top-k).
func (s *shape) attnPrefillFlops(in float64) float64 {
	index := s.indexDecode * in * in / 2
	if k := float64(s.sparseTopK); k > 0 && in > k {
		return s.attnPrefillSparse*(k*k/2+(in-k)*k) + index
	}
	return s.attnPrefill*in*in + index
}

// expertsTouched is the expected share of the routed experts that tokens
// tokens route to in one step: 1 − (1 − k/E)^tokens per MoE layer. A
// mixture of experts known only by its parameter counts treats the whole
// model as experts used at the active fraction.
func (s *shape) expertsTouched(tokens float64) float64 {
	if s.experts > 0 {
		return 1 - math.Pow(1-float64(s.expertsUsed)/float64(s.experts), tokens)
	}
	frac := s.active / s.params
	return frac + (1-frac)*(1-math.Pow(1-frac, tokens))
}

// moe reports whether experts are routed (a preset MoE or an active count
// below the total).
func (s *shape) moe() bool { return s.active < s.params }
