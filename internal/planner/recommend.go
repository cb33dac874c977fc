// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner

import (
	"errors"
	"sync"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/cost"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
)

// run is the state of one Recommend call.
type run struct {
	p        *Planner
	req      *Request
	workload perf.Workload // the estimator's, with defaults
	f        filters
	// groups holds the physics verdict per hardware group (indexed like
	// Planner.groups); needed marks the groups some offer passing the
	// offer-level filters uses.
	groups []groupResult
	needed []bool
	// verdicts holds each offer's offer-level filter result (scan's first
	// pass), discounts the request's discount per cloud (Planner.cloudIDs).
	verdicts  []verdict
	discounts []float64
	workers   []worker
	inference bool
	// moe: the workload is a mixture of experts (fewer active parameters
	// than total).
	moe bool
	// unitsOnly: the first serving pass, smallest units only (physicsAll).
	unitsOnly bool
	// groupCost and sortScratch are scratch for unitSearch.
	groupCost, sortScratch []float64
	kind                   int // kindSlot of the workload
	// hoursPerMonth and horizonMonths price inference: over the policy's
	// horizon, reported per month.
	hoursPerMonth, horizonMonths float64
	// dutyCycle is the share of the time an inference load is there
	// (workload.duty_cycle with its default): serverless offers bill it.
	dutyCycle float64
	// use is what every candidate's bill shares (price.go, usage).
	use cost.Usage
	// streaming objectives (every one but balanced, and cost with a carbon
	// price) score each candidate as
	// it is found and keep only the top N in top (rank's insertion, in the
	// same tie-break order); balanced keeps every feasible candidate in
	// all, because its scores need the best value of each axis first.
	streaming bool
	all, top  []priced
	// rawAxis is the streaming objective's raw axis (rawScore); topBar the
	// raw value of the last of a full top N.
	rawAxis  int
	topBar   float64
	feasible int
	rejected reasonCounts
	// reasonCache speeds up reasonIndex for reject.
	reasonCache reasonCache
	// physicallyOK counts the (offer, pricing model) pairs that passed
	// physics; when nothing is feasible, it tells a numeric limit binds.
	physicallyOK int
	// Nearest misses by metric (cheapest per hour, fastest, cheapest in
	// total, lowest CO2e, lowest time per output token) and the smallest
	// deployment refused by max_nodes / max_gpus.
	cheapestHourly, fastest, cheapest, lowestCO2, lowestTPOT miss
	// tightest: the hardware short of memory by the fewest GB per GPU.
	tightest miss
	smallest miss
	// leftOut is the cheapest candidate (cost plus carbon cost) that only
	// constraints.software_stacks removed.
	leftOut miss
	// tradeCands are the candidates the trade-offs choose from
	// (Request.TradeOffs; keepTradeOff), in scan order.
	tradeCands []priced
	// fam holds per-family figures (lowerBoundNodes, minFitNodes).
	fam []familyMemo
	// rows streams a job's trade-off rows (rows.go) when on.
	rows jobRowStream
	// perNode is perNodeMonth for the serving trade-off rows.
	perNode []float64
	// prune: candidates that cannot enter the top N may go unbilled
	// (prune.go); bounds holds each group's bound per pricing model,
	// current when its gen is the run's.
	prune  bool
	bounds []slotBound
	gen    uint32
	// worstCO2 is the highest known CO2e of the feasible candidates (set by
	// rankAll): what an unknown CO2e ranks as.
	worstCO2 float64
}

var scratch = sync.Pool{New: func() any { return &run{} }}

// Recommend ranks every candidate for the request. It returns an
// inputerr.List for bad input and *NoCandidateError when nothing survives
// the filters.
func (p *Planner) Recommend(req Request) (*Result, error) {
	if errs := p.Validate(&req); len(errs) > 0 {
		return nil, errs
	}
	if req.Estimator == nil {
		return nil, errors.New("planner: Request.Estimator is nil")
	}
	if req.Objective == "" {
		req.Objective = ObjectiveCost
	}
	if req.Top == 0 {
		req.Top = p.policy.DefaultTop
	}
	if req.DistinctBy == "" {
		req.DistinctBy = DistinctInstanceType
	}
	r, ok := scratch.Get().(*run)
	if !ok {
		r = &run{}
	}
	defer scratch.Put(r)
	r.reset(p, &req)
	r.compile()
	r.scan()
	if r.feasible == 0 {
		return nil, r.noCandidate()
	}
	res := &Result{Feasible: r.feasible, CatalogDate: p.date, Rejected: r.rejections()}
	res.Candidates, res.LeftOut = r.rank()
	res.Best = res.Candidates[0]
	if req.TradeOffs {
		var err error
		if res.TradeOffs, err = r.tradeOffs(res); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// reset prepares a pooled run for a request, keeping its buffers.
func (r *run) reset(p *Planner, req *Request) {
	all, top, groups, workers, needed, groupCost := r.all[:0], r.top[:0], r.groups[:0], r.workers, r.needed, r.groupCost
	verdicts, discounts, tradeCands := r.verdicts, r.discounts[:0], r.tradeCands[:0]
	bounds, gen, rows, fam := r.bounds, r.gen+1, r.rows, resize(r.fam, p.families)
	clear(fam)
	if gen == 0 { // wrapped: every bound is stale
		clear(bounds)
		gen = 1
	}
	w := req.Estimator.Workload()
	*r = run{p: p, req: req, workload: w, all: all, top: top, workers: workers, groupCost: groupCost, verdicts: verdicts, tradeCands: tradeCands,
		bounds: bounds, gen: gen, rows: rows, fam: fam,
		inference: w.Kind == perf.KindInference, kind: kindSlot(w.Kind),
		moe: w.ActiveParametersB > 0 && w.ActiveParametersB < w.ModelParametersB,
		// Balanced scores and the cost objective with a carbon price (an
		// unknown CO2e counts as the worst known) need every candidate.
		streaming:     req.Objective != ObjectiveBalanced && !(req.Objective == ObjectiveCost && req.CarbonPriceUSDPerTonne > 0),
		rawAxis:       rawAxisOf(req.Objective),
		hoursPerMonth: p.hoursPerMonth, horizonMonths: p.policy.InferenceHorizonMonths, dutyCycle: w.DutyCycle}
	r.use = cost.Usage{DutyCycle: r.dutyCycle, Serving: r.inference}
	if r.inference {
		r.use.Hours = r.hoursPerMonth * r.horizonMonths
		r.use.HorizonHours = r.use.Hours
	}
	if cap(groups) < len(p.groups) {
		groups = make([]groupResult, len(p.groups))
		needed = make([]bool, len(p.groups))
	}
	r.groups, r.needed = groups[:len(p.groups)], needed[:len(p.groups)]
	for i := range r.groups {
		r.groups[i] = groupResult{options: r.groups[i].options[:0]}
		r.needed[i] = false
	}
	if cap(r.verdicts) < len(p.offers) {
		r.verdicts = make([]verdict, len(p.offers))
	}
	r.verdicts = r.verdicts[:len(p.offers)]
	if nb := len(p.groups) * catalog.NumPricingModels; cap(r.bounds) < nb {
		r.bounds = make([]slotBound, nb)
	} else {
		r.bounds = r.bounds[:nb]
	}
	for _, c := range p.cloudIDs {
		discounts = append(discounts, req.Discounts[c])
	}
	r.discounts = discounts
}
