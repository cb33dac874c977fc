// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// Rounding at the output: scores compare the values a user sees, so ties
// (broken by cloud, region, instance type, nodes, pricing model) are the
// same on every machine.
func roundTo(v, unit float64) float64 { return math.Round(v/unit) * unit }

// RoundUSD, RoundHours and RoundRatio are the output roundings (DESIGN.md).
func RoundUSD(v float64) float64   { return math.Round(v*100) / 100 }
func RoundHours(v float64) float64 { return math.Round(v*100) / 100 }
func RoundRatio(v float64) float64 { return math.Round(v*1e4) / 1e4 }

// score returns the objective value of a candidate (lower is better).
func (r *run) score(c *lite, mins *[4]float64) float64 {
	switch r.req.Objective {
	case ObjectiveTime:
		if r.inf {
			return roundTo(c.opt.est.TPOTMs, 0.01)
		}
		return RoundHours(c.hours)
	case ObjectiveCarbon:
		if !c.co2Known {
			return math.Inf(1) // unknown carbon ranks after every known figure
		}
		return RoundUSD(c.co2)
	case ObjectiveBalanced:
		w := r.p.policy.BalancedWeights
		co2 := c.co2
		if !c.co2Known {
			co2 = mins[3] // unknown carbon counts as the worst known figure
		}
		return RoundRatio(w.Cost*ratio(c.cost, mins[0]) +
			w.Time*ratio(r.timeOf(c), mins[1]) + w.Carbon*ratio(co2, mins[2]))
	}
	return RoundUSD(c.cost)
}

