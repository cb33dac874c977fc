// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package perf

import (
	"fmt"
	"math"

	"github.com/gpuplan/terraform-provider-gpu/internal/numfmt"
)

// maxInferenceLayouts bounds the layouts inferenceLayouts returns for up
// to 64 GPUs per node (7 TP degrees + 13 PP degrees).
const maxInferenceLayouts = 7 + 13

// inferenceLayouts enumerates replica shapes: TP ∈ {1,2,4,8,…} inside a
// node, and PP > 1 only with a full node of TP (stages across nodes). The
// layouts are appended to buf.
func (m *Model) inferenceLayouts(x hw, arch Arch, buf []layout) []layout {
	out := buf
	for tp := 1; tp <= x.gpn && tp <= x.gpus; tp *= 2 {
		out = append(out, layout{tp: tp, pp: 1, dp: x.gpus / tp})
	}
	if len(out) == len(buf) {
		return out
	}
	tp := out[len(out)-1].tp
	for _, pp := range ppDegrees[1:] {
		if tp*pp > x.gpus || pp > arch.Layers {
			break
		}
		out = append(out, layout{tp: tp, pp: pp, dp: x.gpus / (tp * pp)})
	}
	return out
}

// kvBytesPerToken is 2 (K and V) · layers · kv_heads · head_dim · bytes.
func (m *Model) kvBytesPerToken(w Workload, arch Arch) float64 {
	b := math.Max(m.p.Memory.KVMinBytesPerElement, m.bytesPer(w.Precision))
	if isIntegerPrecision(w.Precision) {
		b = math.Max(b, m.p.Memory.IntegerWeightKVBytes)
	}
	return 2 * float64(arch.Layers*arch.KVHeads*arch.HeadDim) * b
}

func isIntegerPrecision(p string) bool { return p == "int8" || p == "int4" }

// inferenceMinBytes is the memory of one replica of r GPUs (TP degree tp)
// serving a single request: weights + KV of beam sequences of
// input+output tokens + a prompt's activation workspace.
func (m *Model) inferenceMinBytes(w Workload, arch Arch, r, tp int) float64 {
	weights := w.ModelParametersB * 1e9 * m.bytesPer(w.Precision)
	// Beams share the prompt's KV blocks (prefix sharing) and each
	// generates its own continuation.
	kv := m.kvBytesPerToken(w, arch) * float64(w.InputTokens+w.OutputTokens*w.BeamWidth)
	work := m.p.Memory.InferenceActBytesPerTokenHd * float64(arch.Hidden) * float64(w.InputTokens) * float64(r) / float64(tp)
	return weights + kv + work
}

type replicaPerf struct {
	l                     layout
	fits                  bool
	minBytesPerGPU        float64
	batch                 int // sequences in flight (incl. beams)
	tokensPerS            float64
	ttft, tpot            float64 // seconds
	tMem, tCmp, tComm     float64
	latencyBound, kvBound bool
	latencyImpossible     bool
}

type stepModel struct {
	m                      *Model
	w                      Workload
	x                      hw
	arch                   Arch
	r, tp, pp              float64
	weights, kvTok, ctxAvg float64
	nTotal, nAct           float64
	fam                    FamilyParams
	prefill                float64 // seconds per request prompt
	moe                    float64 // compute-efficiency factor of expert GEMMs
	last                   float64 // step time of the last step() call
	readCtx                float64 // KV tokens read per sequence per step (beams share the prompt)
}

