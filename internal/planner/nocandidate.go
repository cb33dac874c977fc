// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/numfmt"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
)

// miss remembers the best value of a metric among physically feasible
// candidates, for the "nearest miss" of a no-candidate error: a priced
// candidate, or a hardware deployment without an offer (max_nodes,
// max_gpus, latency).
type miss struct {
	set   bool
	value float64
	cand  priced
	hw    *perf.Hardware
	nodes int // with hw
}

// offerCandidate keeps c when v is below the best so far.
func (m *miss) offerCandidate(v float64, c *priced) {
	if !m.set || v < m.value {
		m.set, m.value, m.cand = true, v, *c
	}
}

// offerEstimate keeps nodes of hw when v is below the best so far, or
// equal to it on fewer nodes (so a tie between node sizes, 2,048 GPUs as
// 256 nodes of 8 or 512 of 4, names the smaller deployment whatever order
// the workers report in).
func (m *miss) offerEstimate(v float64, hw perf.Hardware, nodes int) {
	if !m.set || v < m.value || (v == m.value && m.hw != nil && nodes < m.nodes) {
		kept := hw // on the heap only when kept
		m.set, m.value, m.hw, m.nodes = true, v, &kept, nodes
	}
}

// offerHardware keeps the deployment with the fewest GPUs.
func (m *miss) offerHardware(hw perf.Hardware, nodes int) {
	m.offerEstimate(float64(nodes*hw.GPUsPerNode), hw, nodes)
}

// merge keeps o's miss when it is better.
func (m *miss) merge(o *miss) {
	if o.set {
		m.offerEstimate(o.value, *o.hw, o.nodes)
	}
}

