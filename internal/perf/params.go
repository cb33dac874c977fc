// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package perf

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// FamilyParams are the achieved fractions of datasheet peaks for one
// accelerator architecture family.
type FamilyParams struct {
	// TrainMFU is the model-FLOPs utilisation of a large dense LLM training
	// job on one well-connected node, as a fraction of the dense BF16 peak.
	TrainMFU float64 `json:"train_mfu"`
	// PrefillEfficiency is the achieved fraction of the dense peak at the
	// serving precision while processing prompts.
	PrefillEfficiency float64 `json:"prefill_efficiency"`
	// DecodeComputeEfficiency is the achieved fraction of the dense peak when
	// decode is compute bound (very large batches).
	DecodeComputeEfficiency float64 `json:"decode_compute_efficiency"`
	// HBMEfficiency is the achieved fraction of the datasheet memory
	// bandwidth while streaming weights and KV cache in decode.
	HBMEfficiency float64 `json:"hbm_efficiency"`
	// FullClockWattsPerBF16TFLOP is the board power per dense BF16 TFLOP
	// of datasheet peak at which the family's full-power part (SXM/OAM)
	// sustains its datasheet clock under dense tensor load. A part with
	// less TDP per TFLOP (PCIe/NVL cards, L4) throttles; see
	// power.clock_exponent. 0 = no power limit modelled.
	FullClockWattsPerBF16TFLOP float64 `json:"full_clock_watts_per_bf16_tflop,omitempty"`
	// StepOverheadUSPerLayer replaces inference.step_overhead_us_per_layer
	// for the family when set: the fixed per-layer time of a decode step
	// (kernel launches and their tails) depends on the vendor's runtime.
	StepOverheadUSPerLayer float64 `json:"step_overhead_us_per_layer,omitempty"`
}

// FabricParams describe a scale-out network class.
type FabricParams struct {
	// LossPerNodeDoubling is the throughput lost per doubling of the node
	// count (stragglers, synchronisation, collective latency).
	LossPerNodeDoubling float64 `json:"loss_per_node_doubling"`
	// Efficiency is the achieved fraction of the NIC line rate in collectives.
	Efficiency float64 `json:"efficiency"`
}

type memoryParams struct {
	RuntimeReserveFraction      float64 `json:"runtime_reserve_fraction"`
	RuntimeReserveMinGB         float64 `json:"runtime_reserve_min_gb"`
	AdamBytesPerParam           float64 `json:"adam_bytes_per_param"`
	CheckpointBytesPerTokenHid  float64 `json:"checkpoint_bytes_per_token_hidden_layer"`
	WorkingBytesPerTokenHidden  float64 `json:"working_bytes_per_token_hidden"`
	Zero3GatheredLayers         float64 `json:"zero3_gathered_layers"`
	LoRAAdapterFraction         float64 `json:"lora_adapter_fraction"`
	AdapterStateBytesPerParam   float64 `json:"adapter_state_bytes_per_param"`
	QLoRABitsPerParam           float64 `json:"qlora_bits_per_param"`
	InferenceActBytesPerTokenHd float64 `json:"inference_activation_bytes_per_token_hidden"`
	KVMinBytesPerElement        float64 `json:"kv_min_bytes_per_element"`
	// IntegerWeightKVBytes is the KV-cache element size when the weights
	// are integer-quantised (int8/int4): weight-only quantisation keeps
	// activations and the KV cache in 16 bits.
	IntegerWeightKVBytes float64 `json:"integer_weight_kv_bytes_per_element"`
}

type architectureParams struct {
	LayersPerCubeRootParam float64 `json:"layers_per_cube_root_param"`
	MinLayers              int     `json:"min_layers"`
	HeadDim                int     `json:"head_dim"`
	DefaultKVHeads         int     `json:"default_kv_heads"`
	HiddenMultiple         int     `json:"hidden_multiple"`
}