func (s *stepModel) step(b float64) (tMem, tCmp, tComm float64) {
	// Phase 1, the weight GEMMs: roofline of the weight bytes read (dense
	// part always; for MoE the expected share of experts the b tokens
	// touch) against 2·N_active FLOPs per token.
	frac := s.nAct / s.nTotal
	touched := frac + (1-frac)*(1-math.Pow(1-frac, b))
	bw := s.r * s.x.memBps * s.fam.HBMEfficiency
	gemmMem := s.weights * touched / bw
	gemmCmp := b * 2 * s.nAct / (s.r * s.x.cmpFlops * s.fam.DecodeComputeEfficiency * s.moe)
	// Phase 2, attention: each sequence reads its KV cache (roofline
	// against the attention FLOPs). The phases run one after the other.
	h := float64(s.arch.Hidden)
	attnMem := b * s.kvTok * s.readCtx / bw
	attnCmp := b * 4 * float64(s.arch.Layers) * h * s.ctxAvg / (s.r * s.x.cmpFlops * s.fam.DecodeComputeEfficiency)
	tMem = math.Max(gemmMem, 0) + attnMem
	tCmp = gemmCmp + attnCmp
	ip := s.m.p.Inference
	if s.tp > 1 {
		lat := ip.TPAllReduceLatencyUS
		if s.x.tpOverPCIe(int(s.tp)) {
			lat = ip.PCIeAllReduceLatencyUS
		}
		perAR := lat*1e-6 + b*h*2*2*(s.tp-1)/s.tp/s.x.tpLink(int(s.tp))
		tComm += 2 * float64(s.arch.Layers) * perAR
	}
	if s.pp > 1 {
		tComm += (s.pp - 1) * (ip.PPHopLatencyUS*1e-6 + b*h*2/s.x.nicGBps)
	}
	s.last = math.Max(gemmMem, gemmCmp) + math.Max(attnMem, attnCmp) + tComm
	return
}

// iteration returns the time of one continuous-batching iteration with b
// sequences: one decode step plus the prefills of the requests that join
// (b / (beam·output) per step).
func (s *stepModel) iteration(b float64) float64 {
	s.step(b)
	return s.last + b/(float64(s.w.BeamWidth)*float64(s.w.OutputTokens))*s.prefill
}

func (m *Model) replica(w Workload, x hw, arch Arch, l layout) replicaPerf {
	r := l.tp * l.pp
	rp := replicaPerf{l: l}
	minBytes := m.inferenceMinBytes(w, arch, r, l.tp)
	rp.minBytesPerGPU = minBytes / float64(r)
	avail := x.usableGB * 1e9 * float64(r)
	if minBytes > avail {
		return rp
	}
	rp.fits = true
	s := m.newStepModel(w, x, arch, l)
	beam := w.BeamWidth
	ip := m.p.Inference
	perReq := s.kvTok * float64(w.InputTokens+w.OutputTokens*beam)
	bMem := int((avail-minBytes)/perReq+1) * beam
	bMax := min(bMem, ip.MaxBatch)
	bMax -= bMax % beam
	if bMax < beam {
		bMax = beam
	}
	rp.kvBound = bMem <= ip.MaxBatch
	b := s.latencyBatch(bMax, &rp)
	_, it, ttft := s.meets(b)
	rp.batch = b
	rp.tpot, rp.ttft = it, ttft
	rp.tMem, rp.tCmp, rp.tComm = s.step(float64(b))
	rp.tokensPerS = float64(b) / float64(beam) / it
	if rp.latencyImpossible {
		rp.tokensPerS = 0
	}
	return rp
}

// newStepModel sets up the decode-step and prefill model of one replica
// of layout l.
func (m *Model) newStepModel(w Workload, x hw, arch Arch, l layout) stepModel {
	r := l.tp * l.pp
	ip := m.p.Inference
	s := stepModel{m: m, w: w, x: x, arch: arch, r: float64(r), tp: float64(l.tp), pp: float64(l.pp),
		fam: x.fam, nTotal: w.ModelParametersB * 1e9, nAct: w.ActiveParametersB * 1e9}
	s.moe = 1
	if s.nAct < s.nTotal {
		s.moe = ip.MoEComputeFactor
	}
	s.weights = s.nTotal * m.bytesPer(w.Precision)
	s.kvTok = m.kvBytesPerToken(w, arch)
	s.ctxAvg = float64(w.InputTokens) + float64(w.OutputTokens)/2
	// Beam search keeps one copy of the prompt's KV per request (shared
	// by its beams), so per sequence the prompt is read 1/beam times.
	s.readCtx = float64(w.InputTokens)/float64(w.BeamWidth) + float64(w.OutputTokens)/2
	in := float64(w.InputTokens)
	h := float64(arch.Hidden)
	pfFlops := 2*s.nAct*in + 2*float64(arch.Layers)*h*in*in
	s.prefill = math.Max(pfFlops/(s.r*x.cmpFlops*s.fam.PrefillEfficiency*s.moe),
		s.weights/(s.r*x.memBps*s.fam.HBMEfficiency)/ip.PrefillBatchSequences)
	return s
}

