// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner

import (
	"math"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/cost"
)

// offerReason applies the offer-level filters in the documented order;
// "" when the offer passes them.
func (r *run) offerReason(oi *offerInfo) string {
	f := &r.f
	c := &r.req.Constraints
	switch {
	case f.provClouds != nil && !f.provClouds[oi.o.Cloud]:
		return ReasonProviderClouds
	case f.clouds != nil && !f.clouds[oi.o.Cloud]:
		return ReasonClouds
	case f.regions != nil && !f.regions[oi.o.Region]:
		return ReasonRegions
	case f.geos != nil && !f.geos[oi.geo]:
		return ReasonGeographies
	case f.countries != nil && !f.countries[oi.country]:
		return ReasonCountries
	case oi.comp&f.compliance != f.compliance:
		return ReasonCompliance
	case catalog.SeparateAccount(oi.partition) && !f.partitions[oi.partition]:
		return ReasonPartitionNotRequested
	case f.accels != nil && !f.accels[oi.accel.ID]:
		return ReasonAccelerators
	case !r.inference && !oi.accel.Trains():
		return ReasonInferenceOnly
	case oi.stack >= 0 && !hasStack(f.stacksRunMethod, oi.stack):
		return ReasonStackMethod
	case oi.stack >= 0 && !hasStack(f.stacksTrainPrecision, oi.stack):
		return ReasonStackPrecision
	case c.MinGPUMemoryGB > 0 && oi.memPerGPU < c.MinGPUMemoryGB:
		return ReasonMinGPUMemory
	case c.MinNetworkGbps > 0 && oi.o.NetworkGbps < c.MinNetworkGbps:
		return ReasonMinNetwork
	case oi.fraction > 0 && !r.inference:
		return ReasonFractionalGPU
	case oi.serverless != nil && !r.inference:
		return ReasonServerlessInferenceOnly
	case !hasStack(f.stacksAllowed, oi.stack):
		// Last: an offer only this removed is priced as a left-out candidate.
		return ReasonSoftwareStacks
	}
	return ""
}

func (r *run) reject(reason string, n int) { r.rejected[r.reasonIx(reason)] += n }

// reasonIx is reasonIndex through the run's few most recent reasons: scan
// rejects thousands of offers for a handful of reasons (the reasons are
// the package's constants, which compare by pointer first).
func (r *run) reasonIx(reason string) int {
	rc := &r.reasonCache
	for i := range rc.n {
		if rc.reasons[i] == reason {
			return rc.ix[i]
		}
	}
	ix := reasonIndex(reason)
	k := rc.next % len(rc.reasons)
	rc.reasons[k], rc.ix[k] = reason, ix
	rc.next++
	rc.n = min(rc.n+1, len(rc.reasons))
	return ix
}

// reasonCache holds a run's most recent reasons and their indexes.
type reasonCache struct {
	reasons [4]string
	ix      [4]int
	n, next int
}

// allowedModels counts the offer's pricing models the constraints allow.
func (r *run) allowedModels(oi *offerInfo) int {
	n := 0
	for _, s := range oi.soldSlot {
		if r.f.pricingModels[s] {
			n++
		}
	}
	return n
}

// verdict is an offer's offer-level filter result: the reason it fails
// ("" when it passes) and the pricing models the constraints allow.
type verdict struct {
	reason  string
	allowed int
}

// scan runs the filters over every offer. Phase 1 applies the
// offer-level filters once and finds the hardware groups some offer
// needs; phase 2 evaluates their physics, in parallel over families;
// phase 3 prices and filters every candidate in tie-break order.
func (r *run) scan() {
	r.startRows()
	r.prune = r.pruneOn()
	for i := range r.p.offers {
		oi, v := &r.p.offers[i], &r.verdicts[i]
		v.reason, v.allowed = r.offerReason(oi), 0
		// An offer only constraints.software_stacks removes is priced as
		// a left-out candidate: its group's physics are needed too.
		if v.reason == "" || v.reason == ReasonSoftwareStacks {
			v.allowed = r.allowedModels(oi)
			r.needed[oi.group] = r.needed[oi.group] || v.allowed > 0
		}
	}
	if r.req.cheapestOnly {
		r.physicsCheapest()
	} else {
		r.physicsAll()
	}
	for i := range r.p.offers {
		oi, v := &r.p.offers[i], &r.verdicts[i]
		if v.reason != "" {
			r.reject(v.reason, len(oi.sold))
			if g := &r.groups[oi.group]; v.reason == ReasonSoftwareStacks && len(g.options) > 0 && v.allowed > 0 {
				r.evaluateLeftOut(oi, g)
			}
			continue
		}
		// Pricing models first: they are an offer-level filter too.
		allowed := v.allowed
		if d := len(oi.sold) - allowed; d > 0 {
			r.reject(ReasonPricingModels, d)
		}
		if allowed == 0 {
			continue
		}
		g := &r.groups[oi.group]
		if len(g.options) == 0 {
			r.reject(g.reason, allowed)
			continue
		}
		r.physicallyOK += allowed
		r.evaluate(oi, g)
	}
}