type trainingParams struct {
	FlopsPerParamToken     float64 `json:"flops_per_param_token"`
	LoRAFlopsPerParamToken float64 `json:"lora_flops_per_param_token"`
	QLoRADequantOverhead   float64 `json:"qlora_dequant_overhead"`
	// LoRAMFUFactor is the share of the family's training MFU a LoRA or
	// QLoRA step reaches per model FLOP: the adapters' rank-r GEMMs and
	// their activations and gradients are memory-bound work the
	// lora_flops_per_param_token count omits.
	LoRAMFUFactor         float64 `json:"lora_mfu_factor"`
	SmallModelHalfParamsB float64 `json:"small_model_half_params_b"`
	GlobalBatchTokens     float64 `json:"global_batch_tokens"`
	// MinBatchTokensPerGPU grows the pre-training global batch with the
	// cluster (batch = max(GlobalBatchTokens, MinBatchTokensPerGPU × GPUs)),
	// as large runs do to keep every data-parallel rank and pipeline busy.
	MinBatchTokensPerGPU float64 `json:"min_batch_tokens_per_gpu"`
	PipelineInterleave   float64 `json:"pipeline_interleave"`
	TPCommOverlap        float64 `json:"tp_comm_overlap"`
	TPAllReducesPerLayer float64 `json:"tp_allreduces_per_layer_token"`
	DPCommOverlap        float64 `json:"dp_comm_overlap"`
	FineTuneBatchTokens  float64 `json:"fine_tuning_global_batch_tokens"`
	// BatchTokensBySize is the published pre-training global batch by model
	// size (the first entry whose max_params_b is not below the model's);
	// GlobalBatchTokens beyond the last.
	BatchTokensBySize []batchBySize `json:"global_batch_tokens_by_size"`
	// FineTuneMinBatchTokensPerGPU grows the fine-tuning batch with the
	// cluster like MinBatchTokensPerGPU does the pre-training one.
	FineTuneMinBatchTokensPerGPU float64 `json:"fine_tuning_min_batch_tokens_per_gpu"`
	// ContextParallelMinTokens: context parallelism splits a sequence
	// only while each rank keeps at least this many of its tokens.
	ContextParallelMinTokens float64 `json:"context_parallel_min_tokens"`
	// CPKVPassesPerToken is the ring-attention traffic per token in units
	// of its K and V elements; CPCommOverlap the share hidden behind
	// attention compute.
	CPKVPassesPerToken float64 `json:"cp_kv_passes_per_token"`
	CPCommOverlap      float64 `json:"cp_comm_overlap"`
	// MoEAllToAllPerTokenLayer is the all-to-all traffic of one token in
	// one MoE layer in units of k × hidden activations (dispatch and
	// combine, forward and backward); MoEAllToAllOverlap the share hidden
	// behind expert compute.
	MoEAllToAllPerTokenLayer float64 `json:"moe_all_to_all_per_token_layer"`
	MoEAllToAllOverlap       float64 `json:"moe_all_to_all_overlap"`
	// FP4GEMMTimeShare is the share of an FP8 training step spent in GEMMs
	// that FP4 training runs in FP4 (see Model.fp4TrainingSpeedup).
	FP4GEMMTimeShare float64 `json:"fp4_gemm_time_share"`
	// MemoryBytesPerTokenLayerHidden is the HBM traffic of a training
	// step's memory-bound kernels per token, layer and hidden unit (see
	// Model.baseMFU).
	MemoryBytesPerTokenLayerHidden float64 `json:"memory_bytes_per_token_layer_hidden"`
	Zero3TransfersPerStep          float64 `json:"zero3_transfers_per_step"`
	MemoryPressureThresh           float64 `json:"memory_pressure_threshold"`
	MemoryPressurePenalty          float64 `json:"memory_pressure_penalty"`
}

// batchBySize is one row of training.global_batch_tokens_by_size.
type batchBySize struct {
	MaxParamsB float64 `json:"max_params_b"`
	Tokens     float64 `json:"tokens"`
}

