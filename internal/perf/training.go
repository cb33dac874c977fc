// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package perf

import (
	"fmt"
	"iter"
	"math"
	"math/bits"
	"slices"
	"sync"

	"github.com/gpuplan/terraform-provider-gpu/internal/numfmt"
)

// layout is a parallel decomposition: tensor parallel inside a scale-up
// domain, context parallel (each sequence split over cp GPUs, attention by
// a ring exchange of keys and values), pipeline and data parallel; ep is
// the expert-parallel width of a mixture of experts (routed experts spread
// over ep data-parallel ranks, 1 otherwise).
type layout struct{ tp, cp, pp, dp, ep int }

func (l layout) gpus() int { return l.tp * l.cp * l.pp * l.dp }

var (
	ppDegrees = []int{1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128}
	cpDegrees = []int{1, 2, 4, 8, 16, 32}
)

// trainingLayouts enumerates TP ∈ {…,8,4,2,1} ≤ GPUs per node (TP never
// crosses a node; widest first, as the fastest layout usually has it, so
// the search's bound prunes the rest sooner), CP ∈ {1,2,4,…} while each
// rank keeps at least training.context_parallel_min_tokens of the
// sequence, PP up to the layer count, and DP filling all GPUs, the whole
// nodes, one node, or one replica (GPUs beyond the layout stay idle). A
// degree pinned in pin is used alone, whatever its value. It calls yield
// for each until yield returns false (an iterator, so enumerating neither
// allocates nor clears a buffer of every layout). A search narrows the
// enumeration through b (nil: every layout): see layoutBounds.
func (m *Model) trainingLayouts(x *hw, arch *Arch, seq int, pin Parallelism, b *layoutBounds) iter.Seq[layout] {
	return func(yield func(layout) bool) {
		minTok := m.p.Training.ContextParallelMinTokens
		top := 1
		for top*2 <= x.gpn && top*2 <= x.gpus {
			top *= 2
		}
		if pin.Tensor > 0 {
			top = pin.Tensor
		}
		// The GPU counts of the DP candidates that do not depend on the
		// degrees (pipelineLayouts adds one replica's).
		used := [3]int{x.gpus, x.gpus / x.gpn * x.gpn, min(x.gpn, x.gpus)}
		for tp := top; tp >= 1; tp /= 2 {
			cps := cpDegrees
			if pin.Context > 0 {
				cps = []int{pin.Context}
			}
			for _, cp := range cps {
				if tp*cp > x.gpus || (cp > 1 && float64(seq)/float64(cp) < minTok && pin.Context == 0) {
					break
				}
				if b != nil && b.group != nil && !b.group(tp, cp) {
					continue
				}
				if !pipelineLayouts(x, arch, tp, cp, pin, &used, b, yield) {
					return
				}
			}
			if pin.Tensor > 0 {
				return
			}
		}
	}
}

// layoutBounds narrows a layout enumeration while a search runs; the
// search updates it between layouts and the enumeration reads it before
// each TP × CP group and each layout.
type layoutBounds struct {
	// group reports whether a layout of the TP × CP group can still win;
	// false skips the group whole.
	group func(tp, cp int) bool
	// maxDP caps an unpinned data-parallel degree (the global batch's
	// sequences), applied after the DP candidates are told apart.
	maxDP int
	// minUsed: layouts on this many GPUs or fewer cannot win; they are not
	// yielded.
	minUsed int
}

// pipelineLayouts yields the pipeline and data-parallel degrees of one
// TP × CP group, DP from the GPU counts used; false when yield asked to
// stop.
func pipelineLayouts(x *hw, arch *Arch, tp, cp int, pin Parallelism, used *[3]int, b *layoutBounds, yield func(layout) bool) bool {
	pps := ppDegrees
	if pin.Pipeline > 0 {
		pps = []int{pin.Pipeline}
	}
	for _, pp := range pps {
		group := tp * cp * pp
		if group > x.gpus || pp > arch.Layers {
			break
		}
		if pp > 1 && tp < x.gpn && tp*pp > x.gpn && pin.Pipeline == 0 {
			// Pipeline stages that leave a node's NVLink unused for
			// TP are dominated by the layout with a larger TP.
			continue
		}
		// DP candidates (used): every GPU, whole nodes only (a partly
		// filled node drags the scale-out network in), one node only, or
		// one replica (no gradient traffic at all: over a slow network a
		// single deep pipeline beats any data-parallel width).
		seen := 0
		for _, u := range [4]int{used[0], used[1], used[2], group} {
			dp := u / group
			if pin.Data > 0 {
				dp = pin.Data
			}
			if dp < 1 || dp == seen || group*dp > x.gpus {
				continue
			}
			seen = dp
			if b != nil {
				if pin.Data == 0 && b.maxDP > 0 {
					dp = min(dp, b.maxDP)
				}
				if group*dp <= b.minUsed {
					continue
				}
			}
			if !yield(layout{tp: tp, cp: cp, pp: pp, dp: dp, ep: 1}) {
				return false
			}
		}
	}
	return true
}

