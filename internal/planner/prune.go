// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner

import (
	"math"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/cost"
	"github.com/gpuplan/terraform-provider-gpu/internal/numfmt"
)

// Pruning: under the cost objective, once the top N is full, an offer's
// pricing model all of whose candidates would score above the last kept
// one is not billed candidate by candidate. Each candidate's bill is
// exactly K × hourly, K the instance-hours of its node count, the same
// for every offer of the group whose rate bills like the one K was
// computed with (cost.Rate.BillsLike: the same pricing model; for spot,
// the same cloud, and spot serving's spares, which depend on the cloud,
// are not bounded); with K's least value over the group's node counts,
// the least bill of the offer under that model is one product, and IEEE
// multiplication and division by a positive number, adding a
// non-negative carbon cost and rounding to cents are all monotone. Such
// candidates would be feasible but for a job's deadline (no other numeric
// limit is set; every bill and CO2e finite: bounded by K's and the
// energy's largest values), so they are counted as evaluate counts them
// (count); none would enter the top N (offerTop drops a score above the
// last) or a job's streamed trade-off row (rows.go: it skips a cost more
// than a cent above its best), and nothing else reads them (no other
// trade-offs). The same bounds let the searches of a least cost (the
// left-out candidate, a group's cheapest) skip what cannot be cheaper
// (skipAtLeast).

// slotBound is what a group's node counts bill under one pricing model:
// the least and largest instance-hours (cost.Bill.InstanceHours) and
// the largest node-hours drawing power, at rate ref (and every rate that
// bills like it); gen is the run that computed it.
type slotBound struct {
	kMin, kMax, energyMax float64
	ok                    bool // every figure finite and non-negative
	gen                   uint32
	ref                   *cost.Rate
}

// pruneOn reports whether the run may prune (scan asks, once the filters
// are compiled and the trade-off rows started): the cost objective
// without a carbon price, no numeric limit but a job's deadline (which a
// candidate's node count decides: see count), and no trade-offs but a
// job's streamed rows (whose bests a candidate must not beat either).
func (r *run) pruneOn() bool {
	lim := &r.req.Constraints
	return !r.req.exhaustive && r.streaming && r.rawAxis == axisCost && r.req.CarbonPriceUSDPerTonne == 0 &&
		(!r.inference || r.horizonMonths > 0) && (!r.req.TradeOffs || r.rows.on) &&
		lim.MaxHourlyCostUSD == 0 && lim.MaxTotalCostUSD == 0 && lim.MaxCO2eKg == 0
}

// dropLosers appends to out the pricing models of slots except those of
// the offer none of whose candidates can enter the full top N or a
// streamed trade-off row, which it counts as evaluate would (count).
func (r *run) dropLosers(oi *offerInfo, g *groupResult, slots, out []int, kept *[catalog.NumPricingModels]bool,
	furthest *[catalog.NumPricingModels]int) []int {
	n := len(r.top)
	if !r.prune || n == 0 || n < r.req.Top {
		return append(out, slots...)
	}
	bar := r.top[n-1].score
	for _, s := range slots {
		if r.loses(oi, g, s, bar) {
			r.count(g, s, kept, furthest)
			continue
		}
		out = append(out, s)
	}
	return out
}

// count counts the candidates of a pruned pricing model as evaluate
// would: feasible, or, for a job with a deadline, rejected by it when its
// hours (the estimate's: the pruned rates bill them as used) exceed it.
func (r *run) count(g *groupResult, s int, kept *[catalog.NumPricingModels]bool, furthest *[catalog.NumPricingModels]int) {
	d := r.req.Constraints.DeadlineHours
	if r.inference || !(d > 0) {
		kept[s] = true
		r.feasible += len(g.options)
		return
	}
	for i := range g.options {
		if g.options[i].est.Hours > d {
			furthest[s] = max(furthest[s], reasonDeadlineIdx)
			continue
		}
		kept[s] = true
		r.feasible++
	}
}