type networkParams struct {
	DefaultGbpsPerGPU   float64 `json:"default_network_gbps_per_gpu"`
	InfiniBandMinPerGPU float64 `json:"infiniband_min_gbps_per_gpu"`
	RoCEMinPerGPU       float64 `json:"roce_min_gbps_per_gpu"`
	ScaleUpEfficiency   float64 `json:"scale_up_efficiency"`
	PCIeFallbackGBps    float64 `json:"pcie_fallback_gbytes_per_s"`
}

type inferenceParams struct {
	// MaxBatch is the most sequences one attention instance (a tensor-
	// parallel group, or each rank of data-parallel attention) batches.
	MaxBatch             int     `json:"max_batch"`
	TPAllReduceLatencyUS float64 `json:"tp_allreduce_latency_us"`
	// PCIeAllReduceLatencyUS replaces TPAllReduceLatencyUS when the
	// tensor-parallel group talks over PCIe (no NVLink/fabric between the
	// GPUs of the group).
	PCIeAllReduceLatencyUS float64 `json:"pcie_allreduce_latency_us"`
	PPHopLatencyUS         float64 `json:"pp_hop_latency_us"`
	// PrefillBatchTokens is the prompt tokens one prefill batch
	// (chunked-prefill budget) processes: weights are read once per batch
	// and each routed expert sees its share of the batch's tokens.
	PrefillBatchTokens float64 `json:"prefill_batch_tokens"`
	// ActivationBytes is the element size of activations exchanged by
	// tensor-parallel all-reduces and pipeline hops (bf16).
	ActivationBytes float64 `json:"activation_bytes_per_element"`
	// StepOverheadUSPerLayer is the fixed time one decode step spends per
	// transformer layer beyond moving bytes and FLOPs (kernel launches
	// and their tails, synchronisation); MoEStepOverheadUSPerLayer is the
	// extra of a mixture-of-experts layer (routing, token permutation,
	// grouped GEMM launches).
	StepOverheadUSPerLayer    float64 `json:"step_overhead_us_per_layer"`
	MoEStepOverheadUSPerLayer float64 `json:"moe_step_overhead_us_per_layer"`
	// ExpertParallel: the all-to-all of expert parallelism.
	ExpertParallel expertParallelParams `json:"expert_parallel"`
	// ExpertGEMMRidgeFactor sets the efficiency of grouped expert GEMMs
	// with m tokens per expert: m / (m + factor·m_ridge) of the family's
	// sustained rate, where m_ridge = peak FLOP/s × bytes per expert
	// weight / (2 × achieved HBM bytes/s) is the roofline ridge of the
	// peak, the tokens at which multiplying an expert's weights at the
	// peak takes as long as loading them. At few tokens per expert the
	// GEMM then takes its math plus factor / (the family's decode
	// efficiency) times the load of the weights it touches: a factor
	// equal to that efficiency is a GEMM that loads and multiplies
	// without overlap; more, one that also loses time to routing,
	// permutation and expert load imbalance. (A ridge of the sustained
	// rate fitted worse: make fit score 0.337 against 0.323, 2026-12-03.)
	ExpertGEMMRidgeFactor float64 `json:"expert_gemm_ridge_factor"`
	// RooflineSerialFraction is the share of the smaller of a decode
	// kernel's memory and compute times that does not overlap the larger:
	// the kernel takes max(mem, cmp) + fraction × min(mem, cmp) (0 = the
	// roofline's max, 1 = the two in series). Near the ridge a GEMM neither
	// streams its weights at full bandwidth nor computes at full rate; far
	// from it the smaller term is small.
	RooflineSerialFraction float64 `json:"roofline_serial_fraction"`
	// Latency: the 99th percentile of each latency over its mean.
	Latency latencyParams `json:"latency"`
	// Speculative: default acceptance rate and draft length per method.
	Speculative map[string]speculativeDefaults `json:"speculative"`
	// Disaggregation: prefill and decode on separate workers.
	Disaggregation disaggregationParams `json:"disaggregation"`
	// Engines are the serving engines' limits per vendor (the catalog
	// accelerator's vendor, lower-cased; "default" for the others).
	Engines map[string]engineParams `json:"engines"`
	// PrefillOverheadMs is the fixed time one request's prompt adds
	// beyond its FLOPs (scheduling, KV-block allocation, the first
	// token's sampling): short prompts pay it, long ones hardly notice.
	PrefillOverheadMs float64 `json:"prefill_overhead_ms"`
	// ThroughputCurveInteractivity are the interactivity levels (output
	// tokens/s per user at the 99th-percentile time per output token) of
	// Prepared.ThroughputCurve.
	ThroughputCurveInteractivity []float64 `json:"throughput_curve_interactivity"`
}

