// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package perf

import "math"

// stepModel is the decode-step and prefill model of one replica layout.
// Times are seconds; byte and FLOP counts are per GPU unless named
// otherwise.
type stepModel struct {
	m   *Model
	w   *Workload
	s   *shape
	x   *hw
	l   servingLayout
	ip  *inferenceParams
	mem replicaMemory

	r, tp, pp float64
	bw        float64 // achieved HBM bytes/s of one GPU
	cmp       float64 // sustained decode FLOP/s of one GPU at the precision
	// cmpAttn is the decode FLOP/s of attention-score math, which runs in
	// 16 bits whatever the weights' precision, or on the CUDA cores for a
	// multi-head model where the engine runs it there (hw.mhaAttnFlops).
	cmpAttn float64
	kvBytes float64

	ctxAvg    float64 // context tokens a generated token attends to, on average
	kvReadSeq float64 // cache bytes one sequence (one beam) reads per step
	denseRead float64 // non-expert weight bytes each GPU reads per step
	// Per-token active parameters outside and inside the routed experts,
	// and the attention projections that compute at 16 bits (an FP4
	// checkpoint that leaves attention unquantized, shape.attnProj16; 0
	// otherwise, the projections then being part of nonExpertActive).
	nonExpertActive, expertActive, proj16Active float64
	cmpProj16                                   float64 // decode FLOP/s of those projections

	speculation speculation // speculative decoding (tokens verified and emitted per step)

	fixed        float64 // per-step overhead and communication latencies
	commPerToken float64 // communication seconds per token the replica processes
	prefill      float64 // seconds per request prompt
	limits       latencyTargets
}

// latencyTargets are the mean latencies the limits allow (0 = no limit).
type latencyTargets struct{ tpot, ttft float64 }

// newStepModel sets up the step model of layout l on hardware x.
func (m *Model) newStepModel(w *Workload, s *shape, x *hw, l servingLayout, sp speculation) stepModel {
	ip := &m.p.Inference
	cmp16 := x.attnFlops * x.fam.DecodeComputeEfficiency
	st := stepModel{m: m, w: w, s: s, x: x, l: l, ip: ip, mem: m.memory(w, s, l), speculation: sp,
		r: float64(l.gpus()), tp: float64(l.tp), pp: float64(l.pp),
		bw: x.memBps * x.fam.HBMEfficiency, cmp: x.cmpFlops * x.fam.DecodeComputeEfficiency,
		cmpAttn: cmp16, kvBytes: m.kvBytesPerElement(w.Precision)}
	// A sequence in flight is, on average, half-way through its final
	// output length (length-biased: shape.outInFlight).
	in, out := float64(w.InputTokens), s.outInFlight
	st.ctxAvg = in + out/2
	if s.mha && x.mhaAttnFlops > 0 {
		st.cmpAttn = x.mhaAttnFlops
	}
	st.kvReadSeq = s.kvReadElements(promptReadPerBeam(w, x.engine)+out/2) * st.kvBytes
	st.expertActive = s.expertParams * s.expertShareActive()
	st.nonExpertActive = math.Max(0, s.active-st.expertActive)
	if s.attnProj16 {
		st.proj16Active = math.Min(s.attnParams, st.nonExpertActive)
		st.nonExpertActive -= st.proj16Active
		st.cmpProj16 = cmp16
	}
	st.denseRead = st.mem.weights - s.expertTotal/st.r
	if l.ep {
		st.denseRead = st.mem.weights - s.expertTotal/st.tp
	}
	st.communication()
	st.prefill = st.prefillTime()
	st.limits = m.latencyTargets(w, sp.on)
	return st
}

// promptReadPerBeam is the prompt tokens whose cache one beam's decode
// step reads: the whole prompt where the engine's attention reads it per
// beam (engineParams.BeamPromptReadsPerBeam), else a 1/beam share (the
// beams read the prompt they share once between them).
func promptReadPerBeam(w *Workload, e engineParams) float64 {
	in := float64(w.InputTokens)
	if w.BeamWidth <= 1 || e.BeamPromptReadsPerBeam {
		return in
	}
	return in / float64(w.BeamWidth)
}

