// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner

import (
	"errors"
	"math"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/cost"
)

// filters is a request compiled for the hot loop.
type filters struct {
	provClouds, clouds, regions, geos, accels map[string]bool
	pms                                       [4]bool
	anyPM                                     bool
	comp                                      uint8
	maxNodes, maxGPUs                         int
	userMaxNodes                              bool
}

func pmIndex(pm catalog.PricingModel) int {
	switch pm {
	case catalog.OnDemand:
		return 0
	case catalog.Spot:
		return 1
	case catalog.Reserved1Y:
		return 2
	case catalog.Reserved3Y:
		return 3
	}
	return -1
}

func setOf(ss []string, norm func(string) string) map[string]bool {
	if ss == nil {
		return nil
	}
	m := make(map[string]bool, len(ss))
	for _, s := range ss {
		if norm != nil {
			s = norm(s)
		}
		m[s] = true
	}
	return m
}

// miss remembers the best value of a metric among physically feasible
// candidates, for the "nearest miss" of a no-candidate error.
type miss struct {
	set bool
	v   float64
	c   Candidate
}

func (m *miss) offer(v float64, c *Candidate) {
	if !m.set || v < m.v {
		m.set, m.v, m.c = true, v, *c
	}
}

type run struct {
	p    *Planner
	req  *Request
	f    filters
	gr   []groupResult
	inf  bool
	hpm  float64 // hours per month
	hzn  float64 // inference pricing horizon in months
	cand []Candidate
	rej  [32]int
	// nearest misses by metric: hourly, hours, total, co2e; and the
	// smallest deployment refused by max_nodes / max_gpus.
	mHourly, mHours, mTotal, mCO2, mTPOT miss
	mSize                                miss
	physOK                               int // (offer, pm) pairs that passed physics
}

// Recommend ranks every candidate for the request. It returns InputErrors
// for bad input and *NoCandidateError when nothing survives the filters.
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
		req.Top = DefaultTop
	}
	r := &run{p: p, req: &req, gr: make([]groupResult, len(p.groups)), inf: req.Workload.Kind == KindInference}
	r.hpm = p.cost.HoursPerMonth
	r.hzn = p.cost.TermMonths[catalog.Reserved1Y]
	if r.hzn <= 0 {
		r.hzn = 12
	}
	r.compile()
	r.cand = make([]Candidate, 0, 256)
	r.scan()
	if len(r.cand) == 0 {
		return nil, r.noCandidate()
	}
	res := &Result{Feasible: len(r.cand), CatalogDate: p.date, Rejected: r.rejections()}
	res.Candidates = r.rank()
	res.Best = res.Candidates[0]
	return res, nil
}

func (r *run) compile() {
	c := &r.req.Constraints
	f := &r.f
	f.provClouds = setOf(r.req.AllowedClouds, nil)
	f.clouds = setOf(c.Clouds, nil)
	f.regions = setOf(c.Regions, nil)
	f.geos = setOf(c.Geographies, nil)
	if c.Accelerators != nil {
		f.accels = make(map[string]bool, len(c.Accelerators))
		for _, a := range c.Accelerators {
			if acc, ok := r.p.cat.Accelerator(a); ok {
				f.accels[acc.ID] = true
			}
		}
	}
	if c.PricingModels == nil {
		f.pms = [4]bool{true, true, true, true}
	} else {
		for _, pm := range c.PricingModels {
			if i := pmIndex(pm); i >= 0 {
				f.pms[i] = true
			}
		}
	}
	for _, x := range c.Compliance {
		f.comp |= complianceBits[x]
	}
	f.maxNodes = DefaultMaxNodes
	if c.MaxNodes > 0 {
		f.maxNodes = c.MaxNodes
		f.userMaxNodes = true
	}
	f.maxGPUs = c.MaxGPUs
}