// trainingBytes is the per-GPU memory of a training or fine-tuning job
// under a layout: model states sharded over every GPU (ZeRO-3 / FSDP), the
// gathered layers ZeRO-3 materialises, and activations of one micro-batch
// sequence with full recomputation (layer-input checkpoints for the
// in-flight micro-batches plus one layer's working set, split by TP with
// sequence parallelism).
func (m *Model) trainingBytes(w Workload, arch Arch, l layout) float64 {
	c := m.trainMemory(&w, &arch)
	return c.bytes(l)
}

// trainMem holds the layout-independent terms of trainingBytes, so a loop
// over layouts computes each once (with the same operations, in the same
// order, hence the same bits).
type trainMem struct {
	states   float64 // model states of all GPUs, before sharding
	gathered float64 // ZeRO-3 gathered layers (dp > 1), before the split by TP
	act      float64 // activations, before the split by TP
}

func (m *Model) trainMemory(w *Workload, arch *Arch) trainMem {
	mp := &m.p.Memory
	n := w.ModelParametersB * 1e9
	var states, gatherBytesPerParam float64
	adapters := mp.LoRAAdapterFraction * n * mp.AdapterStateBytesPerParam
	switch {
	case w.Kind == KindTraining || w.FineTuningMethod == MethodFull:
		states = mp.AdamBytesPerParam * n
		gatherBytesPerParam = m.bytesPer(w.Precision)
	case w.FineTuningMethod == MethodQLoRA:
		gatherBytesPerParam = mp.QLoRABitsPerParam / 8
		states = gatherBytesPerParam*n + adapters
	default: // lora
		gatherBytesPerParam = m.bytesPer(w.Precision)
		states = gatherBytesPerParam*n + adapters
	}
	s := float64(w.SequenceLength)
	h := float64(arch.Hidden)
	return trainMem{
		states:   states,
		gathered: mp.Zero3GatheredLayers * gatherBytesPerParam * n / float64(arch.Layers),
		act:      (mp.CheckpointBytesPerTokenHid*float64(arch.Layers) + mp.WorkingBytesPerTokenHidden) * s * h,
	}
}

// bytes is trainingBytes for one layout.
func (c *trainMem) bytes(l layout) float64 {
	total := c.states / float64(l.gpus())
	if l.dp*l.cp > 1 {
		total += c.gathered / float64(l.tp)
	}
	// Sequence parallelism splits the activations by TP, context
	// parallelism by CP.
	return total + c.act/float64(l.tp*l.cp)
}

// mayFit reports whether a layout of TP degree tp and CP degree cp on at
// most gpus GPUs may need no more than usable bytes per GPU: false only
// when even the states spread over all gpus GPUs, without gathered layers,
// plus the activations exceed it (bytes is never below that bound: each
// term is non-negative and IEEE division and addition are monotone).
func (c *trainMem) mayFit(tp, cp, gpus int, usable float64) bool {
	if !(c.states >= 0 && c.gathered >= 0 && c.act >= 0) {
		return true
	}
	return !(c.states/float64(gpus)+c.act/float64(tp*cp) > usable)
}

type trainResult struct {
	l                     layout
	bytes                 float64
	fits                  bool
	mfu, tokensPerS       float64
	tpExposed, dpExposed  float64
	cpExposed, a2aExposed float64
	nodes                 int
	ppBubble              float64
	commDominates         bool
}

// training estimates a training or fine-tuning workload; plans (nil:
// none) holds the prepared workload's layout plans.
func (m *Model) training(w Workload, x hw, s *shape, pin Parallelism, explain bool, plans *planCache) Estimate {
	arch := s.arch
	work := m.trainingWork(&w, &arch)
	base := m.baseMFU(&w, &x, &arch, work.hardware, work.perToken)
	batchTokens := m.TrainingBatchTokens(w, x.gpus)
	c := m.newTrainCtx(&w, &x, &arch, base, work.perToken, work.method, batchTokens)
	c.moe(s)
	var plan trainPlan
	if pin.IsZero() {
		plan = plans.plan(m, &c, &x, &arch, w.SequenceLength, !explain)
	}
	best, found := m.searchTraining(&c, &w, &x, &arch, pin, plan)
	if !found {
		return m.trainingMiss(&x, &best, explain)
	}
	est := m.trainingFit(&w, &x, work.method, &best, explain)
	est.GlobalBatchTokens = batchTokens
	return est
}

// trainingWork is what one token of a training or fine-tuning job costs.
type trainingWork struct {
	method   string  // full (pre-training too), lora or qlora
	perToken float64 // model FLOPs per token
	hardware float64 // hardware work per model FLOP (LoRA's adapter kernels, QLoRA's dequantisation)
}

