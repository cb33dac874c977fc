// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gpuplan/terraform-provider-gpu/internal/numfmt"
)

// TradeOff is the cheapest answer (the cost objective) under one changed
// limit: the deadline of a job, or both p99 latency limits of a serving
// deployment, scaled by Factor.
type TradeOff struct {
	// Factor scales the request's limit: 0.5 is twice as tight, 2 twice
	// as loose, 1 the limit itself.
	Factor float64
	// DeadlineHours is the deadline tried (training, fine-tuning); 0 in
	// the factor-1 row of a request without one.
	DeadlineHours float64
	// MaxTimeToFirstTokenMs and MaxTimePerOutputTokenMs are the p99
	// latency limits tried (inference).
	MaxTimeToFirstTokenMs, MaxTimePerOutputTokenMs float64
	// Best is the cheapest candidate under the limit; nil when none meets
	// it, and Reason is then the binding constraint's rejection reason.
	Best   *Candidate
	Reason string
}

// BreakEven compares serving on serverless offers with dedicated
// instances: serverless bills a worker for the time the load is there
// (with the platform's idle tails and cold starts), an instance around
// the clock.
type BreakEven struct {
	// DutyCycle is the duty cycle (workload.duty_cycle) below which the
	// cheapest serverless deployment costs less than the cheapest
	// dedicated one: 1 when serverless is cheaper even under constant
	// load, 0 when it is never cheaper (down to
	// Policy.BreakEvenMinDutyCycle).
	DutyCycle float64
	// Serverless is the serverless deployment cheaper up to the highest
	// duty cycle (the cheapest one at the request's duty cycle when none
	// is ever cheaper), priced at the request's duty cycle.
	Serverless Candidate
	// Dedicated is the cheapest deployment on an instance pricing model.
	Dedicated Candidate
	// MinDutyCycle is the lowest duty cycle searched
	// (Policy.BreakEvenMinDutyCycle).
	MinDutyCycle float64
}

// TradeOffs is what a constraint costs: the cheapest answer at looser and
// tighter limits, and for serving the serverless break-even duty cycle.
type TradeOffs struct {
	Inference bool
	// BaseFromBest: the job has no deadline, so the factors scale the best
	// candidate's hours (and only tighter ones are tried under the cost
	// objective, whose best is already the cheapest without a deadline).
	BaseFromBest bool
	// Rows are by factor, ascending; the factor-1 row is the request's.
	Rows []TradeOff
	// BreakEven is nil for a job, or when the allowed pricing models or
	// the feasible candidates are not both serverless and dedicated.
	BreakEven *BreakEven
}

// Relimit prepares the request's workload again under other p99 latency
// limits, in ms (the serving trade-offs; nil skips them).
type Relimit func(ttftMs, tpotMs float64) (Estimator, error)

// tradeOffs answers, beside res, what the request's limit costs: the
// cheapest candidate (the cost objective, every other constraint kept) at
// the deadline (a job) or the latency limits (serving) scaled by each
// Policy.TradeOffFactors, and for serving the duty cycle where serverless
// stops being cheaper. A job's rows and serving's own row and break-even
// come from the candidates this run's scan kept (tradeCands); a serving
// row at other limits needs the model's answers under them (servingRows).
func (r *run) tradeOffs(res *Result) (*TradeOffs, error) {
	t := &TradeOffs{Inference: r.inference}
	t.BaseFromBest = !r.inference && !(r.req.Constraints.DeadlineHours > 0)
	for _, f := range r.tradeOffFactors(t.BaseFromBest) {
		t.Rows = append(t.Rows, TradeOff{Factor: f})
	}
	if !r.inference {
		r.jobRows(t.Rows, res)
		return t, nil
	}
	rows, err := r.servingRows(t.Rows)
	if err != nil {
		return nil, err
	}
	t.Rows, t.BreakEven = rows, r.breakEven()
	return t, nil
}

// tradeOffFactors are the rows' factors, ascending: 1 and the policy's
// (a job whose base is the best's hours under the cost objective: none
// above 1, its best being already the cheapest without a deadline).
func (r *run) tradeOffFactors(baseFromBest bool) []float64 {
	var out []float64
	for _, f := range slices.Sorted(slices.Values(append([]float64{1}, r.p.policy.TradeOffFactors...))) {
		if baseFromBest && f > 1 && r.req.Objective == ObjectiveCost {
			continue
		}
		out = append(out, f)
	}
	return out
}

