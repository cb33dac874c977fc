// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package perf

// FixedServing is a serving deployment given rather than searched, for
// the accuracy report (InferenceX rows state theirs). TP is the GPUs of a
// replica (or decode worker); EP selects data-parallel attention with
// expert parallelism over them. PrefillWorkers > 0 makes it
// disaggregated.
type FixedServing struct {
	TP             int
	EP             bool
	Replicas       int
	PrefillTP      int
	PrefillEP      bool
	PrefillWorkers int
}

// EstimateFixed estimates the prepared inference workload on the
// deployment f.
func (p *Prepared) EstimateFixed(h Hardware, f FixedServing) (Estimate, error) {
	x, err := p.m.normalizeWith(h, p.w.Precision, p)
	if err != nil {
		return Estimate{}, err
	}
	fs := fixedServing{decode: servingLayout{tp: f.TP, pp: 1, ep: f.EP}, replicas: f.Replicas,
		prefill: servingLayout{tp: max(1, f.PrefillTP), pp: 1, ep: f.PrefillEP}, prefillWorkers: f.PrefillWorkers}
	return p.m.inferenceFixed(p.w, x, &p.shape, p.speculation, fs), nil
}

// PrefillSeconds is one prompt's prefill time on a worker of tp GPUs.
func (p *Prepared) PrefillSeconds(h Hardware, tp int, ep bool) float64 {
	x, err := p.m.normalizeWith(h, p.w.Precision, p)
	if err != nil {
		return 0
	}
	return p.m.newStepModel(&p.w, &p.shape, &x, servingLayout{tp: tp, pp: 1, ep: ep}, p.speculation).prefill
}

// KVBytesPerToken is the cache bytes one token of context adds (all
// layers, at the workload's cache precision).
func (p *Prepared) KVBytesPerToken() float64 {
	return (p.shape.kvPerToken + p.shape.indexPerToken) * p.m.kvBytesPerElement(p.w.Precision)
}

// WeightBytes is the routed-expert and other weight bytes of the model.
func (p *Prepared) WeightBytes() (experts, other float64) {
	return p.shape.expertTotal, p.shape.weightBytes - p.shape.expertTotal
}

// WeightsPerGPU is the weight bytes one GPU of a replica of tp GPUs holds
// (ep: data-parallel attention with expert parallelism).
func (p *Prepared) WeightsPerGPU(tp int, ep bool) float64 {
	return p.m.memory(&p.w, &p.shape, servingLayout{tp: tp, pp: 1, ep: ep}).weights
}

// TokensPerStep is the output tokens a sequence emits per decode step.
func (p *Prepared) TokensPerStep() float64 { return p.speculation.perStep }

// SplitDetail is the disaggregated split the search keeps on h.
type SplitDetail struct {
	PrefillWorkers, PrefillGPUs, DecodeWorkers, DecodeGPUs int
	PrefillSeconds, DecodeTokensPerSecond, TokensPerSecond float64
}

// Split returns the best disaggregated split on h (ok false when none).
func (p *Prepared) Split(h Hardware) (SplitDetail, bool) {
	x, err := p.m.normalizeWith(h, p.w.Precision, p)
	if err != nil {
		return SplitDetail{}, false
	}
	c := servingCtx{m: p.m, w: &p.w, s: &p.shape, x: &x, sp: p.speculation, kvBytes: p.m.kvBytesPerElement(p.w.Precision)}
	var buf [maxServingLayouts]servingLayout
	c.layouts = p.m.servingLayouts(&x, &p.shape, buf[:0])
	d, ok := c.bestDisaggregated(0)
	return SplitDetail{PrefillWorkers: d.prefill.workers, PrefillGPUs: d.prefill.l.gpus(), DecodeWorkers: d.decode.replicas,
		DecodeGPUs: d.decode.l.gpus(), PrefillSeconds: d.prefill.prefill, DecodeTokensPerSecond: d.decode.tps, TokensPerSecond: d.tps}, ok
}

// InFlightOutputTokens is inFlightOutputTokens.
func InFlightOutputTokens(mean, p99 float64) float64 { return inFlightOutputTokens(mean, p99) }

// DecodeStep reports, for a replica of tp GPUs, the cache bytes one
// sequence (one beam) reads per decode step, before its per-GPU share, and
// the FLOP/s the step's attention-score math runs at.
func (p *Prepared) DecodeStep(h Hardware, tp int) (cacheReadBytes, attentionFLOPS float64) {
	x, err := p.m.normalizeWith(h, p.w.Precision, p)
	if err != nil {
		return 0, 0
	}
	st := p.m.newStepModel(&p.w, &p.shape, &x, servingLayout{tp: tp, pp: 1}, p.speculation)
	return st.kvReadSeq, st.cmpAttn
}

// WithoutFP4Attention is p prepared again with the attention projections
// quantized like the rest of the weights (as if the preset had no
// FP4AttentionPrecision).
func (p *Prepared) WithoutFP4Attention() *Prepared {
	q, err := p.m.Prepare(p.given, ValidateOptions{})
	if err != nil {
		panic(err)
	}
	s := &q.shape
	if s.attnProj16 {
		s.weightBytes -= s.attnParams * (s.attnBytes - s.otherBytes)
		s.attnBytes, s.attnProj16 = s.otherBytes, false
	}
	return q
}

// AttentionParams is the attention-projection parameters of the shape.
func (p *Prepared) AttentionParams() float64 { return p.shape.attnParams }
