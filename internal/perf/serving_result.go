// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package perf

import (
	"fmt"
	"math"
	"strings"

	"github.com/gpuplan/terraform-provider-gpu/internal/numfmt"
)

// inferenceMiss is the estimate when no replica shape fits: the smallest
// shape's memory per GPU and shortfall.
func inferenceMiss(w *Workload, x *hw, r *replicaPerf, explain bool) Estimate {
	est := Estimate{UsableMemoryPerGPUGB: x.usableGB, Binding: BindMemory, ServingLayout: ServingAggregated}
	est.MemoryPerGPUGB = r.minBytesPerGPU / 1e9
	est.MemoryShortfallGB = est.MemoryPerGPUGB - x.usableGB
	est.TensorParallel, est.PipelineParallel, est.DataParallel = r.l.tp, r.l.pp, 0
	est.ReplicaGPUs = r.l.gpus()
	if explain {
		est.Explanation = fmt.Sprintf("does not fit: the %s weights and one request's KV cache need %s GB per GPU across %d× %s, %s GB more than the %s GB usable",
			w.Precision, numfmt.Short(est.MemoryPerGPUGB), est.ReplicaGPUs, x.acc.ID, numfmt.Short(est.MemoryShortfallGB), numfmt.Short(x.usableGB))
	}
	return est
}

// fit is the estimate of decode replicas r (aggregated when d is nil,
// the decode workers of the disaggregated split d otherwise).
func (c *servingCtx) fit(r *replicaPerf, d *disaggPerf, explain bool) Estimate {
	w, x := c.w, c.x
	rg := r.l.gpus()
	est := Estimate{Fits: true, UsableMemoryPerGPUGB: x.usableGB, ServingLayout: ServingAggregated}
	est.MemoryPerGPUGB = r.minBytesPerGPU / 1e9
	est.TensorParallel, est.PipelineParallel = r.l.tp, r.l.pp
	est.Serving = c.detail(r)
	if r.l.ep {
		est.Serving.ExpertParallel = r.l.tp
	}
	est.ExpertParallel, est.ContextParallel = est.Serving.ExpertParallel, 1
	est.ReplicaGPUs, est.Replicas, est.DataParallel = rg, r.replicas, r.replicas
	est.GPUsUsed = r.replicas * rg
	est.TokensPerSecond = r.tps
	if d != nil {
		est.ServingLayout = ServingDisaggregated
		est.Replicas *= d.units
		est.DataParallel = est.Replicas
		est.Serving.PrefillWorkers, est.Serving.PrefillWorkerGPUs = d.prefill.workers*d.units, d.prefill.l.gpus()
		est.PrefillGPUs, est.DecodeGPUs = est.Serving.PrefillWorkers*d.prefill.l.gpus(), est.Replicas*rg
		est.GPUsUsed = est.PrefillGPUs + est.DecodeGPUs
		est.TokensPerSecond = d.tps
	}
	est.Nodes = (est.GPUsUsed + x.gpn - 1) / x.gpn
	est.Batch = r.batch
	est.TTFTMs, est.TPOTMs = r.ttft*1e3, r.tpot*1e3
	est.TTFTP99Ms, est.TPOTP99Ms = c.m.p99(est.TTFTMs, est.TPOTMs, c.sp.on)
	est.LongRequestMs = est.TTFTMs + (c.s.outLongest-1)*est.TPOTMs
	// MFU of decode+prefill: model FLOPs delivered / peak.
	flopsPerOut := 2 * w.ActiveParametersB * 1e9 * (1 + float64(w.InputTokens)/float64(w.OutputTokens))
	est.MFU = est.TokensPerSecond * flopsPerOut / (float64(est.GPUsUsed) * x.peakFlops)
	if perReplica := est.TokensPerSecond / float64(est.Replicas); w.TokensPerSecond > 0 && perReplica > 0 {
		est.ReplicasNeeded = int(math.Ceil(w.TokensPerSecond/perReplica - c.m.p.Search.RelativeTolerance))
		est.MeetsTarget = est.ReplicasNeeded <= est.Replicas
	}
	est.Binding = r.binding()
	if explain {
		est.Explanation = c.explanation(r, d, &est)
	}
	return est
}

// binding is what limits the replicas.
func (r *replicaPerf) binding() string {
	p := &r.parts
	mem := p.expertMem + p.denseMem + p.attnMem
	cmp := p.gemmCmp + p.attnCmp
	switch {
	case r.latencyImpossible, r.latencyBound:
		return BindLatency
	case p.comm > math.Max(mem, cmp):
		return BindNetwork
	case mem >= cmp:
		return BindHBM
	}
	return BindCompute
}

