// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package perf

import (
	"math"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// ServingSearch is a question for PlanServing: serve Target output
// tokens/s on nodes of one hardware shape with as few nodes as the
// benchmark model allows.
type ServingSearch struct {
	// Hardware is the node shape (accelerator, GPUs per node, network,
	// fabric); GPUs is set per estimate.
	Hardware Hardware
	// MinNodes is the fewest nodes that hold one replica (at least 1).
	MinNodes int
	// MaxNodes bounds the deployment (0 = no bound); MaxUnits bounds the
	// serving units (0 = no bound).
	MaxNodes, MaxUnits int
	// Target is the output tokens/s to serve (0 = one unit).
	Target float64
	// Tolerance is the float error forgiven before rounding a count up.
	Tolerance float64
	// MixtureOfExperts: the workload's routed experts can spread over more
	// GPUs as the unit grows (expert parallelism), so a gain can appear
	// only several doublings on (unitPatience).
	MixtureOfExperts bool
	// SmallestUnitOnly: replicate the smallest unit, search no larger one
	// (a caller's first pass, before it knows which shapes are worth the
	// search).
	SmallestUnitOnly bool
	// Estimate is the benchmark model's estimate of the workload on nodes
	// nodes of Hardware (Prepared.Estimate or a memo of it): every layout
	// the model knows is searched inside it.
	Estimate func(nodes int) (Estimate, error)
}

// ServingPlan is a serving deployment: Units identical serving units of
// UnitNodes nodes each, every unit one Estimate of the model on UnitNodes
// nodes (its best layout: replicas, tensor and expert parallelism across
// the unit's scale-up domain and network, disaggregated prefill and
// decode). Units is 0 when the unit sustains nothing within the limits.
type ServingPlan struct {
	UnitNodes, Units int
	Unit             Estimate
}

// Nodes is the deployment's nodes.
func (s *ServingPlan) Nodes() int { return s.UnitNodes * s.Units }

// PlanServing finds the serving deployment with the fewest nodes that
// sustains the target, the way rack-scale and multi-node deployments are
// built: the fewest nodes that hold one replica form a unit, replicated;
// when the accelerator's scale-up domain spans nodes (GB200/GB300 NVL72, a
// TPU pod), a unit of the whole domain; when a scale-out fabric joins
// nodes, units of 2, 4, 8 … times the smallest while each doubling still
// raises the output per node (expert parallelism across nodes,
// disaggregated prefill and decode over the network); and a single unit
// that meets the target alone shrinks to the fewest nodes that still meet
// it. Every unit is one estimate of the model, so the deployment is never
// larger than the fewest nodes on which Estimate finds a layout meeting
// the target among the sizes tried. A unit larger than the best
// deployment found so far is never estimated.
func PlanServing(s ServingSearch) (ServingPlan, error) {
	u0 := max(1, s.MinNodes)
	e0, err := s.Estimate(u0)
	if err != nil || !servingOK(&e0) {
		return ServingPlan{UnitNodes: u0, Unit: e0}, err
	}
	best := ServingPlan{UnitNodes: u0, Units: s.units(e0.TokensPerSecond), Unit: e0}
	if best.Units <= 1 || s.SmallestUnitOnly {
		return best, nil
	}
	missed := u0 // the largest unit tried that needs company
	try := func(u int) (perNode float64, err error) {
		if s.MaxNodes > 0 && u > s.MaxNodes {
			return 0, nil
		}
		e, err := s.Estimate(u)
		if err != nil || !servingOK(&e) {
			return 0, err
		}
		p := ServingPlan{UnitNodes: u, Units: s.units(e.TokensPerSecond), Unit: e}
		if p.Units > 1 {
			missed = max(missed, u)
		}
		if s.better(&p, &best) {
			best = p
		}
		return e.TokensPerSecond / float64(u), nil
	}
	if dn := domainNodes(s.Hardware); dn > u0 && dn < best.Nodes() && s.joins(dn) {
		if _, err := try(dn); err != nil {
			return best, err
		}
	}
	patience := 1
	if s.MixtureOfExperts {
		patience = unitPatience
	}
	prev, flat := e0.TokensPerSecond/float64(u0), 0
	for u := 2 * u0; u < best.Nodes() && s.joins(u) && flat < patience; u *= 2 {
		perNode, err := try(u)
		if err != nil {
			return best, err
		}
		if perNode > prev*(1+s.Tolerance) {
			prev, flat = perNode, 0
		} else {
			flat++ // a layout may need more GPUs still (a disaggregated split of two replicas)
		}
	}
	if best.Units == 1 {
		return s.shrink(best, missed)
	}
	n := best.Nodes()
	if !s.joins(n) || (s.MaxNodes > 0 && n > s.MaxNodes) {
		return best, nil
	}
	// The same nodes as one unit: every layout across all of them, as an
	// estimate of that count finds it; kept when it serves more than the
	// units apart (independent units ride out a failure better), and,
	// when it meets the target alone, shrunk to the fewest nodes that
	// still do.
	e, err := s.Estimate(n)
	if err != nil || !servingOK(&e) || s.units(e.TokensPerSecond) > 1 {
		return best, err
	}
	whole := ServingPlan{UnitNodes: n, Units: 1, Unit: e}
	if e.TokensPerSecond > best.Unit.TokensPerSecond*float64(best.Units)*(1+s.Tolerance) {
		best = whole
	}
	if fewer, err := s.shrink(whole, missed); err != nil || fewer.Nodes() < best.Nodes() {
		return fewer, err
	}
	return best, nil
}

// unitPatience is how many doublings of the unit in a row may bring no
// gain in output per node before the search stops for a mixture of
// experts: wider expert parallelism can pay only at four times the
// smallest unit (DeepSeek-R1 on H100: no gain at 16 or 32 GPUs, 3.4 times
// the output per GPU at 64). A dense model stops at the first doubling
// without gain.
const unitPatience = 2

// shrink returns the fewest nodes of a single unit that still meets the
// target, by bisection between missed (a unit size that needs company)
// and the unit; a plan of several units is returned as it is.
func (s *ServingSearch) shrink(best ServingPlan, missed int) (ServingPlan, error) {
	if best.Units != 1 {
		return best, nil
	}
	lo, hi := min(missed, best.UnitNodes), best.UnitNodes // lo is assumed to miss, hi meets
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		e, err := s.Estimate(mid)
		if err != nil {
			return best, err
		}
		if servingOK(&e) && s.units(e.TokensPerSecond) == 1 {
			hi, best = mid, ServingPlan{UnitNodes: mid, Units: 1, Unit: e}
		} else {
			lo = mid
		}
	}
	return best, nil
}