// expertParallelParams describe the token all-to-all of expert
// parallelism: each MoE layer dispatches every token's activations to its
// experts and combines the results back.
type expertParallelParams struct {
	// LatencyUS is the fixed time of one all-to-all inside a scale-up
	// domain; FabricLatencyUS when it crosses the scale-out network.
	LatencyUS       float64 `json:"all_to_all_latency_us"`
	FabricLatencyUS float64 `json:"all_to_all_fabric_latency_us"`
	// DispatchBytes and CombineBytes are the element sizes sent (fp8
	// dispatch, bf16 combine).
	DispatchBytes float64 `json:"dispatch_bytes_per_element"`
	CombineBytes  float64 `json:"combine_bytes_per_element"`
}

// latencyParams: each latency limit bounds the 99th percentile. Time per
// output token: the model computes means and divides the limit by the
// fitted p99/mean ratio. Time to first token: its unloaded p99 is
// TTFTP99OverMeanUnloaded × the mean, plus the 99th-percentile wait for
// prefill at the replica's load (Poisson arrivals, ttftP99).
// TTFTP99OverMean, the median over all InferenceX rows, is a data fact
// the model no longer divides by: closed-loop clients that start
// together put their first wave into InferenceX's tails.
type latencyParams struct {
	TPOTP99OverMean            float64 `json:"tpot_p99_over_mean"`
	TPOTP99OverMeanSpeculative float64 `json:"tpot_p99_over_mean_speculative"`
	TTFTP99OverMean            float64 `json:"ttft_p99_over_mean"`
	TTFTP99OverMeanUnloaded    float64 `json:"ttft_p99_over_mean_unloaded"`
}

// speculativeDefaults are a speculative-decoding method's defaults.
type speculativeDefaults struct {
	AcceptanceRate float64 `json:"acceptance_rate"`
	DraftTokens    int     `json:"draft_tokens"`
}

// disaggregationParams tune disaggregated prefill/decode serving.
type disaggregationParams struct {
	// KVTransferEfficiency is the achieved fraction of the link (NVLink
	// or NIC) when a prompt's KV cache moves from a prefill to a decode
	// worker.
	KVTransferEfficiency float64 `json:"kv_transfer_efficiency"`
	// MinNodes: disaggregated deployments put prefill and decode workers
	// on separate nodes (scale-up domains); a deployment on fewer nodes
	// is served aggregated.
	MinNodes int `json:"min_nodes"`
}

// engineParams are one engine class's limits.
type engineParams struct {
	// Engines names the engines the class stands for (documentation).
	Engines string `json:"engines"`
	// MaxBatchPerDPRank caps the sequences each rank of data-parallel
	// attention batches (the engines' per-rank CUDA-graph / max-batch
	// settings); a tensor-parallel replica is capped by max_batch.
	MaxBatchPerDPRank int `json:"max_batch_per_dp_rank"`
	// Disaggregated reports whether the vendor's serving stack runs
	// prefill and decode on separate workers.
	Disaggregated bool `json:"disaggregated"`
	// BeamPromptReadsPerBeam reports whether, under beam search, each
	// beam's decode attention reads the whole prompt's cache: the prompt is
	// stored once and shared, but the attention kernel runs one thread
	// block per (head, beam) and reads its keys and values through the
	// beam's cache-indirection row, so the shared prompt is read once per
	// beam. False: the beams read the shared prompt once between them.
	BeamPromptReadsPerBeam bool `json:"beam_prompt_reads_per_beam"`
	// MHADecodeAttentionFP32Fraction: the decode attention of multi-head
	// models (one KV head per query head) runs on the CUDA cores, not the
	// tensor cores, at this fraction of the accelerator's FP32 peak
	// (TensorRT-LLM's masked multi-head attention kernel; its tensor-core
	// generation kernel, XQA, covers GQA and MQA). 0 = off: the score
	// math runs at the 16-bit tensor rate like every other model's.
	MHADecodeAttentionFP32Fraction float64 `json:"mha_decode_attention_fp32_fraction"`
}