// evaluate prices every (node count, pricing model) of one offer and keeps
// the candidates within the numeric limits. An (offer, pricing model) pair
// with no surviving node count is counted once, under the furthest reason
// one of its node counts reached.
func (r *run) evaluate(oi *offerInfo, g *groupResult) {
	var furthest [catalog.NumPricingModels]int // by slot
	var kept [catalog.NumPricingModels]bool
	var slots [catalog.NumPricingModels]int // the allowed slots of the offer, in sold order
	n := 0
	for _, s := range oi.soldSlot {
		if r.f.pricingModels[s] {
			slots[n] = s
			n++
		}
	}
	var buf [catalog.NumPricingModels]int
	billed := r.dropLosers(oi, g, slots[:n], buf[:0], &kept, &furthest)
	var u cost.Usage
	if len(billed) > 0 {
		u = r.usage(0, 0, r.discounts[oi.cloudIx])
	}
	var c priced
	for i := range g.options {
		opt := &g.options[i]
		for _, s := range billed {
			r.price(&c, oi, opt, s, &u)
			reason := r.limitFailure(oi, opt, &c)
			if r.req.TradeOffs && r.keepTradeOff(&c, reason) {
				if r.rows.on {
					r.offerRows(&c)
				} else {
					r.tradeCands = append(r.tradeCands, c)
				}
			}
			if reason >= 0 {
				furthest[s] = max(furthest[s], reason)
				continue
			}
			kept[s] = true
			r.feasible++
			if r.streaming {
				r.offerTop(&c)
			} else {
				r.all = append(r.all, c)
			}
		}
	}
	for _, s := range slots[:n] {
		if !kept[s] {
			r.rejected[furthest[s]]++
		}
	}
}

// evaluateLeftOut prices an offer only constraints.software_stacks
// removed, keeping the cheapest (cost plus carbon cost) candidate within
// every other limit as the left-out one; it counts nothing.
func (r *run) evaluateLeftOut(oi *offerInfo, g *groupResult) {
	var skip [catalog.NumPricingModels]bool
	if r.leftOut.set {
		r.skipAtLeast(oi, g, r.leftOut.value, &skip)
	}
	r.eachWithinLimits(oi, g, &skip, func(c priced) {
		if !r.leftOut.set || c.cost+c.carbon < r.leftOut.value {
			r.leftOut.set, r.leftOut.value, r.leftOut.cand = true, c.cost+c.carbon, c
		}
	})
}

// eachWithinLimits prices every (node count, allowed pricing model but
// those skip marks; nil: none) of an offer and calls fn on those within
// every limit (by value: a pointer would move every priced candidate to
// the heap); it counts nothing.
func (r *run) eachWithinLimits(oi *offerInfo, g *groupResult, skip *[catalog.NumPricingModels]bool, fn func(c priced)) {
	u := r.usage(0, 0, r.discounts[oi.cloudIx])
	var c priced
	for i := range g.options {
		opt := &g.options[i]
		for _, s := range oi.soldSlot {
			if !r.f.pricingModels[s] || (skip != nil && skip[s]) {
				continue
			}
			if r.price(&c, oi, opt, s, &u); r.withinLimits(oi, opt, &c) {
				fn(c)
			}
		}
	}
}