// better reports whether plan a beats b: fewer nodes, then (equal nodes)
// the smaller unit; a plan beyond MaxUnits or MaxNodes never wins.
func (s *ServingSearch) better(a, b *ServingPlan) bool {
	if (s.MaxUnits > 0 && a.Units > s.MaxUnits) || (s.MaxNodes > 0 && a.Nodes() > s.MaxNodes) {
		return false
	}
	return a.Nodes() < b.Nodes() || (a.Nodes() == b.Nodes() && a.UnitNodes < b.UnitNodes)
}

// units is the serving units of unitTPS output tokens/s each that meet
// the target (1 without one).
func (s *ServingSearch) units(unitTPS float64) int {
	if !(s.Target > 0) {
		return 1
	}
	u := math.Ceil(s.Target/unitTPS - s.Tolerance)
	if u > math.MaxInt32 {
		return math.MaxInt32
	}
	return max(1, int(u))
}

// joins reports whether nodes nodes of the hardware can form one unit: a
// scale-up domain spanning them (NVL72 trays, TPU hosts of a pod) or a
// scale-out fabric between them.
func (s *ServingSearch) joins(nodes int) bool {
	h := s.Hardware
	switch {
	case nodes <= 1:
		return true
	case h.Fabric == catalog.FabricNone:
		return false
	case h.Fabric == catalog.FabricICI:
		return nodes*h.GPUsPerNode <= h.Accelerator.NVLinkDomainGPUs
	}
	return true
}

// domainNodes is the nodes of one scale-up domain when it spans several
// (GB200 NVL72 on 4-GPU nodes: 18), else 1.
func domainNodes(h Hardware) int {
	d, gpn := h.Accelerator.NVLinkDomainGPUs, h.GPUsPerNode
	if gpn < 1 || d <= gpn || d%gpn != 0 {
		return 1
	}
	return d / gpn
}

// servingOK reports whether an estimate serves something within the
// limits.
func servingOK(e *Estimate) bool {
	return e.Fits && e.TokensPerSecond > 0 && !math.IsInf(e.TokensPerSecond, 0) && !math.IsNaN(e.TokensPerSecond)
}

// ServingCeiling is an upper bound on the output tokens/s one accelerator
// sustains for the prepared inference workload under any layout on any
// number of GPUs, in the model's own terms: every request costs at least
// its weight FLOPs (2 × active parameters for each prompt token at the
// family's prefill efficiency, and for each output token at its decode
// compute efficiency) and its decode steps at least one read of the
// sequence's cache each (at the mean context of the generation, at the
// family's HBM efficiency); a GPU-second does one or the other at a time
// at best, so the request needs the larger of the two. Attention,
// speculation's drafts, communication and per-step overheads only add.
// 0 when the accelerator cannot run the precision. A caller prunes with
// it: no deployment of n GPUs serves more than n × ServingCeiling
// (TestServingCeilingBoundsEstimates).
func (p *Prepared) ServingCeiling(a *catalog.Accelerator) float64 {
	ai := p.accelerator(a)
	if ai.err != nil || p.w.Kind != KindInference {
		return 0
	}
	in, out := float64(p.w.InputTokens), float64(max(1, p.w.OutputTokens))
	compute := 0.0
	if fam := ai.fam; p.shape.active > 0 && fam.PrefillEfficiency > 0 && fam.DecodeComputeEfficiency > 0 {
		compute = 2 * p.shape.active * (in/fam.PrefillEfficiency + out/fam.DecodeComputeEfficiency) / ai.cmpFlops
	}
	memory := 0.0
	if bw := ai.memBps * ai.fam.HBMEfficiency; bw > 0 {
		kv := p.shape.kvReadElements(promptReadPerBeam(&p.w, ai.engine)+out/2) * p.m.kvBytesPerElement(p.w.Precision)
		memory = out / p.speculation.perStep * kv / bw
	}
	if sec := math.Max(compute, memory); sec > 0 {
		return out / sec
	}
	return math.Inf(1)
}