type powerParams struct {
	// ClockExponent α: under a power cap the sustained tensor throughput
	// is (TDP / full-clock power)^(1/α) of the datasheet peak (dynamic
	// power ∝ f·V², V rising with f).
	ClockExponent float64 `json:"clock_exponent"`
}

// searchParams bound the layouts and node counts the model searches.
type searchParams struct {
	// DefaultGPUsPerNode is the node size assumed when a caller gives none.
	DefaultGPUsPerNode int `json:"default_gpus_per_node"`
	// LinearNodes and MaxNodes: the fewest GPUs that hold a workload are
	// searched over every node count up to LinearNodes, then powers of two
	// up to MaxNodes.
	LinearNodes int `json:"linear_nodes"`
	MaxNodes    int `json:"max_nodes"`
	// RelativeTolerance is the margin by which a value must beat the best
	// so far to replace it (ties keep the first), and the float error
	// forgiven before rounding a count up.
	RelativeTolerance float64 `json:"relative_tolerance"`
}

// explanationParams are display thresholds of the explanations; they
// change no number.
type explanationParams struct {
	// NetworkShareMention: mention network traffic when it adds more than
	// this fraction to a training step.
	NetworkShareMention float64 `json:"network_share_mention"`
	// PowerLimitMention: mention the board power limit when it holds
	// tensor throughput below this fraction of the datasheet peak.
	PowerLimitMention float64 `json:"power_limit_mention"`
	// TTFTP99SanityMs: an answer whose 99th-percentile time to first token
	// exceeds this gets a warning (FirstTokenWarning).
	TTFTP99SanityMs float64 `json:"ttft_p99_sanity_ms"`
}

type goodputParams struct {
	InterruptionsPerGPUHour  float64 `json:"interruptions_per_gpu_hour"`
	HoursLostPerInterruption float64 `json:"hours_lost_per_interruption"`
	CheckpointOverhead       float64 `json:"checkpoint_overhead_fraction"`
	CheckpointMinJobHours    float64 `json:"checkpoint_min_job_hours"`
}

// Params is the parsed content of perf_model.json. Every efficiency
// constant of the model lives here; see SOURCES.md for provenance.
type Params struct {
	Version               int                     `json:"version"`
	BytesPerElement       map[string]float64      `json:"bytes_per_element"`
	Memory                memoryParams            `json:"memory"`
	Architecture          architectureParams      `json:"architecture"`
	Families              map[string]FamilyParams `json:"families"`
	FamilyAliases         map[string]string       `json:"family_aliases"`
	LowPrecisionMFUFactor map[string]float64      `json:"low_precision_mfu_factor"`
	Training              trainingParams          `json:"training"`
	Fabrics               map[string]FabricParams `json:"fabrics"`
	Network               networkParams           `json:"network"`
	Inference             inferenceParams         `json:"inference"`
	Power                 powerParams             `json:"power"`
	Goodput               goodputParams           `json:"goodput"`
	Search                searchParams            `json:"search"`
	Explanation           explanationParams       `json:"explanation"`
	Vintage               vintageParams           `json:"software_vintage"`
}

