// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package perf

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// Hardware is a fixed hardware choice.
type Hardware struct {
	Accelerator *catalog.Accelerator
	// GPUs is the total number of accelerators.
	GPUs int
	// GPUsPerNode is the number of accelerators sharing a scale-up domain
	// (NVLink/Infinity Fabric/ICI); 0 = min(GPUs, 8).
	GPUsPerNode int
	// NetworkGbps is the scale-out bandwidth of one node in Gbit/s;
	// 0 = network.default_network_gbps_per_gpu × GPUsPerNode (a modern
	// RDMA cluster).
	NetworkGbps float64
	// Fabric is the scale-out network class; "" = derived from the
	// per-GPU bandwidth (≥ infiniband_min → infiniband, ≥ roce_min → roce,
	// otherwise none, i.e. TCP).
	Fabric catalog.Fabric
	// Layout pins the parallel layout (gpu_estimate.parallelism); zero
	// degrees are searched.
	Layout Parallelism
}

// Parallelism is a parallel layout: tensor, pipeline, expert, context and
// data-parallel degrees; 0 = the model chooses. For serving, Tensor is the
// GPUs of a tensor-parallel replica, Expert the width of a replica that
// runs attention data-parallel and its routed experts expert-parallel,
// Data the replicas.
type Parallelism struct {
	Tensor, Pipeline, Expert, Context, Data int
}

// Binding values: what limits the estimate.
const (
	BindCompute = "compute"
	BindHBM     = "hbm_bandwidth"
	BindNetwork = "network"
	BindMemory  = "memory"
	BindLatency = "latency"
)

// Estimate is the model's answer for one workload on one hardware choice.
type Estimate struct {
	// Fits reports whether weights, optimizer state and activations (or KV
	// cache for one request) fit the GPU memory under the best layout.
	Fits bool
	// MemoryPerGPUGB is the memory one GPU needs under the chosen layout.
	// Training: model states + activations; inference: weights + the KV
	// cache of one request + workspace (the minimum to serve). Excludes the
	// runtime reserve.
	MemoryPerGPUGB float64
	// UsableMemoryPerGPUGB is the GPU memory left after the runtime reserve.
	UsableMemoryPerGPUGB float64
	// MemoryShortfallGB is how much MemoryPerGPUGB exceeds the usable
	// memory (0 when it fits).
	MemoryShortfallGB float64

	// TokensPerSecond: training / fine-tuning: tokens processed per second
	// (no goodput loss); inference: the most output tokens/s all replicas
	// sustain within the latency limits.
	TokensPerSecond float64
	// Hours is the training / fine-tuning wall-clock time including goodput
	// losses (restarts, checkpoints). 0 for inference. Seconds is the same
	// time in seconds, unrounded.
	Hours, Seconds float64
	// GlobalBatchTokens is the global batch of a training or fine-tuning
	// job (workload.global_batch_tokens or its default).
	GlobalBatchTokens float64
	// Goodput is the fraction of wall-clock time doing useful training.
	Goodput float64
	// MFU is model-FLOPs utilisation: useful model FLOPs / (GPUs × dense
	// peak at the precision).
	MFU float64

	// Inference only. TTFTMs and TPOTMs are means; the latency limits
	// bound their 99th percentiles, TTFTP99Ms and TPOTP99Ms: the means
	// times the fitted p99/mean ratios (Params inference.latency).
	TTFTMs, TPOTMs       float64
	TTFTP99Ms, TPOTP99Ms float64
	// LongRequestMs is the time a request of output_tokens_p99 generated
	// tokens takes: the mean time to first token and its further tokens
	// at the mean time per output token (= the mean request's time
	// without an output spread).
	LongRequestMs float64
	Replicas      int // replicas the GPUs hold (decode workers when disaggregated)
	ReplicaGPUs   int // GPUs per replica (per decode worker)
	Batch         int // concurrent sequences per replica
	// ReplicasNeeded is the number of replicas needed for the workload's
	// tokens_per_second (0 when no target); MeetsTarget compares it with
	// Replicas.
	ReplicasNeeded int
	MeetsTarget    bool

	// ServingLayout is ServingAggregated or ServingDisaggregated
	// (inference only). Disaggregated: prefill workers (PrefillGPUs in
	// all) process prompts and the Replicas decode workers (DecodeGPUs in
	// all) generate; both are 0 when aggregated.
	ServingLayout           string
	PrefillGPUs, DecodeGPUs int
	// Serving details the serving estimate of a fitting inference
	// workload (nil otherwise): kept apart so estimates stay small in the
	// planner's memo.
	Serving *ServingDetail

	// Layout. GPUsUsed = TP·PP·DP (≤ GPUs; training may leave a remainder
	// idle when the count does not factor).
	TensorParallel, PipelineParallel, DataParallel int
	// ContextParallel and ExpertParallel: training's context-parallel
	// degree (1 = none) and the expert-parallel width of a mixture of
	// experts (training and serving; 0 or 1 = none).
	ContextParallel, ExpertParallel int
	GPUsUsed                        int
	Nodes                           int

	Binding     string
	Explanation string
}

