// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package catalog

import (
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"time"
)

// FileModels is the model-preset file inside the data folder. It is
// hand-curated, not generated: every entry names its source (see
// data/SOURCES.md).
const FileModels = "models.json"

// Attention kinds of a ModelPreset: what its softmax-attention layers cache.
const (
	AttentionMHA = "mha" // multi-head: one K and V head per query head
	AttentionGQA = "gqa" // grouped-query: kv_heads < attention_heads (1 = multi-query)
	AttentionMLA = "mla" // multi-head latent attention (DeepSeek): one compressed latent per token
	// AttentionCSAHCA is DeepSeek-V4's compressed sparse / heavily
	// compressed hybrid; its cache size per token is not recorded.
	AttentionCSAHCA = "csa_hca"
)

// MLP kinds of a ModelPreset.
const (
	MLPSwiGLU = "swiglu" // gate, up and down projections: 3·hidden·width weights
	MLPGELU   = "gelu"   // up and down projections: 2·hidden·width weights
)

// LinearAttentionGatedDeltaNet is the linear-attention kind of Qwen3-Next
// and Qwen3.5 (Gated DeltaNet): a fixed-size recurrent state per sequence.
const LinearAttentionGatedDeltaNet = "gated_deltanet"

// ModelPreset is the published architecture of one model, from
// models.json. Counts that do not apply are 0 (omitted in the file), never
// guessed. JSON names are the file's fields.
type ModelPreset struct {
	ID      string   `json:"id"`      // lower-case, dash-separated, e.g. "llama-3.1-70b"
	Name    string   `json:"name"`    // display name
	Aliases []string `json:"aliases"` // lower-case alternative names (HF repos, benchmark names)
	// License of the released weights as the model card names it, lower
	// case: an SPDX identifier ("apache-2.0", "mit") or the model's own
	// licence ("llama3.1", "modified-mit"); "proprietary" when the weights
	// are not released.
	License string `json:"license"`

	// Published parameter counts, billions, as the publisher states them
	// (often rounded). ActiveParametersB is 0 for dense models: use
	// ActiveParameters.
	TotalParametersB  float64 `json:"total_parameters_b"`
	ActiveParametersB float64 `json:"active_parameters_b"`
	// ActiveCountsEmbedding: the publisher's active count includes the
	// input embedding (Qwen3's "3.3B activated", Meta's Llama 4 "17B
	// active"); DeepSeek and gpt-oss leave it out (ParameterCount.Active).
	ActiveCountsEmbedding bool `json:"active_counts_embedding"`

	Layers              int    `json:"layers"`
	HiddenSize          int    `json:"hidden_size"`
	IntermediateSize    int    `json:"intermediate_size"`     // FFN width of the dense layers; 0 when every layer is MoE
	MoEIntermediateSize int    `json:"moe_intermediate_size"` // FFN width of one expert (routed or shared)
	MLP                 string `json:"mlp"`                   // MLPSwiGLU or MLPGELU

	Attention      string `json:"attention"`       // AttentionMHA, AttentionGQA, AttentionMLA or AttentionCSAHCA
	AttentionHeads int    `json:"attention_heads"` // query heads
	KVHeads        int    `json:"kv_heads"`        // cached K/V heads; 0 for MLA
	HeadDim        int    `json:"head_dim"`        // per-head dimension; 0 for MLA
	// AttentionOutputGate: the query projection also produces a per-channel
	// output gate (gated attention, Qwen3-Next and Qwen3.5), doubling it.
	AttentionOutputGate bool `json:"attention_output_gate"`

	// SlidingWindowLayers of the softmax-attention layers attend to the last
	// SlidingWindowTokens tokens only (gpt-oss alternates them with full
	// attention).
	SlidingWindowLayers int `json:"sliding_window_layers"`
	SlidingWindowTokens int `json:"sliding_window_tokens"`

	LinearAttention *LinearAttention `json:"linear_attention"` // linear-attention layers of a hybrid model
	MLA             *MLA             `json:"mla"`              // present iff Attention is AttentionMLA
	SparseAttention *SparseAttention `json:"sparse_attention"` // token-selection indexer (DeepSeek Sparse Attention)

	// Mixture of experts: routed experts per MoE layer, routed experts a
	// token uses, shared (always-used) experts, and the dense layers:
	// before the first MoE layer (first_k_dense_replace) or interleaved
	// with them (Llama 4 Maverick's interleave_moe_layer_step 2). All 0
	// for dense models.
	ExpertsTotal  int `json:"experts_total"`
	ExpertsActive int `json:"experts_active"`
	ExpertsShared int `json:"experts_shared"`
	DenseLayers   int `json:"dense_layers"`

	VocabSize        int  `json:"vocab_size"`
	TiedEmbeddings   bool `json:"tied_embeddings"`    // output head shares the input embedding
	MaxContextTokens int  `json:"max_context_tokens"` // config max_position_embeddings

	// Native (released) weight precision, one of Precisions; for models that
	// store routed experts differently (gpt-oss MXFP4, Kimi K2.5 INT4),
	// ExpertWeightPrecision. WeightFormat says which format exactly.
	WeightPrecision       string `json:"weight_precision"`
	ExpertWeightPrecision string `json:"expert_weight_precision"`
	WeightFormat          string `json:"weight_format"`
	// FP4AttentionPrecision is the 16-bit precision (bf16 or fp16) the
	// attention projections keep in the model's published FP4 checkpoints
	// when their recipe leaves attention unquantized (NVIDIA ModelOpt's
	// DeepSeek, Kimi and MiniMax NVFP4 checkpoints exclude self_attn and
	// keep it in BF16); "" = an FP4 checkpoint quantizes them with the rest.
	FP4AttentionPrecision string `json:"fp4_attention_precision"`

	MTPLayers int `json:"mtp_layers"` // multi-token-prediction modules shipped with the weights

	Source     string `json:"source"`      // config.json / model card / paper URLs
	SourceDate string `json:"source_date"` // YYYY-MM-DD: release of the model or paper
	Notes      string `json:"notes"`       // what was derived, and caveats
}