// trainingWork counts the model FLOPs per token: flops_per_param_token ·
// N_active (LoRA: lora_flops_per_param_token · N_active plus full updates
// of the adapters), plus the attention term when the architecture is given.
func (m *Model) trainingWork(w *Workload, arch *Arch) trainingWork {
	tp := &m.p.Training
	nTotal := w.ModelParametersB * 1e9
	nAct := w.ActiveParametersB * 1e9
	work := trainingWork{method: MethodFull, perToken: tp.FlopsPerParamToken * nAct, hardware: 1}
	if w.Kind == KindFineTuning {
		work.method = w.FineTuningMethod
	}
	attn := 0.0
	if w.Layers > 0 && w.HiddenSize > 0 {
		// PaLM appendix B: 12·L·H·Q·T per token for forward+backward.
		attn = 12 * float64(arch.Layers) * float64(arch.Hidden) * float64(w.SequenceLength)
	}
	if work.method == MethodLoRA || work.method == MethodQLoRA {
		adapter := m.p.Memory.LoRAAdapterFraction * nTotal
		work.perToken = tp.LoRAFlopsPerParamToken*nAct + tp.FlopsPerParamToken*adapter
		attn *= tp.LoRAFlopsPerParamToken / tp.FlopsPerParamToken
		work.hardware = 1 / tp.LoRAMFUFactor
		if work.method == MethodQLoRA {
			work.hardware *= 1 + tp.QLoRADequantOverhead
		}
	}
	work.perToken += attn
	return work
}

// baseMFU is the MFU of the workload on one well-connected node before
// parallelism: the family's MFU at the precision, lower for small models
// and for power-limited parts (MFU stays relative to the datasheet peak).
func (m *Model) baseMFU(w *Workload, x *hw, arch *Arch, hardware, perToken float64) float64 {
	tp := &m.p.Training
	nAct := w.ActiveParametersB * 1e9
	base := x.fam.TrainMFU * m.p.LowPrecisionMFUFactor[w.Precision] / hardware
	if w.Precision == "fp4" { // the FP8 peak looked up for FP4 only
		if f8 := x.acc.PeakTFLOPS["fp8"] * 1e12; f8 > 0 && x.peakFlops > f8 {
			base = x.fam.TrainMFU * m.p.LowPrecisionMFUFactor["fp8"] / hardware * f8 / x.peakFlops * m.fp4TrainingSpeedup(f8/x.peakFlops)
		}
	}
	base *= nAct / (nAct + tp.SmallModelHalfParamsB*1e9)
	if w.Precision == "fp32" {
		// Full fp32 runs no tensor-core path; the dense fp32 peak is the
		// reference, reached about as well as bf16.
		base = x.fam.TrainMFU
	}
	base *= x.cmpFlops / x.peakFlops
	// The memory-bound kernels of a step (norms, residuals, activation
	// functions, casts, the optimizer) move training.memory_bytes_per_
	// token_layer_hidden bytes of HBM traffic per token, layer and hidden
	// unit while the GEMMs do ∝ hidden² FLOPs: their time adds to the
	// GEMMs', so parts with more bandwidth per FLOP (H200 over H100,
	// MI325X over MI300X) train faster at the same peak, and wide models
	// lose less of their step to them.
	if beta := tp.MemoryBytesPerTokenLayerHidden; beta > 0 && x.memBps > 0 && x.fam.HBMEfficiency > 0 && perToken > 0 {
		bytes := beta * float64(arch.Layers*arch.Hidden)
		base /= 1 + bytes*x.peakFlops*base/(x.memBps*x.fam.HBMEfficiency*perToken)
	}
	return base
}

// fp4TrainingSpeedup is FP4 training's speed over FP8 when FP4 GEMMs run
// ratio = fp8 peak / fp4 peak of the FP8 time: only the share
// training.fp4_gemm_time_share of an FP8 step runs in FP4 (published NVFP4
// recipes keep attention and the first and last layers in higher
// precision, and add quantisation work), Amdahl's law on the rest.
func (m *Model) fp4TrainingSpeedup(ratio float64) float64 {
	s := m.p.Training.FP4GEMMTimeShare
	return 1 / ((1 - s) + s*ratio)
}

// TrainingBatchTokens is the global batch of a training or fine-tuning job
// on gpus GPUs: workload.global_batch_tokens when set; otherwise the
// published batch for the model's size (pre-training) or the fine-tuning
// batch, grown with the cluster so that every data-parallel rank keeps
// training.min_batch_tokens_per_gpu tokens (fine-tuning:
// fine_tuning_min_batch_tokens_per_gpu), and at least one sequence.
func (m *Model) TrainingBatchTokens(w Workload, gpus int) float64 {
	tp := &m.p.Training
	seq := float64(max(1, w.SequenceLength))
	if w.GlobalBatchTokens > 0 {
		return math.Max(w.GlobalBatchTokens, seq)
	}
	if w.Kind == KindFineTuning {
		return math.Max(tp.FineTuneBatchTokens, tp.FineTuneMinBatchTokensPerGPU*float64(gpus))
	}
	base := tp.GlobalBatchTokens
	for _, b := range tp.BatchTokensBySize {
		if w.ModelParametersB <= b.MaxParamsB {
			base = b.Tokens
			break
		}
	}
	return math.Max(math.Max(base, seq), tp.MinBatchTokensPerGPU*float64(gpus))
}