// pricedFailure is the reason index of a candidate the cost model could
// not price (spot that never finishes, a non-finite figure), or -1.
func (r *run) pricedFailure(c *priced) int {
	if c.slot == slotSpot && !r.inference && math.IsInf(c.hours, 1) {
		return reasonIndex(ReasonSpotNeverFinishes)
	}
	if !finite(c.cost) || !finite(c.hours) || !finite(c.co2) {
		return reasonIndex(ReasonEstimateFailed)
	}
	return -1
}

// withinLimits reports whether a priced candidate passes what
// limitFailure checks, noting nothing.
func (r *run) withinLimits(oi *offerInfo, opt *option, c *priced) bool {
	return r.pricedFailure(c) < 0 && (c.spare == 0 || r.spareLimit(oi, opt, c.spare) < 0) && r.numericFailure(c) < 0
}

// limitFailure checks a priced candidate against spot serving's size
// limits and the numeric limits, noting nearest misses while nothing is
// feasible: the reason index that rejects it, or -1.
func (r *run) limitFailure(oi *offerInfo, opt *option, c *priced) int {
	if reason := r.pricedFailure(c); reason >= 0 {
		return reason
	}
	if c.spare > 0 {
		// Spot serving with its spares must still fit max_nodes /
		// max_gpus; a pair refused only for its size is not physically
		// feasible within the limits (physicallyOK), so a no-candidate
		// error names max_nodes / max_gpus.
		if reason := r.spareLimit(oi, opt, c.spare); reason >= 0 {
			if r.feasible == 0 {
				r.smallest.offerHardware(r.p.groups[oi.group].hw, opt.nodes+c.spare*opt.unit)
			}
			r.physicallyOK--
			return reason
		}
	}
	if r.feasible == 0 {
		r.noteMisses(opt, c)
	}
	return r.numericFailure(c)
}

// numericFailure checks a priced candidate against the numeric limits:
// the reason index that rejects it, or -1.
func (r *run) numericFailure(c *priced) int { return r.numericFailureBut(c, -1) }

// numericFailureBut is numericFailure without the limit of reason index
// skip (-1: none skipped).
func (r *run) numericFailureBut(c *priced, skip int) int {
	if !r.f.limited {
		return -1
	}
	lim := &r.req.Constraints
	switch {
	case lim.MaxHourlyCostUSD > 0 && c.hourly > lim.MaxHourlyCostUSD && skip != reasonMaxHourlyCostIdx:
		return reasonMaxHourlyCostIdx
	case !r.inference && lim.DeadlineHours > 0 && c.hours > lim.DeadlineHours && skip != reasonDeadlineIdx:
		return reasonDeadlineIdx
	case lim.MaxTotalCostUSD > 0 && c.cost > lim.MaxTotalCostUSD && skip != reasonMaxTotalCostIdx:
		return reasonMaxTotalCostIdx
	case lim.MaxCO2eKg > 0 && (!c.co2Known || c.co2 > lim.MaxCO2eKg) && skip != reasonMaxCO2eIdx:
		return reasonMaxCO2eIdx
	}
	return -1
}

// noteMisses remembers the candidate as a nearest miss by each metric; it
// matters only while nothing is feasible.
func (r *run) noteMisses(opt *option, c *priced) {
	r.cheapestHourly.offerCandidate(c.hourly, c)
	r.cheapest.offerCandidate(c.cost, c)
	if c.co2Known {
		r.lowestCO2.offerCandidate(c.co2, c)
	}
	if r.inference {
		r.lowestTPOT.offerCandidate(opt.est.TPOTP99Ms, c)
	} else {
		r.fastest.offerCandidate(c.hours, c)
	}
}

// spareLimit checks a spot serving deployment with its spare units against
// max_nodes, max_gpus and policy.MaxServingUnits: the reason index, or -1.
func (r *run) spareLimit(oi *offerInfo, opt *option, spare int) int {
	nodes := opt.nodes + spare*opt.unit
	switch {
	case r.f.userMaxNodes && nodes > r.f.maxNodes:
		return reasonIndex(ReasonMaxNodes)
	case r.f.maxGPUs > 0 && nodes*oi.o.GPUs > r.f.maxGPUs:
		return reasonIndex(ReasonMaxGPUs)
	case opt.units+spare >= r.p.policy.MaxServingUnits:
		return reasonIndex(ReasonDoesNotFit)
	}
	return -1
}
