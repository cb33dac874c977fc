// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner

import (
	"errors"
	"math"
	"runtime"
	"sync"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// filters is a request compiled for the hot loop.
type filters struct {
	provClouds, clouds, regions, geos, accels map[string]bool
	pms                                       [4]bool
	comp                                      uint8
	maxNodes, maxGPUs                         int
	userMaxNodes                              bool
	// limited: some numeric limit (hourly, deadline, total, CO2e) is set.
	limited bool
}

// Pricing model indexes (pmIndex).
const (
	pmOnDemand = iota
	pmSpot
	pmReserved1Y
	pmReserved3Y
)

func pmIndex(pm catalog.PricingModel) int {
	switch pm {
	case catalog.OnDemand:
		return pmOnDemand
	case catalog.Spot:
		return pmSpot
	case catalog.Reserved1Y:
		return pmReserved1Y
	case catalog.Reserved3Y:
		return pmReserved3Y
	}
	return -1
}

func setOf(ss []string) map[string]bool {
	if ss == nil {
		return nil
	}
	m := make(map[string]bool, len(ss))
	for _, s := range ss {
		m[s] = true
	}
	return m
}

// lite is a feasible candidate in the hot loop: numbers and references
// only. Full Candidates are built for the top N and the nearest misses.
type lite struct {
	oi       *offerInfo
	opt      *option
	pm       catalog.PricingModel
	co2Known bool
	spare    int     // spare serving units (inference on spot), of opt.unit nodes each
	hourly   float64 // all nodes, after discount
	hours    float64 // wall-clock (spot: with rework); inference: hours per month
	cost     float64 // job total (inference: per month), with the carbon cost
	co2      float64 // kg (inference: per month)
	carbon   float64 // carbon cost USD
	score    float64
}

// miss remembers the best value of a metric among physically feasible
// candidates, for the "nearest miss" of a no-candidate error.
type miss struct {
	set bool
	v   float64
	c   lite
	hw  *Hardware // for misses without an offer (max_nodes, max_gpus, latency)
	n   int       // nodes, with hw
	e   Estimate  // with hw
}

func (m *miss) offer(v float64, c *lite) {
	if !m.set || v < m.v {
		m.set, m.v, m.c = true, v, *c
	}
}

func (m *miss) offerHW(v float64, hw Hardware, nodes int, e Estimate) {
	if !m.set || v < m.v {
		m.set, m.v, m.hw, m.n, m.e = true, v, &hw, nodes, e
	}
}

type run struct {
	p    *Planner
	req  *Request
	f    filters
	gr   []groupResult
	inf  bool
	kind int
	hpm  float64 // hours per month
	hzn  float64 // inference pricing horizon in months
	// cand holds every feasible candidate for the balanced objective,
	// whose scores need the best value of each axis first; the other
	// objectives score each candidate as it is found and keep only the top
	// N in top (rank's insertion, in the same tie-break order).
	cand      []lite
	top       []lite
	streaming bool
	feasible  int
	rej       [32]int
	// nearest misses by metric: hourly, hours, total, co2e, time per output
	// token; and the smallest deployment refused by max_nodes / max_gpus.
	mHourly, mHours, mTotal, mCO2, mTPOT miss
	mSize                                miss
	physOK                               int // (offer, pm) pairs that passed physics

	phys   []physics // one per worker
	needed []bool    // per group: some offer of it passed the offer-level filters
}

// physics evaluates hardware groups for one worker. Groups of the same
// accelerator and node size (a family) always go to the same worker, so
// the memo is per worker.
type physics struct {
	r *run
	// Per-request memo of the benchmark model: instances of the same
	// accelerator and size share estimates across clouds, and a single node
	// does not use the scale-out network, so one-node estimates are keyed
	// without it (TestSingleNodeEstimateIgnoresNetwork guards this).
	est    map[estKey]estVal
	minGPU map[estKey]int
	// nearest misses found while evaluating physics.
	mSize, mTPOT miss
}

type estKey struct {
	acc   *catalog.Accelerator
	gpn   int
	nodes int
	gbps  float64
	fab   catalog.Fabric
}

type estVal struct {
	e   Estimate
	err error
}

func (r *physics) estimate(hw Hardware) (Estimate, error) {
	k := estKey{acc: hw.Accelerator, gpn: hw.GPUsPerNode, nodes: hw.Nodes}
	if hw.Nodes > 1 {
		k.gbps, k.fab = hw.NetworkGbps, hw.Fabric
	}
	if v, ok := r.est[k]; ok {
		return v.e, v.err
	}
	e, err := r.r.req.Estimator.Estimate(hw)
	r.est[k] = estVal{e, err}
	return e, err
}

func (r *physics) minGPUs(acc *catalog.Accelerator, gpn int) int {
	k := estKey{acc: acc, gpn: gpn}
	if v, ok := r.minGPU[k]; ok {
		return v
	}
	n := r.r.req.Estimator.MinGPUs(acc, gpn)
	r.minGPU[k] = n
	return n
}

var scratch = sync.Pool{New: func() any { return &run{} }}

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
		req.Top = p.policy.DefaultTop
	}
	r, ok := scratch.Get().(*run)
	if !ok {
		r = &run{}
	}
	defer scratch.Put(r)
	cand, top, gr, phys, needed := r.cand[:0], r.top[:0], r.gr[:0], r.phys, r.needed
	*r = run{p: p, req: &req, cand: cand, top: top, phys: phys,
		inf: req.Workload.Kind == KindInference, kind: kindIndex(req.Workload.Kind),
		streaming: req.Objective != ObjectiveBalanced}
	if cap(gr) < len(p.groups) {
		gr = make([]groupResult, len(p.groups))
		needed = make([]bool, len(p.groups))
	}
	r.gr, r.needed = gr[:len(p.groups)], needed[:len(p.groups)]
	for i := range r.gr {
		r.gr[i] = groupResult{options: r.gr[i].options[:0]}
		r.needed[i] = false
	}
	r.hpm = p.hoursPerMonth
	r.hzn = p.policy.InferenceHorizonMonths
	r.compile()
	r.scan()
	if r.feasible == 0 {
		return nil, r.noCandidate()
	}
	res := &Result{Feasible: r.feasible, CatalogDate: p.date, Rejected: r.rejections()}
	res.Candidates = r.rank()
	res.Best = res.Candidates[0]
	return res, nil
}

