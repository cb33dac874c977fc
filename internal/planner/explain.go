// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/numfmt"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
)

// bindingWords turns the benchmark model's binding resource into
// explanation words.
var bindingWords = map[string]string{
	perf.BindCompute: "compute",
	perf.BindHBM:     "HBM bandwidth",
	perf.BindNetwork: "the scale-out network",
	perf.BindMemory:  "memory capacity",
	perf.BindLatency: "the latency limits",
}

// boundBy names what binds a candidate, in words.
func (r *run) boundBy(c *Candidate) string {
	if r.inference && c.binding == perf.BindNetwork {
		return "tensor-parallel communication"
	}
	if w, ok := bindingWords[c.binding]; ok {
		return w
	}
	if c.binding == "" {
		return "compute"
	}
	return c.binding
}

// explain writes the one-sentence explanation of out[k]: the binding
// resource, what the hardware achieves, and why it ranks where it does.
func (r *run) explain(out []Candidate, k int, leftOut *Candidate) string {
	c := &out[k]
	var b strings.Builder
	r.whatItDoes(&b, c)
	b.WriteString("; ")
	b.WriteString(r.rankPhrase(out, k))
	if k == 0 && leftOut != nil {
		b.WriteString("; ")
		b.WriteString(r.leftOutPhrase(c, leftOut))
	}
	return b.String()
}

// whatItDoes writes what binds a candidate, what it achieves and its
// pricing: the explanation before where it ranks.
func (r *run) whatItDoes(b *strings.Builder, c *Candidate) {
	if r.inference {
		r.explainServing(b, c)
	} else {
		r.explainJob(b, c)
	}
	r.explainPricing(b, c)
	explainBasis(b, c)
}

// leftOutPhrase names the cheaper candidate constraints.software_stacks
// left out, what it would cost and how to allow it: "xla would cost
// $1,234 (38% less): 32× TPU-V5E (4× v5litepod-8, gcp europe-west4, spot);
// allow it with constraints.software_stacks = ["cuda", "xla"]".
func (r *run) leftOutPhrase(best, l *Candidate) string {
	allowed := r.req.Constraints.SoftwareStacks
	if allowed == nil {
		allowed = r.p.stacks.Default
	}
	with := append(slices.Clone(allowed), l.SoftwareStack)
	total, bestTotal := l.EstimatedCostUSD+l.CarbonCostUSD, best.EstimatedCostUSD+best.CarbonCostUSD
	perMonth := ""
	if r.inference {
		perMonth = " a month"
	}
	where := l.Cloud + " " + l.Region
	if l.Region == "" {
		where = l.Cloud
	}
	return fmt.Sprintf("a cheaper candidate on software stack %s was left out: %d× %s (%d× %s, %s, %s) at $%s%s, %s less; "+
		"allow it with constraints.software_stacks = [%s] if your code runs there",
		l.SoftwareStack, l.TotalGPUs, l.Accelerator, l.Nodes, l.InstanceType, where, l.PricingModel,
		numfmt.Thousands(total, 2), perMonth, numfmt.Percent(1-total/bestTotal), quoteJoin(with))
}

