// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package perf

import (
	"math"
	"sync"
)

// Serving layouts of an inference estimate.
const (
	// ServingAggregated: every replica prefills prompts and decodes.
	ServingAggregated = "aggregated"
	// ServingDisaggregated: prefill workers process prompts and hand the
	// KV cache to decode workers.
	ServingDisaggregated = "disaggregated"
)

// servingCtx holds one inference estimate's inputs.
type servingCtx struct {
	m       *Model
	w       *Workload
	s       *shape
	x       *hw
	sp      speculation
	kvBytes float64
	layouts []servingLayout
	waits   *waitMemo // nil: none
	// steps caches the step model of each layout evaluated (the
	// aggregated and disaggregated searches share them).
	steps  [maxServingLayouts + 2]cachedStep
	nSteps int
}

type cachedStep struct {
	l  servingLayout
	st stepModel
}

// stepFor returns the step model of layout l, built once per estimate.
func (c *servingCtx) stepFor(l servingLayout) *stepModel {
	for i := 0; i < c.nSteps; i++ {
		if c.steps[i].l == l {
			return &c.steps[i].st
		}
	}
	st := c.m.newStepModel(c.w, c.s, c.x, l, c.sp)
	if c.nSteps == len(c.steps) {
		c.steps[0] = cachedStep{l: l, st: st}
		return &c.steps[0].st
	}
	c.steps[c.nSteps] = cachedStep{l: l, st: st}
	c.nSteps++
	return &c.steps[c.nSteps-1].st
}

// replicaPerf is the verdict on one replica (or decode-worker) layout.
type replicaPerf struct {
	l              servingLayout
	st             stepModel
	fits           bool
	minBytesPerGPU float64
	batch          int     // sequences in flight (beams included)
	requests       float64 // requests in flight across the replicas counted
	tps            float64 // output tokens/s of all the replicas counted
	ttft, tpot     float64 // mean seconds
	ttft99         float64 // 99th-percentile time to first token, seconds (ttftP99)
	parts          stepParts
	iteration      float64
	replicas       int
	// latencyBound: the limits cap the batch; latencyImpossible: even one
	// request misses them; kvBound: cache memory caps the batch.
	latencyBound, latencyImpossible, kvBound bool
}

// inference estimates serving on the hardware: the best aggregated
// replica layout and, with enough GPUs, the best disaggregated split;
// the disaggregated one is kept when it sustains more.
// waits (nil: none) memoizes the prefill waits.
func (m *Model) inference(w Workload, x hw, s *shape, sp speculation, explain bool, waits *waitMemo) Estimate {
	f, _ := servingFrames.Get().(*servingFrame)
	if f == nil {
		f = new(servingFrame)
	}
	defer servingFrames.Put(f)
	f.w, f.x = w, x
	c := servingCtx{m: m, w: &f.w, s: s, x: &f.x, sp: sp, kvBytes: m.kvBytesPerElement(w.Precision), waits: waits}
	c.layouts = m.servingLayouts(&f.x, s, f.layouts[:0])
	agg, smallest, ok := c.bestAggregated()
	if !ok {
		return inferenceMiss(&f.w, &f.x, &smallest, explain)
	}
	if !c.disaggregationAllowed() {
		return c.fit(&agg, nil, explain)
	}
	if dis, ok := c.bestDisaggregated(agg.tps); ok && dis.tps > agg.tps*(1+m.p.Search.RelativeTolerance) {
		return c.fit(&dis.decode, &dis, explain)
	}
	return c.fit(&agg, nil, explain)
}

// servingFrame holds what a search's step models point to: the workload,
// the hardware and the replica layouts. The compiler cannot keep them on
// the stack of an estimate (its context caches the step models), so
// estimates take them from a pool instead of allocating them; an estimate
// keeps no pointer into its frame.
type servingFrame struct {
	w       Workload
	x       hw
	layouts [maxServingLayouts]servingLayout
}

var servingFrames = sync.Pool{New: func() any { return new(servingFrame) }}

