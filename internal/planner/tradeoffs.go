// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner

import (
	"errors"
	"slices"
	"strings"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
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

// TradeOffs answers, beside res (Recommend's answer to req), what the
// request's limit costs: the cheapest candidate at the deadline (a job) or
// the latency limits (serving) scaled by each Policy.TradeOffFactors, and
// for serving the duty cycle where serverless stops being cheaper. Each
// row is a recommendation of its own under the cost objective, with every
// other constraint kept.
func (p *Planner) TradeOffs(req Request, res *Result, relimit Relimit) (*TradeOffs, error) {
	if req.Estimator == nil || res == nil {
		return nil, errors.New("planner: TradeOffs needs the request and its result")
	}
	w := req.Estimator.Workload()
	t := &TradeOffs{Inference: w.Kind == perf.KindInference}
	t.BaseFromBest = !t.Inference && !(req.Constraints.DeadlineHours > 0)
	costObjective := Objective(strings.ToLower(strings.TrimSpace(string(req.Objective)))) == ObjectiveCost || req.Objective == ""
	base := req
	base.Objective, base.Top, base.DistinctBy = ObjectiveCost, 1, DistinctInstanceType
	factors := slices.Sorted(slices.Values(append([]float64{1}, p.policy.TradeOffFactors...)))
	for _, f := range factors {
		if t.BaseFromBest && f > 1 && costObjective {
			continue
		}
		row := TradeOff{Factor: f}
		q := base
		switch {
		case t.Inference && (f == 1 || relimit == nil):
			if f != 1 {
				continue
			}
			row.MaxTimeToFirstTokenMs, row.MaxTimePerOutputTokenMs = w.MaxTimeToFirstTokenMs, w.MaxTimePerOutputTokenMs
		case t.Inference:
			row.MaxTimeToFirstTokenMs, row.MaxTimePerOutputTokenMs = w.MaxTimeToFirstTokenMs*f, w.MaxTimePerOutputTokenMs*f
			est, err := relimit(row.MaxTimeToFirstTokenMs, row.MaxTimePerOutputTokenMs)
			if err != nil {
				continue // beyond the latency input limits: no row
			}
			q.Estimator = est
		case t.BaseFromBest:
			if f != 1 {
				row.DeadlineHours = res.Best.EstimatedHours * f
			}
		default:
			row.DeadlineHours = req.Constraints.DeadlineHours * f
		}
		if !t.Inference {
			q.Constraints.DeadlineHours = row.DeadlineHours
		}
		if err := p.tradeOffBest(q, &row, f == 1 && costObjective, res); err != nil {
			return nil, err
		}
		t.Rows = append(t.Rows, row)
	}
	if t.Inference {
		be, err := p.breakEven(base, w.DutyCycle)
		if err != nil {
			return nil, err
		}
		t.BreakEven = be
	}
	return t, nil
}

// tradeOffBest fills a row's cheapest candidate: res's best when it is
// the request's own row under the cost objective, else a recommendation
// of its own; a request nothing meets gives the binding reason.
func (p *Planner) tradeOffBest(q Request, row *TradeOff, own bool, res *Result) error {
	if own {
		row.Best = &res.Best
		return nil
	}
	got, err := p.Recommend(q)
	var none *NoCandidateError
	switch {
	case errors.As(err, &none):
		row.Reason = none.Reason
		return nil
	case err != nil:
		return err
	}
	row.Best = &got.Best
	return nil
}

// breakEven finds the duty cycle where serverless stops being cheaper
// than the cheapest dedicated deployment: every feasible serverless
// deployment is billed its share of the time (cost.Model.
// ServerlessBilledShare, which grows with the duty cycle; its energy
// with it), a dedicated one the same at any duty cycle. nil when the
// request does not allow both or either has no candidate.
func (p *Planner) breakEven(base Request, duty float64) (*BreakEven, error) {
	allowed := allowedSlots(base.Constraints.PricingModels, true)
	var dedicated []catalog.PricingModel
	for s, ok := range allowed {
		if ok && s != slotServerless {
			dedicated = append(dedicated, catalog.AllPricingModels[s])
		}
	}
	if !allowed[slotServerless] || len(dedicated) == 0 {
		return nil, nil
	}
	sq, dq := base, base
	sq.Constraints.PricingModels = []catalog.PricingModel{catalog.Serverless}
	sq.Top, sq.DistinctBy = p.policy.MaxTop, DistinctDeployment
	dq.Constraints.PricingModels = dedicated
	sres, err := p.recommendOrNone(sq)
	if sres == nil || err != nil {
		return nil, err
	}
	dres, err := p.recommendOrNone(dq)
	if dres == nil || err != nil {
		return nil, err
	}
	be := &BreakEven{Serverless: sres.Best, Dedicated: dres.Best, MinDutyCycle: p.policy.BreakEvenMinDutyCycle}
	target := dres.Best.EstimatedCostUSD + dres.Best.CarbonCostUSD
	for i := range sres.Candidates {
		c := &sres.Candidates[i]
		if d := p.serverlessBreakEven(c, duty, target); d > be.DutyCycle {
			be.DutyCycle, be.Serverless = d, *c
		}
	}
	return be, nil
}

// recommendOrNone is Recommend with "no candidate" as a nil result.
func (p *Planner) recommendOrNone(q Request) (*Result, error) {
	res, err := p.Recommend(q)
	var none *NoCandidateError
	if errors.As(err, &none) {
		return nil, nil
	}
	return res, err
}

// breakEvenSteps bisects the duty cycle to within 2^-40 of the range.
const breakEvenSteps = 40

// serverlessBreakEven is the highest duty cycle at which a serverless
// candidate (priced at duty) still costs less than target: its cost and
// energy scale with its billed share of the time, which grows with the
// duty cycle. 1 when it is cheaper at constant load, 0 when it is not
// cheaper even at Policy.BreakEvenMinDutyCycle.
func (p *Planner) serverlessBreakEven(c *Candidate, duty, target float64) float64 {
	if c.offer == nil || c.offer.serverless == nil {
		return 0
	}
	s := c.offer.serverless
	share0 := p.cost.ServerlessBilledShare(s, duty)
	if !(share0 > 0) {
		return 0
	}
	perShare := (c.EstimatedCostUSD + c.CarbonCostUSD) / share0
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
