// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner

import (
	"math"
	"sort"

	"github.com/gpuplan/terraform-provider-gpu/internal/numfmt"
)

// Scores compare the rounded values a user sees, so ties (broken by
// cloud, region, instance type, nodes, pricing model) are the same on
// every machine.

// axisBests are the best cost, time and known CO2e over the feasible
// candidates, and the worst known CO2e, for the balanced objective.
type axisBests struct {
	cost, time, co2, worstCO2 float64
}

// score returns the objective value of a candidate (lower is better). The
// cost objective ranks by what the cloud bills plus the carbon cost at the
// provider's carbon price (0 without one); the balanced objective's cost
// axis is the bill alone, carbon having its own axis.
func (r *run) score(c *priced, bests *axisBests) float64 {
	switch r.req.Objective {
	case ObjectiveTime:
		if r.inference {
			return numfmt.Measure(c.opt.est.TPOTP99Ms)
		}
		return numfmt.Hours(c.hours)
	case ObjectiveCarbon:
		if !c.co2Known {
			return math.Inf(1) // unknown carbon ranks after every known figure
		}
		return numfmt.USD(c.co2)
	case ObjectiveBalanced:
		w := r.p.policy.BalancedWeights
		co2 := c.co2
		if !c.co2Known {
			co2 = bests.worstCO2 // unknown carbon counts as the worst known figure
		}
		return numfmt.Ratio(w.Cost*r.ratio(c.cost, bests.cost) +
			w.Time*r.ratio(r.timeOf(c), bests.time) + w.Carbon*r.ratio(co2, bests.co2))
	}
	return numfmt.USD(c.cost + r.carbonCost(c, bests))
}

// carbonCost is the carbon cost the cost objective ranks a candidate by:
// its own, or, when its CO2e is unknown, the worst known CO2e's at the
// carbon price (never zero: a part without a power figure gains no edge).
// bests is nil for a streaming objective, which a carbon price makes
// non-streaming (reset).
func (r *run) carbonCost(c *priced, bests *axisBests) float64 {
	if c.co2Known || bests == nil {
		return c.carbon
	}
	return bests.worstCO2 / 1000 * r.req.CarbonPriceUSDPerTonne
}

// rawScore is the value a streaming objective's score rounds (score is
// non-decreasing in it): +Inf for unknown carbon under the carbon objective.
func (r *run) rawScore(c *priced) float64 {
	switch r.rawAxis {
	case axisTime:
		return r.timeOf(c)
	case axisCarbon:
		if !c.co2Known {
			return math.Inf(1)
		}
		return c.co2
	}
	return c.cost + c.carbon
}

// The raw axis a streaming objective ranks by (run.rawAxis).
const (
	axisCost = iota
	axisTime
	axisCarbon
)

// rawAxisOf is the raw axis of an objective.
func rawAxisOf(o Objective) int {
	switch o {
	case ObjectiveTime:
		return axisTime
	case ObjectiveCarbon:
		return axisCarbon
	}
	return axisCost
}

// timeOf is the time axis: hours for jobs, time per output token for serving.
func (r *run) timeOf(c *priced) float64 {
	if r.inference {
		return c.opt.est.TPOTP99Ms
	}
	return c.hours
}

// ratio is v / best, 1 when both are 0 (an axis nobody can improve on, such
// as CO2e in regions of unknown grid intensity).
func (r *run) ratio(v, best float64) float64 {
	eps := r.p.policy.RelativeTolerance
	return (v + eps) / (best + eps)
}

// offerTop scores a feasible candidate of a streaming objective (every
// objective but balanced: the score needs no other candidate) and inserts
// it into the top N exactly as rankAll would.
func (r *run) offerTop(c *priced) {
	// Every streaming score is a non-decreasing rounding of one raw value
	// (rawScore); a full top N rejects a candidate whose raw value is above
	// the last one's (topBar) once its rounded score is too.
	if n := len(r.top); n > 0 && n >= r.req.Top && r.rawScore(c) > r.topBar {
		// Rounding may still tie it with the last (an equal raw value
		// always does): only then do the tie-breaks decide.
		if c.score = r.score(c, nil); c.score > r.top[n-1].score {
			return
		}
	}
	c.score = r.score(c, nil)
	r.top = r.insertTop(r.top, c)
	if n := len(r.top); n > 0 && n >= r.req.Top {
		r.topBar = r.rawScore(&r.top[n-1])
	}
}

// before reports whether a ranks before b: a lower score, then, on equal
// scores, the documented tie-breaks: lower CO2e (rounded as shown; an
// unknown figure after every known one), then a region in
// constraints.near. Candidates arrive in name order (cloud, region,
// instance type, nodes, pricing model), which breaks the remaining ties:
// false when a and b tie on everything here.
func (r *run) before(a, b *priced) bool { return r.beforeScored(a, a.score, b, b.score) }