// searchTraining returns the fastest layout that fits (found) or, when
// none fits, the layout with the least memory per GPU. With a plan (an
// unpinned search of a GPU count and node size searched before) it reads
// the plan's layouts instead of enumerating them; the layouts, their order
// and every number are the same.
func (m *Model) searchTraining(c *trainCtx, w *Workload, x *hw, arch *Arch, pin Parallelism, plan trainPlan) (trainResult, bool) {
	s := trainSearch{c: c, pin: pin, tol: m.p.Search.RelativeTolerance, usable: x.usableGB * 1e9}
	if plan.groups != nil {
		s.searchPlan(&plan)
	} else {
		// A data-parallel rank needs at least one sequence of the global
		// batch (context parallelism splits sequences, so it takes none).
		s.b.maxDP = max(1, int(c.seqs))
		s.b.group = s.groupCanWin
		for l := range m.trainingLayouts(x, arch, w.SequenceLength, pin, &s.b) {
			g := l.gpus()
			s.try(l, g, c.mem.bytes(l), c.bubble(l), (g+x.gpn-1)/x.gpn)
		}
	}
	if !s.haveBest {
		return s.leastShort, false
	}
	return s.best, true
}

// trainSearch is the state of one layout search: the best layout so far
// (replaced only by one faster by more than the tolerance, so the first of
// near-equal layouts in enumeration order wins), the least short one while
// none fits, and the bounds that narrow the rest of the enumeration.
type trainSearch struct {
	c                   *trainCtx
	pin                 Parallelism
	tol, usable         float64
	best, leastShort, r trainResult
	haveBest, haveShort bool
	b                   layoutBounds
}

// groupCanWin: once a layout fits, a TP × CP group none of whose layouts
// can fit or beat the best so far is skipped (trainCtx.groupCanWin).
func (s *trainSearch) groupCanWin(tp, cp int) bool {
	return !s.haveBest || s.c.groupCanWin(tp, cp, s.usable, s.best.tokensPerS*(1+s.tol))
}

// searchPlan tries the plan's layouts as the enumeration would yield them
// under the same bounds: a group skipped whole, the layouts on too few
// GPUs to win left out.
func (s *trainSearch) searchPlan(p *trainPlan) {
	start := 0
	for _, g := range p.groups {
		es := p.entries[start:g.end]
		start = int(g.end)
		tp, cp := int(g.tp), int(g.cp)
		if !s.groupCanWin(tp, cp) {
			continue
		}
		for i := range es {
			e := &es[i]
			pp, dp := int(e.pp), int(e.dp)
			used := tp * cp * pp * dp
			if used <= s.b.minUsed {
				continue
			}
			s.try(layout{tp: tp, cp: cp, pp: pp, dp: dp, ep: 1}, used, e.bytes, e.bubble, int(e.nodes))
		}
	}
}

// try considers layout l, whose GPUs (l.gpus()), per-GPU memory, pipeline
// bubble and node count are given.
func (s *trainSearch) try(l layout, gpus int, bytes, bubble float64, nodes int) {
	c := s.c
	// Every factor after the base MFU can only lower it (c.prune): a
	// layout whose GPUs at the base MFU cannot beat the best so far is
	// skipped before anything is computed.
	if s.haveBest && c.prune && !(float64(gpus)*c.maxPerGPU > s.best.tokensPerS*(1+s.tol)) {
		return
	}
	if c.experts > 0 { // a mixture of experts (dense: ep 1, as enumerated)
		l.ep = c.expertParallel(l, s.pin)
		if l.ep > 1 && l.dp%l.ep != 0 {
			return // a pinned expert degree must divide the data-parallel ranks
		}
	}
	// Memory first: a layout that does not fit only competes for the
	// smallest shortfall, which needs its bytes alone.
	if !(bytes <= s.usable) {
		if !s.haveShort || bytes < s.leastShort.bytes {
			s.leastShort = trainResult{l: l, bytes: bytes, nodes: nodes}
			s.haveShort = true
		}
		return
	}
	// A layout that cannot beat the best so far is not finished
	// (trainCtx.layout returns false); it would not have replaced it.
	bar := math.NaN()
	if s.haveBest {
		bar = s.best.tokensPerS * (1 + s.tol)
	}
	if !c.layout(l, gpus, bytes, bubble, nodes, bar, &s.r) {
		return
	}
	if !s.haveBest || s.r.tokensPerS > s.best.tokensPerS*(1+s.tol) {
		s.best, s.haveBest = s.r, true
		if c.prune {
			s.b.minUsed = prunedGPUs(c.maxPerGPU, s.best.tokensPerS*(1+s.tol), c.x.gpus)
		}
	}
}

// trainPlan is what a layout search reads that depends on the workload,
// the GPU count and the node size only, not on the accelerator or the
// network: the unpinned layouts in enumeration order (DP capped by the
// global batch), TP × CP group by group, with their memory per GPU,
// pipeline bubble and node count. The planner estimates one workload on
// many accelerators and networks of the same size; Prepared keeps a plan
// per size from its second search on. The zero plan is none.
type trainPlan struct {
	groups  []planGroup
	entries []planEntry
}

// planGroup is one TP × CP group of a plan: its layouts are the entries
// from the previous group's end (0 for the first) to end.
type planGroup struct{ tp, cp, end int32 }

