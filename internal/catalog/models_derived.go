// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package catalog

// Quantities derived from a ModelPreset's architecture, for the benchmark
// model. Counts are in elements or parameters; multiply by bytes per element
// of the precision the engine keeps them in.

// IsMoE reports whether the model routes tokens to experts.
func (m *ModelPreset) IsMoE() bool { return m.ExpertsTotal > 0 }

// ActiveParameters returns the published per-token active parameters,
// billions: ActiveParametersB for a mixture of experts, the total otherwise.
func (m *ModelPreset) ActiveParameters() float64 {
	if m.IsMoE() {
		return m.ActiveParametersB
	}
	return m.TotalParametersB
}

// FullAttentionLayers is the number of layers whose cache grows with the
// whole context: all layers except sliding-window and linear-attention ones.
func (m *ModelPreset) FullAttentionLayers() int {
	n := m.Layers - m.SlidingWindowLayers
	if m.LinearAttention != nil {
		n -= m.LinearAttention.Layers
	}
	return n
}

// kvElementsPerLayerToken is what one softmax-attention layer caches per
// token: K and V heads (2·kv_heads·head_dim), or MLA's compressed latent
// plus its decoupled RoPE key (kv_lora_rank + qk_rope_head_dim).
func (m *ModelPreset) kvElementsPerLayerToken() (int64, bool) {
	switch m.Attention {
	case AttentionMHA, AttentionGQA:
		return 2 * int64(m.KVHeads) * int64(m.HeadDim), true
	case AttentionMLA:
		return int64(m.MLA.KVLoRARank + m.MLA.QKRopeHeadDim), true
	}
	return 0, false
}

// KVElementsPerToken returns the KV-cache elements per token of context held
// by the full-attention layers (multiply by bytes per element): GQA and MHA
// 2·layers·kv_heads·head_dim, MLA layers·(kv_lora_rank + qk_rope_head_dim).
// Sliding-window and linear-attention layers hold a bounded cache instead
// (KVCacheElements). ok is false when the architecture's cache size is not
// recorded (AttentionCSAHCA).
func (m *ModelPreset) KVElementsPerToken() (elements int64, ok bool) {
	per, ok := m.kvElementsPerLayerToken()
	return int64(m.FullAttentionLayers()) * per, ok
}

// KVCacheElements returns the cache elements one sequence of contextTokens
// tokens holds: the full-attention layers' KV cache, the sliding-window
// layers' cache of at most SlidingWindowTokens tokens, and the
// linear-attention layers' fixed recurrent state. It leaves out the sparse
// attention indexer's keys (IndexerKeyElementsPerToken), which engines keep
// at their own precision.
func (m *ModelPreset) KVCacheElements(contextTokens int) (elements int64, ok bool) {
	per, ok := m.kvElementsPerLayerToken()
	if !ok {
		return 0, false
	}
	ctx := int64(max(contextTokens, 0))
	window := min(ctx, int64(m.SlidingWindowTokens))
	return int64(m.FullAttentionLayers())*per*ctx + int64(m.SlidingWindowLayers)*per*window + m.RecurrentStateElements(), true
}

// RecurrentStateElements returns the fixed per-sequence state of the
// linear-attention layers (0 without them). Gated DeltaNet keeps, per layer,
// a key_head_dim × value_head_dim matrix per value head plus the short
// convolution's last conv_kernel−1 inputs over its q, k and v channels
// (2·key_heads·key_head_dim + value_heads·value_head_dim).
func (m *ModelPreset) RecurrentStateElements() int64 {
	la := m.LinearAttention
	if la == nil {
		return 0
	}
	state := int64(la.ValueHeads) * int64(la.KeyHeadDim) * int64(la.ValueHeadDim)
	conv := int64(la.ConvKernel-1) * int64(2*la.KeyHeads*la.KeyHeadDim+la.ValueHeads*la.ValueHeadDim)
	return int64(la.Layers) * (state + conv)
}

// IndexerKeyElementsPerToken returns the sparse-attention indexer's cached
// keys per token: one index_head_dim key per softmax-attention layer (DeepSeek
// Sparse Attention, GLM-5), 0 without an indexer. ok is false for
// AttentionCSAHCA, whose indexer runs on compressed entries of some layers.
func (m *ModelPreset) IndexerKeyElementsPerToken() (elements int64, ok bool) {
	if m.Attention == AttentionCSAHCA {
		return 0, false
	}
	if m.SparseAttention == nil {
		return 0, true
	}
	return int64(m.Layers-m.linearLayers()) * int64(m.SparseAttention.IndexHeadDim), true
}

func (m *ModelPreset) linearLayers() int {
	if m.LinearAttention == nil {
		return 0
	}
	return m.LinearAttention.Layers
}

// denseFFNLayers is the number of layers with a dense FFN.
func (m *ModelPreset) denseFFNLayers() int {
	if m.IsMoE() {
		return m.DenseLayers
	}
	return m.Layers
}

// ParameterCount is a preset's weight count recomputed from its
// architecture, split by what the benchmark model treats differently. Norms,
// biases, attention sinks and router bias terms are left out (each well
// under 0.1 % of these models); so are multi-token-prediction modules and
// vision encoders, which published totals also leave out (DeepSeek-V3) or
// which are not in the preset (Qwen3.5, Kimi K2.5).
type ParameterCount struct {
	Embedding           float64 // input token embedding: a table lookup, no FLOPs
	OutputHead          float64 // output projection to the vocabulary (0 when tied)
	Attention           float64 // attention, latent, indexer and linear-attention projections, all layers
	DenseFFN            float64 // FFN of the dense layers
	SharedExperts       float64 // always-used experts of the MoE layers
	RoutedExperts       float64 // every routed expert of the MoE layers
	ActiveRoutedExperts float64 // the routed experts one token uses (experts_active per MoE layer)
	Router              float64 // expert-scoring projections
}