// detail is the serving detail of replicas r: one GPU's memory and the
// iteration time by part.
func (c *servingCtx) detail(r *replicaPerf) *ServingDetail {
	st, p := &r.st, &r.parts
	s := c.s
	expertGB := s.expertTotal / float64(r.l.gpus()) / 1e9
	if r.l.ep {
		expertGB = s.expertTotal / float64(r.l.tp) / 1e9
	}
	kv := c.m.requestKVBytes(c.w, s, c.kvBytes) * st.mem.kvShare * st.mem.seqsPerGPU * float64(r.batch) / float64(c.w.BeamWidth)
	b := &ServingDetail{TokensPerStep: c.sp.perStep,
		ExpertWeightsGB: expertGB, OtherWeightsGB: st.mem.weights/1e9 - expertGB, KVCacheGB: kv / 1e9}
	it := r.iteration
	if it <= 0 {
		return b
	}
	gemm := p.gemm()
	if weights := p.expertMem + p.denseMem; weights > 0 {
		b.ExpertTime = gemm * p.expertMem / weights / it
	}
	b.AttentionTime = p.attn() / it
	b.CommunicationTime = p.comm / it
	b.OtherTime = math.Max(0, 1-b.ExpertTime-b.AttentionTime-b.CommunicationTime)
	return b
}

// explanation is the Explanation of an inference estimate that fits.
func (c *servingCtx) explanation(r *replicaPerf, d *disaggPerf, est *Estimate) string {
	w, x := c.w, c.x
	var what string
	switch {
	case r.latencyImpossible:
		what = "the latency limits cannot be met even with one request in flight"
	case r.latencyBound:
		what = fmt.Sprintf("batch %d limited by the latency limits (p99)", r.batch)
	case est.Binding == BindNetwork:
		what = "decode bound by tensor/expert/pipeline-parallel communication"
	case est.Binding == BindHBM:
		what = "decode bound by HBM bandwidth"
		if r.kvBound {
			what += fmt.Sprintf(", batch %d capped by KV-cache memory", r.batch)
		}
	default:
		what = "decode bound by compute"
	}
	var b strings.Builder
	b.WriteString(what)
	b.WriteString("; ")
	b.WriteString(c.layoutText(r, d))
	fmt.Fprintf(&b, " sustain %s output tok/s, TTFT %s ms, TPOT %s ms (means)",
		numfmt.Int(est.TokensPerSecond), numfmt.Short(est.TTFTMs), numfmt.Short(est.TPOTMs))
	if c.s.outLongest > float64(w.OutputTokens) {
		fmt.Fprintf(&b, "; a request of %s output tokens (the p99) takes %s s, and each request in flight reserves cache for %s output tokens",
			numfmt.Int(c.s.outLongest), numfmt.Short(est.LongRequestMs/1e3), numfmt.Int(c.s.outInFlight))
	}
	if c.sp.on {
		fmt.Fprintf(&b, "; %s speculative decoding emits %.2f tokens per step", c.sp.method, c.sp.perStep)
	}
	if c.s.moe() && c.s.experts > 0 {
		fmt.Fprintf(&b, "; routed experts hold %s GB per GPU and take %s of a decode iteration, attention %s",
			numfmt.Short(est.Serving.ExpertWeightsGB), numfmt.Percent(est.Serving.ExpertTime), numfmt.Percent(est.Serving.AttentionTime))
	}
	if pf := x.cmpFlops / x.peakFlops; pf < c.m.p.Explanation.PowerLimitMention {
		fmt.Fprintf(&b, "; the %.0f W board limit holds tensor throughput to %s of the datasheet peak", x.acc.TDPWatts, numfmt.Percent(pf))
	}
	if w.TokensPerSecond > 0 {
		if est.MeetsTarget {
			fmt.Fprintf(&b, "; %d replica(s) meet %s tok/s", est.ReplicasNeeded, numfmt.Int(w.TokensPerSecond))
		} else if est.ReplicasNeeded > 0 {
			fmt.Fprintf(&b, "; %s tok/s needs %d replicas (%d GPUs)", numfmt.Int(w.TokensPerSecond), est.ReplicasNeeded, est.ReplicasNeeded*est.ReplicaGPUs)
		}
	}
	return b.String()
}

// layoutText names the replicas (and prefill workers).
func (c *servingCtx) layoutText(r *replicaPerf, d *disaggPerf) string {
	id := c.x.acc.ID
	shape := fmt.Sprintf("TP=%d, PP=%d", r.l.tp, r.l.pp)
	if r.l.ep {
		shape = fmt.Sprintf("data-parallel attention, EP=%d", r.l.tp)
	}
	if r.l.gpus() > c.x.gpn && r.l.gpus() <= c.x.scaleUp() && !r.l.ep {
		shape += fmt.Sprintf(" over %d nodes of one NVLink domain", (r.l.gpus()+c.x.gpn-1)/c.x.gpn)
	}
	if d == nil {
		return fmt.Sprintf("%d replica(s) of %d× %s (%s)", r.replicas, r.l.gpus(), id, shape)
	}
	per := ""
	if d.units > 1 {
		per = fmt.Sprintf(" in each of %d scale-up domains", d.units)
	}
	p := d.prefill.l
	pshape := fmt.Sprintf("TP=%d", p.tp)
	if p.ep {
		pshape = fmt.Sprintf("EP=%d", p.tp)
	}
	return fmt.Sprintf("disaggregated%s: %d prefill worker(s) of %d× %s (%s) and %d decode worker(s) of %d× %s (%s)",
		per, d.prefill.workers, p.gpus(), id, pshape, r.replicas, r.l.gpus(), id, shape)
}
