// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package perf

import (
	"fmt"
	"sync"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// Prepared is a workload bound to a model once, for callers that estimate
// it on many hardware choices (the planner): the workload is validated and
// given its defaults once, and what depends on an accelerator and the
// precision only is computed once per accelerator. Its answers are
// identical to the Model's for the same workload. It is safe for
// concurrent use; the accelerators passed to it must not change while it
// is in use.
type Prepared struct {
	m    *Model
	w    Workload // with defaults
	err  error    // the workload's validation error, returned by every estimate
	arch Arch

	mu   sync.Mutex
	accs map[*catalog.Accelerator]*accInfo
}

// Prepare binds a workload to the model.
func (m *Model) Prepare(w Workload) *Prepared {
	p := &Prepared{m: m, accs: map[*catalog.Accelerator]*accInfo{}}
	if errs := w.Validate(); len(errs) > 0 {
		p.err = fmt.Errorf("perf: invalid workload: %s", errs[0].Error())
	}
	p.w = w.WithDefaults()
	p.arch = m.Architecture(p.w)
	return p
}

// Workload returns the prepared workload, with its defaults applied.
func (p *Prepared) Workload() Workload { return p.w }

// Estimate is Model.Estimate of the prepared workload.
func (p *Prepared) Estimate(h Hardware) (Estimate, error) { return p.estimate(h, true) }

// EstimateBrief is Model.EstimateBrief of the prepared workload.
func (p *Prepared) EstimateBrief(h Hardware) (Estimate, error) { return p.estimate(h, false) }

func (p *Prepared) estimate(h Hardware, explain bool) (Estimate, error) {
	if p.err != nil {
		return Estimate{}, p.err
	}
	x, err := p.m.normalizeWith(h, p.w.Precision, p)
	if err != nil {
		return Estimate{}, err
	}
	if p.w.Kind == KindInference {
		return p.m.inference(p.w, x, p.arch, explain), nil
	}
	return p.m.training(p.w, x, p.arch, explain), nil
}

// MinGPUsToFit is Model.MinGPUsToFit of the prepared workload.
func (p *Prepared) MinGPUsToFit(acc *catalog.Accelerator, gpusPerNode int) int {
	return p.m.minGPUsToFit(&p.w, &p.arch, acc, gpusPerNode, p)
}

// accelerator returns the memoized accelerator part of normalize.
func (p *Prepared) accelerator(a *catalog.Accelerator) accInfo {
	p.mu.Lock()
	ai, ok := p.accs[a]
	p.mu.Unlock()
	if ok {
		return *ai
	}
	v := p.m.accelerator(a, p.w.Precision)
	p.mu.Lock()
	p.accs[a] = &v
	p.mu.Unlock()
	return v
}