// inferencePinned estimates serving with a pinned layout: aggregated
// replicas of the shapes the pin allows (pinnedServingLayouts), as many
// as parallelism.data pins or the GPUs hold, the best that fits; when
// none fits, the estimate of the smallest.
func (m *Model) inferencePinned(w Workload, x hw, s *shape, sp speculation, pin Parallelism, explain bool) Estimate {
	c := servingCtx{m: m, w: &w, s: s, x: &x, sp: sp, kvBytes: m.kvBytesPerElement(w.Precision)}
	var buf [maxServingLayouts]servingLayout
	c.layouts = m.pinnedServingLayouts(&x, s, pin, buf[:0])
	tol := m.p.Search.RelativeTolerance
	var best, smallest replicaPerf
	ok, haveSmallest := false, false
	for _, l := range c.layouts {
		replicas := pin.Data
		if replicas == 0 {
			replicas = x.gpus / l.gpus()
		}
		if replicas < 1 || l.gpus()*replicas > x.gpus {
			continue
		}
		rp := c.replica(l, replicas, nil)
		switch {
		case !rp.fits && (!haveSmallest || rp.minBytesPerGPU < smallest.minBytesPerGPU):
			smallest, haveSmallest = rp, true
		case rp.fits && (!ok || rp.tps > best.tps*(1+tol)):
			best, ok = rp, true
		}
	}
	switch {
	case ok:
		return c.fit(&best, nil, explain)
	case haveSmallest:
		return inferenceMiss(&w, &x, &smallest, explain)
	}
	return Estimate{UsableMemoryPerGPUGB: x.usableGB, Binding: BindMemory, ServingLayout: ServingAggregated}
}

// disaggregationAllowed reports whether the search may split prefill and
// decode: the vendor's serving stack runs disaggregated serving
// (inference.engines) and the GPUs span disaggregation.min_nodes nodes.
func (c *servingCtx) disaggregationAllowed() bool {
	x := c.x
	nodes := (x.gpus + x.gpn - 1) / x.gpn
	return x.engine.Disaggregated && nodes >= c.m.p.Inference.Disaggregation.MinNodes
}

// bestAggregated returns the aggregated layout sustaining the most output
// tokens/s over all the GPUs, or, when none fits, the layout needing the
// least memory per GPU.
func (c *servingCtx) bestAggregated() (best, smallest replicaPerf, ok bool) {
	tol := c.m.p.Search.RelativeTolerance
	haveSmallest := false
	for _, l := range c.layouts {
		rp := c.replica(l, c.x.gpus/l.gpus(), nil)
		if !rp.fits {
			if !haveSmallest || rp.minBytesPerGPU < smallest.minBytesPerGPU {
				smallest, haveSmallest = rp, true
			}
			continue
		}
		if !ok || rp.tps > best.tps*(1+tol) {
			best, ok = rp, true
		}
	}
	return best, smallest, ok
}

// replica evaluates layout l run as `replicas` replicas: aggregated when
// pf is nil, as decode workers fed by the prefill workers pf otherwise.
// The batch is the largest that memory, the engine, the concurrency cap
// and the latency limits allow.
func (c *servingCtx) replica(l servingLayout, replicas int, pf *prefillPool) replicaPerf {
	rp := replicaPerf{l: l, replicas: replicas}
	rp.minBytesPerGPU = c.m.minBytesPerGPU(c.w, c.s, l, c.kvBytes)
	if rp.minBytesPerGPU > c.x.usableGB*1e9 || replicas < 1 {
		return rp
	}
	rp.fits = true
	rp.st = *c.stepFor(l)
	beam := c.w.BeamWidth
	bMem, engine := c.m.batchCapacity(c.w, c.s, c.x, l, c.kvBytes)
	bMax := min(bMem, engine)
	rp.kvBound = bMem <= engine
	if conc := c.w.MaxConcurrency; conc > 0 {
		if capped := ceilDivInt(conc, replicas) * beam; capped < bMax {
			bMax, rp.kvBound = capped, false
		}
	}
	bMax = max(beam, bMax-bMax%beam)
	b := c.latencyBatch(&rp, bMax, pf)
	c.settle(&rp, b, pf)
	return rp
}