// offerReason applies the offer-level filters in the documented order.
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
	case oi.comp&f.comp != f.comp:
		return ReasonCompliance
	case f.accels != nil && !f.accels[oi.accel.ID]:
		return ReasonAccelerators
	case c.MinGPUMemoryGB > 0 && oi.memPerGPU < c.MinGPUMemoryGB:
		return ReasonMinGPUMemory
	case c.MinNetworkGbps > 0 && oi.o.NetworkGbps < c.MinNetworkGbps:
		return ReasonMinNetwork
	}
	return ""
}

func (r *run) reject(reason string, n int) { r.rej[reasonIndex(reason)] += n }

func (r *run) scan() {
	for i := range r.p.offers {
		oi := &r.p.offers[i]
		if reason := r.offerReason(oi); reason != "" {
			r.reject(reason, len(oi.sold))
			continue
		}
		// Pricing models first: they are an offer-level filter too.
		nAllowed := 0
		for _, pm := range oi.sold {
			if r.f.pms[pmIndex(pm)] {
				nAllowed++
			}
		}
		if d := len(oi.sold) - nAllowed; d > 0 {
			r.reject(ReasonPricingModels, d)
		}
		if nAllowed == 0 {
			continue
		}
		g := r.group(oi.group)
		if len(g.options) == 0 {
			r.reject(g.reason, nAllowed)
			continue
		}
		r.physOK += nAllowed
		r.evaluate(oi, g)
	}
}

// evaluate prices every (node count, pricing model) of one offer and keeps
// the candidates within the numeric limits.
func (r *run) evaluate(oi *offerInfo, g *groupResult) {
	c := &r.req.Constraints
	var worst [4]int // per pricing model: furthest reason index reached by a failing node count
	var ok [4]bool
	for oIdx := range g.options {
		opt := &g.options[oIdx]
		for _, pm := range oi.sold {
			pi := pmIndex(pm)
			if !r.f.pms[pi] {
				continue
			}
			cand, err := r.price(oi, opt, pm)
			if err != nil {
				worst[pi] = max(worst[pi], reasonIndex(ReasonEstimateFailed))
				continue
			}
			r.mHourly.offer(cand.HourlyCostUSD, &cand)
			r.mTotal.offer(cand.EstimatedCostUSD, &cand)
			r.mCO2.offer(cand.EstimatedCO2eKg, &cand)
			if r.inf {
				r.mTPOT.offer(cand.TPOTMs, &cand)
			} else {
				r.mHours.offer(cand.EstimatedHours, &cand)
			}
			reason := ""
			switch {
			case c.MaxHourlyCostUSD > 0 && cand.HourlyCostUSD > c.MaxHourlyCostUSD:
				reason = ReasonMaxHourlyCost
			case !r.inf && c.DeadlineHours > 0 && cand.EstimatedHours > c.DeadlineHours:
				reason = ReasonDeadline
			case c.MaxTotalCostUSD > 0 && cand.EstimatedCostUSD > c.MaxTotalCostUSD:
				reason = ReasonMaxTotalCost
			case c.MaxCO2eKg > 0 && cand.EstimatedCO2eKg > c.MaxCO2eKg:
				reason = ReasonMaxCO2e
			}
			if reason != "" {
				worst[pi] = max(worst[pi], reasonIndex(reason))
				continue
			}
			ok[pi] = true
			r.cand = append(r.cand, cand)
		}
	}
	for _, pm := range oi.sold {
		pi := pmIndex(pm)
		if r.f.pms[pi] && !ok[pi] {
			r.rej[worst[pi]]++
		}
	}
}

