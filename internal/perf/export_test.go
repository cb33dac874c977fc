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
	return p.m.inferenceFixed(p.w, x, &p.shape, p.spec, fs), nil
}

// PrefillSeconds is one prompt's prefill time on a worker of tp GPUs.
func (p *Prepared) PrefillSeconds(h Hardware, tp int, ep bool) float64 {
	x, err := p.m.normalizeWith(h, p.w.Precision, p)
	if err != nil {
		return 0
	}
	return p.m.newStepModel(&p.w, &p.shape, &x, servingLayout{tp: tp, pp: 1, ep: ep}, p.spec).prefill
}