// loses reports whether every candidate of the offer under pricing model
// slot is feasible but for a job's deadline, scores above bar and is
// more than a cent above every streamed trade-off row's best.
func (r *run) loses(oi *offerInfo, g *groupResult, slot int, bar float64) bool {
	if slot == slotSpot && r.f.limited {
		return false // a spot job's hours are its cloud's rework: count could not tell the deadline's verdict
	}
	least, most, co2, ok := r.billRange(oi, g, slot)
	if !ok || !finite(most) || !finite(co2) || !(numfmt.USD(least) > bar) {
		return false
	}
	if rs := &r.rows; rs.on {
		for k := range rs.deadlines {
			if !rs.have[k] || !(least > rs.raw[k]+pruneMarginUSD) {
				return false
			}
		}
	}
	return true
}

// billRange bounds the candidates of the offer under pricing model slot
// (false when its rate does not bill by the usage alone): the least and
// largest cost (inference: per month) and the largest CO2e.
func (r *run) billRange(oi *offerInfo, g *groupResult, slot int) (least, most, co2 float64, ok bool) {
	if r.inference && slot == slotSpot {
		return 0, 0, 0, false
	}
	rate := &oi.rates[slot]
	b := r.slotBound(oi, g, slot, rate)
	hourly := rate.ListUSD() * (1 - r.discounts[oi.cloudIx])
	if !b.ok || !(hourly >= 0) {
		return 0, 0, 0, false
	}
	least, most, co2 = b.kMin*hourly, b.kMax*hourly, b.energyMax*oi.kwhPerHour[r.kind]*oi.kgPerKWh
	if r.inference {
		least, most, co2 = least/r.horizonMonths, most/r.horizonMonths, co2/r.horizonMonths
	}
	return least, most, co2, true
}

// skipAtLeast marks the pricing models of an offer none of whose
// candidates costs less than v, for a search of the least cost plus
// carbon cost (the left-out candidate, a group's cheapest): without a
// carbon price that is the cost (or NaN, which no search keeps).
func (r *run) skipAtLeast(oi *offerInfo, g *groupResult, v float64, skip *[catalog.NumPricingModels]bool) {
	if r.req.CarbonPriceUSDPerTonne != 0 || r.req.exhaustive || (r.inference && !(r.horizonMonths > 0)) {
		return
	}
	for _, s := range oi.soldSlot {
		least, _, _, ok := r.billRange(oi, g, s)
		skip[s] = ok && least >= v
	}
}

// forgetBounds drops group g's bounds: its options changed (a serving
// search's larger units). Not safe while workers run.
func (r *run) forgetBounds(g int) {
	clear(r.bounds[g*catalog.NumPricingModels : (g+1)*catalog.NumPricingModels])
}

// slotBound returns the bound of the offer's group under pricing model
// slot, computed with the rate of the run's first offer of the group sold
// that way, or again when the offer's rate does not bill like it (spot of
// another cloud: offers come cloud by cloud).
func (r *run) slotBound(oi *offerInfo, g *groupResult, slot int, rate *cost.Rate) *slotBound {
	b := &r.bounds[oi.group*catalog.NumPricingModels+slot]
	if b.gen == r.gen && (b.ref == rate || b.ref.BillsLike(rate)) {
		return b
	}
	*b = slotBound{kMin: math.Inf(1), ok: len(g.options) > 0 && rate.BillsLike(rate), gen: r.gen, ref: rate}
	u := r.usage(0, 0, 0)
	for i := range g.options {
		opt := &g.options[i]
		u.Instances = float64(opt.nodes)
		if !r.inference {
			u.Hours, u.HorizonHours = opt.est.Hours, opt.est.Hours
		}
		bill := rate.Bill(&u)
		k, e := bill.InstanceHours(), u.Instances*bill.RunningHours
		if !(k >= 0 && e >= 0 && finite(k) && finite(e)) {
			b.ok = false
		}
		b.kMin, b.kMax, b.energyMax = math.Min(b.kMin, k), math.Max(b.kMax, k), math.Max(b.energyMax, e)
	}
	return b
}