// expertShareActive is the fraction of the routed-expert parameters one
// token uses (k/E, or the active fraction when experts are unknown).
func (s *shape) expertShareActive() float64 {
	switch {
	case s.experts > 0:
		return float64(s.expertsUsed) / float64(s.experts)
	case s.moe():
		return s.active / s.params
	}
	return 0
}

// communication sets the per-step fixed time (kernel overheads and
// collective latencies) and the communication time per token: TP
// all-reduces (two per layer), the EP all-to-all (dispatch and combine per
// MoE layer) and pipeline hops.
func (st *stepModel) communication() {
	ip, s, x := st.ip, st.s, st.x
	layers, h := float64(s.arch.Layers), float64(s.arch.Hidden)
	moeLayers := float64(s.moeLayers)
	if s.moe() && s.experts == 0 {
		moeLayers = layers
	}
	perLayer := ip.StepOverheadUSPerLayer
	if f := x.fam.StepOverheadUSPerLayer; f > 0 {
		perLayer = f
	}
	st.fixed = (layers*perLayer + moeLayers*ip.MoEStepOverheadUSPerLayer) * 1e-6
	if st.l.ep {
		ep := &ip.ExpertParallel
		w := st.tp
		inDomain := math.Min(w, float64(x.scaleUp()))
		lat, bw := ep.LatencyUS, x.linkBps
		if w > inDomain {
			lat, bw = ep.FabricLatencyUS, x.allToAllBandwidth(w, inDomain)
		}
		perToken := float64(s.expertsUsed) * h * (ep.DispatchBytes + ep.CombineBytes) * (w - 1) / w
		st.fixed += 2 * moeLayers * lat * 1e-6
		st.commPerToken = moeLayers * perToken / w / bw
	} else if st.tp > 1 {
		lat, link := ip.TPAllReduceLatencyUS, x.tpLink(st.l.tp)
		switch {
		case st.l.tp > x.scaleUp():
			// A group wider than the domain all-reduces over the NIC.
			lat, link = ip.ExpertParallel.FabricLatencyUS, x.nicGBps
		case x.tpOverPCIe(st.l.tp):
			lat = ip.PCIeAllReduceLatencyUS
		}
		st.fixed += 2 * layers * lat * 1e-6
		st.commPerToken = 2 * layers * h * ip.ActivationBytes * 2 * (st.tp - 1) / st.tp / link
	}
	if st.pp > 1 {
		st.fixed += (st.pp - 1) * ip.PPHopLatencyUS * 1e-6
		st.commPerToken += (st.pp - 1) * h * ip.ActivationBytes / x.nicGBps
	}
}

// prefillTime is one request's prompt on the replica: compute-bound on
// 2·N_active FLOPs per token (the experts' share at the grouped-GEMM
// efficiency of a prefill batch's tokens per expert) plus the attention
// scores (and the projections an FP4 checkpoint leaves unquantized) at
// 16 bits, or bound by reading the weights once per prefill batch; plus
// its communication.
func (st *stepModel) prefillTime() float64 {
	s, x := st.s, st.x
	in := float64(st.w.InputTokens)
	batch := math.Max(in, st.ip.PrefillBatchTokens)
	eff := x.fam.PrefillEfficiency
	expert := 2 * in * st.expertActive / st.expertEfficiency(batch)
	cmp := (2*in*st.nonExpertActive+expert)/(st.r*x.cmpFlops*eff) + (2*in*st.proj16Active+s.attnPrefillFlops(in))/(st.r*x.attnFlops*eff)
	mem := st.mem.weights / st.bw * in / batch
	return math.Max(cmp, mem) + in*st.commPerToken + st.ip.PrefillOverheadMs*1e-3
}

// expertEfficiency is the grouped expert GEMMs' efficiency when tokens
// tokens of one step or prefill batch are routed: m / (m + factor·ridge)
// for m tokens per expert each touched expert receives (see
// inferenceParams.ExpertGEMMRidgeFactor).
func (st *stepModel) expertEfficiency(tokens float64) float64 {
	s := st.s
	if !s.moe() {
		return 1
	}
	var m float64
	if s.experts > 0 {
		m = tokens * float64(s.expertsUsed) / (float64(s.experts) * s.expertsTouched(tokens))
	} else {
		m = tokens * s.active / s.params
	}
	ridge := st.x.cmpFlops * s.expertBytes / (2 * st.bw)
	return m / (m + st.ip.ExpertGEMMRidgeFactor*ridge)
}