// quoteJoin writes names as an HCL list body: "cuda", "xla".
func quoteJoin(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

// explainServing: "decode bound by HBM bandwidth; 2 replicas of 1× L4 (2×
// g6.xlarge) serve 600 tok/s against a 300 tok/s target at 42.1 ms per
// output token".
func (r *run) explainServing(b *strings.Builder, c *Candidate) {
	bound := r.boundBy(c)
	fmt.Fprintf(b, "%s bound by %s; ", decodeOrPrefill(bound), bound)
	devices := fmt.Sprintf("%d×", c.TotalGPUs/max(1, c.Replicas))
	if c.GPUFraction > 0 {
		devices = numfmt.Trim(c.GPUFraction, 3) + " of one" // a share of one GPU
	}
	switch l := c.Serving; {
	case l != nil && l.Mode == perf.ServingDisaggregated:
		fmt.Fprintf(b, "disaggregated: %s on %d× %s hand prompts to %s on %d× %s", nounCount(l.PrefillWorkers, "prefill worker"),
			l.PrefillGPUs, c.Accelerator, nounCount(l.DecodeWorkers, "decode worker"), l.DecodeGPUs, c.Accelerator)
	case c.Replicas > 1:
		fmt.Fprintf(b, "%s replicas of %s %s", numfmt.Thousands(float64(c.Replicas), 0), devices, c.Accelerator)
	default:
		fmt.Fprintf(b, "1 replica of %s %s", devices, c.Accelerator)
	}
	if l := c.Serving; l != nil && l.ExpertParallel > 1 {
		fmt.Fprintf(b, ", experts spread over %d GPUs each", l.ExpertParallel)
	}
	switch {
	case c.offer != nil && c.offer.serverless != nil:
		fmt.Fprintf(b, " (%s", nounCount(c.Nodes, c.InstanceType+" worker"))
	default:
		fmt.Fprintf(b, " (%d× %s", c.Nodes, c.InstanceType)
	}
	if c.Nodes > 1 && c.offer != nil && c.offer.serverless == nil && c.offer.o.Fabric == catalog.FabricNone {
		// Only a replica spanning nodes needs a fabric (physics.go).
		b.WriteString(", no fabric needed between replicas")
	}
	verb := "serve"
	if c.Replicas <= 1 && (c.Serving == nil || c.Serving.Mode != perf.ServingDisaggregated) {
		verb = "serves"
	}
	target := numfmt.Thousands(r.workload.TokensPerSecond, 0) + " tok/s target"
	if rps := r.workload.RequestsPerSecond; rps > 0 {
		target += " (" + numfmt.Trim(rps, 2) + " requests/s)"
	}
	fmt.Fprintf(b, ") %s %s tok/s against a %s at %s ms per output token (p99)",
		verb, numfmt.Thousands(c.TokensPerSecond, 0), target, numfmt.Trim(c.TPOTMs, 1))
	if limit := r.workload.MaxTimePerOutputTokenMs; limit > 0 {
		fmt.Fprintf(b, " within the %s ms limit", numfmt.Trim(limit, 1))
	}
	if c.Concurrency > 0 {
		fmt.Fprintf(b, ", %s sequences in flight", numfmt.Thousands(c.Concurrency, 0))
	}
}

// explainJob: "bound by compute; 8× H100 (1× p5.48xlarge) process 2B
// tokens in 41.2 h".
func (r *run) explainJob(b *strings.Builder, c *Candidate) {
	fmt.Fprintf(b, "bound by %s; %d× %s", r.boundBy(c), c.TotalGPUs, c.Accelerator)
	fmt.Fprintf(b, " (%d× %s)", c.Nodes, c.InstanceType)
	if r.workload.TrainingTokensB > 0 {
		fmt.Fprintf(b, " process %sB tokens in %s h", numfmt.Thousands(r.workload.TrainingTokensB, 0), numfmt.Thousands(c.EstimatedHours, 1))
	} else {
		fmt.Fprintf(b, " finish in %s h", numfmt.Thousands(c.EstimatedHours, 1))
	}
}

// explainPricing adds what the pricing model and the catalog imply: spot
// spares or rework, unknown CO2e, a reservation's full term.
func (r *run) explainPricing(b *strings.Builder, c *Candidate) {
	if c.SpareNodes > 0 {
		fmt.Fprintf(b, ", spot: +%s included to ride out interruptions", spareWords(c))
	} else if c.offer != nil && c.PricingModel == catalog.Spot && !r.inference {
		if f := r.p.cost.SpotRiskFactor(c.offer.cloud, c.Nodes); f >= r.p.policy.SpotRiskMention {
			if c.Nodes > 1 {
				fmt.Fprintf(b, ", spot: %d nodes as one job, rework ×%s for interruptions", c.Nodes, numfmt.Trim(f, 3))
			} else {
				fmt.Fprintf(b, ", spot hours risk-adjusted ×%s for interruptions", numfmt.Trim(f, 3))
			}
		}
	}
	if c.PricingModel == catalog.Spot && c.offer != nil {
		r.explainSpot(b, c)
	}
	if c.BeyondTypicalQuota {
		fmt.Fprintf(b, ", %s GPUs %s in one region: more than the %s a typical quota allows without asking the cloud",
			numfmt.Int(float64(c.TotalGPUs)), pricingWords[c.PricingModel], numfmt.Int(float64(r.p.policy.TypicalRegionQuotaGPUs)))
	}
	if c.CO2eKnown && c.offer != nil {
		// Energy is per node: GPUs at the workload's load plus the host,
		// times the data centre's PUE (cost.Model.NodePowerKW).
		pue := r.p.cost.PUE(c.offer.cloud, c.offer.region)
		perMonth := ""
		if r.inference {
			perMonth = " a month"
		}
		fmt.Fprintf(b, ", node power %s kW × PUE %s: %s kg CO2e%s", numfmt.Short(c.offer.kwhPerHour[r.kind]/pue),
			numfmt.Trim(pue, 2), numfmt.Thousands(c.EstimatedCO2eKg, 0), perMonth)
	}
	if !c.CO2eKnown && c.offer != nil {
		switch {
		case c.offer.accel.TDPWatts <= 0:
			fmt.Fprintf(b, ", CO2e unknown (no power figure for %s in the catalog)", c.Accelerator)
		case c.Region == "":
			fmt.Fprintf(b, ", CO2e unknown (%s places the workers in no stated region)", c.Cloud)
		default:
			fmt.Fprintf(b, ", CO2e unknown (no grid intensity for %s in the catalog)", c.Region)
		}
		if r.worstCO2 > 0 && (r.req.Objective == ObjectiveBalanced || r.req.CarbonPriceUSDPerTonne > 0 && r.req.Objective == ObjectiveCost) {
			fmt.Fprintf(b, ", ranked as the worst known CO2e (%s kg)", numfmt.Thousands(r.worstCO2, 0))
		}
	}
	switch c.PricingModel {
	case catalog.Reserved1Y, catalog.Reserved3Y:
		fmt.Fprintf(b, ", %s billed for its full %s-month term", c.PricingModel, numfmt.Trim(r.p.cost.TermMonths[c.PricingModel], 0))
	case catalog.CapacityBlock:
		if c.offer != nil {
			u := r.usage(float64(c.Nodes), c.EstimatedHours, r.req.Discounts[c.Cloud])
			bill := c.offer.rates[c.PricingModel.Index()].Bill(&u)
			fmt.Fprintf(b, ", capacity block of %d instances booked for %s h", int(bill.Instances),
				numfmt.Thousands(bill.BilledHours, 0))
		}
	case catalog.Serverless:
		r.explainServerless(b, c)
	default:
		if r.inference && r.dutyCycle < 1 {
			fmt.Fprintf(b, ", billed around the clock though the load is there %s of the time", numfmt.Percent(r.dutyCycle))
		}
	}
}

// QuotaWarning is the warning for a candidate beyond a typical regional
// GPU quota (Candidate.BeyondTypicalQuota), naming the remedies; "" for
// any other candidate.
func (p *Planner) QuotaWarning(c *Candidate) string {
	if !c.BeyondTypicalQuota {
		return ""
	}
	return fmt.Sprintf("The best candidate runs %s GPUs (%d× %s) %s in %s %s; GPU quotas are set per account, and more than %s GPUs "+
		"in one region typically needs a quota increase or capacity planned with the cloud (an assumption of the provider, "+
		"not a published limit). Before applying, ask %s for the capacity, or bound the deployment with constraints.max_gpus "+
		"or constraints.max_nodes, or allow pricing_models that reserve capacity (reserved_1y, reserved_3y, capacity_block).",
		numfmt.Int(float64(c.TotalGPUs)), c.Nodes, c.InstanceType, pricingWords[c.PricingModel],
		c.Cloud, c.Region, numfmt.Int(float64(p.policy.TypicalRegionQuotaGPUs)), c.Cloud)
}

// explainSpot flags what a spot candidate rests on: more spot GPUs in one
// region than spot typically yields (all at once for a synchronous job),
// and a spot price implausibly far below on-demand.
func (r *run) explainSpot(b *strings.Builder, c *Candidate) {
	pol := r.p.policy
	if c.BeyondSpotCapacity {
		atOnce := ""
		if !r.inference {
			atOnce = " at once for one synchronous job"
		}
		fmt.Fprintf(b, ", %s spot GPUs in one region%s: more than the %s spot typically yields one account (an assumption)",
			numfmt.Int(float64(c.TotalGPUs)), atOnce, numfmt.Int(float64(pol.TypicalRegionSpotCapacityGPUs)))
	}
	od, spot := c.offer.rates[catalog.OnDemand.Index()].ListUSD(), c.offer.rates[catalog.Spot.Index()].ListUSD()
	if od > 0 && spot > 0 && spot < pol.ImplausibleSpotPriceRatio*od {
		fmt.Fprintf(b, ", spot price %s off on-demand is implausibly low (more than %s off): likely one zone's momentary price "+
			"with little capacity, or a stale one", numfmt.Percent(1-spot/od), numfmt.Percent(1-pol.ImplausibleSpotPriceRatio))
	}
}

// SpotCapacityWarning is the warning for a spot candidate beyond the spot
// capacity a region typically yields (Candidate.BeyondSpotCapacity); ""
// for any other candidate.
func (p *Planner) SpotCapacityWarning(c *Candidate) string {
	if !c.BeyondSpotCapacity {
		return ""
	}
	return fmt.Sprintf("The best candidate runs %s spot GPUs (%d× %s) in %s %s; spot capacity is not guaranteed, and more than %s "+
		"spot GPUs of one type in one region for one account is beyond what spot markets typically yield (an assumption of the "+
		"provider, not a published limit). Plan for the capacity not being there: bound the deployment with constraints.max_gpus, "+
		"or leave spot out of constraints.pricing_models.",
		numfmt.Int(float64(c.TotalGPUs)), c.Nodes, c.InstanceType, c.Cloud, c.Region, numfmt.Int(float64(p.policy.TypicalRegionSpotCapacityGPUs)))
}

// pricingWords says how a pay-as-you-go candidate is bought, in a clause.
var pricingWords = map[catalog.PricingModel]string{catalog.OnDemand: "on demand", catalog.Spot: "on spot"}

// explainServerless says what a serverless candidate is billed for: "billed
// only for the 2% of the month the load is there (17.52 h a month per
// worker with idle tails and cold starts)", or around the clock when its
// workers never scale to zero.
func (r *run) explainServerless(b *strings.Builder, c *Candidate) {
	if c.offer == nil || c.offer.serverless == nil {
		return
	}
	s := c.offer.serverless
	share := r.p.cost.ServerlessBilledShare(s, r.dutyCycle)
	switch {
	case s.AlwaysOn:
		b.WriteString(", serverless always-on workers billed around the clock")
	case share >= 1 && r.dutyCycle < 1:
		fmt.Fprintf(b, ", serverless but billed around the clock: the load is there %s of the time and the workers' idle "+
			"timeout outlasts the gaps between bursts", numfmt.Percent(r.dutyCycle))
	case share >= 1:
		b.WriteString(", serverless under constant load: billed around the clock")
	default:
		fmt.Fprintf(b, ", serverless: billed only for the %s of the month the load is there (%s h a month per worker with idle "+
			"tails and cold starts, not %s)", numfmt.Percent(r.dutyCycle), numfmt.Thousands(r.hoursPerMonth*share, 2),
			numfmt.Thousands(r.hoursPerMonth, 0))
	}
}

// nounCount writes "1 worker", "3 workers".
func nounCount(n int, noun string) string {
	return numfmt.Thousands(float64(n), 0) + " " + noun + plural(n)
}

// spareWords names the spare capacity of a spot serving candidate: "1 spare
// replica (1× g6.xlarge)", "8 spare replicas (1× p4d.24xlarge)".
func spareWords(c *Candidate) string {
	return fmt.Sprintf("%s (%d× %s)", nounCount(c.SpareReplicas, "spare replica"), c.SpareNodes, c.InstanceType)
}

func decodeOrPrefill(bound string) string {
	if strings.Contains(bound, "compute") {
		return "serving"
	}
	return "decode"
}

var objectiveAdjective = map[Objective]string{
	ObjectiveCost: "cheapest", ObjectiveTime: "fastest", ObjectiveCarbon: "lowest-carbon", ObjectiveBalanced: "best balanced",
}

// rankPhrase says where out[k] ranks and by how much it trails the best.
func (r *run) rankPhrase(out []Candidate, k int) string {
	n := numfmt.Thousands(float64(r.feasible), 0)
	c := &out[k]
	best := &out[0]
	adj := objectiveAdjective[r.req.Objective]
	counting := ""
	if r.req.Objective == ObjectiveCost && r.req.CarbonPriceUSDPerTonne > 0 {
		counting = fmt.Sprintf(" counting carbon at $%s/t", numfmt.Trim(r.req.CarbonPriceUSDPerTonne, 2))
	}
	if k == 0 || c.Score == best.Score {
		tie := ""
		if k > 0 {
			tie = " " + r.tiePhrase(&out[k-1], c)
		}
		if r.feasible == 1 {
			return "the only feasible candidate" + counting
		}
		return fmt.Sprintf("%s of %s feasible candidates%s%s", adj, n, counting, tie)
	}
	return fmt.Sprintf("%s %s of %s feasible candidates%s, %s", ordinal(k+1), adj, n, counting, r.gapToBest(c, best))
}

// tiePhrase says why c, tied on the objective with prev, ranks after it:
// the first documented tie-break that separates them (lower CO2e, a
// region in constraints.near), else the names.
func (r *run) tiePhrase(prev, c *Candidate) string {
	pc, cc := numfmt.Measure(prev.EstimatedCO2eKg), numfmt.Measure(c.EstimatedCO2eKg)
	switch {
	case prev.CO2eKnown && (!c.CO2eKnown || pc < cc):
		return "(tied; lower CO2e ranks first)"
	case r.req.Constraints.Near != "" && prev.offer != nil && c.offer != nil && r.isNear(prev.offer) && !r.isNear(c.offer):
		return "(tied; regions in " + r.req.Constraints.Near + " rank first)"
	}
	return "(tied, ordered by cloud, region and instance type)"
}

// gapToBest says how much worse than the best a candidate is, on the
// objective's axis.
func (r *run) gapToBest(c, best *Candidate) string {
	switch r.req.Objective {
	case ObjectiveCost:
		if r.req.CarbonPriceUSDPerTonne > 0 {
			return "$" + numfmt.Thousands(c.EstimatedCostUSD+c.CarbonCostUSD-best.EstimatedCostUSD-best.CarbonCostUSD, 2) + " more than the best, carbon included"
		}
		return "$" + numfmt.Thousands(c.EstimatedCostUSD-best.EstimatedCostUSD, 2) + " more than the best"
	case ObjectiveTime:
		if r.inference {
			return numfmt.Trim(c.TPOTMs-best.TPOTMs, 2) + " ms per token slower than the best"
		}
		return numfmt.Thousands(c.EstimatedHours-best.EstimatedHours, 2) + " h slower than the best"
	case ObjectiveCarbon:
		if !c.CO2eKnown {
			return "ranked after every candidate of known CO2e"
		}
		return numfmt.Thousands(c.EstimatedCO2eKg-best.EstimatedCO2eKg, 2) + " kg CO2e more than the best"
	}
	return "score " + numfmt.Trim(c.Score, 4) + " vs " + numfmt.Trim(best.Score, 4)
}

// ordinal writes n as an English ordinal: 2nd, 3rd, 11th, 21st, 42nd.
func ordinal(n int) string {
	suffix := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return strconv.Itoa(n) + suffix
}

// appliedLimits closes every explanation with the constraints that were
// applied, so a plan reviewer sees what shaped the answer: "; limits
// applied: deadline 48 h, ≤ $5,000 total, compliance gdpr" or "; limits
// applied: none". Latency limits are stated by the serving clause.
func (r *run) appliedLimits() string {
	c := &r.req.Constraints
	var l []string
	num := func(v float64, format string) {
		if v > 0 {
			l = append(l, fmt.Sprintf(format, catalog.FormatNumber(v))) // the user's number, as catalog messages echo it
		}
	}
	num(c.DeadlineHours, "deadline %s h")
	num(c.MaxTotalCostUSD, "≤ $%s total")
	num(c.MaxHourlyCostUSD, "≤ $%s/h")
	num(c.MaxCO2eKg, "≤ %s kg CO2e")
	num(float64(c.MaxGPUs), "≤ %s GPUs")
	num(float64(c.MaxNodes), "≤ %s nodes")
	num(c.MinGPUMemoryGB, "≥ %s GB per GPU")
	num(c.MinNetworkGbps, "≥ %s Gbit/s per node")
	list := func(name string, v []string) {
		if len(v) > 0 {
			l = append(l, name+" "+strings.Join(v, ", "))
		}
	}
	list("compliance", c.Compliance)
	list("clouds", c.Clouds)
	list("regions", c.Regions)
	list("geographies", c.Geographies)
	list("countries", c.Countries)
	list("accelerators", c.Accelerators)
	pms := make([]string, len(c.PricingModels))
	for i, pm := range c.PricingModels {
		pms[i] = string(pm)
	}
	list("pricing models", pms)
	if len(l) == 0 {
		return "; limits applied: none"
	}
	return "; limits applied: " + strings.Join(l, ", ")
}