// price builds the candidate of one offer, node count and pricing model.
func (r *run) price(oi *offerInfo, opt *option, pm catalog.PricingModel) (Candidate, error) {
	hours := opt.est.Hours
	months := 0.0
	if r.inf {
		// Serving is priced over the shortest commitment term and reported
		// per month, so a reservation is billed its whole term.
		months = r.hzn
		hours = r.hpm * months
	}
	in := cost.JobInput{
		Offer: oi.o, Cloud: oi.cloud, Region: oi.region, Accelerator: oi.accel,
		Nodes: opt.nodes, Hours: hours, PricingModel: pm,
		Discount: r.req.Discounts[oi.o.Cloud], Workload: r.req.Workload.Kind,
		CarbonPriceUSDPerTonne: r.req.CarbonPriceUSDPerTonne,
	}
	jr, err := r.p.cost.JobCost(in)
	if err != nil {
		return Candidate{}, err
	}
	c := Candidate{
		Cloud: oi.o.Cloud, Region: oi.o.Region, InstanceType: oi.o.InstanceType, Accelerator: oi.accel.ID,
		GPUsPerNode: oi.o.GPUs, Nodes: opt.nodes, TotalGPUs: opt.nodes * oi.o.GPUs, PricingModel: pm,
		HourlyCostUSD:    jr.HourlyUSD * float64(opt.nodes),
		EstimatedHours:   jr.RunningHours,
		EstimatedCostUSD: jr.ComputeUSD + jr.CarbonCostUSD,
		EstimatedCO2eKg:  jr.CO2eKg,
		CarbonCostUSD:    jr.CarbonCostUSD,
		TokensPerSecond:  opt.tps,
		MemoryPerGPUGB:   opt.est.MemoryPerGPUGB,
		Replicas:         opt.replicas,
		TTFTMs:           opt.est.TTFTMs,
		TPOTMs:           opt.est.TPOTMs,
		bound:            opt.est.Bound,
		offer:            oi,
	}
	if r.inf {
		c.EstimatedHours = r.hpm
		c.EstimatedCostUSD /= months
		c.EstimatedCO2eKg /= months
		c.CarbonCostUSD /= months
	}
	if !finite(c.EstimatedCostUSD) || !finite(c.EstimatedHours) || !finite(c.EstimatedCO2eKg) {
		return Candidate{}, errors.New("planner: non-finite estimate")
	}
	return c, nil
}

// group evaluates the physics of one hardware group once per request.
func (r *run) group(i int) *groupResult {
	g := &r.gr[i]
	if g.done {
		return g
	}
	g.done = true
	hw := r.p.groups[i].hw
	if r.inf {
		r.inferenceOptions(g, hw)
	} else {
		r.trainingOptions(g, hw)
	}
	return g
}

// minNodes returns the fewest nodes of the hardware that hold the workload,
// or 0 with a reason when none do. The estimator's MinGPUs answers without
// running the full model.
func (r *run) minNodes(g *groupResult, hw Hardware) (int, *Estimate, string) {
	gpn := hw.GPUsPerNode
	limit := r.f.maxNodes
	if n := r.req.Estimator.MinGPUs(hw.Accelerator, gpn); n > 0 {
		g.minGPUs = n
		return ceilDiv(n, gpn), nil, ""
	}
	// Nothing fits (or the hardware cannot run the workload): one estimate
	// on a node tells which.
	h := hw
	h.Nodes = 1
	e, err := r.req.Estimator.Estimate(h)
	if err != nil {
		return 0, nil, rejectReason(err)
	}
	if e.Fits && limit >= 1 {
		g.minGPUs = gpn
		return 1, &e, ""
	}
	return 0, nil, ReasonDoesNotFit
}

// limitReason checks a node count against max_nodes / max_gpus and the
// fabric; "" when allowed.
func (r *run) limitReason(hw Hardware, nodes int, applyDefault bool) string {
	switch {
	case nodes > r.f.maxNodes && (r.f.userMaxNodes || applyDefault):
		if r.f.userMaxNodes {
			return ReasonMaxNodes
		}
		return ReasonDoesNotFit
	case r.f.maxGPUs > 0 && nodes*hw.GPUsPerNode > r.f.maxGPUs:
		return ReasonMaxGPUs
	case nodes > 1 && hw.Fabric == catalog.FabricNone:
		return ReasonNoFabric
	}
	return ""
}

func (r *run) noteSize(hw Hardware, nodes int) {
	// Remember the smallest refused deployment for max_nodes / max_gpus messages.
	c := Candidate{Accelerator: hw.Accelerator.ID, GPUsPerNode: hw.GPUsPerNode, Nodes: nodes, TotalGPUs: nodes * hw.GPUsPerNode}
	r.mSize.offer(float64(c.TotalGPUs), &c)
}