// ServingDetail is the serving estimate beyond its headline figures.
type ServingDetail struct {
	// PrefillWorkers workers of PrefillWorkerGPUs GPUs prefill prompts
	// (0 when aggregated).
	PrefillWorkers, PrefillWorkerGPUs int
	// ExpertParallel is the expert-parallel width of a replica of a
	// mixture of experts: routed experts spread over that many GPUs with
	// data-parallel attention (0 = every weight tensor-parallel).
	ExpertParallel int
	// TokensPerStep is the output tokens one sequence emits per decode
	// step: 1, or more with speculative decoding.
	TokensPerStep float64
	// One GPU's memory at the chosen batch, and the shares (summing to 1)
	// of a decode iteration spent on routed-expert weight GEMMs, attention
	// (cache reads and score compute), communication, and everything else
	// (other weight GEMMs, per-layer overheads, drafting, interleaved
	// prefills).
	ExpertWeightsGB, OtherWeightsGB, KVCacheGB float64
	ExpertTime, AttentionTime                  float64
	CommunicationTime, OtherTime               float64
}

type hw struct {
	acc       *catalog.Accelerator
	gpus      int
	gpn       int
	domain    int          // GPUs of one scale-up (NVLink) domain (0 = the node); TP may span nodes inside it
	nicGBps   float64      // per-GPU scale-out bytes/s achieved in collectives
	fabric    fabricInfo   // the scale-out fabric between nodes
	fam       FamilyParams // the accelerator family's efficiencies
	linkBps   float64      // per-GPU scale-up bytes/s, one direction, achieved
	pcieBps   float64      // for PCIe cards: bytes/s of TP groups wider than 2 (0 = same as linkBps)
	usableGB  float64
	memBps    float64
	peakFlops float64 // datasheet dense peak at the precision
	// cmpFlops is the sustained tensor peak: peakFlops × the power-limit
	// factor (1 for full-power parts); attnFlops the same at 16 bits (the
	// precision attention-score math runs in).
	cmpFlops, attnFlops float64
	// mhaAttnFlops is the decode FLOP/s of a multi-head model's attention
	// scores on the CUDA cores (engineParams.MHADecodeAttentionFP32Fraction
	// of the power-limited FP32 peak); 0 = they run at attnFlops.
	mhaAttnFlops float64
	// engine is the serving-engine class of the accelerator's vendor
	// (Model.engine), resolved once per accelerator.
	engine engineParams
	// pcieTP: tensor-parallel groups wider than pcieTPMax GPUs talk over
	// PCIe (no NVLink between them).
	pcieTPMax int
}

// accInfo is the part of hw that depends on the accelerator and the
// precision only.
type accInfo struct {
	err       error // the precision error, if any
	peakFlops float64
	linkBps   float64
	pcieBps   float64
	pcieTPMax int
	cmpFlops  float64
	attnFlops float64
	// mhaAttnFlops, engine: see hw.
	mhaAttnFlops float64
	engine       engineParams
	usableGB     float64
	memBps       float64
	fam          FamilyParams
}