// MLA holds the ranks of multi-head latent attention (DeepSeek-V2/V3 style).
// QLoRARank is 0 when queries are not compressed.
type MLA struct {
	KVLoRARank    int `json:"kv_lora_rank"`
	QLoRARank     int `json:"q_lora_rank"`
	QKRopeHeadDim int `json:"qk_rope_head_dim"`
	QKNopeHeadDim int `json:"qk_nope_head_dim"`
	VHeadDim      int `json:"v_head_dim"`
}

// SparseAttention is a lightning indexer that selects IndexTopK cached tokens
// per query (DeepSeek Sparse Attention, GLM-5, DeepSeek-V4 CSA layers). The
// indexer caches one IndexHeadDim key per token per layer.
type SparseAttention struct {
	IndexHeads   int `json:"index_heads"`
	IndexHeadDim int `json:"index_head_dim"`
	IndexTopK    int `json:"index_topk"`
}

// LinearAttention describes the linear-attention layers of a hybrid model.
type LinearAttention struct {
	Kind         string `json:"kind"` // LinearAttentionGatedDeltaNet
	Layers       int    `json:"layers"`
	KeyHeads     int    `json:"key_heads"`
	ValueHeads   int    `json:"value_heads"`
	KeyHeadDim   int    `json:"key_head_dim"`
	ValueHeadDim int    `json:"value_head_dim"`
	ConvKernel   int    `json:"conv_kernel"` // short causal convolution width
}

// ModelPresets is the loaded, validated and indexed preset list. It is
// immutable after loading.
//
// Presets are a loader of their own rather than a field of *Catalog: they
// describe models, not where to run them, so they neither depend on clouds,
// regions or offers nor change with a price overlay, and the planner needs
// them before (and without) a catalog. Keeping them apart also leaves the
// catalog's load and overlay paths (and Catalog.Date) untouched. A model
// that is not a preset is described with the workload's size overrides.
type ModelPresets struct {
	list  []*ModelPreset // sorted by ID
	byKey map[string]*ModelPreset
	// byLoose holds every ID and alias in its loose form (modelKey) for
	// spellings users write ("Llama-3.1-8B-Instruct", "meta-llama/Meta-Llama-3.1-8B");
	// a loose form two presets share maps to nil (ambiguous).
	byLoose map[string]*ModelPreset
}

var builtinModels = builtinData[*ModelPresets]{what: "built-in model presets", load: LoadModelPresets}