// stepParts is one decode step split by what takes the time.
type stepParts struct {
	expertMem, denseMem, gemmCmp float64 // weight GEMMs: expert and other weight reads, compute
	attnMem, attnCmp             float64 // attention: cache reads, score compute
	comm, overhead               float64
	draft                        float64
	roofline                     float64 // inferenceParams.RooflineSerialFraction
}

func (p stepParts) gemm() float64 { return blend(p.expertMem+p.denseMem, p.gemmCmp, p.roofline) }
func (p stepParts) attn() float64 { return blend(p.attnMem, p.attnCmp, p.roofline) }

// blend is the time of a kernel that takes mem moving its bytes and cmp
// computing when the fraction f of the smaller does not overlap the larger
// (inferenceParams.RooflineSerialFraction; 0 = the larger of the two).
func blend(mem, cmp, f float64) float64 {
	return max(mem, cmp) + f*min(mem, cmp)
}

// total is the step time: the weight GEMMs, then attention, then the
// communication and fixed overheads, then drafting; the phases run one
// after the other and each is bound by the slower of memory and compute.
func (p stepParts) total() float64 { return p.gemm() + p.attn() + p.comm + p.overhead + p.draft }

// forward is one forward pass of the replica over b sequences carrying
// tokens tokens in total. A pipeline of pp stages keeps pp micro-batches
// in flight: a pass crosses every stage once, one after the other, so it
// takes the TP group's time over b/pp sequences with every weight and
// cache byte of the replica (each stage reads its share in turn); pp
// micro-batches complete per pass.
func (st *stepModel) forward(b, tokens float64) stepParts {
	s := st.s
	b, tokens = b/st.pp, tokens/st.pp
	var p stepParts
	p.denseMem = st.denseRead * st.pp / st.bw
	gemmFlops := 2 * tokens * st.nonExpertActive
	if s.expertTotal > 0 {
		p.expertMem = s.expertTotal * s.expertsTouched(tokens) / st.tp / st.bw
		gemmFlops += 2 * tokens * st.expertActive / st.expertEfficiency(tokens)
	}
	p.gemmCmp = gemmFlops / (st.tp * st.cmp)
	if st.proj16Active > 0 {
		p.gemmCmp += 2 * tokens * st.proj16Active / (st.tp * st.cmpProj16)
	}
	p.attnMem = b * st.kvReadSeq * st.mem.kvShare * st.pp * st.mem.seqsPerGPU / st.bw
	p.attnCmp = tokens * s.attnDecodeFlops(st.ctxAvg) / (st.tp * st.cmpAttn)
	p.comm = tokens * st.commPerToken
	p.overhead = st.fixed
	p.roofline = st.ip.RooflineSerialFraction
	return p
}

// step is one decode step of b sequences: the forward pass over the
// tokens verified per sequence, plus drafting under speculation.
func (st *stepModel) step(b float64) stepParts {
	p := st.forward(b, b*st.speculation.verify)
	if st.speculation.on {
		p.draft = st.draftTime(b)
	}
	return p
}

// iteration is one continuous-batching iteration of an aggregated
// replica: a decode step plus the prompts of the requests that join it
// (each request leaves after output/(tokens per step) steps).
func (st *stepModel) iteration(b float64) float64 {
	return st.step(b).total() + b*st.speculation.perStep/(float64(st.w.BeamWidth)*float64(st.w.OutputTokens))*st.prefill
}

// allToAllBandwidth is the bytes/s one GPU of an all-to-all over w GPUs
// sends when inDomain of them (itself included) share its scale-up domain:
// peers inside are reached over NVLink and peers outside over the NIC,
// both at once, so the slower share binds.
func (x *hw) allToAllBandwidth(w, inDomain float64) float64 {
	off := (w - inDomain) / (w - 1)
	bw := x.nicGBps / off
	if inDomain > 1 {
		bw = math.Min(bw, x.linkBps/((inDomain-1)/(w-1)))
	}
	return bw
}