// accelerator computes the accelerator's part of normalize.
func (m *Model) accelerator(a *catalog.Accelerator, precision string) accInfo {
	peak, ok := a.PeakTFLOPS[precision]
	if !ok || peak <= 0 {
		return accInfo{err: &PrecisionError{Precision: precision, Accelerator: a.ID, Supported: SupportedPrecisions(a)}}
	}
	np := &m.p.Network
	ai := accInfo{peakFlops: peak * 1e12, fam: m.family(a)}
	link := a.InterconnectGBps
	if link <= 0 {
		link = np.PCIeFallbackGBps
	}
	ai.linkBps = link / 2 * 1e9 * np.ScaleUpEfficiency
	// PCIe cards talk over PCIe beyond their scale-up domain: cards bridged
	// in pairs by NVLink (H100 PCIe/NVL, A100 PCIe, A6000;
	// InterconnectNVLinkBridge, a domain of 2) from TP=4 on, cards without
	// any link (L40S, L4, A10, …; InterconnectPCIe, a domain of 1) from
	// TP=2 on. Every other kind links the whole domain.
	ai.pcieTPMax = math.MaxInt
	switch a.InterconnectKind {
	case catalog.InterconnectPCIe, catalog.InterconnectNVLinkBridge:
		ai.pcieBps = math.Min(np.PCIeFallbackGBps/2*1e9*np.ScaleUpEfficiency, ai.linkBps)
		ai.pcieTPMax = max(1, a.NVLinkDomainGPUs)
	}
	power := m.powerFactor(a, ai.fam)
	ai.cmpFlops = ai.peakFlops * power
	ai.attnFlops = ai.cmpFlops
	if p16 := halfPrecisionPeak(a); p16 > 0 && p16*1e12*power < ai.cmpFlops {
		ai.attnFlops = p16 * 1e12 * power
	}
	ai.engine = m.engine(a)
	ai.mhaAttnFlops = a.PeakTFLOPS["fp32"] * 1e12 * power * ai.engine.MHADecodeAttentionFP32Fraction
	reserve := math.Max(a.MemoryGB*m.p.Memory.RuntimeReserveFraction, m.p.Memory.RuntimeReserveMinGB)
	ai.usableGB = math.Max(0, a.MemoryGB-reserve)
	ai.memBps = a.MemoryBandwidthTBps * 1e12
	return ai
}

// normalizeWith validates the hardware and fills its defaults, taking the
// accelerator's part from p's memo when p is not nil (once the hardware
// itself is valid, so the errors come in the same order).
func (m *Model) normalizeWith(h Hardware, precision string, p *Prepared) (hw, error) {
	if h.Accelerator == nil {
		return hw{}, errors.New("perf: no accelerator given")
	}
	if h.GPUs < 1 {
		return hw{}, fmt.Errorf("perf: gpu_count must be at least 1, got %d", h.GPUs)
	}
	if h.GPUsPerNode < 0 || h.NetworkGbps < 0 || math.IsNaN(h.NetworkGbps) {
		return hw{}, errors.New("perf: gpus_per_node and network_gbps must not be negative")
	}
	if err := checkHardwareSize(h); err != nil {
		return hw{}, err
	}
	var ai *accInfo
	if p != nil {
		ai = p.accelerator(h.Accelerator)
	} else {
		v := m.accelerator(h.Accelerator, precision)
		ai = &v
	}
	if ai.err != nil {
		return hw{}, ai.err
	}
	x := hw{acc: h.Accelerator, gpus: h.GPUs, gpn: h.GPUsPerNode, peakFlops: ai.peakFlops}
	if x.gpn == 0 {
		x.gpn = min(h.GPUs, m.p.Search.DefaultGPUsPerNode)
	}
	x.domain = h.Accelerator.NVLinkDomainGPUs
	kind, perGPUGbps := m.scaleOut(h, x.gpn)
	fi, ok := m.fabrics[string(kind)]
	if !ok {
		fi.FabricParams, ok = m.p.Fabrics[string(kind)] // a Model built without newModel
		fi.kind = kind
	}
	if !ok {
		return hw{}, fmt.Errorf("perf: unknown fabric %q (want efa, infiniband, roce, ici or none)", kind)
	}
	x.fabric = fi
	x.nicGBps = perGPUGbps / bitsPerByte * 1e9 * fi.Efficiency
	x.linkBps, x.pcieBps, x.pcieTPMax = ai.linkBps, ai.pcieBps, ai.pcieTPMax
	x.cmpFlops, x.attnFlops, x.usableGB, x.memBps, x.fam = ai.cmpFlops, ai.attnFlops, ai.usableGB, ai.memBps, ai.fam
	x.mhaAttnFlops, x.engine = ai.mhaAttnFlops, ai.engine
	return x, nil
}