// BuiltinModelPresets returns the embedded model presets, parsed and
// validated on first use. The result is shared: callers must not modify it.
func BuiltinModelPresets() (*ModelPresets, error) { return builtinModels.get() }

// LoadModelPresets reads FileModels at the root of fsys, validates every
// entry and indexes IDs and aliases. Errors name the file, the entry and
// the field.
func LoadModelPresets(fsys fs.FS) (*ModelPresets, error) {
	var f struct {
		Models []*ModelPreset `json:"models"`
	}
	if err := readJSONFile(fsys, FileModels, &f); err != nil {
		return nil, err
	}
	if len(f.Models) == 0 {
		return nil, fmt.Errorf("%s: no models", FileModels)
	}
	p := &ModelPresets{byKey: make(map[string]*ModelPreset, 4*len(f.Models)), byLoose: make(map[string]*ModelPreset, 4*len(f.Models))}
	for i, m := range f.Models {
		if m == nil {
			return nil, fmt.Errorf("%s: models[%d]: null entry", FileModels, i)
		}
		if err := m.validate(); err != nil {
			return nil, fmt.Errorf("%s: models[%d] (%s): %w", FileModels, i, m.ID, err)
		}
		for j, key := range append([]string{m.ID}, m.Aliases...) {
			field := "id"
			if j > 0 {
				field = "aliases"
			}
			if other, dup := p.byKey[key]; dup {
				return nil, fmt.Errorf("%s: models[%d] (%s): field %q: %q is already used by %s", FileModels, i, m.ID, field, key, other.ID)
			}
			p.byKey[key] = m
			p.indexLoose(modelKey(key), m)
		}
		p.list = append(p.list, m)
	}
	slices.SortFunc(p.list, func(a, b *ModelPreset) int { return strings.Compare(a.ID, b.ID) })
	return p, nil
}

// indexLoose records the loose form of one of m's names; a form another
// preset has already is ambiguous and matches neither.
func (p *ModelPresets) indexLoose(k string, m *ModelPreset) {
	if other, dup := p.byLoose[k]; dup && other != m {
		p.byLoose[k] = nil
		return
	}
	p.byLoose[k] = m
}

// Lookup finds a preset by ID or alias, case-insensitively, or by the
// spellings users write for it: a Hugging Face ID with or without its
// organisation, any case, "-instruct"/"-chat"/"-hf" variants and
// separators ignored ("Llama-3.1-8B-Instruct", "meta-llama/Meta-Llama-3.1-8B",
// "qwen_3_32b" are llama-3.1-8b, llama-3.1-8b and qwen3-32b). A spelling
// that could mean two presets matches none.
func (p *ModelPresets) Lookup(idOrAlias string) (*ModelPreset, bool) {
	if m, ok := p.byKey[strings.ToLower(strings.TrimSpace(idOrAlias))]; ok {
		return m, true
	}
	m := p.byLoose[modelKey(idOrAlias)]
	return m, m != nil
}

// IDs returns every preset ID, sorted; pass it to Closest to suggest names
// for an unknown model.
func (p *ModelPresets) IDs() []string {
	ids := make([]string, len(p.list))
	for i, m := range p.list {
		ids[i] = m.ID
	}
	return ids
}

// All returns the presets sorted by ID. The slice is a copy; the presets are
// shared and must not be modified.
func (p *ModelPresets) All() []*ModelPreset { return slices.Clone(p.list) }

