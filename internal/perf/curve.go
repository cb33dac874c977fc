// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package perf

// CurvePoint is one point of an inference throughput curve: what the
// GPUs sustain when every request must get Interactivity output tokens/s
// at the 99th percentile (a max_time_per_output_token_ms of
// 1000 / Interactivity).
type CurvePoint struct {
	// Interactivity is output tokens/s per user: 1000 / the p99 time
	// per output token the point allows, in milliseconds.
	Interactivity float64
	// TokensPerSecondPerGPU is output tokens/s over all the GPUs given,
	// divided by their count; TokensPerSecond is the total.
	TokensPerSecondPerGPU, TokensPerSecond float64
	ServingLayout                          string
	TPOTMs                                 float64 // mean time per output token at the point
}

// ThroughputCurve estimates the prepared inference workload on h at each
// interactivity level of inference.throughput_curve_interactivity,
// keeping its time-to-first-token limit and replacing its time-per-output-
// token limit; levels the GPUs cannot reach are left out. A pinned layout
// (h.Layout, checked by Estimate) holds at every level. Nil for training
// and fine-tuning. The errors are Estimate's.
func (p *Prepared) ThroughputCurve(h Hardware) ([]CurvePoint, error) {
	x, err := p.m.normalizeWith(h, p.w.Precision, p)
	if err != nil || p.w.Kind != KindInference {
		return nil, err
	}
	levels := p.m.p.Inference.ThroughputCurveInteractivity
	out := make([]CurvePoint, 0, len(levels))
	for _, level := range levels {
		w := p.w
		w.MaxTimePerOutputTokenMs = 1e3 / level
		var est Estimate
		if h.Layout.IsZero() {
			est = p.m.inference(w, x, &p.shape, p.speculation, false, p.waits)
		} else {
			est = p.m.inferencePinned(w, x, &p.shape, p.speculation, h.Layout, false)
		}
		if !est.Fits || !(est.TokensPerSecond > 0) {
			continue
		}
		out = append(out, CurvePoint{Interactivity: level, TokensPerSecond: est.TokensPerSecond,
			TokensPerSecondPerGPU: est.TokensPerSecond / float64(h.GPUs), ServingLayout: est.ServingLayout, TPOTMs: est.TPOTMs})
	}
	return out, nil
}
