// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package perf

import (
	"fmt"
	"math"
)

// layout is a parallel decomposition: tensor parallel inside a node,
// pipeline and data parallel across nodes.
type layout struct{ tp, pp, dp int }

func (l layout) gpus() int { return l.tp * l.pp * l.dp }

var ppDegrees = []int{1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128}

// trainingLayouts enumerates TP ∈ {1,2,4,8,…} ≤ GPUs per node (TP never
// crosses a node), PP up to the layer count, and DP filling all GPUs, the
// whole nodes, or one node (GPUs beyond the layout stay idle).
func (m *Model) trainingLayouts(x hw, arch Arch) []layout {
	var out []layout
	for tp := 1; tp <= x.gpn && tp <= x.gpus; tp *= 2 {
		for _, pp := range ppDegrees {
			if tp*pp > x.gpus || pp > arch.Layers {
				break
			}
			if pp > 1 && tp < x.gpn && tp*pp > x.gpn {
				// Pipeline stages that leave a node's NVLink unused for
				// TP are dominated by the layout with a larger TP.
				continue
			}
			// DP candidates: every GPU, whole nodes only (a partly filled
			// node drags the scale-out network in), one node only.
			seen := 0
			for _, used := range []int{x.gpus, x.gpus / x.gpn * x.gpn, min(x.gpn, x.gpus)} {
				dp := used / (tp * pp)
				if dp < 1 || dp == seen {
					continue
				}
				seen = dp
				out = append(out, layout{tp: tp, pp: pp, dp: dp})
			}
		}
	}
	return out
}

// trainingBytes is the per-GPU memory of a training or fine-tuning job
// under a layout: model states sharded over every GPU (ZeRO-3 / FSDP), the
// gathered layers ZeRO-3 materialises, and activations of one micro-batch
// sequence with full recomputation (layer-input checkpoints for the
// in-flight micro-batches plus one layer's working set, split by TP with
// sequence parallelism).
func (m *Model) trainingBytes(w Workload, arch Arch, l layout) float64 {
	mp := m.p.Memory
	n := w.ModelParamsB * 1e9
	g := float64(l.gpus())
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
	total := states / g
	if l.dp > 1 {
		total += mp.Zero3GatheredLayers * gatherBytesPerParam * n / float64(arch.Layers) / float64(l.tp)
	}
	s := float64(w.SequenceLength)
	h := float64(arch.Hidden)
	act := (mp.CheckpointBytesPerTokenHid*float64(arch.Layers) + mp.WorkingBytesPerTokenHidden) * s * h / float64(l.tp)
	return total + act
}

type trainResult struct {
	l                    layout
	bytes                float64
	fits                 bool
	mfu, tokensPerS      float64
	tpExposed, dpExposed float64
	nodes                int
	ppBubble             float64
	commDominates        bool
}