// planEntry is one layout of a plan, the TP and CP degrees its group's
// and the GPUs it uses (tp·cp·pp·dp) computed: kept small (24 bytes),
// since a plan is kept per GPU count and node size of a recommendation
// and what one allocates is what the garbage collector's work grows with.
type planEntry struct {
	bytes, bubble float64
	dp            int32
	pp, nodes     uint16
}

// planScratch holds the layouts and groups of plans being enumerated; a
// plan keeps exact-size copies.
var planScratch = sync.Pool{New: func() any { return new(trainPlan) }}

// newTrainPlan enumerates the unpinned layouts of hardware x (the search
// context c holds the workload's memory terms and batch); none when a
// GPU count does not fit in 32 bits or a node count in 16.
func (m *Model) newTrainPlan(c *trainCtx, x *hw, arch *Arch, seq int) trainPlan {
	if x.gpus > math.MaxInt32 || (x.gpus+x.gpn-1)/x.gpn > math.MaxUint16 {
		return trainPlan{}
	}
	buf, _ := planScratch.Get().(*trainPlan)
	gs, es := buf.groups[:0], buf.entries[:0]
	b := layoutBounds{maxDP: max(1, int(c.seqs))}
	for l := range m.trainingLayouts(x, arch, seq, Parallelism{}, &b) {
		if n := len(gs); n == 0 || int32(l.tp) != gs[n-1].tp || int32(l.cp) != gs[n-1].cp {
			gs = append(gs, planGroup{tp: int32(l.tp), cp: int32(l.cp)})
		}
		// pp is one of ppDegrees (at most 128), the nodes at most the
		// node count checked above.
		es = append(es, planEntry{pp: uint16(l.pp), dp: int32(l.dp), nodes: uint16((l.gpus() + x.gpn - 1) / x.gpn),
			bytes: c.mem.bytes(l), bubble: c.bubble(l)})
		gs[len(gs)-1].end = int32(len(es))
	}
	p := trainPlan{groups: slices.Clone(gs), entries: slices.Clone(es)}
	buf.groups, buf.entries = gs, es
	planScratch.Put(buf)
	return p
}

// prunedGPUs is the largest GPU count g ≤ limit for which a layout on g
// GPUs or fewer cannot beat bar at m tokens/s per GPU, that is
// !(float64(g')·m > bar) for every g' ≤ g (0 when even one GPU may).
// The product rounds monotonically in g for a finite m > 0; any other m
// prunes nothing here.
func prunedGPUs(m, bar float64, limit int) int {
	if !(m > 0) || math.IsInf(m, 1) {
		return 0
	}
	pruned := func(g int) bool { return !(float64(g)*m > bar) }
	g := limit
	if q := bar / m; q >= 0 && q < float64(limit) {
		g = int(q)
	}
	for g < limit && pruned(g+1) {
		g++
	}
	for g > 0 && !pruned(g) {
		g--
	}
	return g
}

// trainingMiss is the estimate of a workload that fits no layout: the
// least demanding layout's memory and shortfall.
func (m *Model) trainingMiss(x *hw, r *trainResult, explain bool) Estimate {
	est := Estimate{UsableMemoryPerGPUGB: x.usableGB, Goodput: 1, Binding: BindMemory}
	est.MemoryPerGPUGB = r.bytes / 1e9
	est.MemoryShortfallGB = est.MemoryPerGPUGB - x.usableGB
	est.TensorParallel, est.PipelineParallel, est.DataParallel = r.l.tp, r.l.pp, r.l.dp
	est.ContextParallel, est.ExpertParallel = r.l.cp, r.l.ep
	est.GPUsUsed, est.Nodes = r.l.gpus(), r.nodes
	if explain {
		est.Explanation = fmt.Sprintf("does not fit: needs %s GB per GPU even with TP=%d, PP=%d over %d× %s, %s GB more than the %s GB usable",
			numfmt.Short(est.MemoryPerGPUGB), r.l.tp, r.l.pp, x.gpus, x.acc.ID, numfmt.Short(est.MemoryShortfallGB), numfmt.Short(x.usableGB))
	}
	return est
}

// trainingFit is the estimate of the fastest layout r: throughput, MFU and
// the wall-clock including the goodput loss of interruptions and
// checkpoints.
func (m *Model) trainingFit(w *Workload, x *hw, method string, r *trainResult, explain bool) Estimate {
	est := Estimate{Fits: true, UsableMemoryPerGPUGB: x.usableGB, Binding: BindCompute}
	est.MemoryPerGPUGB = r.bytes / 1e9
	est.TensorParallel, est.PipelineParallel, est.DataParallel = r.l.tp, r.l.pp, r.l.dp
	est.ContextParallel, est.ExpertParallel = r.l.cp, r.l.ep
	est.GPUsUsed, est.Nodes = r.l.gpus(), r.nodes
	est.MFU = r.mfu
	est.TokensPerSecond = r.tokensPerS
	rawHours := w.TrainingTokensB * 1e9 / r.tokensPerS / 3600
	gp := m.p.Goodput
	overhead := gp.InterruptionsPerGPUHour * float64(r.l.gpus()) * gp.HoursLostPerInterruption
	if rawHours >= gp.CheckpointMinJobHours {
		overhead += gp.CheckpointOverhead
	}
	est.Goodput = 1 / (1 + overhead)
	est.Hours = rawHours * (1 + overhead)
	est.Seconds = est.Hours * 3600
	if r.commDominates {
		est.Binding = BindNetwork
	}
	if explain {
		est.Explanation = m.trainingExplanation(*w, *x, method, r, &est)
	}
	return est
}