// scaleOut is the network between the nodes and its bandwidth per GPU,
// Gbit/s: the given fabric and bandwidth (network.default_gbps_per_gpu when
// none is given), the fabric class otherwise implied by the per-GPU
// bandwidth. TPU hosts of one slice are the exception: when the fabric is
// not given and the job fits in the accelerator's ICI domain (the pod,
// nvlink_domain_gpus), the hosts talk over the chips' own inter-chip
// interconnect, fabric ici, at the chip's ICI bandwidth (one direction of
// interconnect_gbps) unless a network bandwidth is given. A job larger than
// the pod is a multislice job whose slices talk over the data-centre
// network, so the bandwidth rule applies.
func (m *Model) scaleOut(h Hardware, gpn int) (catalog.Fabric, float64) {
	np := &m.p.Network
	perGPUGbps := np.DefaultGbpsPerGPU
	if h.NetworkGbps > 0 {
		perGPUGbps = h.NetworkGbps / float64(gpn)
	}
	a := h.Accelerator
	if h.Fabric == "" && a.InterconnectKind == catalog.InterconnectICI && h.GPUs <= a.NVLinkDomainGPUs {
		if h.NetworkGbps == 0 && a.InterconnectGBps > 0 {
			perGPUGbps = a.InterconnectGBps / 2 * bitsPerByte
		}
		return catalog.FabricICI, perGPUGbps
	}
	if h.Fabric != "" {
		return h.Fabric, perGPUGbps
	}
	switch {
	case perGPUGbps >= np.InfiniBandMinPerGPU:
		return catalog.FabricInfiniBand, perGPUGbps
	case perGPUGbps >= np.RoCEMinPerGPU:
		return catalog.FabricRoCE, perGPUGbps
	}
	return catalog.FabricNone, perGPUGbps
}

// bitsPerByte converts GB/s to Gbit/s (a unit, not a model constant).
const bitsPerByte = 8

// PrecisionError reports a precision the accelerator cannot run.
type PrecisionError struct {
	Precision   string
	Accelerator string
	Supported   []string
}

func (e *PrecisionError) Error() string {
	return fmt.Sprintf("precision %q is not supported by accelerator %s (supported: %s)",
		e.Precision, e.Accelerator, strings.Join(e.Supported, ", "))
}

// SupportedPrecisions lists the precisions with a dense peak in the
// catalog, in catalog.Precisions order.
func SupportedPrecisions(a *catalog.Accelerator) []string {
	var out []string
	for _, p := range catalog.Precisions {
		if a.PeakTFLOPS[p] > 0 {
			out = append(out, p)
		}
	}
	var extra []string
	for p, v := range a.PeakTFLOPS {
		if v > 0 && !slices.Contains(catalog.Precisions, p) {
			extra = append(extra, p)
		}
	}
	sort.Strings(extra)
	return append(out, extra...)
}

// Estimate prepares the workload (validation and defaults) and estimates
// it on one hardware choice: a shorthand for callers that estimate a
// workload once. Callers that estimate it several times Prepare it once.
// It returns an error only for unusable input: an invalid workload (an
// inputerr.List), no accelerator, a non-positive GPU count, or a precision
// the accelerator cannot run (*PrecisionError). A workload that does not
// fit is not an error: Fits is false.
func (m *Model) Estimate(w Workload, h Hardware) (Estimate, error) {
	p, err := m.Prepare(w, ValidateOptions{})
	if err != nil {
		return Estimate{}, err
	}
	return p.Estimate(h)
}