// settle fills the replica's figures at batch b.
func (c *servingCtx) settle(rp *replicaPerf, b int, pf *prefillPool) {
	st := &rp.st
	rp.batch = b
	rp.parts = st.step(float64(b))
	_, rp.iteration, rp.ttft, rp.ttft99 = c.latencyLoad(st, b, pf, false)
	rp.tpot = rp.iteration / st.speculation.perStep
	perReplica := float64(b) / float64(c.w.BeamWidth)
	rp.requests = perReplica * float64(rp.replicas)
	if conc := float64(c.w.MaxConcurrency); conc > 0 && rp.requests > conc {
		rp.requests = conc
	}
	rp.tps = rp.requests * st.speculation.perStep / rp.iteration
	if rp.latencyImpossible {
		rp.tps = 0
	}
}

// latencyLoad is the larger of the latencies over their limits at b
// sequences per replica (≤ 1 meets the limits; 0 without limits): the
// mean time per output token over its mean target, the 99th-percentile
// time to first token over its limit; with the iteration time and the
// mean and 99th-percentile times to first token. Aggregated replicas
// interleave the prompts of joining requests with decoding; decode
// workers only decode, and a request's first token waits for its prefill
// worker and the KV transfer. A search that reads the load only (loadOnly)
// skips the times to first token when no limit bounds them.
func (c *servingCtx) latencyLoad(st *stepModel, b int, pf *prefillPool, loadOnly bool) (load, it, ttft, ttft99 float64) {
	if pf == nil {
		it = st.iteration(float64(b))
		ttft = st.prefill + it
	} else {
		it = st.step(float64(b)).total()
		ttft = pf.prefill + pf.transfer + it
	}
	if t := st.limits; t.tpot > 0 {
		load = it / st.speculation.perStep / t.tpot
	}
	if t := st.limits; t.ttft > 0 || !loadOnly {
		ttft, ttft99 = c.ttftP99(st, b, pf, it, ttft)
	}
	if t := st.limits; t.ttft > 0 {
		load = math.Max(load, ttft99/t.ttft)
	}
	return load, it, ttft, ttft99
}

// ttftP99 is the mean and the 99th percentile of the time to first token
// whose service part (prefill, transfer, first step) takes service: the
// unloaded p99 (inference.latency.ttft_p99_over_mean_unloaded × the
// service, measured at one request in flight) plus, on an aggregated
// replica, the wait for prefill under Poisson arrivals (MLPerf Server's
// arrival process) at the replica's request rate: an M/D/1 queue of
// prefills with its mean wait added to the mean and its 99th-percentile
// wait to the p99. A replica whose prompts alone would keep it busy has
// an unbounded wait. A disaggregated deployment's prefill workers are
// sized by the split to the decode rate; their wait is not modelled.
func (c *servingCtx) ttftP99(st *stepModel, b int, pf *prefillPool, it, service float64) (mean, p99 float64) {
	u := c.m.p.Inference.Latency.TTFTP99OverMeanUnloaded
	if pf != nil || !(st.prefill > 0) {
		return service, u * service
	}
	// Requests per second of one replica: b/beam in flight, each for
	// output/perStep iterations.
	lambda := float64(b) / float64(c.w.BeamWidth) * st.speculation.perStep / (float64(c.w.OutputTokens) * it)
	rho := lambda * st.prefill
	if !(rho < 1) {
		return math.Inf(1), math.Inf(1)
	}
	return service + rho*st.prefill/(2*(1-rho)), u*service + c.waits.wait99(rho, st.prefill)
}