// rawScore is the value a streaming objective's score rounds (score is
// non-decreasing in it): +Inf for unknown carbon under the carbon objective.
func (r *run) rawScore(c *lite) float64 {
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
func (r *run) timeOf(c *lite) float64 {
	if r.inf {
		return c.opt.est.TPOTMs
	}
	return c.hours
}

// ratio is v / best, 1 when both are 0 (an axis nobody can improve on, such
// as CO2e in regions of unknown grid intensity).
func ratio(v, best float64) float64 {
	const eps = 1e-9
	return (v + eps) / (best + eps)
}

// offerTop scores a feasible candidate of a streaming objective (every
// objective but balanced: the score needs no other candidate) and inserts
// it into the top N exactly as rank would: after every kept candidate with
// a score <= its own, so the first of equal scores stays first.
func (r *run) offerTop(c *lite) {
	// Every streaming score is a non-decreasing rounding of one raw value
	// (rawScore); a full top N rejects a candidate whose raw value is not
	// below the last one's without rounding it.
	raw := r.rawScore(c)
	if n := len(r.top); n > 0 && n >= r.req.Top && raw >= r.rawScore(&r.top[n-1]) {
		return
	}
	var mins [4]float64 // unused by the streaming objectives
	c.score = r.score(c, &mins)
	pos := len(r.top)
	for pos > 0 && r.top[pos-1].score > c.score {
		pos--
	}
	if pos >= r.req.Top {
		return
	}
	if len(r.top) < r.req.Top {
		r.top = append(r.top, lite{})
	}
	copy(r.top[pos+1:], r.top[pos:len(r.top)-1])
	r.top[pos] = *c
}

// rank scores every feasible candidate and returns the top N in order.
// Candidates are appended in tie-break order (cloud, region, instance type,
// nodes, pricing model), so keeping the first of equal scores is the
// documented tie-break.
func (r *run) rank() []Candidate {
	if r.streaming {
		out := make([]Candidate, len(r.top))
		for k := range r.top {
			out[k] = r.candidate(&r.top[k])
		}
		for k := range out {
			out[k].Explanation = r.explain(out, k)
		}
		return out
	}
	// mins: best cost, time and known CO2e, and the worst known CO2e.
	var mins [4]float64
	if r.req.Objective == ObjectiveBalanced {
		mins = [4]float64{math.Inf(1), math.Inf(1), math.Inf(1), 0}
		for i := range r.cand {
			c := &r.cand[i]
			mins[0] = math.Min(mins[0], c.cost)
			mins[1] = math.Min(mins[1], r.timeOf(c))
			if c.co2Known {
				mins[2] = math.Min(mins[2], c.co2)
				mins[3] = math.Max(mins[3], c.co2)
			}
		}
		if math.IsInf(mins[2], 1) { // nobody's carbon is known: the axis drops out
			mins[2], mins[3] = 0, 0
		}
	}
	top := r.req.Top
	idx := make([]int, 0, top+1)
	for i := range r.cand {
		c := &r.cand[i]
		c.score = r.score(c, &mins)
		// Insert after every index with a score <= c.score.
		pos := len(idx)
		for pos > 0 && r.cand[idx[pos-1]].score > c.score {
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
	out := make([]Candidate, len(idx))
	for k, i := range idx {
		out[k] = r.candidate(&r.cand[i])
	}
	for k := range out {
		out[k].Explanation = r.explain(out, k)
	}
	return out
}

// rejections lists the non-zero rejection counts, largest first, then by reason.
func (r *run) rejections() []Rejection {
	out := []Rejection{}
	for i, n := range r.rej {
		if n > 0 && i < len(Reasons) {
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

// ---- explanations ----

var ordinals = []string{"", "", "2nd", "3rd"}

func ordinal(n int) string {
	if n < len(ordinals) && ordinals[n] != "" {
		return ordinals[n]
	}
	return strconv.Itoa(n) + "th"
}

// explain writes the one-sentence explanation of out[k]: the binding
// resource, what the hardware achieves, and why it ranks where it does.
func (r *run) explain(out []Candidate, k int) string {
	c := &out[k]
	var b strings.Builder
	bound := c.bound
	if bound == "" {
		bound = "compute"
	}
	if r.inf {
		fmt.Fprintf(&b, "%s bound by %s; ", decodeOrPrefill(bound), bound)
		gpr := c.TotalGPUs / max(1, c.Replicas)
		if c.Replicas > 1 {
			fmt.Fprintf(&b, "%s replicas of %d× %s", thousands(float64(c.Replicas), 0), gpr, c.Accelerator)
		} else {
			fmt.Fprintf(&b, "1 replica of %d× %s", gpr, c.Accelerator)
		}
		fmt.Fprintf(&b, " (%d× %s) serve %s tok/s against a %s tok/s target at %s ms per output token",
			c.Nodes, c.InstanceType, thousands(c.TokensPerSecond, 0), thousands(r.req.Workload.TokensPerSecond, 0), trimFloat(c.TPOTMs, 1))
	} else {
		fmt.Fprintf(&b, "bound by %s; %d× %s", bound, c.TotalGPUs, c.Accelerator)
		if c.Nodes > 1 {
			fmt.Fprintf(&b, " (%d× %s)", c.Nodes, c.InstanceType)
		} else {
			fmt.Fprintf(&b, " (1× %s)", c.InstanceType)
		}
		if r.req.Workload.TrainingTokensB > 0 {
			fmt.Fprintf(&b, " process %sB tokens in %s h", thousands(r.req.Workload.TrainingTokensB, 0), thousands(c.EstimatedHours, 1))
		} else {
			fmt.Fprintf(&b, " finish in %s h", thousands(c.EstimatedHours, 1))
		}
	}
	if c.SpareNodes > 0 {
		fmt.Fprintf(&b, ", spot: +%s included to ride out interruptions", spareWords(c))
	} else if c.offer != nil && c.PricingModel == catalog.Spot && !r.inf {
		if f := r.p.cost.SpotRiskFactor(c.offer.cloud); f >= 1.0005 {
			fmt.Fprintf(&b, ", spot hours risk-adjusted ×%s for interruptions", trimFloat(f, 3))
		}
	}
	if !c.CO2eKnown && c.offer != nil {
		if c.offer.accel.TDPWatts <= 0 {
			fmt.Fprintf(&b, ", CO2e unknown (no power figure for %s in the catalog)", c.Accelerator)
		} else {
			fmt.Fprintf(&b, ", CO2e unknown (no grid intensity for %s in the catalog)", c.Region)
		}
	}
	if c.PricingModel == catalog.Reserved1Y || c.PricingModel == catalog.Reserved3Y {
		fmt.Fprintf(&b, ", %s billed for its full %s-month term", c.PricingModel, trimFloat(r.p.cost.TermMonths[c.PricingModel], 0))
	}
	b.WriteString("; ")
	b.WriteString(r.rankPhrase(out, k))
	return b.String()
}

// spareWords names the spare capacity of a spot serving candidate: "1 spare
// replica (1× g6.xlarge)", "8 spare replicas (1× p4d.24xlarge)".
func spareWords(c *Candidate) string {
	s := "s"
	if c.SpareReplicas == 1 {
		s = ""
	}
	return fmt.Sprintf("%s spare replica%s (%d× %s)", thousands(float64(c.SpareReplicas), 0), s, c.SpareNodes, c.InstanceType)
}

func decodeOrPrefill(bound string) string {
	if strings.Contains(bound, "compute") {
		return "serving"
	}
	return "decode"
}

func (r *run) rankPhrase(out []Candidate, k int) string {
	n := thousands(float64(r.feasible), 0)
	c := &out[k]
	best := &out[0]
	adj := map[Objective]string{ObjectiveCost: "cheapest", ObjectiveTime: "fastest", ObjectiveCarbon: "lowest-carbon", ObjectiveBalanced: "best balanced"}[r.req.Objective]
	if k == 0 || c.Score == best.Score {
		tie := ""
		if k > 0 {
			tie = " (tied, ordered by cloud, region and instance type)"
		}
		return fmt.Sprintf("%s of %s feasible candidates%s", adj, n, tie)
	}
	var diff string
	switch r.req.Objective {
	case ObjectiveCost:
		diff = "$" + thousands(c.EstimatedCostUSD-best.EstimatedCostUSD, 2) + " more than the best"
	case ObjectiveTime:
		if r.inf {
			diff = trimFloat(c.TPOTMs-best.TPOTMs, 2) + " ms per token slower than the best"
		} else {
			diff = thousands(c.EstimatedHours-best.EstimatedHours, 2) + " h slower than the best"
		}
	case ObjectiveCarbon:
		diff = thousands(c.EstimatedCO2eKg-best.EstimatedCO2eKg, 2) + " kg CO2e more than the best"
		if !c.CO2eKnown {
			diff = "ranked after every candidate of known CO2e"
		}
	default:
		diff = "score " + trimFloat(c.Score, 4) + " vs " + trimFloat(best.Score, 4)
	}
	return fmt.Sprintf("%s %s of %s feasible candidates, %s", ordinal(k+1), adj, n, diff)
}

// thousands formats v with the given decimals and comma separators.
func thousands(v float64, decimals int) string {
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	intPart, frac := s, ""
	if i := strings.IndexByte(s, '.'); i >= 0 {
		intPart, frac = s[:i], s[i:]
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, ch := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(ch)
	}
	b.WriteString(frac)
	return b.String()
}

// trimFloat formats v with at most decimals digits, dropping trailing zeros.
func trimFloat(v float64, decimals int) string {
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// ---- no candidate ----

// describe names the candidate of a nearest miss.
func (r *run) describe(m *miss) string {
	if m.hw != nil {
		return fmt.Sprintf("%d× %s (%d node%s of %d)", m.n*m.hw.GPUsPerNode, m.hw.Accelerator.ID, m.n, plural(m.n), m.hw.GPUsPerNode)
	}
	c := r.candidate(&m.c)
	return fmt.Sprintf("%d× %s on %s %s in %s (%s, %d node%s)", c.TotalGPUs, c.Accelerator, c.Cloud, c.InstanceType, c.Region,
		c.PricingModel, c.Nodes, plural(c.Nodes))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// reasonField maps a reason to the attribute that carries it.
var reasonField = map[string]string{
	ReasonProviderClouds:       "",
	ReasonClouds:               "constraints.clouds",
	ReasonRegions:              "constraints.regions",
	ReasonGeographies:          "constraints.geographies",
	ReasonCompliance:           "constraints.compliance",
	ReasonAccelerators:         "constraints.accelerators",
	ReasonPricingModels:        "constraints.pricing_models",
	ReasonMinGPUMemory:         "constraints.min_gpu_memory_gb",
	ReasonMinNetwork:           "constraints.min_network_gbps",
	ReasonPrecisionUnsupported: "workload.precision",
	ReasonDoesNotFit:           "workload.model_parameters_b",
	ReasonNoFabric:             "constraints",
	ReasonLatency:              "workload.max_time_per_output_token_ms",
	ReasonMaxNodes:             "constraints.max_nodes",
	ReasonMaxGPUs:              "constraints.max_gpus",
	ReasonMaxHourlyCost:        "constraints.max_hourly_cost_usd",
	ReasonDeadline:             "constraints.deadline_hours",
	ReasonMaxTotalCost:         "constraints.max_total_cost_usd",
	ReasonMaxCO2e:              "constraints.max_co2e_kg",
	ReasonEstimateFailed:       "",
}

func (r *run) noCandidate() error {
	rej := r.rejections()
	e := &NoCandidateError{Rejected: rej}
	c := &r.req.Constraints
	summary := summarize(rej)
	set := func(reason, detail string) error {
		e.Reason, e.Field, e.Detail = reason, reasonField[reason], detail+" Rejected: "+summary+"."
		return e
	}
	if r.physOK > 0 {
		// Something was physically possible: a numeric limit binds.
		type lim struct {
			reason string
			limit  float64
			m      *miss
			what   string
		}
		deadlineMiss := &r.mHours
		lims := []lim{
			{ReasonMaxHourlyCost, c.MaxHourlyCostUSD, &r.mHourly, "the cheapest per hour, %s, costs $%s/h"},
			{ReasonDeadline, c.DeadlineHours, deadlineMiss, "the fastest candidate, %s, needs %s h"},
			{ReasonMaxTotalCost, c.MaxTotalCostUSD, &r.mTotal, "the cheapest candidate, %s, costs $%s"},
			{ReasonMaxCO2e, c.MaxCO2eKg, &r.mCO2, "the lowest-carbon candidate, %s, emits %s kg CO2e"},
		}
		var active []string
		for _, l := range lims {
			if !(l.limit > 0) || !l.m.set {
				continue
			}
			val := thousands(l.m.v, 2)
			if l.reason == ReasonDeadline {
				val = thousands(l.m.v, 1)
			}
			msg := fmt.Sprintf("%s = %s: "+l.what+".", l.reason, trimFloat(l.limit, 2), r.describe(l.m), val)
			if l.m.v > l.limit {
				return set(l.reason, msg)
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
		return set(worst, "No candidate meets these limits together; each alone can be met: "+strings.Join(active, " "))
	}
	// Nothing was physically possible within the offer-level filters.
	if len(rej) == 0 {
		e.Detail = "The catalog has no GPU offer."
		return e
	}
	// The binding reason is the latest-stage reason that removed candidates.
	binding := rej[0].Reason
	for _, x := range rej {
		if reasonIndex(x.Reason) > reasonIndex(binding) && x.Reason != ReasonEstimateFailed {
			binding = x.Reason
		}
	}
	var msg string
	switch binding {
	case ReasonMaxGPUs, ReasonMaxNodes:
		lim, unit := c.MaxGPUs, "GPUs"
		if binding == ReasonMaxNodes {
			lim, unit = c.MaxNodes, "nodes"
		}
		msg = fmt.Sprintf("%s = %d: the smallest deployment that holds the workload, %s, is larger.", binding, lim, r.describe(&r.mSize))
		if !r.mSize.set {
			msg = fmt.Sprintf("%s = %d: no allowed offer holds the workload within %d %s.", binding, lim, lim, unit)
		}
	case ReasonLatency:
		msg = "no allowed accelerator meets the workload's latency limits"
		if r.mTPOT.set {
			msg += fmt.Sprintf(": the lowest time per output token is %s ms on %s", trimFloat(r.mTPOT.v, 2), r.describe(&r.mTPOT))
		}
		msg += "."
	case ReasonDoesNotFit:
		msg = fmt.Sprintf("the workload (%s B parameters) does not fit in the memory of any allowed offer within %d nodes; allow larger accelerators or more nodes.",
			trimFloat(r.req.Workload.ModelParametersB, 2), r.f.maxNodes)
	case ReasonNoFabric:
		msg = "the workload needs several nodes, and every allowed offer that holds it has no scale-out fabric."
	case ReasonPrecisionUnsupported:
		msg = "no allowed accelerator supports the workload's precision."
	case ReasonProviderClouds:
		msg = "the provider's clouds allow-list excludes every offer left."
	default:
		msg = fmt.Sprintf("no offer is left after the %s filter (it removed %d (offer, pricing model) pairs).", binding, r.rej[reasonIndex(binding)])
	}
	return set(binding, "No GPU offer satisfies the constraints: "+msg)
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