// VRAMRequiredGB is the total accelerator memory in GB (decimal) a workload
// of paramsB billion parameters needs on one device of unlimited size:
// training / full fine-tuning: 16 bytes/param of mixed-precision Adam state
// plus activations of one sequence of the default length with
// recomputation; lora/qlora (kind "fine_tuning" uses the default method,
// lora): frozen weights at the precision (4.5 bits for qlora) plus adapters
// and their optimizer state plus activations; inference: weights at the
// precision plus the KV cache of one default request (1,024 + 256 tokens).
// The runtime reserve is added on top (the result divided by 1 − reserve).
func (m *Model) VRAMRequiredGB(paramsB float64, precision, kind string) (float64, error) {
	p, err := m.Prepare(Workload{Kind: kind, ModelParametersB: paramsB, Precision: precision, TrainingTokensB: 1}, ValidateOptions{})
	if err != nil {
		return 0, err
	}
	var gb float64
	if p.w.Kind == KindInference {
		gb = m.minBytesPerGPU(&p.w, &p.shape, servingLayout{tp: 1, pp: 1}, m.kvBytesPerElement(p.w.Precision)) / 1e9
	} else {
		gb = m.trainingBytes(p.w, p.arch, layout{tp: 1, cp: 1, pp: 1, dp: 1, ep: 1}) / 1e9
	}
	return gb / (1 - m.p.Memory.RuntimeReserveFraction), nil
}

// minGPUsToFit returns the smallest GPU count (1, 2, 4 … gpusPerNode, then
// whole nodes) on which the prepared workload fits in memory, or 0 when it
// does not fit on search.max_nodes nodes or the accelerator cannot run the
// precision. gpusPerNode < 1 means search.default_gpus_per_node.
func (m *Model) minGPUsToFit(p *Prepared, acc *catalog.Accelerator, gpusPerNode int) int {
	s := &m.p.Search
	if gpusPerNode < 1 {
		gpusPerNode = s.DefaultGPUsPerNode
	}
	// Only the GPU count and the node size vary below; the usable memory
	// (all fitsOnly reads of the hardware besides them) does not depend on
	// either, so the accelerator is normalized once.
	x, err := m.normalizeWith(Hardware{Accelerator: acc, GPUs: 1, GPUsPerNode: 1}, p.w.Precision, p)
	if err != nil {
		return 0
	}
	fits := func(g int) bool {
		x.gpus, x.gpn = g, min(g, gpusPerNode)
		return m.fitsOnly(p, &x)
	}
	// 1, 2, 4 … below a node, then every node count up to
	// search.linear_nodes, then powers of two to search.max_nodes.
	for g := 1; g < gpusPerNode; g *= 2 {
		if fits(g) {
			return g
		}
	}
	for n := 1; n <= s.MaxNodes; {
		if fits(n * gpusPerNode) {
			return n * gpusPerNode
		}
		if n < s.LinearNodes {
			n++
		} else {
			n *= 2
		}
	}
	return 0
}

func (m *Model) fitsOnly(p *Prepared, x *hw) bool {
	return p.fits.least(m, p, x) <= x.usableGB*1e9
}

// fitMemo holds, per GPU count and node size (serving: scale-up domain),
// the least memory per GPU of any layout of a prepared workload, NaN when
// every layout's is NaN: a workload fits usable bytes per GPU exactly when
// some layout needs no more, that is when the least does. What a layout
// needs does not depend on the accelerator, so every accelerator of the
// size reads one enumeration.
type fitMemo struct {
	mu    sync.Mutex
	bytes map[[2]int]float64
}

// least is the least memory per GPU of any layout on hardware x.
func (fm *fitMemo) least(m *Model, p *Prepared, x *hw) float64 {
	k := [2]int{x.gpus, x.gpn}
	if p.w.Kind == KindInference {
		k[1] = x.scaleUp()
	}
	fm.mu.Lock()
	v, ok := fm.bytes[k]
	fm.mu.Unlock()
	if ok {
		return v
	}
	v = m.leastBytes(p, x)
	fm.mu.Lock()
	if fm.bytes == nil {
		fm.bytes = map[[2]int]float64{}
	}
	fm.bytes[k] = v
	fm.mu.Unlock()
	return v
}