var (
	modelIDPattern    = regexp.MustCompile(`^[a-z0-9]+([.-][a-z0-9]+)*$`)
	modelAliasPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._/-]*$`)
)

// validate checks one preset on its own; uniqueness is checked by the loader.
func (m *ModelPreset) validate() error {
	if !modelIDPattern.MatchString(m.ID) {
		return fmt.Errorf("field %q: must be lower-case letters and digits separated by dashes or dots, got %q", "id", m.ID)
	}
	for _, a := range m.Aliases {
		if !modelAliasPattern.MatchString(a) {
			return fmt.Errorf("field %q: %q must be lower-case letters, digits and . _ / -", "aliases", a)
		}
	}
	if m.Name == "" || m.Source == "" {
		return errors.New(`fields "name" and "source" are required`)
	}
	if _, err := time.Parse(time.DateOnly, m.SourceDate); err != nil {
		return fmt.Errorf("field %q: want YYYY-MM-DD, got %q", "source_date", m.SourceDate)
	}
	for _, check := range []func() error{m.validateSize, m.validateFFN, m.validateAttention, m.validateLayerKinds, m.validatePrecision} {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

func (m *ModelPreset) validateSize() error {
	for _, fv := range []namedValue{{"total_parameters_b", m.TotalParametersB}, {"layers", float64(m.Layers)},
		{"hidden_size", float64(m.HiddenSize)}, {"attention_heads", float64(m.AttentionHeads)},
		{"vocab_size", float64(m.VocabSize)}, {"max_context_tokens", float64(m.MaxContextTokens)}} {
		if fv.v <= 0 {
			return fieldMust(fv.name, "must be > 0", fv.v)
		}
	}
	if m.ActiveParametersB < 0 || m.ActiveParametersB > m.TotalParametersB {
		return fieldMust("active_parameters_b", fmt.Sprintf("must be in [0, total_parameters_b %v]", m.TotalParametersB), m.ActiveParametersB)
	}
	if m.MTPLayers < 0 {
		return fieldMust("mtp_layers", "must be >= 0", m.MTPLayers)
	}
	return nil
}

func (m *ModelPreset) validateFFN() error {
	if m.MLP != MLPSwiGLU && m.MLP != MLPGELU {
		return fmt.Errorf("field %q: must be %q or %q, got %q", "mlp", MLPSwiGLU, MLPGELU, m.MLP)
	}
	if m.ExpertsTotal < 0 {
		return fieldMust("experts_total", "must be >= 0", m.ExpertsTotal)
	}
	if m.ExpertsTotal == 0 {
		if m.ExpertsActive != 0 || m.ExpertsShared != 0 || m.DenseLayers != 0 || m.MoEIntermediateSize != 0 || m.ActiveParametersB != 0 {
			return errors.New(`a dense model (experts_total 0) has no experts_active, experts_shared, dense_layers, moe_intermediate_size or active_parameters_b`)
		}
	} else {
		switch {
		case m.ExpertsActive < 1 || m.ExpertsActive > m.ExpertsTotal:
			return fieldMust("experts_active", fmt.Sprintf("must be in [1, experts_total %d]", m.ExpertsTotal), m.ExpertsActive)
		case m.ExpertsShared < 0:
			return fieldMust("experts_shared", "must be >= 0", m.ExpertsShared)
		case m.DenseLayers < 0 || m.DenseLayers >= m.Layers:
			return fieldMust("dense_layers", fmt.Sprintf("must be in [0, layers %d)", m.Layers), m.DenseLayers)
		case m.MoEIntermediateSize <= 0:
			return fieldMust("moe_intermediate_size", "must be > 0 for a mixture-of-experts model", m.MoEIntermediateSize)
		case m.ActiveParametersB <= 0 || m.ActiveParametersB >= m.TotalParametersB:
			return fieldMust("active_parameters_b", "must be > 0 and below total_parameters_b for a mixture-of-experts model", m.ActiveParametersB)
		}
	}
	if dense := m.denseFFNLayers() > 0; dense != (m.IntermediateSize > 0) {
		return fieldMust("intermediate_size", "must be > 0 exactly when the model has dense FFN layers", m.IntermediateSize)
	}
	return nil
}

func (m *ModelPreset) validateAttention() error {
	if (m.Attention == AttentionMLA) != (m.MLA != nil) {
		return fmt.Errorf("field %q: present exactly when attention is %q (attention %q)", "mla", AttentionMLA, m.Attention)
	}
	switch m.Attention {
	case AttentionMLA:
		if m.KVHeads != 0 || m.HeadDim != 0 || m.AttentionOutputGate {
			return errors.New(`fields "kv_heads", "head_dim" and "attention_output_gate" do not apply to mla (the cache is one latent per token)`)
		}
		a := m.MLA
		for _, fv := range []namedValue{{"mla.kv_lora_rank", float64(a.KVLoRARank)}, {"mla.qk_rope_head_dim", float64(a.QKRopeHeadDim)},
			{"mla.qk_nope_head_dim", float64(a.QKNopeHeadDim)}, {"mla.v_head_dim", float64(a.VHeadDim)}} {
			if fv.v <= 0 {
				return fieldMust(fv.name, "must be > 0", fv.v)
			}
		}
		if a.QLoRARank < 0 {
			return fieldMust("mla.q_lora_rank", "must be >= 0 (0 = queries not compressed)", a.QLoRARank)
		}
		return nil
	case AttentionMHA, AttentionGQA, AttentionCSAHCA:
	default:
		return fmt.Errorf("field %q: must be one of %s, got %q", "attention", QuoteList([]string{AttentionMHA, AttentionGQA, AttentionMLA, AttentionCSAHCA}), m.Attention)
	}
	if m.HeadDim <= 0 {
		return fieldMust("head_dim", "must be > 0", m.HeadDim)
	}
	switch {
	case m.Attention == AttentionMHA && m.KVHeads != m.AttentionHeads:
		return fieldMust("kv_heads", fmt.Sprintf("must equal attention_heads (%d) for mha", m.AttentionHeads), m.KVHeads)
	case m.Attention == AttentionGQA && (m.KVHeads < 1 || m.KVHeads >= m.AttentionHeads || m.AttentionHeads%m.KVHeads != 0):
		return fieldMust("kv_heads", fmt.Sprintf("must divide attention_heads (%d) and be smaller for gqa", m.AttentionHeads), m.KVHeads)
	case m.KVHeads < 1:
		return fieldMust("kv_heads", "must be > 0", m.KVHeads)
	}
	return nil
}

func (m *ModelPreset) validateLayerKinds() error {
	if m.SlidingWindowLayers < 0 || (m.SlidingWindowLayers > 0) != (m.SlidingWindowTokens > 0) || m.SlidingWindowTokens < 0 {
		return fieldMust("sliding_window_tokens", "must be > 0 exactly when sliding_window_layers > 0", m.SlidingWindowTokens)
	}
	if la := m.LinearAttention; la != nil {
		if la.Kind != LinearAttentionGatedDeltaNet {
			return fmt.Errorf("field %q: must be %q, got %q", "linear_attention.kind", LinearAttentionGatedDeltaNet, la.Kind)
		}
		for _, fv := range []namedValue{{"linear_attention.layers", float64(la.Layers)}, {"linear_attention.key_heads", float64(la.KeyHeads)},
			{"linear_attention.value_heads", float64(la.ValueHeads)}, {"linear_attention.key_head_dim", float64(la.KeyHeadDim)},
			{"linear_attention.value_head_dim", float64(la.ValueHeadDim)}, {"linear_attention.conv_kernel", float64(la.ConvKernel)}} {
			if fv.v <= 0 {
				return fieldMust(fv.name, "must be > 0", fv.v)
			}
		}
	}
	if full := m.FullAttentionLayers(); full < 0 {
		return fieldMust("sliding_window_layers", fmt.Sprintf("sliding-window plus linear-attention layers exceed layers (%d)", m.Layers), m.SlidingWindowLayers)
	}
	if s := m.SparseAttention; s != nil && (s.IndexHeads <= 0 || s.IndexHeadDim <= 0 || s.IndexTopK <= 0) {
		return errors.New(`fields "sparse_attention.index_heads", "index_head_dim" and "index_topk" must be > 0`)
	}
	return nil
}

func (m *ModelPreset) validatePrecision() error {
	for _, fv := range []struct{ name, v string }{{"weight_precision", m.WeightPrecision}, {"expert_weight_precision", m.ExpertWeightPrecision}, {"fp4_attention_precision", m.FP4AttentionPrecision}} {
		if fv.v != "" && !validPrecisions[fv.v] {
			return fmt.Errorf("field %q: unknown precision %q (valid: %s)", fv.name, fv.v, strings.Join(Precisions, ", "))
		}
	}
	if m.ExpertWeightPrecision != "" && m.ExpertsTotal == 0 {
		return fmt.Errorf("field %q: only for mixture-of-experts models", "expert_weight_precision")
	}
	if p := m.FP4AttentionPrecision; p != "" && p != "bf16" && p != "fp16" {
		return fmt.Errorf("field %q: %q, want bf16 or fp16 (the unquantized projections run at the 16-bit peak)", "fp4_attention_precision", p)
	}
	return nil
}

// namedValue is a preset field and its value, for range checks.
type namedValue struct {
	name string
	v    float64
}

func fieldMust(field, cond string, got any) error {
	return fmt.Errorf("field %q: %s, got %v", field, cond, got)
}
