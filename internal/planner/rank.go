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

// score returns the objective value of a candidate (lower is better).
func (r *run) score(c *priced, bests *axisBests) float64 {
	switch r.req.Objective {
	case ObjectiveTime:
		if r.inference {
			return numfmt.Measure(c.opt.est.TPOTMs)
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
	return numfmt.USD(c.cost)
}

// rawScore is the value a streaming objective's score rounds (score is
// non-decreasing in it): +Inf for unknown carbon under the carbon objective.
func (r *run) rawScore(c *priced) float64 {
	switch r.req.Objective {
	case ObjectiveTime:
		return r.timeOf(c)
	case ObjectiveCarbon:
		if !c.co2Known {
			return math.Inf(1)
		}
		return c.co2
	}
	return c.cost
}

// timeOf is the time axis: hours for jobs, time per output token for serving.
func (r *run) timeOf(c *priced) float64 {
	if r.inference {
		return c.opt.est.TPOTMs
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
// it into the top N exactly as rank would: after every kept candidate with
// a score <= its own, so the first of equal scores stays first.
func (r *run) offerTop(c *priced) {
	// Every streaming score is a non-decreasing rounding of one raw value
	// (rawScore); a full top N rejects a candidate whose raw value is not
	// below the last one's without rounding it.
	raw := r.rawScore(c)
	if n := len(r.top); n > 0 && n >= r.req.Top && raw >= r.rawScore(&r.top[n-1]) {
		return
	}
	c.score = r.score(c, nil)
	pos := len(r.top)
	for pos > 0 && r.top[pos-1].score > c.score {
		pos--
	}
	if pos >= r.req.Top {
		return
	}
	if len(r.top) < r.req.Top {
		r.top = append(r.top, priced{})
	}
	copy(r.top[pos+1:], r.top[pos:len(r.top)-1])
	r.top[pos] = *c
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
	for k := range out {
		out[k].Explanation = r.explain(out, k)
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
	top := r.req.Top
	idx := make([]int, 0, top+1)
	for i := range r.all {
		c := &r.all[i]
		c.score = r.score(c, &bests)
		// Insert after every index with a score <= c.score.
		pos := len(idx)
		for pos > 0 && r.all[idx[pos-1]].score > c.score {
			pos--
		}
		if pos >= top {
			continue
		}
		idx = append(idx, 0)
		copy(idx[pos+1:], idx[pos:])
		idx[pos] = i
		if len(idx) > top {
			idx = idx[:top]
		}
	}
	out := make([]priced, len(idx))
	for k, i := range idx {
		out[k] = r.all[i]
	}
	return out
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
