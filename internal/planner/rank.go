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
	return numfmt.USD(c.cost + c.carbon)
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
	// (rawScore); a full top N rejects a candidate whose raw value is not
	// below the last one's without rounding it.
	if n := len(r.top); n > 0 && n >= r.req.Top && r.rawScore(c) >= r.topBar {
		return
	}
	c.score = r.score(c, nil)
	r.top = r.insertTop(r.top, c)
	if n := len(r.top); n > 0 && n >= r.req.Top {
		r.topBar = r.rawScore(&r.top[n-1])
	}
}

// insertTop inserts a scored candidate into a ranked list of at most Top:
// after every kept candidate with a score <= its own, so the first of
// equal scores stays first. A candidate the request's DistinctBy counts as
// the same row as a kept one replaces it only when it ranks strictly
// before it. Kept candidates only improve, so a candidate pushed out of
// the list never has to come back.
func (r *run) insertTop(top []priced, c *priced) []priced {
	pos := len(top)
	for pos > 0 && top[pos-1].score > c.score {
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
func (r *run) rank() []Candidate {
	kept := r.top
	if !r.streaming {
		kept = r.rankAll()
	}
	out := make([]Candidate, len(kept))
	for k := range kept {
		out[k] = r.candidate(&kept[k])
	}
	limits := r.appliedLimits()
	for k := range out {
		out[k].Explanation = r.explain(out, k) + limits
	}
	return out
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