func (r *run) compile() {
	c := &r.req.Constraints
	f := &r.f
	f.provClouds = setOf(r.req.AllowedClouds)
	f.clouds = setOf(c.Clouds)
	f.regions = setOf(c.Regions)
	f.geos = setOf(c.Geographies)
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
	f.maxNodes = r.p.policy.DefaultMaxNodes
	if c.MaxNodes > 0 {
		f.maxNodes = c.MaxNodes
		f.userMaxNodes = true
	}
	f.maxGPUs = c.MaxGPUs
	f.limited = c.MaxHourlyCostUSD > 0 || c.DeadlineHours > 0 || c.MaxTotalCostUSD > 0 || c.MaxCO2eKg > 0
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

// scan runs the filters over every offer. Phase 1 finds the hardware
// groups some offer needs; phase 2 evaluates their physics, in parallel
// over families; phase 3 prices and filters every candidate in tie-break
// order.
func (r *run) scan() {
	for i := range r.p.offers {
		oi := &r.p.offers[i]
		if r.needed[oi.group] || r.offerReason(oi) != "" {
			continue
		}
		for _, pm := range oi.sold {
			if r.f.pms[pmIndex(pm)] {
				r.needed[oi.group] = true
				break
			}
		}
	}
	r.physicsAll()
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
		g := &r.gr[oi.group]
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
	disc := 1 - r.req.Discounts[oi.o.Cloud]
	// The allowed pricing models of the offer, in sold order.
	var pis [4]int
	var pms [4]catalog.PricingModel
	n := 0
	for k, pm := range oi.sold {
		if pi := oi.soldIdx[k]; r.f.pms[pi] {
			pis[n], pms[n] = pi, pm
			n++
		}
	}
	limited := r.f.limited
	for oIdx := range g.options {
		opt := &g.options[oIdx]
		for k := 0; k < n; k++ {
			pi := pis[k]
			l := r.price(oi, opt, pms[k], pi, disc)
			if !finite(l.cost) || !finite(l.hours) || !finite(l.co2) {
				worst[pi] = max(worst[pi], reasonIndex(ReasonEstimateFailed))
				continue
			}
			if l.spare > 0 {
				// Spot serving with its spares must still fit max_nodes /
				// max_gpus; a pair refused only for its size is not
				// physically feasible within the limits (physOK), so a
				// no-candidate error names max_nodes / max_gpus.
				if reason := r.spareLimit(oi, opt, l.spare); reason >= 0 {
					worst[pi] = max(worst[pi], reason)
					if r.feasible == 0 {
						nodes := opt.nodes + l.spare*opt.unit
						hw := r.p.groups[oi.group].hw
						r.mSize.offerHW(float64(nodes*hw.GPUsPerNode), hw, nodes, Estimate{})
					}
					r.physOK--
					continue
				}
			}
			if r.feasible == 0 {
				// Nearest misses matter only while nothing is feasible.
				r.mHourly.offer(l.hourly, &l)
				r.mTotal.offer(l.cost, &l)
				if l.co2Known {
					r.mCO2.offer(l.co2, &l)
				}
				if r.inf {
					r.mTPOT.offer(opt.est.TPOTMs, &l)
				} else {
					r.mHours.offer(l.hours, &l)
				}
			}
			if limited {
				reason := -1
				switch {
				case c.MaxHourlyCostUSD > 0 && l.hourly > c.MaxHourlyCostUSD:
					reason = reasonMaxHourlyCostIdx
				case !r.inf && c.DeadlineHours > 0 && l.hours > c.DeadlineHours:
					reason = reasonDeadlineIdx
				case c.MaxTotalCostUSD > 0 && l.cost > c.MaxTotalCostUSD:
					reason = reasonMaxTotalCostIdx
				case c.MaxCO2eKg > 0 && (!l.co2Known || l.co2 > c.MaxCO2eKg):
					reason = reasonMaxCO2eIdx
				}
				if reason >= 0 {
					worst[pi] = max(worst[pi], reason)
					continue
				}
			}
			ok[pi] = true
			r.feasible++
			if r.streaming {
				r.offerTop(&l)
			} else {
				r.cand = append(r.cand, l)
			}
		}
	}
	for k := 0; k < n; k++ {
		if pi := pis[k]; !ok[pi] {
			r.rej[worst[pi]]++
		}
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

// Reason indexes of the numeric limits, for the hot loop.
var (
	reasonMaxHourlyCostIdx = reasonIndex(ReasonMaxHourlyCost)
	reasonDeadlineIdx      = reasonIndex(ReasonDeadline)
	reasonMaxTotalCostIdx  = reasonIndex(ReasonMaxTotalCost)
	reasonMaxCO2eIdx       = reasonIndex(ReasonMaxCO2e)
)

// ceilTolerance keeps 24.000000001 months at 2 one-year terms, as the cost
// model does.
const ceilTolerance = 1e-9

// price applies the cost model (cost.Model.JobCost) to one candidate with
// the offer's precomputed coefficients; TestPricingMatchesCostModel keeps
// the two identical. Training and fine-tuning are priced for the job's
// hours, spot with the rework factor. Inference is priced over
// policy.InferenceHorizonMonths (12, the shortest commitment term) and
// reported per month, so a reservation is billed its whole term and a
// 3-year one costs three times its hourly rate; on spot, inference carries
// spare serving units (cost.Model.SpotServingSpares, at least
// policy.SpotServingMinSpareUnits) billed like the others, and no rework.
func (r *run) price(oi *offerInfo, opt *option, pm catalog.PricingModel, pi int, disc float64) lite {
	hours := opt.est.Hours
	if r.inf {
		hours = r.hpm * r.hzn
	}
	spare := 0
	if r.inf && pi == pmSpot {
		var err error
		spare, err = r.p.cost.SpotServingSpares(oi.cloud, opt.units, opt.unit, r.p.policy.SpotServingMinSpareUnits)
		if err != nil {
			return lite{oi: oi, opt: opt, pm: pm, cost: math.NaN()} // rejected as estimate_failed
		}
	}
	nodes := float64(opt.nodes + spare*opt.unit)
	hourly := oi.price[pi] * disc
	billed, running := hours, hours
	switch pi {
	case pmSpot:
		if !r.inf {
			billed = hours * oi.spotFactor
			running = billed
		}
	case pmReserved1Y, pmReserved3Y:
		term := r.p.termHours[pi]
		billed = math.Max(1, math.Ceil(hours/term-ceilTolerance)) * term
	}
	l := lite{oi: oi, opt: opt, pm: pm, spare: spare, hourly: hourly * nodes, hours: running}
	energy := nodes * running * oi.kwhPerHour[r.kind]
	l.co2 = energy * oi.kgPerKWh
	l.co2Known = energy > 0 && oi.kgPerKWh > 0
	l.carbon = l.co2 / 1000 * r.req.CarbonPriceUSDPerTonne
	l.cost = nodes*billed*hourly + l.carbon
	if r.inf {
		l.hours = r.hpm
		l.cost /= r.hzn
		l.co2 /= r.hzn
		l.carbon /= r.hzn
	}
	return l
}

// candidate expands a lite candidate.
func (r *run) candidate(l *lite) Candidate {
	oi, opt := l.oi, l.opt
	spareNodes := l.spare * opt.unit
	spareReps := l.spare * opt.unitReplicas
	nodes := opt.nodes + spareNodes
	return Candidate{
		Cloud: oi.o.Cloud, Region: oi.o.Region, InstanceType: oi.o.InstanceType, Accelerator: oi.accel.ID,
		GPUsPerNode: oi.o.GPUs, Nodes: nodes, TotalGPUs: nodes * oi.o.GPUs, PricingModel: l.pm,
		HourlyCostUSD:    l.hourly,
		EstimatedHours:   l.hours,
		EstimatedCostUSD: l.cost,
		EstimatedCO2eKg:  l.co2,
		CO2eKnown:        l.co2Known,
		CarbonCostUSD:    l.carbon,
		TokensPerSecond:  opt.tps + float64(l.spare)*opt.est.TokensPerSecond,
		MemoryPerGPUGB:   opt.est.MemoryPerGPUGB,
		Replicas:         opt.replicas + spareReps,
		SpareNodes:       spareNodes,
		SpareReplicas:    spareReps,
		TTFTMs:           opt.est.TTFTMs,
		TPOTMs:           opt.est.TPOTMs,
		Score:            l.score,
		bound:            opt.est.Bound,
		offer:            oi,
	}
}

// physicsAll evaluates every needed group, spreading families over up to
// GOMAXPROCS workers (results do not depend on the split: each group is
// evaluated by exactly one worker, and misses merge in worker order with
// ties kept by the lower group index).
func (r *run) physicsAll() {
	workers := min(runtime.GOMAXPROCS(0), maxWorkers, r.p.families)
	needed := 0
	for _, n := range r.needed {
		if n {
			needed++
		}
	}
	if needed < minParallelGroups {
		workers = 1
	}
	for len(r.phys) < workers {
		r.phys = append(r.phys, physics{est: make(map[estKey]estVal, 256), minGPU: make(map[estKey]int, 64)})
	}
	for w := 0; w < workers; w++ {
		ph := &r.phys[w]
		clear(ph.est)
		clear(ph.minGPU)
		ph.r, ph.mSize, ph.mTPOT = r, miss{}, miss{}
	}
	work := func(w int) {
		ph := &r.phys[w]
		for i, n := range r.needed {
			if n && r.p.groups[i].fam%workers == w {
				ph.group(i)
			}
		}
	}
	if workers == 1 {
		work(0)
	} else {
		var wg sync.WaitGroup
		for w := 1; w < workers; w++ {
			wg.Add(1)
			go func() { defer wg.Done(); work(w) }()
		}
		work(0)
		wg.Wait()
	}
	for w := 0; w < workers; w++ {
		ph := &r.phys[w]
		if ph.mSize.set {
			r.mSize.offerHW(ph.mSize.v, *ph.mSize.hw, ph.mSize.n, ph.mSize.e)
		}
		if ph.mTPOT.set {
			r.mTPOT.offerHW(ph.mTPOT.v, *ph.mTPOT.hw, ph.mTPOT.n, ph.mTPOT.e)
		}
	}
}

// maxWorkers bounds the goroutines of one recommendation; minParallelGroups
// is the fewest groups worth a second goroutine.
const (
	maxWorkers        = 4
	minParallelGroups = 8
)

// group evaluates the physics of one hardware group.
func (r *physics) group(i int) {
	g := &r.r.gr[i]
	hw := r.r.p.groups[i].hw
	if r.r.inf {
		r.inferenceOptions(g, hw)
	} else {
		r.trainingOptions(g, hw)
	}
}

// minNodes returns the fewest nodes of the hardware that hold the workload,
// or 0 with a reason when none do. The estimator's MinGPUs answers without
// running the full model.
func (r *physics) minNodes(g *groupResult, hw Hardware) (int, *Estimate, string) {
	gpn := hw.GPUsPerNode
	limit := r.r.f.maxNodes
	if n := r.minGPUs(hw.Accelerator, gpn); n > 0 {
		g.minGPUs = n
		return ceilDiv(n, gpn), nil, ""
	}
	// Nothing fits (or the hardware cannot run the workload): one estimate
	// on a node tells which.
	h := hw
	h.Nodes = 1
	e, err := r.estimate(h)
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
func (r *physics) limitReason(hw Hardware, nodes int, applyDefault bool) string {
	switch {
	case nodes > r.r.f.maxNodes && (r.r.f.userMaxNodes || applyDefault):
		if r.r.f.userMaxNodes {
			return ReasonMaxNodes
		}
		return ReasonDoesNotFit
	case r.r.f.maxGPUs > 0 && nodes*hw.GPUsPerNode > r.r.f.maxGPUs:
		return ReasonMaxGPUs
	case nodes > 1 && hw.Fabric == catalog.FabricNone:
		return ReasonNoFabric
	}
	return ""
}

// noteSize remembers the smallest refused deployment for max_nodes /
// max_gpus messages.
func (r *physics) noteSize(hw Hardware, nodes int) {
	r.mSize.offerHW(float64(nodes*hw.GPUsPerNode), hw, nodes, Estimate{})
}

// trainingOptions: the fewest nodes that fit, then every power of two above
// it up to max_nodes / max_gpus; a count that is slower than the previous
// one (communication dominates) ends the series.
func (r *physics) trainingOptions(g *groupResult, hw Hardware) {
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
	for nodes := first; nodes <= r.r.f.maxNodes; {
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
			if e, err = r.estimate(h); err != nil {
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

// inferenceOptions: the fewest nodes that hold one replica form a serving
// unit; the benchmark model says how many output tokens/s a unit sustains
// within the latency limits; units are added until the target is met.
func (r *physics) inferenceOptions(g *groupResult, hw Hardware) {
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
		if e, err = r.estimate(h); err != nil {
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
		if e.TPOTMs > 0 {
			r.mTPOT.offerHW(e.TPOTMs, hw, unit, e)
		}
		return
	}
	target := r.r.req.Workload.TokensPerSecond
	units := 1
	if target > 0 {
		u := math.Ceil(target/e.TokensPerSecond - 1e-9)
		if maxU := float64(r.r.p.policy.MaxServingUnits); u > maxU {
			u = maxU
		}
		units = max(1, int(u))
	}
	nodes := units * unit
	reason = r.limitReason(hw, nodes, false)
	// policy.MaxServingUnits bounds the serving units when max_nodes is not
	// set (DefaultMaxNodes bounds training only).
	if reason == "" && units >= r.r.p.policy.MaxServingUnits {
		reason = ReasonDoesNotFit
	}
	if reason != "" {
		g.reason = reason
		r.noteSize(hw, nodes)
		return
	}
	reps := max(1, e.Replicas) * units
	g.options = append(g.options, option{nodes: nodes, replicas: reps, est: e, tps: e.TokensPerSecond * float64(units),
		unit: unit, units: units, unitReplicas: max(1, e.Replicas)})
}