// mdOneWait99 is the 99th-percentile wait of an M/D/1 queue at load rho
// with service time s, by the exponential tail P(W > t) ≈ ρ·e^(−θt) whose
// decay θ solves ρ(e^(θs) − 1) = θs (Cramér–Lundberg); 0 when fewer than
// one in a hundred requests wait at all.
func mdOneWait99(rho, s float64) float64 {
	if !(rho > 0.01) {
		return 0
	}
	// x = θs: the positive root of g(x) = ρ(e^x − 1) − x, convex with
	// g(0) = 0 and g'(0) = ρ − 1 < 0. Both starts are right of the root
	// (g ≥ 0 there): 2(1 − ρ)/ρ, where ρ(x + x²/2) = x, since e^x − 1 ≥
	// x + x²/2, and 2·ln(2/ρ), where ρe^x = 4/ρ; the smaller is close to
	// it at any load, and Halley's steps (one exponential each) converge
	// cubically (TestMDOneWait99).
	x := math.Min(2*(1-rho)/rho, 2*math.Log(2/rho))
	for range 50 {
		em1 := math.Expm1(x)
		g, dg, d2g := rho*em1-x, rho*(em1+1)-1, rho*(em1+1)
		step := 2 * g * dg / (2*dg*dg - g*d2g)
		x -= step
		if math.Abs(step) < 1e-9*x {
			break
		}
	}
	return math.Log(100*rho) / (x / s)
}

// latencyBatch returns the largest batch up to bMax (a multiple of the
// beam width) that meets the latency limits; it marks rp latency-bound
// or, when even one request misses, impossible. The latencies grow
// monotonically and almost linearly with the batch, so the search
// interpolates between the bracketing batches (Illinois false position),
// in requests; the answer is the exact largest batch either way.
func (c *servingCtx) latencyBatch(rp *replicaPerf, bMax int, pf *prefillPool) int {
	beam := c.w.BeamWidth
	hiLoad, _, _, _ := c.latencyLoad(&rp.st, bMax, pf, true)
	if hiLoad <= 1 {
		return bMax
	}
	rp.latencyBound, rp.kvBound = true, false
	loLoad, _, _, _ := c.latencyLoad(&rp.st, beam, pf, true)
	if loLoad > 1 {
		rp.latencyImpossible = true
		return beam
	}
	lo, hi := 1, bMax/beam // in requests; lo meets the limits, hi does not
	side := 0              // which end moved last (Illinois false position)
	for hi-lo > 1 {
		guess := float64(lo) + (1-loLoad)/(hiLoad-loLoad)*float64(hi-lo)
		mid := min(hi-1, max(lo+1, int(guess)))
		load, _, _, _ := c.latencyLoad(&rp.st, mid*beam, pf, true)
		if load <= 1 {
			lo, loLoad = mid, load
			if side < 0 {
				hiLoad = 1 + (hiLoad-1)/2 // the far end has stalled: pull it in
			}
			side = -1
		} else {
			hi, hiLoad = mid, load
			if side > 0 {
				loLoad = 1 - (1-loLoad)/2
			}
			side = 1
		}
	}
	return lo * beam
}

func ceilDivInt(a, b int) int { return (a + b - 1) / b }

// fixedServing is a deployment given rather than searched: the accuracy
// report compares InferenceX rows on their own layout and worker counts.
type fixedServing struct {
	decode, prefill servingLayout
	replicas        int // aggregated replicas, or decode workers
	prefillWorkers  int // 0 = aggregated
}

// inferenceFixed estimates serving on the deployment f.
func (m *Model) inferenceFixed(w Workload, x hw, s *shape, sp speculation, f fixedServing) Estimate {
	c := servingCtx{m: m, w: &w, s: s, x: &x, sp: sp, kvBytes: m.kvBytesPerElement(w.Precision)}
	if f.prefillWorkers == 0 {
		rp := c.replica(f.decode, f.replicas, nil)
		if !rp.fits {
			return inferenceMiss(&w, &x, &rp, false)
		}
		return c.fit(&rp, nil, true)
	}
	pf := prefillPool{l: f.prefill, prefill: c.stepFor(f.prefill).prefill, transfer: c.kvTransfer(), workers: f.prefillWorkers}
	d := disaggPerf{prefill: pf, units: 1, decode: c.replica(f.decode, f.replicas, &pf)}
	if !d.decode.fits {
		return inferenceMiss(&w, &x, &d.decode, false)
	}
	d.tps = math.Min(d.decode.tps, pf.rate(w.OutputTokens))
	return c.fit(&d.decode, &d, true)
}