// jobRows fills a job's rows: the cheapest candidate within the deadline
// scaled by each row's factor (without a deadline, the best's hours
// scaled; the factor-1 row has none), all in one pass, or as the scan
// streamed them (streamRows).
func (r *run) jobRows(rows []TradeOff, res *Result) {
	base, fromBest := r.req.Constraints.DeadlineHours, false
	if !(base > 0) {
		base, fromBest = res.Best.EstimatedHours, true
	}
	for i := range rows {
		if !fromBest || rows[i].Factor != 1 {
			rows[i].DeadlineHours = base * rows[i].Factor
		}
	}
	var best []*priced
	if r.rows.on {
		best = r.rows.results()
	} else {
		best = r.cheapestEach(len(rows), func(c *priced, k int) bool {
			d := rows[k].DeadlineHours
			return d == 0 || c.hours <= d
		})
	}
	for i := range rows {
		switch d := rows[i].DeadlineHours; {
		case best[i] == nil:
			rows[i].Reason = ReasonDeadline
		case d == 0:
			rows[i].Best = r.tradeOffCandidate(best[i], "the cheapest without a deadline")
		default:
			rows[i].Best = r.tradeOffCandidate(best[i], "the cheapest finishing within "+numfmt.Thousands(d, 1)+" h")
		}
	}
}

// servingRows fills the serving rows: the request's own limits from this
// run's candidates, other limits each by a search that stops at the
// cheapest (physicsCheapest), trying the hardware of the request's
// cheapest first. Rows whose limits Relimit refuses (beyond the input
// limits), or all other rows without a Relimit, are left out.
func (r *run) servingRows(rows []TradeOff) ([]TradeOff, error) {
	w := &r.workload
	best := r.cheapestEach(1, func(*priced, int) bool { return true })[0] // the request has a feasible candidate
	r.perNode = r.perNodeMonth()
	out := rows[:0]
	for _, row := range rows {
		row.MaxTimeToFirstTokenMs, row.MaxTimePerOutputTokenMs = w.MaxTimeToFirstTokenMs*row.Factor, w.MaxTimePerOutputTokenMs*row.Factor
		if row.Factor == 1 {
			row.Best = r.tradeOffCandidate(best, r.latencyPhrase())
		} else if ok, err := r.servingRow(&row, best.offer.group+1); err != nil {
			return nil, err
		} else if !ok {
			continue
		}
		out = append(out, row)
	}
	return out, nil
}

// servingRow fills one serving row at other limits: its cheapest
// candidate by a search that tries group seed-1 first, or the reason none
// meets the limits. ok is false when the row is left out.
func (r *run) servingRow(row *TradeOff, seed int) (ok bool, err error) {
	if r.req.Relimit == nil {
		return false, nil
	}
	est, err := r.req.Relimit(row.MaxTimeToFirstTokenMs, row.MaxTimePerOutputTokenMs)
	if err != nil {
		return false, nil //nolint:nilerr // limits beyond the latency input limits: the row is left out, not an error
	}
	q := *r.req
	q.Estimator, q.Objective, q.Top, q.DistinctBy = est, ObjectiveCost, 1, DistinctDeployment
	q.TradeOffs, q.Relimit, q.cheapestOnly, q.seedGroup, q.perNode = false, nil, true, seed, r.perNode
	got, err := r.p.Recommend(q)
	var none *NoCandidateError
	switch {
	case errors.As(err, &none):
		row.Reason = none.Reason
		return true, nil
	case err != nil:
		return false, err
	}
	row.Best = &got.Best
	return true, nil
}

// latencyPhrase closes a serving row's explanation.
func (r *run) latencyPhrase() string {
	return fmt.Sprintf("the cheapest at p99 limits of %s ms to first token and %s ms per output token",
		numfmt.Short(r.workload.MaxTimeToFirstTokenMs), numfmt.Short(r.workload.MaxTimePerOutputTokenMs))
}

// tradeOffCandidate expands a trade-off's candidate, explained by what it
// does and the phrase saying what it is the cheapest at.
func (r *run) tradeOffCandidate(c *priced, phrase string) *Candidate {
	cand := r.candidate(c)
	cand.Explanation = r.rowExplanation(&cand, phrase)
	return &cand
}

// rowExplanation explains a candidate outside the ranking: what binds it,
// what it achieves and its pricing, then the phrase.
func (r *run) rowExplanation(c *Candidate, phrase string) string {
	var b strings.Builder
	r.whatItDoes(&b, c)
	b.WriteString("; ")
	b.WriteString(phrase)
	return b.String()
}

