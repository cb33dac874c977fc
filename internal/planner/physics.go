// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner

import (
	"math"
	"runtime"
	"sync"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
)

// option is one physically feasible node count of a hardware group.
type option struct {
	nodes    int
	replicas int
	est      perf.Estimate
	tps      float64 // tokens/s of the whole deployment
	// Inference: units serving units of unit nodes each, each unit holding
	// unitReplicas replicas and sustaining est.TokensPerSecond.
	unit, units, unitReplicas int
}

// groupResult is the physics verdict for one hardware group.
type groupResult struct {
	options []option
	reason  string // why options is empty
}

// worker evaluates the physics of hardware groups for one goroutine.
// Groups of the same accelerator and node size (a family) always go to the
// same worker, so the benchmark memo is per worker.
type worker struct {
	run *run
	// Per-request memo of the benchmark model: instances of the same
	// accelerator and size share estimates across clouds, and a single node
	// does not use the scale-out network, so one-node estimates are keyed
	// without it (TestSingleNodeEstimateIgnoresNetwork guards this). The
	// map holds indexes into results: a map stores a value as large as an
	// estimate out of line, one allocation per entry.
	estimates map[estimateKey]int
	results   []estimateResult
	minGPUs   map[estimateKey]int
	// nearest misses found while evaluating physics.
	smallest, lowestTPOT miss
	// tightest is the hardware that misses holding the workload by the
	// fewest GB per GPU (value: the shortfall).
	tightest miss
}

type estimateKey struct {
	acc    *catalog.Accelerator
	gpn    int
	nodes  int
	gbps   float64
	fabric catalog.Fabric
}

type estimateResult struct {
	est perf.Estimate
	err error
}

// estimate runs the benchmark model for a group's hardware on nodes nodes.
func (w *worker) estimate(hw perf.Hardware, nodes int) (perf.Estimate, error) {
	k := estimateKey{acc: hw.Accelerator, gpn: hw.GPUsPerNode, nodes: nodes}
	if nodes > 1 {
		k.gbps, k.fabric = hw.NetworkGbps, hw.Fabric
	}
	if i, ok := w.estimates[k]; ok {
		v := &w.results[i]
		return v.est, v.err
	}
	hw.GPUs = nodes * hw.GPUsPerNode
	e, err := w.run.req.Estimator.EstimateBrief(hw)
	w.estimates[k] = len(w.results)
	w.results = append(w.results, estimateResult{e, err})
	return e, err
}

func (w *worker) minGPUsToFit(acc *catalog.Accelerator, gpn int) int {
	k := estimateKey{acc: acc, gpn: gpn}
	if v, ok := w.minGPUs[k]; ok {
		return v
	}
	n := w.run.req.Estimator.MinGPUsToFit(acc, gpn)
	w.minGPUs[k] = n
	return n
}

// maxWorkers bounds the goroutines of one recommendation; minParallelGroups
// is the fewest groups worth a second goroutine, and minParallelCPUs the
// fewest CPUs (GOMAXPROCS): on 2 CPUs a second worker measured about 2 %
// less wall time for 20 % more CPU time per recommendation
// (BenchmarkRecommendTraining; the inference benchmark took longer with
// it), the cost of waking a thread for it and of the runtime's own work
// (the garbage collector) sharing the other CPU.
const (
	maxWorkers        = 4
	minParallelGroups = 8
	minParallelCPUs   = 3
)

// physicsAll evaluates every needed group, spreading families over up to
// GOMAXPROCS workers from minParallelCPUs on (results do not depend on the
// split: each group is evaluated by exactly one worker, and misses merge
// in worker order with ties kept by the lower group index;
// TestIdentityParallel checks it). Serving is evaluated in two passes:
// the smallest serving units first, then the larger-unit search
// (perf.PlanServing) for the groups unitSearch keeps.
func (r *run) physicsAll() {
	n := r.startWorkers()
	r.onWorkers(n, r.needed)
	if r.inference {
		r.unitsOnly = false
		r.unitSearch(n)
	}
	r.mergeMisses(n)
}

// mergeMisses merges the nearest misses of n workers, in worker order.
func (r *run) mergeMisses(n int) {
	for i := 0; i < n; i++ {
		w := &r.workers[i]
		r.smallest.merge(&w.smallest)
		r.lowestTPOT.merge(&w.lowestTPOT)
		r.tightest.merge(&w.tightest)
	}
}