// Model is the loaded benchmark model. It is immutable and safe for
// concurrent use.
type Model struct {
	p Params
	// fabrics is p.Fabrics with each fabric's node-count loss factor
	// precomputed (see newModel).
	fabrics map[string]fabricInfo
	// ref is p.Vintage.ReferenceDate, parsed.
	ref time.Time
}

// fabricInfo is a fabric: its kind, its parameters and its loss factor per
// node count: loss[n] = (1 − loss_per_node_doubling)^log2(n) for
// 2 ≤ n < len(loss), the same value trainLayout would compute.
type fabricInfo struct {
	kind catalog.Fabric
	FabricParams
	loss []float64
}

// lossTableNodes bounds the node counts whose loss factor is precomputed;
// larger layouts compute it.
const lossTableNodes = 256

func newModel(p Params) *Model {
	m := &Model{p: p, fabrics: make(map[string]fabricInfo, len(p.Fabrics))}
	m.ref, _ = p.Vintage.validate() // validated by Params.validate
	for name, fp := range p.Fabrics {
		fi := fabricInfo{kind: catalog.Fabric(name), FabricParams: fp, loss: make([]float64, lossTableNodes+1)}
		for n := 2; n <= lossTableNodes; n++ {
			fi.loss[n] = nodeLossFactor(fp.LossPerNodeDoubling, n)
		}
		m.fabrics[name] = fi
	}
	return m
}

// nodeLossFactor is the throughput factor of a layout spanning nodes > 1
// nodes: (1 − loss per doubling)^log2(nodes).
func nodeLossFactor(lossPerDoubling float64, nodes int) float64 {
	return math.Pow(1-lossPerDoubling, math.Log2(float64(nodes)))
}

var (
	defaultOnce  sync.Once
	defaultModel *Model
	defaultErr   error
)

// Builtin returns the model with the built-in constants of
// internal/catalog/data/perf_model.json, parsed once.
func Builtin() (*Model, error) {
	defaultOnce.Do(func() {
		raw, err := catalog.ReadDataFile("perf_model.json")
		if err != nil {
			defaultErr = fmt.Errorf("perf: reading perf_model.json: %w", err)
			return
		}
		defaultModel, defaultErr = Parse(raw)
	})
	return defaultModel, defaultErr
}

// Parse parses model constants in the perf_model.json format. It is
// exported for calibration tooling and tests that vary a constant.
func Parse(raw []byte) (*Model, error) {
	var p Params
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, fmt.Errorf("perf: parsing model constants: %w", err)
	}
	if err := p.validate(); err != nil {
		return nil, err
	}
	return newModel(p), nil
}

// Params returns a copy of the model constants (maps are shared; do not
// modify them).
func (m *Model) Params() Params { return m.p }

// WithParams returns a model using the given constants, after validation.
func WithParams(p Params) (*Model, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	return newModel(p), nil
}