// Total is every weight of the model.
func (p ParameterCount) Total() float64 {
	return p.Embedding + p.OutputHead + p.Attention + p.DenseFFN + p.SharedExperts + p.RoutedExperts + p.Router
}

// Active is the weights one token multiplies with: everything but the input
// embedding (a lookup) and the routed experts it is not sent to. This is the
// convention of DeepSeek-V3 ("37B activated" counts the output head) and
// gpt-oss; some publishers also count the embedding.
func (p ParameterCount) Active() float64 {
	return p.OutputHead + p.Attention + p.DenseFFN + p.SharedExperts + p.ActiveRoutedExperts + p.Router
}

// ActiveAsPublished is Active counted the publisher's way: with the input
// embedding when the preset says its publisher counts it.
func (p ParameterCount) ActiveAsPublished(m *ModelPreset) float64 {
	if m.ActiveCountsEmbedding {
		return p.Active() + p.Embedding
	}
	return p.Active()
}

// ExpertWeights is the routed-expert share: the weights expert parallelism
// spreads over GPUs and a token mostly leaves unread.
func (p ParameterCount) ExpertWeights() float64 { return p.RoutedExperts }

// NonExpertWeights is everything else, which every replica (or tensor
// parallel group) holds: attention, embeddings, dense FFNs, shared experts
// and routers.
func (p ParameterCount) NonExpertWeights() float64 { return p.Total() - p.RoutedExperts }

// ParameterCount recomputes the weight count from the architecture. ok is
// false when the recorded fields do not determine every weight matrix
// (AttentionCSAHCA: DeepSeek-V4's compressors and grouped output
// projection).
func (m *ModelPreset) ParameterCount() (p ParameterCount, ok bool) {
	if m.Attention == AttentionCSAHCA {
		return ParameterCount{}, false
	}
	h := float64(m.HiddenSize)
	p.Embedding = float64(m.VocabSize) * h
	if !m.TiedEmbeddings {
		p.OutputHead = p.Embedding
	}
	p.Attention = float64(m.Layers-m.linearLayers())*m.attentionParamsPerLayer() + m.linearAttentionParams()
	matrices := 3.0 // SwiGLU: gate, up, down
	if m.MLP == MLPGELU {
		matrices = 2 // up, down
	}
	p.DenseFFN = float64(m.denseFFNLayers()) * matrices * h * float64(m.IntermediateSize)
	if m.IsMoE() {
		moeLayers := float64(m.Layers - m.DenseLayers)
		expert := matrices * h * float64(m.MoEIntermediateSize)
		p.RoutedExperts = moeLayers * float64(m.ExpertsTotal) * expert
		p.ActiveRoutedExperts = moeLayers * float64(m.ExpertsActive) * expert
		p.SharedExperts = moeLayers * float64(m.ExpertsShared) * expert
		p.Router = moeLayers * float64(m.ExpertsTotal) * h
	}
	return p, true
}

// attentionParamsPerLayer is one softmax-attention layer's projections.
// GQA/MHA: Q and O are hidden × heads·head_dim (Q twice that with an
// output gate), K and V hidden × kv_heads·head_dim. MLA: Q through its low-rank bottleneck (or directly),
// the K/V latent plus RoPE key, the latent's up-projection to per-head
// keys and values, and O. An indexer adds its query (from the Q latent),
// key and head-weight projections.
func (m *ModelPreset) attentionParamsPerLayer() float64 {
	h := float64(m.HiddenSize)
	heads := float64(m.AttentionHeads)
	if m.Attention != AttentionMLA {
		q := h * heads * float64(m.HeadDim)
		o := q
		if m.AttentionOutputGate {
			q *= 2
		}
		kv := 2 * h * float64(m.KVHeads) * float64(m.HeadDim)
		return q + kv + o
	}
	a := m.MLA
	qHead := float64(a.QKNopeHeadDim + a.QKRopeHeadDim)
	q := h * heads * qHead
	if a.QLoRARank > 0 {
		q = h*float64(a.QLoRARank) + float64(a.QLoRARank)*heads*qHead
	}
	kvDown := h * float64(a.KVLoRARank+a.QKRopeHeadDim)
	kvUp := float64(a.KVLoRARank) * heads * float64(a.QKNopeHeadDim+a.VHeadDim)
	o := heads * float64(a.VHeadDim) * h
	total := q + kvDown + kvUp + o
	if s := m.SparseAttention; s != nil {
		qIn := h
		if a.QLoRARank > 0 {
			qIn = float64(a.QLoRARank)
		}
		total += qIn*float64(s.IndexHeads*s.IndexHeadDim) + h*float64(s.IndexHeadDim) + h*float64(s.IndexHeads)
	}
	return total
}

// linearAttentionParams is all Gated DeltaNet layers' projections: q, k, v
// in (hidden × conv channels), the output gate z (hidden × value channels),
// the per-head decay and step inputs a and b (hidden × value_heads each),
// the depthwise convolution and the output projection.
func (m *ModelPreset) linearAttentionParams() float64 {
	la := m.LinearAttention
	if la == nil {
		return 0
	}
	h := float64(m.HiddenSize)
	value := float64(la.ValueHeads * la.ValueHeadDim)
	conv := float64(2*la.KeyHeads*la.KeyHeadDim) + value
	perLayer := h*conv + h*value + 2*h*float64(la.ValueHeads) + conv*float64(la.ConvKernel) + value*h
	return float64(la.Layers) * perLayer
}