// startWorkers readies the workers of a recommendation and returns how
// many run.
func (r *run) startWorkers() int {
	cpus := runtime.GOMAXPROCS(0)
	n := min(cpus, maxWorkers, r.p.families)
	needed := 0
	for _, x := range r.needed {
		if x {
			needed++
		}
	}
	if needed < minParallelGroups || cpus < minParallelCPUs {
		n = 1
	}
	for len(r.workers) < n {
		r.workers = append(r.workers, worker{estimates: make(map[estimateKey]int, 256), minGPUs: make(map[estimateKey]int, 64)})
	}
	for i := 0; i < n; i++ {
		w := &r.workers[i]
		clear(w.estimates)
		clear(w.results) // no estimate of the last run stays reachable
		w.results = w.results[:0]
		clear(w.minGPUs)
		w.run, w.smallest, w.lowestTPOT, w.tightest = r, miss{}, miss{}, miss{}
	}
	r.unitsOnly = r.inference
	return n
}

// onWorkers evaluates the groups marked in which on n workers, each
// family on the same worker every time (its estimates stay memoized).
func (r *run) onWorkers(n int, which []bool) {
	work := func(wi int) {
		w := &r.workers[wi]
		for g, x := range which {
			if x && r.p.groups[g].family%n == wi {
				w.group(g)
			}
		}
	}
	if n == 1 {
		work(0)
		return
	}
	var wg sync.WaitGroup
	for wi := 1; wi < n; wi++ {
		wg.Add(1)
		go func() { defer wg.Done(); work(wi) }()
	}
	work(0)
	wg.Wait()
}

// group evaluates the physics of one hardware group.
func (w *worker) group(i int) {
	g := &w.run.groups[i]
	g.options, g.reason = g.options[:0], ""
	hw := w.run.p.groups[i].hw
	if w.run.inference {
		w.inferenceOptions(g, hw)
	} else {
		w.trainingOptions(g, hw)
	}
}

// minNodes returns the fewest nodes of the hardware that hold the workload,
// or 0 with a reason when none do, and the one-node estimate when it had
// to run one. The estimator's MinGPUsToFit answers without running the
// full model.
func (w *worker) minNodes(hw perf.Hardware) (int, *perf.Estimate, string) {
	gpn := hw.GPUsPerNode
	if n := w.minGPUsToFit(hw.Accelerator, gpn); n > 0 {
		return ceilDiv(n, gpn), nil, ""
	}
	// Nothing fits (or the hardware cannot run the workload): one estimate
	// on a node tells which.
	e, err := w.estimate(hw, 1)
	if err != nil {
		return 0, nil, rejectReason(err)
	}
	if e.Fits && w.run.f.maxNodes >= 1 {
		return 1, &e, ""
	}
	if e.MemoryShortfallGB > 0 {
		w.tightest.offerEstimate(e.MemoryShortfallGB, hw, 1)
	}
	return 0, nil, ReasonDoesNotFit
}

// limitReason checks a deployment of nodes nodes against max_nodes /
// max_gpus, and a synchronous job (training, fine-tuning: one model-
// parallel group over every node) against the default max_nodes and the
// need for a scale-out fabric; "" when allowed. Independent serving units
// talk to no one: only a unit that spans nodes needs a fabric
// (inferenceOptions checks it).
func (w *worker) limitReason(hw perf.Hardware, nodes int, synchronous bool) string {
	f := &w.run.f
	switch {
	case nodes > f.maxNodes && (f.userMaxNodes || synchronous):
		if f.userMaxNodes {
			return ReasonMaxNodes
		}
		return ReasonDoesNotFit
	case f.maxGPUs > 0 && nodes*hw.GPUsPerNode > f.maxGPUs:
		return ReasonMaxGPUs
	case synchronous && !fabricJoins(hw, nodes):
		return ReasonNoFabric
	}
	return ""
}

// fabricJoins reports whether the hardware's scale-out fabric joins nodes
// nodes into one job: one node needs none; fabric none joins nothing; ICI
// (TPU hosts of one slice) joins the hosts of one pod, the accelerator's
// scale-up domain, and no more (a larger job is multislice over a
// data-centre network the offers carry no bandwidth for).
func fabricJoins(hw perf.Hardware, nodes int) bool {
	switch {
	case nodes <= 1:
		return true
	case hw.Fabric == catalog.FabricNone:
		return false
	case hw.Fabric == catalog.FabricICI:
		return nodes*hw.GPUsPerNode <= hw.Accelerator.NVLinkDomainGPUs
	}
	return true
}

