// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package perf

import "math"

// speculation is a workload's speculative decoding, resolved: each decode step
// drafts draftTokens tokens per sequence and the model verifies them with
// the next token in one forward pass.
type speculation struct {
	on          bool
	method      string
	draftTokens int
	acceptance  float64
	// verify is the tokens one sequence puts through the model per step
	// (1 + draft tokens; 1 without speculation); perStep the tokens it
	// emits per step on average.
	verify, perStep float64
	draftParams     float64 // draft_model: the draft model's parameters
	draftLayers     int     // draft_model: its layers (architecture rule)
}

// Enabled reports whether speculative decoding is on.
func (s SpeculativeDecoding) Enabled() bool { return s.Method != "" }

// applySpeculativeDefaults fills the method's default acceptance rate and
// draft length (perf_model.json inference.speculative).
func (m *Model) applySpeculativeDefaults(sd *SpeculativeDecoding) {
	if !sd.Enabled() {
		return
	}
	d := m.p.Inference.Speculative[sd.Method]
	if sd.AcceptanceRate == 0 {
		sd.AcceptanceRate = d.AcceptanceRate
	}
	if sd.DraftTokens == 0 {
		sd.DraftTokens = d.DraftTokens
	}
}

// resolveSpeculation turns the workload's (defaulted) setting into step terms.
// With an acceptance rate α per draft token (each accepted only if the
// previous one was) and k draft tokens, a step emits the accepted prefix
// plus the model's own next token: (1 − α^(k+1)) / (1 − α) tokens on
// average (Leviathan et al., arXiv:2211.17192, eq. 1).
func (m *Model) resolveSpeculation(w *Workload) speculation {
	sd := w.SpeculativeDecoding
	if !sd.Enabled() {
		return speculation{verify: 1, perStep: 1}
	}
	k := float64(sd.DraftTokens)
	a := sd.AcceptanceRate
	sp := speculation{on: true, method: sd.Method, draftTokens: sd.DraftTokens, acceptance: a,
		verify: 1 + k, perStep: (1 - math.Pow(a, k+1)) / (1 - a)}
	if sd.Method == SpeculativeDraftModel {
		sp.draftParams = sd.DraftModelParametersB * 1e9
		sp.draftLayers = m.Architecture(Workload{ModelParametersB: sd.DraftModelParametersB}).Layers
	}
	return sp
}

// draftTime is the drafting of one step for b sequences. An MTP (or
// EAGLE-style) head is one transformer layer of the model, run once per
// draft token; a draft model is a small dense model run once per draft
// token, bound by reading its weights (or by its compute at large
// batches) plus its per-layer overhead.
func (st *stepModel) draftTime(b float64) float64 {
	k := float64(st.speculation.draftTokens)
	if st.speculation.method == SpeculativeMTP {
		return k * st.forward(b, b).total() / float64(st.s.arch.Layers)
	}
	d := st.speculation.draftParams
	read := d * st.s.otherBytes / (st.r * st.bw)
	cmp := 2 * d * b / (st.r * st.cmp)
	perLayer := st.ip.StepOverheadUSPerLayer * 1e-6
	if st.tp > 1 && !st.l.ep {
		perLayer += 2 * st.ip.TPAllReduceLatencyUS * 1e-6
	}
	return k * (math.Max(read, cmp) + float64(st.speculation.draftLayers)*perLayer)
}

// tpotP99 converts a mean time per output token into the 99th
// percentile the limit bounds, with the fitted p99/mean ratio.
func (m *Model) tpotP99(tpotMs float64, speculative bool) float64 {
	l := m.p.Inference.Latency
	if speculative {
		return tpotMs * l.TPOTP99OverMeanSpeculative
	}
	return tpotMs * l.TPOTP99OverMean
}

// latencyTargets converts the workload's limits into targets: the time
// per output token's into a mean target, the limit over the fitted
// p99/mean ratio (speculation makes it burstier: the accepted tokens per
// step vary); the time to first token's stays a p99 (seconds), which
// latencyLoad compares with the p99 at the replica's load.
func (m *Model) latencyTargets(w *Workload, speculative bool) latencyTargets {
	l := m.p.Inference.Latency
	tpotRatio := l.TPOTP99OverMean
	if speculative {
		tpotRatio = l.TPOTP99OverMeanSpeculative
	}
	var t latencyTargets
	if w.MaxTimePerOutputTokenMs > 0 {
		t.tpot = w.MaxTimePerOutputTokenMs * 1e-3 / tpotRatio
	}
	if w.MaxTimeToFirstTokenMs > 0 {
		t.ttft = w.MaxTimeToFirstTokenMs * 1e-3
	}
	return t
}
