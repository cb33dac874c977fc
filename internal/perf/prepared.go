// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package perf

import (
	"math"
	"strings"
	"sync"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// Prepared is a workload validated and given its defaults once, bound to
// the model, for every caller that estimates it: the provider's data
// sources and functions, and the planner, which estimates it on many
// hardware choices (what depends on an accelerator and the precision only
// is computed once per accelerator). It is safe for concurrent use; the
// accelerators passed to it must not change while it is in use.
type Prepared struct {
	m           *Model
	given       Workload // as given (CheckPrecision says which precision was defaulted)
	w           Workload // with defaults
	arch        Arch
	shape       shape // the serving physics' view of the model
	speculation speculation

	mu   sync.Mutex
	accs map[*catalog.Accelerator]*accInfo
	// accBlock holds the accInfo values accs points to, a block at a time
	// (a full block is left to the entries pointing into it).
	accBlock []accInfo

	plans planCache
	waits *waitMemo // inference only (nil computes every wait)
	fits  fitMemo
}

// waitMemo holds the 99th-percentile prefill waits (mdOneWait99) of a
// prepared workload's estimates by load and prefill time, direct-mapped:
// a replica layout recurs on every GPU count of an accelerator, and with
// it the wait at its settled batch. A nil memo computes every wait. The
// zero entry holds the pair (0, 0), whose wait is 0.
type waitMemo struct {
	mu      sync.Mutex
	entries [waitMemoSize]waitEntry
}

// waitMemoSize is the memo's entries (a power of two).
const waitMemoSize = 256

type waitEntry struct{ rho, s, wait float64 }

// wait99 is mdOneWait99(rho, s), from the memo when it holds it.
func (wm *waitMemo) wait99(rho, s float64) float64 {
	if wm == nil {
		return mdOneWait99(rho, s)
	}
	h := math.Float64bits(rho)*0x9e3779b97f4a7c15 ^ math.Float64bits(s)
	e := (h ^ h>>29) * 0xbf58476d1ce4e5b9
	i := (e >> 56) & (waitMemoSize - 1)
	wm.mu.Lock()
	if en := wm.entries[i]; en.rho == rho && en.s == s {
		wm.mu.Unlock()
		return en.wait
	}
	wm.mu.Unlock()
	v := mdOneWait99(rho, s)
	wm.mu.Lock()
	wm.entries[i] = waitEntry{rho, s, v}
	wm.mu.Unlock()
	return v
}

// planCache holds a prepared workload's layout plans by GPU count and node
// size. A brief estimate (the planner's, one of many on hardware of a few
// sizes) builds its size's plan at once and reads it, as every later
// search of the size does. An explained one (a data source's single
// estimate) enumerates on a size's first search and builds the plan on the
// second, so a single estimate builds none and allocates nothing here: the
// first size seen is held inline.
type planCache struct {
	mu        sync.Mutex
	first     [2]int // the first size searched, while it has no slot
	haveFirst bool
	plans     map[[2]int]planSlot
}

// plan returns the plan of hardware x's size, none on its first search
// unless eager (or for a nil cache).
func (pc *planCache) plan(m *Model, c *trainCtx, x *hw, arch *Arch, seq int, eager bool) trainPlan {
	if pc == nil {
		return trainPlan{}
	}
	k := [2]int{x.gpus, x.gpn}
	pc.mu.Lock()
	slot, seen := pc.plans[k]
	switch {
	case seen || eager:
		seen = true
	case pc.haveFirst && pc.first == k:
		seen, pc.haveFirst = true, false
	case !pc.haveFirst && pc.plans == nil:
		pc.first, pc.haveFirst = k, true
	default:
		if pc.plans == nil {
			pc.plans = map[[2]int]planSlot{}
		}
		pc.plans[k] = planSlot{}
	}
	pc.mu.Unlock()
	if slot.built || !seen {
		return slot.plan
	}
	p := m.newTrainPlan(c, x, arch, seq)
	pc.mu.Lock()
	if pc.plans == nil {
		pc.plans = map[[2]int]planSlot{}
	}
	pc.plans[k] = planSlot{plan: p, built: true}
	pc.mu.Unlock()
	return p
}

// planSlot is a size's entry: no plan yet after its first search.
type planSlot struct {
	plan  trainPlan
	built bool
}

// Prepare validates the workload (see Workload.Validate) and applies its
// defaults (WithDefaults, with opts' latency default). The error is an
// inputerr.List naming every bad attribute.
func (m *Model) Prepare(w Workload, opts ValidateOptions) (*Prepared, error) {
	if errs := w.Validate(opts); len(errs) > 0 {
		return nil, errs
	}
	p := &Prepared{m: m, given: w, accs: map[*catalog.Accelerator]*accInfo{}}
	p.w = m.WithDefaults(w, opts)
	if p.w.Kind == KindInference {
		p.waits = new(waitMemo)
	}
	preset := lookupPreset(p.w.Model)
	expertPrecision := ""
	if preset != nil && strings.TrimSpace(w.Precision) == "" {
		// The preset's native format: routed experts may be stored
		// narrower than the rest (gpt-oss MXFP4, Kimi K2.5 INT4).
		expertPrecision = preset.ExpertWeightPrecision
	}
	p.shape = m.resolveShape(&p.w, preset, expertPrecision)
	p.arch = p.shape.arch
	p.speculation = m.resolveSpeculation(&p.w)
	return p, nil
}

// Workload returns the prepared workload, with its defaults applied.
func (p *Prepared) Workload() Workload { return p.w }

// Estimate is Model.Estimate of the prepared workload.
func (p *Prepared) Estimate(h Hardware) (Estimate, error) { return p.estimate(h, true) }

// EstimateBrief is Model.EstimateBrief of the prepared workload.
func (p *Prepared) EstimateBrief(h Hardware) (Estimate, error) { return p.estimate(h, false) }

func (p *Prepared) estimate(h Hardware, explain bool) (Estimate, error) {
	x, err := p.m.normalizeWith(h, p.w.Precision, p)
	if err != nil {
		return Estimate{}, err
	}
	if !h.Layout.IsZero() {
		return p.m.pinnedEstimate(p, x, h.Layout, explain)
	}
	if p.w.Kind == KindInference {
		return p.m.inference(p.w, x, &p.shape, p.speculation, explain, p.waits), nil
	}
	return p.m.training(p.w, x, &p.shape, Parallelism{}, explain, &p.plans), nil
}

// MinGPUsToFit is Model.MinGPUsToFit of the prepared workload.
func (p *Prepared) MinGPUsToFit(acc *catalog.Accelerator, gpusPerNode int) int {
	return p.m.minGPUsToFit(p, acc, gpusPerNode)
}

// accelerator returns the memoized accelerator part of normalize (not
// to be modified).
func (p *Prepared) accelerator(a *catalog.Accelerator) *accInfo {
	p.mu.Lock()
	ai := p.accs[a]
	p.mu.Unlock()
	if ai != nil {
		return ai
	}
	v := p.m.accelerator(a, p.w.Precision)
	p.mu.Lock()
	defer p.mu.Unlock()
	if ai = p.accs[a]; ai == nil {
		if len(p.accBlock) == cap(p.accBlock) {
			p.accBlock = make([]accInfo, 0, accBlockSize)
		}
		p.accBlock = append(p.accBlock, v)
		ai = &p.accBlock[len(p.accBlock)-1]
		p.accs[a] = ai
	}
	return ai
}

// accBlockSize is the accInfo values allocated at once: a recommendation
// estimates a workload on every accelerator of the catalog.
const accBlockSize = 16