// trainingExplanation is the Explanation of a training estimate that fits.
func (m *Model) trainingExplanation(w Workload, x hw, method string, r *trainResult, est *Estimate) string {
	what := "training"
	if w.Kind == KindFineTuning {
		what = method + " fine-tuning"
	}
	var b []string
	lay := fmt.Sprintf("TP=%d, PP=%d, DP=%d", r.l.tp, r.l.pp, r.l.dp)
	if r.l.cp > 1 {
		lay += fmt.Sprintf(", CP=%d", r.l.cp)
	}
	if r.l.ep > 1 {
		lay += fmt.Sprintf(", EP=%d", r.l.ep)
	}
	b = append(b, fmt.Sprintf("%s at %s MFU with %s on %d× %s", what, numfmt.Percent(r.mfu), lay, r.l.gpus(), x.acc.ID))
	if r.nodes > 1 {
		b = append(b, fmt.Sprintf("%d nodes over %s", r.nodes, x.fabric.kind))
	}
	if r.commDominates {
		b = append(b, "communication dominates: inter-node gradient/parameter traffic takes longer than compute, so more GPUs add little or nothing")
	} else if r.dpExposed > m.p.Explanation.NetworkShareMention {
		b = append(b, "network traffic adds "+numfmt.Percent(r.dpExposed))
	}
	if pf := x.cmpFlops / x.peakFlops; pf < m.p.Explanation.PowerLimitMention {
		b = append(b, fmt.Sprintf("the %.0f W board limit holds tensor throughput to %s of the datasheet peak", x.acc.TDPWatts, numfmt.Percent(pf)))
	}
	if r.l.gpus() < x.gpus {
		b = append(b, fmt.Sprintf("%d of %d GPUs idle (count does not factor)", x.gpus-r.l.gpus(), x.gpus))
	}
	b = append(b, fmt.Sprintf("%s tokens/s, %s h incl. %s goodput loss", numfmt.Int(r.tokensPerS), numfmt.Short(est.Hours), numfmt.Percent(1-est.Goodput)))
	return joinClauses(b)
}

// trainCtx holds what the layouts of one training estimate share: the
// layout-independent terms of trainingBytes and trainLayout, computed once
// with the same operations in the same order (hence the same bits), and
// memos of the terms that depend on the TP degree or the node count only.
type trainCtx struct {
	m              *Model
	x              *hw
	tp             *trainingParams
	mem            trainMem
	base, perToken float64
	hidden, seqs   float64
	dpVol          float64 // ZeRO-3 bytes per step before the split by TP·PP
	dpVolExperts   float64 // the routed experts' share of dpVol
	cpPerToken     float64 // context-parallel ring bytes per token, before (cp−1)/cp
	a2aPerToken    float64 // expert-parallel all-to-all bytes per token, before (ep−1)/ep
	experts        int     // routed experts per MoE layer (0: dense, or unknown)
	compNum        float64 // perToken · batchTokens
	tpDone         [8]bool // tpExp/tpDom computed, per log2(TP)
	tpExp          [8]float64
	tpDom          [8]bool
	lossNodes      [4]int // node counts of lossFactor, 0 = empty
	lossFactor     [4]float64
	prune          bool // the model's constants make every term after PP non-increasing
	// maxPerGPU bounds any layout's tokens/s per GPU (the base MFU, a
	// hair above it so rounding cannot put a layout over the bound).
	maxPerGPU float64
}

func (m *Model) newTrainCtx(w *Workload, x *hw, arch *Arch, base, perToken float64, method string, batchTokens float64) trainCtx {
	tp := &m.p.Training
	c := trainCtx{m: m, x: x, tp: tp, mem: m.trainMemory(w, arch), base: base, perToken: perToken,
		hidden: float64(arch.Hidden), seqs: batchTokens / float64(w.SequenceLength)}
	n := w.ModelParametersB * 1e9
	transfers := tp.Zero3TransfersPerStep
	bytesPerParam := m.bytesPer(w.Precision)
	if method == MethodLoRA || method == MethodQLoRA {
		transfers-- // frozen weights: no gradient reduce-scatter
		if method == MethodQLoRA {
			bytesPerParam = m.p.Memory.QLoRABitsPerParam / 8
		}
	}
	c.dpVol = transfers * bytesPerParam * n
	c.compNum = perToken * batchTokens
	c.maxPerGPU = x.peakFlops * base / perToken * (1 + 1e-12)
	// Ring attention passes every rank's keys and values around the
	// context-parallel group: forward once, backward the keys and values
	// again with their gradients (cp_kv_passes_per_token × the cache
	// elements of one token, at the activation precision).
	kv := float64(2 * arch.Layers * max(1, arch.KVHeads) * arch.HeadDim)
	c.cpPerToken = tp.CPKVPassesPerToken * kv * m.p.Inference.ActivationBytes
	// Pruning a layout by the throughput it has after TP and PP is exact
	// only when the later factors (data-parallel exposure, node-count loss,
	// memory pressure) can only lower the MFU.
	c.prune = base > 0 && perToken > 0 && x.peakFlops > 0 &&
		tp.DPCommOverlap >= 0 && tp.DPCommOverlap <= 1 && c.dpVol >= 0 && c.compNum >= 0 &&
		tp.CPCommOverlap >= 0 && tp.CPCommOverlap <= 1 && tp.MoEAllToAllOverlap >= 0 && tp.MoEAllToAllOverlap <= 1 &&
		x.linkBps >= 0 && x.nicGBps >= 0 &&
		tp.PipelineInterleave > 0 && tp.MemoryPressurePenalty >= 0 && tp.MemoryPressureThresh < 1 &&
		x.fabric.LossPerNodeDoubling >= 0 && x.fabric.LossPerNodeDoubling <= 1
	return c
}