// cheapestEach is, for each of n selections of the trade-off candidates
// (in: whether a candidate belongs to selection k), the cost objective's
// best of it, exactly as a recommendation of those alone ranks it: cost
// plus carbon cost (an unknown CO2e at the selection's worst known one's),
// then the tie-breaks; nil for an empty selection. Each result's score is
// set.
func (r *run) cheapestEach(n int, in func(c *priced, k int) bool) []*priced {
	worst := make([]axisBests, n)
	if r.req.CarbonPriceUSDPerTonne > 0 {
		for i := range r.tradeCands {
			for k := range worst {
				if c := &r.tradeCands[i]; c.co2Known && in(c, k) {
					worst[k].worstCO2 = math.Max(worst[k].worstCO2, c.co2)
				}
			}
		}
	}
	best, raw, score := make([]*priced, n), make([]float64, n), make([]float64, n)
	for i := range r.tradeCands {
		c := &r.tradeCands[i]
		for k := range best {
			if !in(c, k) {
				continue
			}
			// More than a cent above the best cannot tie it once rounded.
			v := c.cost + r.carbonCost(c, &worst[k])
			if best[k] != nil && v > raw[k]+pruneMarginUSD {
				continue
			}
			if s := numfmt.USD(v); best[k] == nil || r.beforeScored(c, s, best[k], score[k]) {
				best[k], raw[k], score[k] = c, v, s
			}
		}
	}
	for k, c := range best {
		if c != nil {
			cp := *c
			cp.score = score[k]
			best[k] = &cp
		}
	}
	return best
}

// keepTradeOff reports whether a priced candidate, rejected for reason
// (-1: feasible), counts for the trade-offs: a feasible one, or for a job
// one the deadline alone rejects.
func (r *run) keepTradeOff(c *priced, reason int) bool {
	if reason < 0 {
		return true
	}
	return !r.inference && reason == reasonDeadlineIdx && r.numericFailureBut(c, reasonDeadlineIdx) < 0
}

// breakEven finds the duty cycle where serverless stops being cheaper
// than the cheapest dedicated deployment, from the feasible candidates:
// every serverless deployment is billed its share of the time (cost.Model.
// ServerlessBilledShare, which grows with the duty cycle; its energy with
// it), a dedicated one the same at any duty cycle. nil unless both kinds
// are feasible.
func (r *run) breakEven() *BreakEven {
	sides := r.cheapestEach(2, func(c *priced, k int) bool { return (c.slot == slotServerless) == (k == 0) })
	cheapest, dedicated := sides[0], sides[1]
	if cheapest == nil || dedicated == nil {
		return nil
	}
	target := dedicated.cost + dedicated.carbon
	var best *priced
	duty := 0.0
	for i := range r.tradeCands {
		c := &r.tradeCands[i]
		if c.slot != slotServerless {
			continue
		}
		d := r.p.serverlessBreakEven(c, r.dutyCycle, target)
		if d > duty || (d == duty && d > 0 && c.cost+c.carbon < best.cost+best.carbon) {
			best, duty = c, d
		}
	}
	if best == nil {
		best = cheapest
	}
	return &BreakEven{DutyCycle: duty, MinDutyCycle: r.p.policy.BreakEvenMinDutyCycle,
		Serverless: *r.tradeOffCandidate(best, "the serverless side of the break-even"),
		Dedicated:  *r.tradeOffCandidate(dedicated, "the cheapest deployment on an instance pricing model")}
}

// breakEvenSteps bisects the duty cycle to within 2^-40 of the range.
const breakEvenSteps = 40

// serverlessBreakEven is the highest duty cycle at which a serverless
// candidate (priced at duty) still costs less than target: its cost and
// energy scale with its billed share of the time, which grows with the
// duty cycle. 1 when it is cheaper at constant load, 0 when it is not
// cheaper even at Policy.BreakEvenMinDutyCycle.
func (p *Planner) serverlessBreakEven(c *priced, duty, target float64) float64 {
	if c.offer == nil || c.offer.serverless == nil {
		return 0
	}
	s := c.offer.serverless
	share0 := p.cost.ServerlessBilledShare(s, duty)
	if !(share0 > 0) {
		return 0
	}
	perShare := (c.cost + c.carbon) / share0
	cheaper := func(d float64) bool { return perShare*p.cost.ServerlessBilledShare(s, d) < target }
	lo, hi := p.policy.BreakEvenMinDutyCycle, 1.0
	switch {
	case cheaper(hi):
		return 1
	case !cheaper(lo):
		return 0
	}
	for range breakEvenSteps {
		if mid := (lo + hi) / 2; cheaper(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}