// describe names the candidate of a nearest miss.
func (r *run) describe(m *miss) string {
	if m.hw != nil {
		return fmt.Sprintf("%d× %s (%d node%s of %d)", m.nodes*m.hw.GPUsPerNode, m.hw.Accelerator.ID, m.nodes, plural(m.nodes), m.hw.GPUsPerNode)
	}
	c := r.candidate(&m.cand)
	where := "in " + c.Region
	if c.Region == "" {
		where = "(workers placed by the platform)"
	}
	return fmt.Sprintf("%d× %s on %s %s %s (%s, %d node%s)", c.TotalGPUs, c.Accelerator, c.Cloud, c.InstanceType, where,
		c.PricingModel, c.Nodes, plural(c.Nodes))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// noCandidate explains why nothing survived: the binding constraint and
// the nearest miss.
func (r *run) noCandidate() error {
	rej := r.rejections()
	e := &NoCandidateError{Rejected: rej}
	if r.physicallyOK > 0 {
		// Something was physically possible: a numeric limit binds.
		reason, msg := r.limitMiss(rej)
		return r.noCandidateError(e, reason, msg)
	}
	if len(rej) == 0 {
		e.Detail = "The catalog has no GPU offer."
		return e
	}
	// Nothing was physically possible within the offer-level filters. The
	// binding reason is the latest-stage reason that removed candidates.
	binding := rej[0].Reason
	for _, x := range rej {
		if reasonIndex(x.Reason) > reasonIndex(binding) && x.Reason != ReasonEstimateFailed {
			binding = x.Reason
		}
	}
	return r.noCandidateError(e, binding, "No GPU offer satisfies the constraints: "+r.physicsMiss(binding))
}

func (r *run) noCandidateError(e *NoCandidateError, reason, detail string) error {
	e.Reason, e.Path, e.Detail = reason, reasonPath(reason), detail+" Rejected: "+summarize(e.Rejected)+"."
	return e
}

// limitMiss names the numeric limit that binds and its nearest miss, or,
// when each limit alone can be met, all of them.
func (r *run) limitMiss(rej []Rejection) (string, string) {
	c := &r.req.Constraints
	limits := []struct {
		reason string
		limit  float64
		m      *miss
		what   string
	}{
		{ReasonMaxHourlyCost, c.MaxHourlyCostUSD, &r.cheapestHourly, "the cheapest per hour, %s, costs $%s/h"},
		{ReasonDeadline, c.DeadlineHours, &r.fastest, "the fastest candidate, %s, needs %s h"},
		{ReasonMaxTotalCost, c.MaxTotalCostUSD, &r.cheapest, "the cheapest candidate, %s, costs $%s"},
		{ReasonMaxCO2e, c.MaxCO2eKg, &r.lowestCO2, "the lowest-carbon candidate, %s, emits %s kg CO2e"},
	}
	var active []string
	for _, l := range limits {
		if !(l.limit > 0) {
			continue
		}
		if !l.m.set {
			if l.reason == ReasonMaxCO2e {
				return l.reason, fmt.Sprintf("%s = %s: no candidate that passes the other constraints has a known CO2e figure "+
					"(their regions have no grid carbon intensity in the catalog), so none can be shown to meet it. Remove "+
					"max_co2e_kg or allow regions with a known grid intensity.", l.reason, catalog.FormatNumber(l.limit))
			}
			continue
		}
		val := numfmt.Nonzero(l.m.value, 2)
		if l.reason == ReasonDeadline {
			val = numfmt.Nonzero(l.m.value, 1)
		}
		msg := fmt.Sprintf("%s = %s: "+l.what+".", l.reason, catalog.FormatNumber(l.limit), r.describe(l.m), val)
		if l.m.value > l.limit {
			if l.reason == ReasonDeadline {
				msg += r.deadlineRelief(l.m)
			}
			return l.reason, msg
		}
		active = append(active, msg)
	}
	// Every limit can be met alone but not together.
	worst := ReasonEstimateFailed
	for _, x := range rej {
		if i := reasonIndex(x.Reason); i >= reasonIndex(ReasonMaxHourlyCost) && i < reasonIndex(ReasonEstimateFailed) {
			worst = x.Reason
			break
		}
	}
	if len(active) == 0 {
		return worst, "No candidate meets the limits together."
	}
	return worst, "No candidate meets these limits together; each alone can be met: " + strings.Join(active, " ")
}

// deadlineRelief names the constraints whose relaxation could meet a
// missed deadline: the deadline itself; max_nodes or max_gpus when the
// fastest candidate already uses all it may (a training series stops
// earlier when more nodes would not be faster, and then more nodes do not
// help); the accelerators when the user narrowed them.
func (r *run) deadlineRelief(m *miss) string {
	c := &r.req.Constraints
	atLeast := numfmt.Thousands(math.Ceil(m.value*10)/10, 1)
	if m.value < 0.1 {
		atLeast = numfmt.Nonzero(m.value, 1) // rounded up: it meets the need
	}
	relief := []string{"deadline_hours (to at least " + atLeast + " h)"}
	cand := r.candidate(&m.cand)
	if cand.Nodes >= r.f.maxNodes {
		what := "allowed by default"
		if r.f.userMaxNodes {
			what = "allowed"
		}
		relief = append(relief, fmt.Sprintf("constraints.max_nodes (the fastest candidate uses all %d nodes %s)", r.f.maxNodes, what))
	}
	if r.f.maxGPUs > 0 && cand.TotalGPUs+cand.GPUsPerNode > r.f.maxGPUs {
		relief = append(relief, fmt.Sprintf("constraints.max_gpus (now %d)", r.f.maxGPUs))
	}
	if c.Accelerators != nil {
		relief = append(relief, "constraints.accelerators (now "+strings.Join(c.Accelerators, ", ")+")")
	}
	return " To meet it, relax " + joinOr(relief) + "."
}

// joinOr joins alternatives: "a", "a or b", "a, b or c".
func joinOr(xs []string) string {
	if len(xs) < 2 {
		return strings.Join(xs, "")
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " or " + xs[len(xs)-1]
}

// physicsMiss says why no offer left by the offer-level filters could
// hold the workload.
func (r *run) physicsMiss(binding string) string {
	c := &r.req.Constraints
	switch binding {
	case ReasonMaxGPUs, ReasonMaxNodes:
		lim, unit := c.MaxGPUs, "GPUs"
		if binding == ReasonMaxNodes {
			lim, unit = c.MaxNodes, "nodes"
		}
		if !r.smallest.set {
			return fmt.Sprintf("%s = %d: no allowed offer holds the workload within %d %s.", binding, lim, lim, unit)
		}
		return fmt.Sprintf("%s = %d: the smallest deployment that holds the workload, %s, is larger.", binding, lim, r.describe(&r.smallest))
	case ReasonLatency:
		msg := "no allowed accelerator meets the workload's latency limits"
		if r.lowestTPOT.set {
			msg += fmt.Sprintf(": the lowest time per output token (p99) is %s ms on %s", numfmt.Trim(r.lowestTPOT.value, 2), r.describe(&r.lowestTPOT))
		}
		return msg + "."
	case ReasonDoesNotFit:
		msg := fmt.Sprintf("the workload (%s B parameters) does not fit in the memory of any allowed offer within %d nodes",
			numfmt.Trim(r.workload.ModelParametersB, 2), r.f.maxNodes)
		switch {
		case r.smallest.set:
			msg += fmt.Sprintf(": the smallest deployment that holds it, %s, needs more than the %d nodes allowed", r.describe(&r.smallest), r.f.maxNodes)
		case r.tightest.set:
			msg += fmt.Sprintf(": the nearest, %s, is %s GB per GPU short of memory", r.describe(&r.tightest), numfmt.Short(r.tightest.value))
		}
		return msg + "; allow larger accelerators or more nodes."
	case ReasonNoFabric:
		return "the workload needs several nodes, and every allowed offer that holds it has no scale-out fabric " +
			"(or, on TPU hosts, needs more chips than the ICI of one pod joins)."
	case ReasonServerlessInferenceOnly:
		return fmt.Sprintf("serverless offers serve inference only, and a %s job runs on instances: allow an instance pricing model "+
			"(on_demand, spot, reserved_1y, reserved_3y, capacity_block) in constraints.pricing_models.", r.workload.Kind)
	case ReasonPrecisionUnsupported:
		return "no allowed accelerator supports the workload's precision."
	case ReasonSoftwareStacks:
		return r.stacksMiss() + r.stackRulesMiss()
	case ReasonStackMethod, ReasonStackPrecision:
		return strings.TrimPrefix(r.stackRulesMiss(), " ")
	case ReasonInferenceOnly:
		return fmt.Sprintf("every allowed accelerator left is built for inference only, and a %s job trains.", r.workload.Kind)
	case ReasonProviderClouds:
		return "the provider's clouds allow-list excludes every offer left."
	}
	return fmt.Sprintf("no offer is left after the %s filter (it removed %d (offer, pricing model) pairs).", binding, r.rejected[reasonIndex(binding)])
}

func summarize(rej []Rejection) string {
	parts := make([]string, len(rej))
	for i, x := range rej {
		parts[i] = fmt.Sprintf("%s %d", x.Reason, x.Count)
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// stackRulesMiss names the method or training precision that removed
// offers of an allowed stack, and the stacks that run it; "" when neither
// did.
func (r *run) stackRulesMiss() string {
	msg := ""
	if r.rejected[reasonIndex(ReasonStackMethod)] > 0 {
		msg += fmt.Sprintf(" fine_tuning_method = %q runs only on the software stacks %s.",
			r.workload.FineTuningMethod, strings.Join(r.p.stacks.MethodStacks(r.workload.FineTuningMethod), ", "))
	}
	if r.rejected[reasonIndex(ReasonStackPrecision)] > 0 {
		msg += fmt.Sprintf(" Training at precision = %q runs only on the software stacks %s.",
			r.workload.Precision, strings.Join(r.p.stacks.TrainingPrecisionStacks(r.workload.Precision), ", "))
	}
	return msg
}

// stacksMiss says which stacks the offers software_stacks removed run.
func (r *run) stacksMiss() string {
	allowed := r.req.Constraints.SoftwareStacks
	what := "constraints.software_stacks"
	if allowed == nil {
		allowed, what = r.p.stacks.Default, "the default software stacks"
	}
	var others []string
	for i := range r.p.offers {
		oi := &r.p.offers[i]
		if st := r.p.stacks.Of(oi.accel); st != "" && !slices.Contains(others, st) && r.offerReason(oi) == ReasonSoftwareStacks {
			others = append(others, st)
		}
	}
	slices.Sort(others)
	if len(others) == 0 {
		return fmt.Sprintf("%s (%s) run on none of the offers left, whose accelerators name no software stack: give them a "+
			"software_stack in the catalog_file.", what, strings.Join(allowed, ", "))
	}
	return fmt.Sprintf("%s (%s) run on none of the offers left, which run %s: add one to constraints.software_stacks if your code runs there.",
		what, strings.Join(allowed, ", "), strings.Join(others, ", "))
}