// moe records a mixture of experts' routing: the routed experts, their
// share of the ZeRO-3 traffic (each expert-parallel rank holds whole
// experts, so it gathers and reduces only its own), and the all-to-all of
// each MoE layer: every token's activations are dispatched to its k
// experts and combined back, forward and backward.
func (c *trainCtx) moe(s *shape) {
	if s.experts == 0 || s.params <= 0 {
		return
	}
	c.experts = s.experts
	c.dpVolExperts = c.dpVol * s.expertParams / s.params
	c.a2aPerToken = c.tp.MoEAllToAllPerTokenLayer * float64(s.moeLayers*s.expertsUsed*s.arch.Hidden) * c.m.p.Inference.ActivationBytes
}

// expertParallel is the expert-parallel width of layout l: the pinned
// width, else the widest power of two that divides the data-parallel
// ranks, keeps the all-to-all inside the scale-up domain and has an expert
// for each rank (1 for dense models).
func (c *trainCtx) expertParallel(l layout, pin Parallelism) int {
	if c.experts == 0 {
		return 1
	}
	if pin.Expert > 0 {
		return pin.Expert
	}
	room := max(1, c.x.scaleUp()/(l.tp*l.cp))
	ep := 1
	for ep*2 <= c.experts && ep*2 <= room && l.dp%(ep*2) == 0 {
		ep *= 2
	}
	return ep
}

// groupCanWin reports whether a layout of TP degree tp and CP degree cp
// may fit in usable bytes per GPU (trainMem.mayFit) and exceed bar
// tokens/s. It says no only when that is certain: when pruning is exact,
// such a layout runs at most x.gpus GPUs at the base MFU after the TP term (the pipeline
// bubble, the data-, context- and expert-parallel exposures, the
// node-count loss and memory pressure only lower it; a hair of margin
// covers rounding).
func (c *trainCtx) groupCanWin(tp, cp int, usable, bar float64) bool {
	if !c.mem.mayFit(tp, cp, c.x.gpus, usable) {
		return false
	}
	if !c.prune {
		return true
	}
	g := float64(c.x.gpus)
	mfu := c.base
	if tp > 1 {
		e, _ := c.tpTerms(tp)
		mfu /= 1 + e
	}
	return !(mfu > 0) || g*c.x.peakFlops*mfu/c.perToken*(1+1e-12) > bar
}

// tpTerms returns the TP exposure and whether TP communication dominates
// (trainLayout's tensor-parallel step), memoized per TP degree.
func (c *trainCtx) tpTerms(tpDeg int) (float64, bool) {
	i := bits.TrailingZeros(uint(tpDeg))
	if tpDeg&(tpDeg-1) != 0 || i >= len(c.tpDone) {
		return c.tpCompute(tpDeg)
	}
	if !c.tpDone[i] {
		c.tpExp[i], c.tpDom[i] = c.tpCompute(tpDeg)
		c.tpDone[i] = true
	}
	return c.tpExp[i], c.tpDom[i]
}

// tpCompute: all-reduces of the b·s·h activations per layer over the
// scale-up link vs the layer's matmul time.
func (c *trainCtx) tpCompute(tpDeg int) (float64, bool) {
	tp, x := c.tp, c.x
	t := float64(tpDeg)
	h := c.hidden
	commPerTokLayer := tp.TPAllReducesPerLayer * 2 * (t - 1) / t * h * 2 / x.tpLink(tpDeg)
	compPerTokLayer := tp.FlopsPerParamToken * 12 * h * h / t / (x.peakFlops * c.base)
	return exposed(commPerTokLayer/compPerTokLayer, tp.TPCommOverlap), commPerTokLayer > compPerTokLayer
}

// nodeLoss is the throughput factor of a layout spanning nodes > 1 nodes:
// from the fabric's precomputed table, else memoized for the few node
// counts of one estimate.
func (c *trainCtx) nodeLoss(nodes int) float64 {
	if nodes < len(c.x.fabric.loss) {
		return c.x.fabric.loss[nodes]
	}
	for i, n := range c.lossNodes {
		if n == nodes {
			return c.lossFactor[i]
		}
	}
	f := nodeLossFactor(c.x.fabric.LossPerNodeDoubling, nodes)
	copy(c.lossNodes[1:], c.lossNodes[:3])
	copy(c.lossFactor[1:], c.lossFactor[:3])
	c.lossNodes[0], c.lossFactor[0] = nodes, f
	return f
}