func (p *Params) validate() error {
	if _, ok := p.Families["default"]; !ok {
		return fmt.Errorf("perf: model constants lack families.default")
	}
	for name, f := range p.Families {
		for _, v := range []float64{f.TrainMFU, f.PrefillEfficiency, f.DecodeComputeEfficiency, f.HBMEfficiency} {
			if !(v > 0 && v <= 1) {
				return fmt.Errorf("perf: family %q has an efficiency outside (0, 1]", name)
			}
		}
	}
	for _, prec := range catalog.Precisions {
		if p.BytesPerElement[prec] <= 0 {
			return fmt.Errorf("perf: bytes_per_element lacks %q", prec)
		}
		if p.LowPrecisionMFUFactor[prec] <= 0 {
			return fmt.Errorf("perf: low_precision_mfu_factor lacks %q", prec)
		}
	}
	for _, f := range []catalog.Fabric{catalog.FabricInfiniBand, catalog.FabricEFA, catalog.FabricRoCE, catalog.FabricNone} {
		if _, ok := p.Fabrics[string(f)]; !ok {
			return fmt.Errorf("perf: fabrics lacks %q", f)
		}
	}
	if p.Architecture.HeadDim <= 0 || p.Architecture.DefaultKVHeads <= 0 || p.Architecture.LayersPerCubeRootParam <= 0 {
		return fmt.Errorf("perf: architecture constants must be positive")
	}
	if p.Power.ClockExponent <= 0 {
		return fmt.Errorf("perf: power.clock_exponent must be positive")
	}
	if s := p.Search; s.DefaultGPUsPerNode < 1 || s.LinearNodes < 1 || s.MaxNodes < s.LinearNodes ||
		!(s.RelativeTolerance >= 0 && s.RelativeTolerance < 1e-3) {
		return fmt.Errorf("perf: search needs default_gpus_per_node >= 1, 1 <= linear_nodes <= max_nodes and 0 <= relative_tolerance < 1e-3")
	}
	if _, err := p.Vintage.validate(); err != nil {
		return err
	}
	if !(p.Training.LoRAMFUFactor > 0 && p.Training.LoRAMFUFactor <= 1) {
		return fmt.Errorf("perf: training.lora_mfu_factor must be in (0, 1]")
	}
	if p.Inference.MaxBatch < 1 || p.Training.GlobalBatchTokens <= 0 {
		return fmt.Errorf("perf: inference.max_batch and training.global_batch_tokens must be positive")
	}
	return p.Inference.validate()
}

func (ip *inferenceParams) validate() error {
	l := ip.Latency
	if !(l.TPOTP99OverMean >= 1 && l.TPOTP99OverMeanSpeculative >= 1 && l.TTFTP99OverMean >= 1 && l.TTFTP99OverMeanUnloaded >= 1) {
		return fmt.Errorf("perf: inference.latency p99/mean ratios must be at least 1")
	}
	for _, method := range SpeculativeMethods {
		d, ok := ip.Speculative[method]
		if !ok || !(d.AcceptanceRate > 0 && d.AcceptanceRate < 1) || d.DraftTokens < 1 {
			return fmt.Errorf("perf: inference.speculative.%s needs an acceptance_rate in (0, 1) and draft_tokens >= 1", method)
		}
	}
	if ip.ActivationBytes <= 0 || ip.ExpertGEMMRidgeFactor < 0 || !(ip.RooflineSerialFraction >= 0 && ip.RooflineSerialFraction <= 1) || ip.PrefillBatchTokens < 1 ||
		!(ip.Disaggregation.KVTransferEfficiency > 0 && ip.Disaggregation.KVTransferEfficiency <= 1) {
		return fmt.Errorf("perf: inference.activation_bytes_per_element, prefill_batch_tokens, expert_gemm_ridge_factor, roofline_serial_fraction (0 to 1) and disaggregation.kv_transfer_efficiency must be positive")
	}
	if d, ok := ip.Engines["default"]; !ok || d.MaxBatchPerDPRank < 1 {
		return fmt.Errorf("perf: inference.engines.default with max_batch_per_dp_rank >= 1 is required")
	}
	if len(ip.ThroughputCurveInteractivity) == 0 {
		return fmt.Errorf("perf: inference.throughput_curve_interactivity is empty")
	}
	return nil
}

// engine returns the serving-engine limits of an accelerator's vendor;
// estimates read it from hw.engine, resolved once per accelerator.
func (m *Model) engine(acc *catalog.Accelerator) engineParams {
	if e, ok := m.p.Inference.Engines[strings.ToLower(acc.Vendor)]; ok {
		return e
	}
	return m.p.Inference.Engines["default"]
}

// family returns the efficiency constants for an accelerator, resolving the
// catalog family through family_aliases and falling back to "default".
func (m *Model) family(acc *catalog.Accelerator) FamilyParams {
	key := strings.ToLower(acc.Family)
	if f, ok := m.p.Families[key]; ok {
		return f
	}
	if a, ok := m.p.FamilyAliases[key]; ok {
		if f, ok := m.p.Families[a]; ok {
			return f
		}
	}
	return m.p.Families["default"]
}