func (m *Model) training(w Workload, x hw) Estimate {
	arch := m.Architecture(w)
	tp := m.p.Training
	fam := m.family(x.acc)
	nTotal := w.ModelParamsB * 1e9
	nAct := w.ActiveParamsB * 1e9

	// Model FLOPs per token.
	perToken := tp.FlopsPerParamToken * nAct
	method := MethodFull
	if w.Kind == KindFineTuning {
		method = w.FineTuningMethod
	}
	attn := 0.0
	if w.Layers > 0 && w.HiddenSize > 0 {
		// PaLM appendix B: 12·L·H·Q·T per token for forward+backward.
		attn = 12 * float64(arch.Layers) * float64(arch.Hidden) * float64(w.SequenceLength)
	}
	hardware := 1.0 // hardware FLOPs per model FLOP beyond the model count
	if method == MethodLoRA || method == MethodQLoRA {
		adapter := m.p.Memory.LoRAAdapterFraction * nTotal
		perToken = tp.LoRAFlopsPerParamToken*nAct + tp.FlopsPerParamToken*adapter
		attn *= tp.LoRAFlopsPerParamToken / tp.FlopsPerParamToken
		if method == MethodQLoRA {
			hardware = 1 + tp.QLoRADequantOverhead
		}
	}
	perToken += attn

	base := fam.TrainMFU * m.p.LowPrecisionMFUFactor[w.Precision] / hardware
	base *= nAct / (nAct + tp.SmallModelHalfParamsB*1e9)
	if w.Precision == "fp32" {
		// Full fp32 runs no tensor-core path; the dense fp32 peak is the
		// reference, reached about as well as bf16.
		base = fam.TrainMFU
	}

	// Power-limited parts sustain a lower clock (MFU stays relative to the
	// datasheet peak).
	base *= x.cmpFlops / x.peakFlops

	var best *trainResult
	var leastShort *trainResult
	batchTokens := tp.GlobalBatchTokens
	if w.Kind == KindFineTuning {
		batchTokens = tp.FineTuneBatchTokens
	}
	// A data-parallel rank needs at least one sequence of the global batch.
	maxDP := max(1, int(batchTokens/float64(w.SequenceLength)))
	for _, l := range m.trainingLayouts(x, arch) {
		l.dp = min(l.dp, maxDP)
		r := m.trainLayout(w, x, arch, l, base, perToken, method, batchTokens)
		if !r.fits {
			if leastShort == nil || r.bytes < leastShort.bytes {
				rc := r
				leastShort = &rc
			}
			continue
		}
		if best == nil || r.tokensPerS > best.tokensPerS*(1+1e-9) {
			rc := r
			best = &rc
		}
	}
	est := Estimate{UsableMemoryPerGPUGB: x.usableGB, Goodput: 1}
	if best == nil {
		r := leastShort
		est.Fits = false
		est.MemoryPerGPUGB = r.bytes / 1e9
		est.MemoryShortfallGB = est.MemoryPerGPUGB - x.usableGB
		est.TensorParallel, est.PipelineParallel, est.DataParallel = r.l.tp, r.l.pp, r.l.dp
		est.GPUsUsed, est.Nodes = r.l.gpus(), r.nodes
		est.Binding = BindMemory
		est.Explanation = fmt.Sprintf("does not fit: needs %s GB per GPU even with TP=%d, PP=%d over %d× %s, %s GB more than the %s GB usable",
			fmtNum(est.MemoryPerGPUGB), r.l.tp, r.l.pp, x.gpus, x.acc.ID, fmtNum(est.MemoryShortfallGB), fmtNum(x.usableGB))
		return est
	}
	r := best
	est.Fits = true
	est.MemoryPerGPUGB = r.bytes / 1e9
	est.TensorParallel, est.PipelineParallel, est.DataParallel = r.l.tp, r.l.pp, r.l.dp
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

	switch {
	case r.commDominates:
		est.Binding = BindNetwork
	default:
		est.Binding = BindCompute
	}
	what := "training"
	if w.Kind == KindFineTuning {
		what = method + " fine-tuning"
	}
	var b []string
	b = append(b, fmt.Sprintf("%s at %.0f%% MFU with TP=%d, PP=%d, DP=%d on %d× %s", what, r.mfu*100, r.l.tp, r.l.pp, r.l.dp, r.l.gpus(), x.acc.ID))
	if r.nodes > 1 {
		b = append(b, fmt.Sprintf("%d nodes over %s", r.nodes, x.fabric))
	}
	if r.commDominates {
		b = append(b, "communication dominates: inter-node gradient/parameter traffic takes longer than compute, so more GPUs add little or nothing")
	} else if r.dpExposed > 0.15 {
		b = append(b, fmt.Sprintf("network traffic adds %.0f%%", r.dpExposed*100))
	}
	if pf := x.cmpFlops / x.peakFlops; pf < 0.999 {
		b = append(b, fmt.Sprintf("the %.0f W board limit holds tensor throughput to %.0f%% of the datasheet peak", x.acc.TDPWatts, pf*100))
	}
	if r.l.gpus() < x.gpus {
		b = append(b, fmt.Sprintf("%d of %d GPUs idle (count does not factor)", x.gpus-r.l.gpus(), x.gpus))
	}
	b = append(b, fmt.Sprintf("%s tokens/s, %s h incl. %.1f%% goodput loss", fmtInt(r.tokensPerS), fmtNum(est.Hours), (1-est.Goodput)*100))
	est.Explanation = joinClauses(b)
	return est
}