// trainingOptions: the fewest nodes that fit, then every power of two above
// it up to max_nodes / max_gpus; a count that is slower than the previous
// one (communication dominates) ends the series.
func (r *run) trainingOptions(g *groupResult, hw Hardware) {
	first, probed, reason := r.minNodes(g, hw)
	if first == 0 {
		g.reason = reason
		return
	}
	if reason = r.limitReason(hw, first, true); reason != "" {
		g.reason = reason
		r.noteSize(hw, first)
		return
	}
	prevHours := math.Inf(1)
	for nodes := first; nodes <= r.f.maxNodes; {
		if r.limitReason(hw, nodes, true) != "" {
			break
		}
		var e Estimate
		if probed != nil && nodes == first {
			e = *probed
		} else {
			h := hw
			h.Nodes = nodes
			var err error
			if e, err = r.req.Estimator.Estimate(h); err != nil {
				if len(g.options) == 0 {
					g.reason = rejectReason(err)
				}
				break
			}
		}
		if !e.Fits || !(e.Hours > 0) || !finite(e.Hours) {
			if len(g.options) == 0 {
				g.reason = ReasonDoesNotFit
			}
		} else {
			if e.Hours >= prevHours {
				break
			}
			prevHours = e.Hours
			g.options = append(g.options, option{nodes: nodes, replicas: 1, est: e, tps: e.TokensPerSecond})
		}
		// Next: the next power of two above nodes.
		next := 1
		for next <= nodes {
			next *= 2
		}
		nodes = next
	}
	if len(g.options) == 0 && g.reason == "" {
		g.reason = ReasonDoesNotFit
	}
}

// maxServingUnits bounds the serving units of an inference deployment when
// max_nodes is not set (DefaultMaxNodes bounds training only).
const maxServingUnits = 100000

// inferenceOptions: the fewest nodes that hold one replica form a serving
// unit; the benchmark model says how many output tokens/s a unit sustains
// within the latency limits; units are added until the target is met.
func (r *run) inferenceOptions(g *groupResult, hw Hardware) {
	unit, probed, reason := r.minNodes(g, hw)
	if unit == 0 {
		g.reason = reason
		return
	}
	if unit > 1 && hw.Fabric == catalog.FabricNone {
		g.reason = ReasonNoFabric
		return
	}
	var e Estimate
	if probed != nil {
		e = *probed
	} else {
		h := hw
		h.Nodes = unit
		var err error
		if e, err = r.req.Estimator.Estimate(h); err != nil {
			g.reason = rejectReason(err)
			return
		}
	}
	switch {
	case !e.Fits:
		g.reason = ReasonDoesNotFit
		return
	case !e.MeetsLatency || !(e.TokensPerSecond > 0) || !finite(e.TokensPerSecond):
		g.reason = ReasonLatency
		r.mTPOT.offer(e.TPOTMs, &Candidate{Accelerator: hw.Accelerator.ID, GPUsPerNode: hw.GPUsPerNode, Nodes: unit, TPOTMs: e.TPOTMs, TTFTMs: e.TTFTMs})
		return
	}
	target := r.req.Workload.TokensPerSecond
	units := 1
	if target > 0 {
		u := math.Ceil(target/e.TokensPerSecond - 1e-9)
		if u > maxServingUnits {
			u = maxServingUnits
		}
		units = max(1, int(u))
	}
	nodes := units * unit
	reason = r.limitReason(hw, nodes, false)
	if reason == "" && units >= maxServingUnits {
		reason = ReasonDoesNotFit
	}
	if reason != "" {
		g.reason = reason
		r.noteSize(hw, nodes)
		return
	}
	reps := max(1, e.Replicas) * units
	g.options = append(g.options, option{nodes: nodes, replicas: reps, est: e, tps: e.TokensPerSecond * float64(units)})
}