// bubble is the pipeline bubble of layout l: (p−1)/(v·m) with m
// micro-batches per DP rank; 0 without pipeline stages.
func (c *trainCtx) bubble(l layout) float64 {
	if l.pp <= 1 {
		return 0
	}
	micro := max(1, c.seqs/float64(l.dp))
	return float64(l.pp-1) / (c.tp.PipelineInterleave * micro)
}

// layout estimates one layout of gpus GPUs (l.gpus()) whose per-GPU
// memory is bytes, pipeline bubble bubble and node count nodes into r. When
// pruning is exact and the throughput after the TP and PP terms is already
// not above bar (NaN = no bar), it stops early and returns false, r left
// as it was: the finished layout could not exceed bar either.
func (c *trainCtx) layout(l layout, gpus int, bytes, bubble float64, nodes int, bar float64, r *trainResult) bool {
	tp, x := c.tp, c.x
	g := float64(gpus)
	mfu := c.base

	// Tensor parallel.
	var tpExposed, ppBubble float64
	var dom bool
	if l.tp > 1 {
		tpExposed, dom = c.tpTerms(l.tp)
		mfu /= 1 + tpExposed
	}
	if l.pp > 1 {
		ppBubble = bubble
		mfu /= 1 + ppBubble
	}
	var loss float64
	if nodes > 1 {
		loss = c.nodeLoss(nodes)
	}
	if c.prune && !math.IsNaN(bar) && mfu > 0 && !(loss > 1) && !(g*x.peakFlops*mfu/c.perToken > bar) {
		return false
	}
	// Field by field (every one is set here, once the layout is not cut
	// short): the search reuses r.
	r.l, r.bytes, r.fits, r.nodes = l, bytes, bytes <= x.usableGB*1e9, nodes
	r.tpExposed, r.dpExposed, r.cpExposed, r.a2aExposed, r.ppBubble, r.commDominates = tpExposed, 0, 0, 0, ppBubble, dom
	mfu = c.dataParallel(l, g, r, mfu)
	if r.nodes > 1 {
		mfu *= loss
	}
	if u := r.bytes / (x.usableGB * 1e9); r.fits && u > tp.MemoryPressureThresh {
		mfu *= 1 - tp.MemoryPressurePenalty*(u-tp.MemoryPressureThresh)/(1-tp.MemoryPressureThresh)
	}
	r.mfu = mfu
	r.tokensPerS = g * x.peakFlops * mfu / c.perToken
	return true
}

// dataParallel applies the communication that scales with the data- and
// context-parallel ranks to the MFU: ZeRO-3 traffic per step (routed
// experts only within their data-parallel replicas), the context-parallel
// ring and the expert-parallel all-to-all, each against the compute it
// overlaps. g is the layout's GPUs.
func (c *trainCtx) dataParallel(l layout, g float64, r *trainResult, mfu float64) float64 {
	tp, x := c.tp, c.x
	if d := float64(l.dp * l.cp); d > 1 {
		vol := (c.dpVol - c.dpVolExperts*(1-1/float64(l.ep))) / float64(l.tp*l.pp) * (d - 1) / d
		bw := x.linkBps
		if r.nodes > 1 {
			bw = x.nicGBps
		}
		ratio := vol / bw / (c.compNum / (g * x.peakFlops * mfu))
		r.dpExposed = exposed(ratio, tp.DPCommOverlap)
		mfu /= 1 + r.dpExposed
		if ratio > 1 {
			r.commDominates = true
		}
	}
	// Per token a GPU computes perToken/(tp) FLOPs and exchanges 1/tp of
	// the token's ring or all-to-all bytes (sequence parallelism): the
	// ratio of the two does not depend on TP.
	if l.cp > 1 {
		bw := x.linkBps
		if l.tp*l.cp > x.scaleUp() {
			bw = x.nicGBps
		}
		k := float64(l.cp)
		ratio := c.cpPerToken * (k - 1) / k / bw * x.peakFlops * mfu / c.perToken
		r.cpExposed = exposed(ratio, tp.CPCommOverlap)
		mfu /= 1 + r.cpExposed
	}
	if l.ep > 1 {
		e := float64(l.ep)
		bw := x.linkBps
		if in := float64(x.scaleUp() / (l.tp * l.cp)); e > in {
			bw = x.allToAllBandwidth(e, math.Max(1, in))
		}
		ratio := c.a2aPerToken * (e - 1) / e / bw * x.peakFlops * mfu / c.perToken
		r.a2aExposed = exposed(ratio, tp.MoEAllToAllOverlap)
		mfu /= 1 + r.a2aExposed
	}
	return mfu
}

func joinClauses(c []string) string {
	out := c[0]
	for _, s := range c[1:] {
		out += "; " + s
	}
	return out
}