func (m *Model) trainLayout(w Workload, x hw, arch Arch, l layout, base, perToken float64, method string, batchTokens float64) trainResult {
	tp := m.p.Training
	r := trainResult{l: l}
	r.bytes = m.trainingBytes(w, arch, l)
	r.fits = r.bytes <= x.usableGB*1e9
	g := float64(l.gpus())
	r.nodes = (l.gpus() + x.gpn - 1) / x.gpn
	mfu := base

	// Tensor parallel: all-reduces of the b·s·h activations per layer over
	// the scale-up link vs the layer's matmul time.
	if l.tp > 1 {
		t := float64(l.tp)
		h := float64(arch.Hidden)
		commPerTokLayer := tp.TPAllReducesPerLayer * 2 * (t - 1) / t * h * 2 / x.tpLink(l.tp)
		compPerTokLayer := tp.FlopsPerParamToken * 12 * h * h / t / (x.peakFlops * base)
		r.tpExposed = exposed(commPerTokLayer/compPerTokLayer, tp.TPCommOverlap)
		mfu /= 1 + r.tpExposed
		if commPerTokLayer > compPerTokLayer {
			r.commDominates = true
		}
	}
	// Pipeline bubble: (p−1)/(v·m) with m micro-batches per DP rank.
	if l.pp > 1 {
		seqs := batchTokens / float64(w.SequenceLength)
		micro := math.Max(1, seqs/float64(l.dp))
		r.ppBubble = float64(l.pp-1) / (tp.PipelineInterleave * micro)
		mfu /= 1 + r.ppBubble
	}
	// Data parallel / ZeRO-3 traffic per step vs compute per step.
	if l.dp > 1 {
		n := w.ModelParamsB * 1e9
		transfers := tp.Zero3TransfersPerStep
		bytesPerParam := m.bytesPer(w.Precision)
		if method == MethodLoRA || method == MethodQLoRA {
			transfers-- // frozen weights: no gradient reduce-scatter
			if method == MethodQLoRA {
				bytesPerParam = m.p.Memory.QLoRABitsPerParam / 8
			}
		}
		d := float64(l.dp)
		vol := transfers * bytesPerParam * n / float64(l.tp*l.pp) * (d - 1) / d
		bw := x.linkBps
		if r.nodes > 1 {
			bw = x.nicGBps
		}
		commT := vol / bw
		compT := perToken * batchTokens / (g * x.peakFlops * mfu)
		ratio := commT / compT
		r.dpExposed = exposed(ratio, tp.DPCommOverlap)
		mfu /= 1 + r.dpExposed
		if ratio > 1 {
			r.commDominates = true
		}
	}
	if r.nodes > 1 {
		mfu *= math.Pow(1-x.fab.LossPerNodeDoubling, math.Log2(float64(r.nodes)))
	}
	if u := r.bytes / (x.usableGB * 1e9); r.fits && u > tp.MemoryPressureThresh {
		mfu *= 1 - tp.MemoryPressurePenalty*(u-tp.MemoryPressureThresh)/(1-tp.MemoryPressureThresh)
	}
	r.mfu = mfu
	r.tokensPerS = g * x.peakFlops * mfu / perToken
	return r
}

func joinClauses(c []string) string {
	out := c[0]
	for _, s := range c[1:] {
		out += "; " + s
	}
	return out
}