// beforeScored is before with the scores given.
func (r *run) beforeScored(a *priced, as float64, b *priced, bs float64) bool {
	if as != bs {
		return as < bs
	}
	if a.co2Known != b.co2Known {
		return a.co2Known
	}
	if ac, bc := numfmt.Measure(a.co2), numfmt.Measure(b.co2); a.co2Known && ac != bc {
		return ac < bc
	}
	return r.isNear(a.offer) && !r.isNear(b.offer)
}

// isNear reports whether the offer's region is in constraints.near (a
// geography or a country); false without one.
func (r *run) isNear(oi *offerInfo) bool {
	f := &r.f
	return (f.nearGeo != "" && oi.geo == f.nearGeo) || (f.nearCountry != "" && oi.country == f.nearCountry)
}

// insertTop inserts a scored candidate into a ranked list of at most Top:
// after every kept candidate with a score <= its own, so the first of
// equal scores stays first. A candidate the request's DistinctBy counts as
// the same row as a kept one replaces it only when it ranks strictly
// before it. Kept candidates only improve, so a candidate pushed out of
// the list never has to come back.
func (r *run) insertTop(top []priced, c *priced) []priced {
	pos := len(top)
	for pos > 0 && r.before(c, &top[pos-1]) {
		pos--
	}
	if pos >= r.req.Top {
		return top
	}
	if same := r.sameRow(top, c); same >= 0 {
		if same < pos {
			return top // the row's better (or earlier equal) candidate stays
		}
		top = append(top[:same], top[same+1:]...)
	}
	if len(top) < r.req.Top {
		top = append(top, priced{})
	}
	copy(top[pos+1:], top[pos:len(top)-1])
	top[pos] = *c
	return top
}

// sameRow is the index of the kept candidate DistinctBy counts as the same
// row as c, or -1.
func (r *run) sameRow(top []priced, c *priced) int {
	if r.req.DistinctBy == DistinctDeployment {
		return -1
	}
	for i := range top {
		a, b := top[i].offer.o, c.offer.o
		if a.Cloud == b.Cloud && a.InstanceType == b.InstanceType && (r.req.DistinctBy != DistinctRegion || a.Region == b.Region) {
			return i
		}
	}
	return -1
}

// rank returns the top N candidates in order, explained. Candidates arrive
// in tie-break order (cloud, region, instance type, nodes, pricing model),
// so keeping the first of equal scores is the documented tie-break.
func (r *run) rank() ([]Candidate, *Candidate) {
	kept := r.top
	if !r.streaming {
		kept = r.rankAll()
	}
	out := make([]Candidate, len(kept))
	for k := range kept {
		out[k] = r.candidate(&kept[k])
	}
	if r.req.cheapestOnly { // a serving trade-off row: its counts are partial
		out[0].Explanation = r.rowExplanation(&out[0], r.latencyPhrase())
		return out, nil
	}
	var leftOut *Candidate
	if best := &out[0]; r.leftOut.set && r.leftOut.value < best.EstimatedCostUSD+best.CarbonCostUSD {
		c := r.candidate(&r.leftOut.cand)
		leftOut = &c
	}
	limits := r.appliedLimits()
	for k := range out {
		out[k].Explanation = r.explain(out, k, leftOut) + limits
	}
	return out, leftOut
}

// rankAll scores every feasible candidate of the balanced objective and
// returns the top N.
func (r *run) rankAll() []priced {
	bests := axisBests{cost: math.Inf(1), time: math.Inf(1), co2: math.Inf(1)}
	for i := range r.all {
		c := &r.all[i]
		bests.cost = math.Min(bests.cost, c.cost)
		bests.time = math.Min(bests.time, r.timeOf(c))
		if c.co2Known {
			bests.co2 = math.Min(bests.co2, c.co2)
			bests.worstCO2 = math.Max(bests.worstCO2, c.co2)
		}
	}
	if math.IsInf(bests.co2, 1) { // nobody's carbon is known: the axis drops out
		bests.co2, bests.worstCO2 = 0, 0
	}
	r.worstCO2 = bests.worstCO2
	top := make([]priced, 0, r.req.Top+1)
	for i := range r.all {
		c := &r.all[i]
		c.score = r.score(c, &bests)
		top = r.insertTop(top, c)
	}
	return top
}

// rejections lists the non-zero rejection counts, largest first, then by reason.
func (r *run) rejections() []Rejection {
	out := []Rejection{}
	for i, n := range r.rejected {
		if n > 0 {
			out = append(out, Rejection{Reason: Reasons[i], Count: n})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Reason < out[j].Reason
	})
	return out
}