// leastBytes is the least memory per GPU of the workload's layouts on
// hardware x (NaN ones left out; NaN when all are).
func (m *Model) leastBytes(p *Prepared, x *hw) float64 {
	least := math.NaN()
	keep := func(b float64) {
		if !math.IsNaN(b) && (math.IsNaN(least) || b < least) {
			least = b
		}
	}
	if p.w.Kind == KindInference {
		kvBytes := m.kvBytesPerElement(p.w.Precision)
		var buf [maxServingLayouts]servingLayout
		for _, l := range m.servingLayouts(x, &p.shape, buf[:0]) {
			keep(m.minBytesPerGPU(&p.w, &p.shape, l, kvBytes))
		}
		return least
	}
	mem := m.trainMemory(&p.w, &p.arch)
	for l := range m.trainingLayouts(x, &p.arch, p.w.SequenceLength, Parallelism{}, nil) {
		keep(mem.bytes(l))
	}
	return least
}

// exposed returns the fraction of extra time a communication phase adds
// when it takes ratio × the compute time and a fraction overlap of it can
// hide behind compute: max((1−overlap)·ratio, ratio − 1).
func exposed(ratio, overlap float64) float64 {
	return max((1-overlap)*ratio, ratio-1) // math.Max's NaN, infinity and zero rules, inlined
}

// tpLink is the per-GPU bytes/s available to a tensor-parallel group of
// size tp.
func (x hw) tpLink(tp int) float64 {
	if x.tpOverPCIe(tp) {
		return x.pcieBps
	}
	return x.linkBps
}

// tpOverPCIe reports whether a tensor-parallel group of tp GPUs
// communicates over PCIe rather than NVLink/fabric.
func (x hw) tpOverPCIe(tp int) bool { return tp > x.pcieTPMax && x.pcieBps > 0 }

// powerFactor is the sustained fraction of the datasheet tensor peak under
// the board power limit: (TDP / (full_clock_watts_per_bf16_tflop × BF16
// peak))^(1/clock_exponent), at most 1. Parts without a TDP or a family
// constant are not limited.
func (m *Model) powerFactor(a *catalog.Accelerator, fam FamilyParams) float64 {
	c := fam.FullClockWattsPerBF16TFLOP
	peak := a.PeakTFLOPS["bf16"]
	if peak <= 0 {
		peak = a.PeakTFLOPS["fp16"]
	}
	if c <= 0 || a.TDPWatts <= 0 || peak <= 0 {
		return 1
	}
	r := a.TDPWatts / (c * peak)
	if r >= 1 {
		return 1
	}
	return math.Pow(r, 1/m.p.Power.ClockExponent)
}

func (m *Model) bytesPer(precision string) float64 { return m.p.BytesPerElement[precision] }

// halfPrecisionPeak is the accelerator's dense 16-bit peak (bf16, else
// fp16), 0 when it has neither.
func halfPrecisionPeak(a *catalog.Accelerator) float64 {
	if p := a.PeakTFLOPS["bf16"]; p > 0 {
		return p
	}
	return a.PeakTFLOPS["fp16"]
}

// hardwareMax holds the most GPUs per instance and the most nodes the
// input limits allow, looked up once (they are embedded data; every
// estimate checks its hardware against them).
var hardwareMax = sync.OnceValue(func() (l struct {
	perNode, nodes float64
	ok             bool
}) {
	perNode, okNode := catalog.InputLimit(catalog.LimitGPUsPerInstance)
	nodes, okNodes := catalog.InputLimit(catalog.LimitNodeCount)
	l.perNode, l.nodes, l.ok = perNode.Max, nodes.Max, okNode && okNodes
	return l
})

// checkHardwareSize refuses hardware beyond the input limits: more GPUs
// per node than an instance can have, or more GPUs than the largest
// cluster a plan can ask about (the node-count limit times that). Layout
// searches double the tensor-parallel degree up to the node size, which
// must not overflow.
func checkHardwareSize(h Hardware) error {
	l := hardwareMax()
	if !l.ok {
		return errors.New("perf: the input limits failed to load")
	}
	if float64(h.GPUsPerNode) > l.perNode || float64(h.GPUs) > l.perNode*l.nodes {
		return fmt.Errorf("perf: %d GPUs, %d per node: more than %v per node or %v in all", h.GPUs, h.GPUsPerNode,
			l.perNode, l.perNode*l.nodes)
	}
	return nil
}