// meets reports whether b sequences in flight meet the workload's latency
// limits (a mean within latency_limit_headroom of each limit), with the
// iteration time and the time to first token, in seconds.
func (s *stepModel) meets(b int) (bool, float64, float64) {
	w, headroom := &s.w, s.m.p.Inference.LatencyLimitHeadroom
	it := s.iteration(float64(b))
	ttft := s.prefill + it
	good := (w.MaxTimePerOutputTokenMs <= 0 || it*1e3 <= w.MaxTimePerOutputTokenMs*headroom) &&
		(w.MaxTimeToFirstTokenMs <= 0 || ttft*1e3 <= w.MaxTimeToFirstTokenMs*headroom)
	return good, it, ttft
}

// latencyBatch returns the largest batch up to bMax (a multiple of the
// beam width) that meets the latency limits, by bisection over requests;
// it marks rp latency-bound or, when even one request misses, impossible.
func (s *stepModel) latencyBatch(bMax int, rp *replicaPerf) int {
	beam := s.w.BeamWidth
	if good, _, _ := s.meets(bMax); good {
		return bMax
	}
	rp.latencyBound = true
	rp.kvBound = false
	if g, _, _ := s.meets(beam); !g {
		rp.latencyImpossible = true
		return beam
	}
	lo, hi := 1, bMax/beam // in requests; lo meets the limits
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if g, _, _ := s.meets(mid * beam); g {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo * beam
}

func (m *Model) inference(w Workload, x hw, arch Arch, explain bool) Estimate {
	tol := m.p.Search.RelativeTolerance
	var best, smallest replicaPerf
	haveBest, haveSmallest := false, false
	bestTotal := -1.0
	var buf [maxInferenceLayouts]layout
	for _, l := range m.inferenceLayouts(x, arch, buf[:0]) {
		rp := m.replica(w, x, arch, l)
		if !rp.fits {
			if !haveSmallest || rp.minBytesPerGPU < smallest.minBytesPerGPU {
				smallest, haveSmallest = rp, true
			}
			continue
		}
		replicas := x.gpus / (l.tp * l.pp)
		total := float64(replicas) * rp.tokensPerS
		if total > bestTotal*(1+tol) {
			best, haveBest = rp, true
			bestTotal = total
		}
	}
	if !haveBest {
		return inferenceMiss(&w, &x, &smallest, explain)
	}
	return m.inferenceFit(&w, &x, &best, bestTotal, explain)
}

// inferenceMiss is the estimate when no replica shape fits: the smallest
// shape's memory per GPU and shortfall.
func inferenceMiss(w *Workload, x *hw, r *replicaPerf, explain bool) Estimate {
	est := Estimate{UsableMemoryPerGPUGB: x.usableGB, Binding: BindMemory}
	est.MemoryPerGPUGB = r.minBytesPerGPU / 1e9
	est.MemoryShortfallGB = est.MemoryPerGPUGB - x.usableGB
	est.TensorParallel, est.PipelineParallel, est.DataParallel = r.l.tp, r.l.pp, 0
	est.ReplicaGPUs = r.l.tp * r.l.pp
	if explain {
		est.Explanation = fmt.Sprintf("does not fit: the %s weights and one request's KV cache need %s GB per GPU across %d× %s, %s GB more than the %s GB usable",
			w.Precision, numfmt.Short(est.MemoryPerGPUGB), est.ReplicaGPUs, x.acc.ID, numfmt.Short(est.MemoryShortfallGB), numfmt.Short(x.usableGB))
	}
	return est
}

// inferenceFit is the estimate of the best replica shape r: as many
// replicas as the GPUs hold, sustaining total output tokens/s.
func (m *Model) inferenceFit(w *Workload, x *hw, r *replicaPerf, total float64, explain bool) Estimate {
	rg := r.l.tp * r.l.pp
	est := Estimate{Fits: true, UsableMemoryPerGPUGB: x.usableGB}
	est.MemoryPerGPUGB = r.minBytesPerGPU / 1e9
	est.TensorParallel, est.PipelineParallel = r.l.tp, r.l.pp
	est.ReplicaGPUs = rg
	est.Replicas = x.gpus / rg
	est.DataParallel = est.Replicas
	est.GPUsUsed = est.Replicas * rg
	est.Nodes = (est.GPUsUsed + x.gpn - 1) / x.gpn
	est.Batch = r.batch
	est.TokensPerSecond = total
	est.TTFTMs = r.ttft * 1e3
	est.TPOTMs = r.tpot * 1e3
	// MFU of decode+prefill: model FLOPs delivered / peak.
	flopsPerOut := 2 * w.ActiveParametersB * 1e9 * (1 + float64(w.InputTokens)/float64(w.OutputTokens))
	est.MFU = total * flopsPerOut / (float64(est.GPUsUsed) * x.peakFlops)
	if perReplica := r.tokensPerS; w.TokensPerSecond > 0 && perReplica > 0 {
		est.ReplicasNeeded = int(math.Ceil(w.TokensPerSecond / perReplica))
		est.MeetsTarget = est.ReplicasNeeded <= est.Replicas
	}
	switch {
	case r.latencyImpossible, r.latencyBound:
		est.Binding = BindLatency
	case r.tComm > math.Max(r.tMem, r.tCmp):
		est.Binding = BindNetwork
	case r.tMem >= r.tCmp:
		est.Binding = BindHBM
	default:
		est.Binding = BindCompute
	}
	if explain {
		est.Explanation = m.inferenceExplanation(w, x, r, &est)
	}
	return est
}

// inferenceExplanation is the Explanation of an inference estimate that fits.
func (m *Model) inferenceExplanation(w *Workload, x *hw, r *replicaPerf, est *Estimate) string {
	rg := est.ReplicaGPUs
	var what string
	switch {
	case r.latencyImpossible:
		what = "the latency limits cannot be met even with one request in flight"
	case r.latencyBound:
		what = fmt.Sprintf("batch %d limited by the latency limits", r.batch)
	case r.tComm > math.Max(r.tMem, r.tCmp):
		what = "decode bound by tensor/pipeline-parallel communication"
	case r.tMem >= r.tCmp:
		what = "decode bound by HBM bandwidth"
		if r.kvBound {
			what += fmt.Sprintf(", batch %d capped by KV-cache memory", r.batch)
		}
	default:
		what = "decode bound by compute"
	}
	s := fmt.Sprintf("%s; %d replica(s) of %d× %s (TP=%d, PP=%d) sustain %s output tok/s, TTFT %s ms, TPOT %s ms",
		what, est.Replicas, rg, x.acc.ID, r.l.tp, r.l.pp, numfmt.Int(est.TokensPerSecond), numfmt.Short(est.TTFTMs), numfmt.Short(est.TPOTMs))
	if pf := x.cmpFlops / x.peakFlops; pf < m.p.Explanation.PowerLimitMention {
		s += fmt.Sprintf("; the %.0f W board limit holds tensor throughput to %.0f%% of the datasheet peak", x.acc.TDPWatts, pf*100)
	}
	if w.TokensPerSecond > 0 {
		if est.MeetsTarget {
			s += fmt.Sprintf("; %d replica(s) meet %s tok/s", est.ReplicasNeeded, numfmt.Int(w.TokensPerSecond))
		} else if est.ReplicasNeeded > 0 {
			s += fmt.Sprintf("; %s tok/s needs %d replicas (%d GPUs)", numfmt.Int(w.TokensPerSecond), est.ReplicasNeeded, est.ReplicasNeeded*rg)
		}
	}
	return s
}
