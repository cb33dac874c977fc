// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package perf

import (
	"math"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// prefillPool is the prefill side of a disaggregated deployment: workers
// of layout l, each processing one prompt in prefill seconds; a prompt's
// KV cache then takes transfer seconds to reach its decode worker.
type prefillPool struct {
	l                 servingLayout
	prefill, transfer float64
	workers           int
}

// rate is the output tokens/s the prefill workers feed: requests/s times
// the output tokens each request then generates.
func (p *prefillPool) rate(outputTokens int) float64 {
	return float64(p.workers) / p.prefill * float64(outputTokens)
}

// disaggPerf is a disaggregated split of the GPUs: units identical
// deployments of prefill workers and decode replicas (more than one when
// the GPUs span scale-up domains with no network to move KV caches
// between them: each domain then disaggregates on its own).
type disaggPerf struct {
	decode  replicaPerf
	prefill prefillPool
	tps     float64
	units   int
}

// bestDisaggregated searches the disaggregated splits: the prefill layout
// that processes the most prompts per GPU within the time-to-first-token
// limit, and for each decode layout the prefill/decode worker counts that
// balance the two pools. ok is false when the GPUs cannot hold a prefill
// and a decode worker (or the KV transfer would cross a network of
// none, and one scale-up domain spans fewer nodes than disaggregation
// needs).
func (c *servingCtx) bestDisaggregated(floor float64) (best disaggPerf, ok bool) {
	x := c.x
	if x.gpus > x.scaleUp() && x.fabric.kind == catalog.FabricNone {
		// No network for the KV transfer: each domain on its own.
		su := x.scaleUp()
		one := *c
		one.nSteps = 0 // step models depend on the GPU count
		xd := *x
		xd.gpus = su
		one.x = &xd
		if !one.disaggregationAllowed() {
			// One domain is the whole disaggregated unit, and it is
			// below the nodes the engines disaggregate across: nodes
			// with no network between them serve aggregated.
			return best, false
		}
		if c.w.MaxConcurrency > 0 {
			wd := *c.w
			wd.MaxConcurrency = ceilDivInt(wd.MaxConcurrency, x.gpus/su)
			one.w = &wd
		}
		if best, ok = one.bestDisaggregated(floor * float64(su) / float64(x.gpus)); ok {
			best.units = x.gpus / su
			best.tps *= float64(best.units)
		}
		return best, ok
	}
	var buf [maxServingLayouts]prefillPool
	// decode[i]: the decode side of splitBound for layout i, computed once
	// for all the prefill layouts tried (0: not yet; -1: does not fit).
	var decode [maxServingLayouts]float64
	tol := c.m.p.Search.RelativeTolerance
	for _, pf := range c.prefillWorkers(buf[:0]) {
		for i, l := range c.layouts {
			if l.gpus()+pf.l.gpus() > x.gpus {
				continue
			}
			if decode[i] == 0 {
				decode[i] = -1
				if c.m.minBytesPerGPU(c.w, c.s, l, c.kvBytes) <= x.usableGB*1e9 {
					decode[i] = c.decodeBound(l)
				}
			}
			if decode[i] < 0 || c.splitBound(decode[i], pf) <= math.Max(floor, best.tps)*(1+tol) {
				continue // does not fit, or cannot beat what is already found
			}
			if d, good := c.split(l, pf); good && (!ok || d.tps > best.tps*(1+tol)) {
				best, ok = d, true
				best.units = 1
			}
		}
	}
	return best, ok
}

// prefillWorkers appends to buf the prefill layouts to try, by prompt
// rate per GPU, highest first: those that fit and meet the
// time-to-first-token target unloaded with their KV transfer, or the
// fastest prefill when none does. Every one that meets it is tried, not
// only the densest: a request's first token also waits for the first
// step of its decode worker, which grows with the decode batch, so a
// slow, dense prefill layout leaves the decode workers little of the
// limit and a small batch; the best split can then be on a faster
// prefill layout, or one with fewer GPUs that splits the GPUs more
// finely (with the densest alone, a looser limit could sustain less
// than a tighter one did: TestPropertyLooserLimitsNotLower).
func (c *servingCtx) prefillWorkers(buf []prefillPool) []prefillPool {
	var fastest prefillPool
	found := false
	// The unloaded p99 of the prompt and its transfer within the limit.
	target := c.m.latencyTargets(c.w, c.sp.on).ttft / c.m.p.Inference.Latency.TTFTP99OverMeanUnloaded
	transfer := c.kvTransfer()
	for _, l := range c.layouts {
		if l.gpus() > c.x.gpus/2 || c.m.minBytesPerGPU(c.w, c.s, l, c.kvBytes) > c.x.usableGB*1e9 {
			continue
		}
		p := prefillPool{l: l, prefill: c.stepFor(l).prefill, transfer: transfer}
		if !found || p.prefill < fastest.prefill {
			fastest = p
		}
		found = true
		if target <= 0 || p.prefill+p.transfer <= target {
			buf = append(buf, p)
		}
	}
	if len(buf) == 0 && found {
		return append(buf, fastest)
	}
	// Highest prompt rate per GPU first (insertion sort: a few layouts;
	// equal rates keep the layouts' order).
	for i := 1; i < len(buf); i++ {
		for j := i; j > 0 && buf[j].perGPUTime() < buf[j-1].perGPUTime(); j-- {
			buf[j], buf[j-1] = buf[j-1], buf[j]
		}
	}
	return buf
}

// perGPUTime is the GPU-seconds of one prompt on the worker.
func (p *prefillPool) perGPUTime() float64 { return p.prefill * float64(p.l.gpus()) }

// kvTransfer is the time to move one prompt's KV cache from a prefill to
// a decode worker: over the scale-up link when the deployment fits one
// domain, over the NIC otherwise.
func (c *servingCtx) kvTransfer() float64 {
	bw := c.x.linkBps
	if c.x.gpus > c.x.scaleUp() {
		bw = c.x.nicGBps
	}
	bytes := c.s.kvElements(float64(c.w.InputTokens)) * c.kvBytes
	return bytes / (bw * c.m.p.Inference.Disaggregation.KVTransferEfficiency)
}

// split balances prefill workers pf.l with decode workers of layout l on
// the GPUs: prefill workers in proportion to the decode workers' output
// rate per GPU against theirs, rounded down and up, the rest decoding.
func (c *servingCtx) split(l servingLayout, pf prefillPool) (disaggPerf, bool) {
	g, rp, rd := c.x.gpus, pf.l.gpus(), l.gpus()
	probe := c.replica(l, (g-rp)/rd, &pf)
	concurrency := c.w.MaxConcurrency > 0
	if !probe.fits || probe.tps <= 0 {
		return disaggPerf{}, false
	}
	decodePerGPU := probe.tps / float64(probe.replicas*rd)
	prefillPerGPU := float64(c.w.OutputTokens) / (pf.prefill * float64(rp))
	var best disaggPerf
	ok := false
	for _, n := range balancedPrefillWorkers(g, rp, rd, decodePerGPU, prefillPerGPU) {
		nd := (g - n*rp) / rd
		if nd < 1 {
			continue
		}
		d := disaggPerf{prefill: pf}
		d.prefill.workers = n
		d.decode = probe
		switch {
		case nd == probe.replicas:
		case concurrency:
			// The concurrency cap splits over the replicas: re-solve.
			d.decode = c.replica(l, nd, &pf)
		default:
			// Each replica's batch does not depend on their number.
			d.decode.tps *= float64(nd) / float64(probe.replicas)
			d.decode.requests *= float64(nd) / float64(probe.replicas)
			d.decode.replicas = nd
		}
		d.tps = math.Min(d.decode.tps, d.prefill.rate(c.w.OutputTokens))
		if d.decode.tps > 0 && (!ok || d.tps > best.tps) {
			best, ok = d, true
		}
	}
	return best, ok
}

// splitBound is an upper bound on the output tokens/s of any split with
// decode workers whose decodeBound is decode and prefill workers pf: the
// GPU budget shared at the two pools' best per-GPU rates (T/decode rate +
// T/prefill rate ≤ GPUs).
func (c *servingCtx) splitBound(decode float64, pf prefillPool) float64 {
	prefill := float64(c.w.OutputTokens) / (pf.prefill * float64(pf.l.gpus()))
	return float64(c.x.gpus) / (1/decode + 1/prefill)
}

// decodeBound is the output tokens/s per GPU of decode workers of layout
// l at the largest batch memory and the engine allow, with no latency
// limit.
func (c *servingCtx) decodeBound(l servingLayout) float64 {
	st := c.stepFor(l)
	bMem, engine := c.m.batchCapacity(c.w, c.s, c.x, l, c.kvBytes)
	b := float64(max(c.w.BeamWidth, min(bMem, engine)))
	return b / float64(c.w.BeamWidth) * st.speculation.perStep / st.step(b).total() / float64(l.gpus())
}

// balancedPrefillWorkers is the prefill-worker counts around the balance
// of g GPUs between prefill workers of rp GPUs and decode workers of rd:
// with output rates per GPU od (decoding) and op (prefilling, in the
// output tokens the prompts lead to), a share od/(od+op) of the GPUs
// prefills. Throughput is the smaller pool's, so the best whole split
// sits next to the balance: that many prefill workers rounded down and
// up, and the prefill workers the GPUs leave beside the balanced decode
// workers rounded down and up (at least one each; duplicates repeat).
func balancedPrefillWorkers(g, rp, rd int, od, op float64) [4]int {
	share := od / (od + op)
	ideal := share * float64(g) / float64(rp)
	idealDecode := (1 - share) * float64(g) / float64(rd)
	fromDecode := func(nd int) int { return max(1, (g-max(1, nd)*rd)/rp) }
	return [4]int{max(1, int(math.Floor(ideal))), max(1, int(math.Ceil(ideal))),
		fromDecode(int(math.Floor(idealDecode))), fromDecode(int(math.Ceil(idealDecode)))}
}
