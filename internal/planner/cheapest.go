// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner

import (
	"math"
	"slices"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// pruneMarginUSD: a group is left out only when its cost bound exceeds
// the cheapest candidate found by more than a cent, so rounding to cents
// (the scores) could not tie them.
const pruneMarginUSD = 0.01

// physicsCheapest evaluates the needed hardware groups of a serving
// search that needs only its cheapest candidate (Request.cheapestOnly: a
// trade-off row at other latency limits). Each group is evaluated as
// physicsAll and unitSearch would (smallest units, then larger ones where
// the serving ceiling leaves fewer nodes possible), in the order of a
// lower bound on its cost (costLowerBounds; Request.seedGroup first), and
// the search stops at the first group whose bound exceeds the cheapest
// candidate found: no deployment of it or of a later group could cost
// less. The groups left out get no options; their reason is never
// reported, since something was found before any was left out.
func (r *run) physicsCheapest() {
	n := r.startWorkers()
	lb, lbGrown := r.costLowerBounds()
	var order []int
	for g, x := range r.needed {
		if x {
			order = append(order, g)
		}
	}
	seed := r.req.seedGroup - 1
	slices.SortFunc(order, func(a, b int) int {
		if (a == seed) != (b == seed) {
			return boolInt(b == seed) - boolInt(a == seed)
		}
		return cmpFloat(lb[a], lb[b], a, b)
	})
	bound := math.Inf(1)
	for k, g := range order {
		if lb[g]-bound > pruneMarginUSD {
			for _, left := range order[k:] {
				r.groups[left].reason = ReasonDoesNotFit
			}
			break
		}
		w := &r.workers[r.p.groups[g].family%n]
		r.unitsOnly = true
		w.group(g)
		bound = math.Min(bound, r.groupCheapest(g))
		// Larger units where the ceiling leaves fewer nodes possible and
		// those could cost less than the cheapest found.
		if r.canGrow(g) && r.lowerBoundNodes(g) < r.groups[g].options[0].nodes && lbGrown[g]-bound <= pruneMarginUSD {
			r.unitsOnly = false
			w.group(g)
			r.forgetBounds(g)
			bound = math.Min(bound, r.groupCheapest(g))
		}
	}
	r.unitsOnly = false
	r.mergeMisses(n)
}

// boolInt is 1 for true.
func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// costLowerBounds is, per needed group, a lower bound on what any
// deployment of it costs a month: the nodes it needs at least (its
// serving ceiling's, lowerBoundNodes, or more to hold the model) at the
// cheapest price per node of its offers the filters allow (before spares
// and carbon, which only add), and the same by the ceiling alone (what a
// larger unit could reach). +Inf for a group no allowed offer uses.
func (r *run) costLowerBounds() (lb, ceiling []float64) {
	perNode := r.req.perNode
	if perNode == nil {
		perNode = r.perNodeMonth()
	}
	lb, ceiling = make([]float64, len(r.groups)), make([]float64, len(r.groups))
	for g := range lb {
		lb[g], ceiling[g] = math.Inf(1), math.Inf(1)
		if !r.needed[g] || math.IsInf(perNode[g], 1) {
			continue
		}
		nodes := r.lowerBoundNodes(g)
		ceiling[g] = perNode[g] * float64(nodes)
		lb[g] = perNode[g] * float64(max(nodes, r.minFitNodes(g)))
	}
	return lb, ceiling
}

// perNodeMonth is, per group, the least a node of it costs a month
// serving: the cheapest offer and pricing model the filters allow (a
// serverless worker billed its share at the duty cycle), after
// discounts; +Inf for a group no allowed offer uses. It depends on the
// request's filters only, so the trade-off rows share it
// (Request.perNode).
func (r *run) perNodeMonth() []float64 {
	out := make([]float64, len(r.groups))
	for g := range out {
		out[g] = math.Inf(1)
	}
	for i := range r.p.offers {
		oi := &r.p.offers[i]
		if r.verdicts[i].reason != "" {
			continue
		}
		discount := r.discounts[oi.cloudIx]
		for _, s := range oi.soldSlot {
			if !r.f.pricingModels[s] {
				continue
			}
			v := oi.nodeMonthUSD[s] * (1 - discount)
			if oi.serverless != nil {
				u := r.usage(1, 0, discount)
				v = oi.rates[s].Bill(&u).USD / r.horizonMonths
			}
			out[oi.group] = math.Min(out[oi.group], v)
		}
	}
	return out
}

// minFitNodes is the fewest nodes of a group's hardware whose memory
// holds the model (0 when the estimator cannot tell): every serving unit
// has at least that many. Computed once per family and run.
func (r *run) minFitNodes(g int) int {
	fam := &r.fam[r.p.groups[g].family]
	if fam.fitPlus1 == 0 {
		hw := r.p.groups[g].hw
		fam.fitPlus1 = 1 + ceilDiv(r.req.Estimator.MinGPUsToFit(hw.Accelerator, hw.GPUsPerNode), hw.GPUsPerNode)
	}
	return fam.fitPlus1 - 1
}

// groupCheapest is the lowest cost plus carbon cost of an evaluated
// group's candidates within every limit (+Inf when none): what the
// groups after it must beat. A candidate of unknown CO2e under a carbon
// price counts only when the worst known CO2e is known, so it is left
// out.
func (r *run) groupCheapest(g int) float64 {
	best := math.Inf(1)
	for _, i := range r.p.members[g] {
		if r.verdicts[i].reason == "" {
			var skip [catalog.NumPricingModels]bool
			if best < math.Inf(1) {
				r.skipAtLeast(&r.p.offers[i], &r.groups[g], best, &skip)
			}
			r.eachWithinLimits(&r.p.offers[i], &r.groups[g], &skip, func(c priced) {
				if c.co2Known || r.req.CarbonPriceUSDPerTonne == 0 {
					best = math.Min(best, c.cost+c.carbon)
				}
			})
		}
	}
	return best
}
