// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner

import (
	"math"
	"slices"
)

// unitSearch runs the larger-unit serving search (perf.PlanServing) on the
// hardware groups worth it, after the first pass served every group with
// its smallest units: a group whose unit could grow (a scale-up domain or
// a fabric joining nodes, more than one unit needed) and, under the cost
// objective, whose cheapest deployment could still rank in the top N. A
// deployment of n nodes serves at most n × GPUs per node × the
// accelerator's serving ceiling (Estimator.ServingCeiling), so no
// deployment of a group costs less than the nodes that ceiling needs
// times the group's cheapest price per node; groups are searched in the
// order of that bound, and the search stops at the first whose bound is
// above the top-Nth cheapest deployment found so far (each search can
// only lower it). Other objectives search every group that can grow, in
// parallel on n workers.
func (r *run) unitSearch(n int) {
	if r.req.Objective != ObjectiveCost {
		var search []bool
		for g := range r.groups {
			if r.canGrow(g) {
				if search == nil {
					search = make([]bool, len(r.groups))
				}
				search[g] = true
			}
		}
		if search != nil {
			r.onWorkers(n, search)
		}
		return
	}
	costs, perNode, cheapest := r.groupCosts()
	type bound struct {
		g  int
		lb float64
	}
	var order []bound
	for g := range r.groups {
		if r.canGrow(g) && perNode[g] < math.Inf(1) {
			if lb := r.lowerBoundNodes(g); lb < r.groups[g].options[0].nodes {
				order = append(order, bound{g, perNode[g] * float64(lb)})
			}
		}
	}
	slices.SortFunc(order, func(a, b bound) int { return cmpFloat(a.lb, b.lb, a.g, b.g) })
	for _, b := range order {
		if b.lb > r.topThreshold(costs) {
			return
		}
		r.workers[r.p.groups[b.g].family%n].group(b.g)
		r.forgetBounds(b.g)
		if c := cheapest[b.g]; c.oi != nil && len(r.groups[b.g].options) > 0 {
			if p := r.priceAt(c.oi, &r.groups[b.g].options[0], c.slot); r.pricedFailure(&p) < 0 {
				costs[b.g] = math.Min(costs[b.g], p.cost+p.carbon)
			}
		}
	}
}

// cmpFloat orders by a value, then by group index.
func cmpFloat(a, b float64, ga, gb int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return ga - gb
}

// canGrow reports whether a group's serving units could grow: more than
// one unit is needed, and a fabric joins nodes into a larger unit (every
// scale-up domain spanning nodes has one: NVL72 trays over InfiniBand,
// TPU hosts over ICI).
func (r *run) canGrow(g int) bool {
	gr := &r.groups[g]
	if len(gr.options) == 0 || gr.options[0].units <= 1 {
		return false
	}
	return fabricJoins(r.p.groups[g].hw, 2*gr.options[0].unit)
}

// lowerBoundNodes is the fewest nodes of a group's hardware that could
// serve the target, by the accelerator's serving ceiling (at least 1);
// computed once per family (accelerator and node size) and run.
func (r *run) lowerBoundNodes(g int) int {
	fam := &r.fam[r.p.groups[g].family]
	if fam.lb == 0 {
		fam.lb = r.ceilingNodes(g)
	}
	return fam.lb
}

// familyMemo holds what a run computed once per family: lowerBoundNodes
// and minFitNodes+1 (0: not yet).
type familyMemo struct{ lb, fitPlus1 int }

// ceilingNodes is lowerBoundNodes, computed.
func (r *run) ceilingNodes(g int) int {
	hw := r.p.groups[g].hw
	perNode := r.req.Estimator.ServingCeiling(hw.Accelerator) * float64(hw.GPUsPerNode)
	if !(perNode > 0) || math.IsInf(perNode, 1) {
		return 1
	}
	return max(1, int(math.Ceil(r.workload.TokensPerSecond/perNode-r.p.policy.RelativeTolerance)))
}

// offerSlot is an offer under one pricing model.
type offerSlot struct {
	oi   *offerInfo
	slot int
}

// groupCosts prices the first pass: for each group what one node costs a
// month at its cheapest (the offer and pricing model the filters allow
// that bill one instance serving around the clock the least; more nodes
// cost at least that much each, and a group of serverless workers never
// grows), that offer and model, and the cost plus carbon cost of the
// group's deployment on them (at least the group's cheapest candidate).
// +Inf for a group without a candidate.
func (r *run) groupCosts() (costs, perNode []float64, cheapest []offerSlot) {
	n := len(r.groups)
	buf := r.groupCost[:0]
	for range 2 * n {
		buf = append(buf, math.Inf(1))
	}
	r.groupCost = buf
	costs, perNode = buf[:n], buf[n:]
	cheapest = make([]offerSlot, n)
	for i := range r.p.offers {
		oi := &r.p.offers[i]
		if r.verdicts[i].reason != "" || len(r.groups[oi.group].options) == 0 || oi.serverless != nil {
			continue
		}
		keep := 1 - r.discounts[oi.cloudIx]
		for _, s := range oi.soldSlot {
			if v := oi.nodeMonthUSD[s] * keep; r.f.pricingModels[s] && v < perNode[oi.group] {
				perNode[oi.group], cheapest[oi.group] = v, offerSlot{oi, s}
			}
		}
	}
	for g := range costs {
		if c := cheapest[g]; c.oi != nil {
			p := r.priceAt(c.oi, &r.groups[g].options[0], c.slot)
			if r.pricedFailure(&p) < 0 {
				costs[g] = p.cost + p.carbon
			}
		}
	}
	return costs, perNode, cheapest
}

// topThreshold is the top-Nth lowest group cost (+Inf with fewer groups):
// at least the top-Nth cheapest candidate's cost, since each group holds
// a candidate of its cost.
func (r *run) topThreshold(costs []float64) float64 {
	sorted := append(r.sortScratch[:0], costs...)
	r.sortScratch = sorted
	slices.Sort(sorted)
	if r.req.Top > len(sorted) {
		return math.Inf(1)
	}
	return sorted[r.req.Top-1]
}