// trainingOptions: the fewest nodes that fit, then every power of two above
// it up to max_nodes / max_gpus; a count that is slower than the previous
// one (communication dominates) ends the series.
func (w *worker) trainingOptions(g *groupResult, hw perf.Hardware) {
	first, probed, reason := w.minNodes(hw)
	if first == 0 {
		g.reason = reason
		return
	}
	if reason = w.limitReason(hw, first, true); reason != "" {
		g.reason = reason
		w.smallest.offerHardware(hw, first)
		return
	}
	prevHours := math.Inf(1)
	for nodes := first; nodes <= w.run.f.maxNodes; nodes = nextPowerOfTwo(nodes) {
		if w.limitReason(hw, nodes, true) != "" {
			break
		}
		e, err := w.estimateAt(hw, nodes, first, probed)
		if err != nil {
			if len(g.options) == 0 {
				g.reason = rejectReason(err)
			}
			break
		}
		if !e.Fits || !(e.Hours > 0) || !finite(e.Hours) {
			if len(g.options) == 0 {
				g.reason = ReasonDoesNotFit
			}
			continue
		}
		if e.Hours >= prevHours {
			break
		}
		prevHours = e.Hours
		g.options = append(g.options, option{nodes: nodes, replicas: 1, est: e, tps: e.TokensPerSecond})
	}
	if len(g.options) == 0 && g.reason == "" {
		g.reason = ReasonDoesNotFit
	}
}

// estimateAt is the estimate on nodes nodes, reusing the probe minNodes
// ran when nodes is its first count.
func (w *worker) estimateAt(hw perf.Hardware, nodes, first int, probed *perf.Estimate) (perf.Estimate, error) {
	if probed != nil && nodes == first {
		return *probed, nil
	}
	return w.estimate(hw, nodes)
}

// nextPowerOfTwo is the smallest power of two above n.
func nextPowerOfTwo(n int) int {
	next := 1
	for next <= n {
		next *= 2
	}
	return next
}

// inferenceOptions: the benchmark model's serving search
// (perf.PlanServing) finds the deployment with the fewest nodes that meets
// the target: serving units replicated, each unit one estimate of the
// model on its nodes (the fewest that hold one replica, a whole scale-up
// domain that spans nodes, or larger units over a fabric while they raise
// the output per node).
func (w *worker) inferenceOptions(g *groupResult, hw perf.Hardware) {
	unit, probed, reason := w.minNodes(hw)
	if unit == 0 {
		g.reason = reason
		return
	}
	if !fabricJoins(hw, unit) {
		g.reason = ReasonNoFabric
		return
	}
	pol := w.run.p.policy
	plan, err := perf.PlanServing(perf.ServingSearch{Hardware: hw, MinNodes: unit, MaxNodes: w.maxServingNodes(hw),
		MaxUnits: pol.MaxServingUnits - 1, Target: w.run.workload.TokensPerSecond, Tolerance: pol.RelativeTolerance,
		MixtureOfExperts: w.run.moe, SmallestUnitOnly: w.run.unitsOnly,
		Estimate: func(nodes int) (perf.Estimate, error) { return w.estimateAt(hw, nodes, unit, probed) }})
	e := plan.Unit
	if err != nil {
		g.reason = rejectReason(err)
		return
	}
	switch {
	case !e.Fits:
		g.reason = ReasonDoesNotFit
		if e.MemoryShortfallGB > 0 {
			w.tightest.offerEstimate(e.MemoryShortfallGB, hw, unit)
		}
		return
	case plan.Units == 0:
		g.reason = ReasonLatency
		if e.TPOTP99Ms > 0 {
			w.lowestTPOT.offerEstimate(e.TPOTP99Ms, hw, unit)
		}
		return
	}
	nodes := plan.Nodes()
	reason = w.limitReason(hw, nodes, false)
	// policy.MaxServingUnits bounds the serving units when max_nodes is not
	// set (DefaultMaxNodes bounds training only).
	if reason == "" && plan.Units >= pol.MaxServingUnits {
		reason = ReasonDoesNotFit
	}
	if reason != "" {
		g.reason = reason
		w.smallest.offerHardware(hw, nodes)
		return
	}
	reps := max(1, e.Replicas)
	g.options = append(g.options, option{nodes: nodes, replicas: reps * plan.Units, est: e, tps: e.TokensPerSecond * float64(plan.Units),
		unit: plan.UnitNodes, units: plan.Units, unitReplicas: reps})
}

// maxServingNodes is the most nodes of the hardware a serving deployment
// may use: constraints.max_nodes and max_gpus (0 = no bound).
func (w *worker) maxServingNodes(hw perf.Hardware) int {
	f := &w.run.f
	n := 0
	if f.userMaxNodes {
		n = f.maxNodes
	}
	if f.maxGPUs > 0 {
		byGPUs := max(1, f.maxGPUs/hw.GPUsPerNode)
		if n == 0 || byGPUs < n {
			n = byGPUs
		}
	}
	return n
}
