// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner

import (
	"math"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/cost"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
)

// priced is a candidate in the hot loop: numbers and references only.
// Full Candidates are built for the top N and the nearest misses.
type priced struct {
	offer    *offerInfo
	opt      *option
	slot     int // pricing model (catalog.AllPricingModels index)
	co2Known bool
	spare    int     // spare serving units (inference on spot), of opt.unit nodes each
	hourly   float64 // all nodes, after discount
	hours    float64 // wall-clock (spot: with rework); inference: hours per month
	cost     float64 // what the cloud bills: job total (inference: per month)
	co2      float64 // kg (inference: per month)
	carbon   float64 // carbon cost USD at the provider's carbon price (inference: per month)
	score    float64
}

// price bills one candidate at the offer's rate for the pricing model
// (cost.Rate.Bill, the cost model's one biller) and adds its energy.
// Training and fine-tuning are billed for the job's hours, spot with the
// rework factor. Inference is billed over policy.InferenceHorizonMonths
// (12, the shortest commitment term) and reported per month, so a
// reservation is billed its whole term and a 3-year one costs three times
// its hourly rate; on spot, inference carries spare serving units
// (cost.Model.SpotServingSpares, at least policy.SpotServingMinSpareUnits)
// billed like the others, and no rework. A serverless offer (inference
// only) bills each worker its billed share of the horizon at the
// workload's duty cycle; dedicated instances are billed around the clock
// whatever the duty cycle. discount is the cloud's fraction off list.
// u is the offer's usage (usage: the run's, with the cloud's discount);
// price sets its instances and job hours.
func (r *run) price(c *priced, oi *offerInfo, opt *option, slot int, u *cost.Usage) {
	spare := 0
	if r.inference && slot == slotSpot {
		var err error
		spare, err = r.p.cost.SpotServingSpares(oi.cloud, opt.units, opt.unit, r.p.policy.SpotServingMinSpareUnits)
		if err != nil {
			*c = priced{offer: oi, opt: opt, slot: slot, cost: math.NaN()} // rejected as estimate_failed
			return
		}
	}
	nodes := float64(opt.nodes + spare*opt.unit)
	u.Instances = nodes
	if !r.inference {
		u.Hours, u.HorizonHours = opt.est.Hours, opt.est.Hours
	}
	b := oi.rates[slot].Bill(u)
	energy := nodes * b.RunningHours * oi.kwhPerHour[r.kind]
	// Field by field: the hot loop reuses c.
	c.offer, c.opt, c.slot, c.spare, c.score = oi, opt, slot, spare, 0
	c.hourly, c.hours, c.cost = b.HourlyUSD*b.Instances, b.RunningHours, b.USD
	c.co2, c.co2Known = energy*oi.kgPerKWh, energy > 0 && oi.kgPerKWh > 0
	c.carbon = c.co2 / 1000 * r.req.CarbonPriceUSDPerTonne
	if r.inference {
		c.hours = r.hoursPerMonth
		c.cost /= r.horizonMonths
		c.co2 /= r.horizonMonths
		c.carbon /= r.horizonMonths
	}
}

// priceAt prices one candidate outside the hot loop (a value of its own).
func (r *run) priceAt(oi *offerInfo, opt *option, slot int) priced {
	u := r.usage(0, 0, r.discounts[oi.cloudIx])
	var c priced
	r.price(&c, oi, opt, slot, &u)
	return c
}

// usage is what nodes of an offer are billed for: a job of jobHours, or
// (inference) serving around the clock over the pricing horizon at the
// workload's duty cycle; discount is the cloud's fraction off list.
func (r *run) usage(nodes, jobHours, discount float64) cost.Usage {
	u := r.use
	u.Instances, u.Discount = nodes, discount
	if !r.inference {
		u.Hours, u.HorizonHours = jobHours, jobHours
	}
	return u
}

// candidate expands a priced candidate.
func (r *run) candidate(c *priced) Candidate {
	oi, opt := c.offer, c.opt
	spareNodes := c.spare * opt.unit
	spareReps := c.spare * opt.unitReplicas
	nodes := opt.nodes + spareNodes
	pm := catalog.AllPricingModels[c.slot]
	payAsYouGo := pm == catalog.OnDemand || pm == catalog.Spot
	var serving *ServingLayout
	if d := opt.est.Serving; r.inference && d != nil {
		n := opt.units + c.spare // serving units, each sized by est
		serving = &ServingLayout{Mode: opt.est.ServingLayout, PrefillGPUs: opt.est.PrefillGPUs * n, DecodeGPUs: opt.est.DecodeGPUs * n,
			PrefillWorkers: d.PrefillWorkers * n, DecodeWorkers: opt.replicas + spareReps, ExpertParallel: d.ExpertParallel}
	}
	return Candidate{
		Cloud: oi.o.Cloud, Region: oi.o.Region, Country: oi.country, InstanceType: oi.o.InstanceType, Accelerator: oi.accel.ID,
		SoftwareStack: r.p.stacks.Of(oi.accel),
		GPUsPerNode:   oi.o.GPUs, GPUFraction: oi.fraction, Nodes: nodes, TotalGPUs: nodes * oi.o.GPUs, PricingModel: pm,
		HourlyCostUSD:    c.hourly,
		EstimatedHours:   c.hours,
		EstimatedCostUSD: c.cost,
		EstimatedCO2eKg:  c.co2,
		CO2eKnown:        c.co2Known,
		CarbonCostUSD:    c.carbon,
		TokensPerSecond:  opt.tps + float64(c.spare)*opt.est.TokensPerSecond,
		MemoryPerGPUGB:   opt.est.MemoryPerGPUGB,
		Replicas:         opt.replicas + spareReps,
		SpareNodes:       spareNodes,
		SpareReplicas:    spareReps,
		TTFTMs:           opt.est.TTFTP99Ms,
		TPOTMs:           opt.est.TPOTP99Ms,
		Concurrency:      r.concurrency(&opt.est),
		Score:            c.score,
		// Reservations and capacity blocks are capacity arranged with the cloud.
		BeyondTypicalQuota: payAsYouGo && nodes*oi.o.GPUs > r.p.policy.TypicalRegionQuotaGPUs,
		BeyondSpotCapacity: c.slot == slotSpot && nodes*oi.o.GPUs > r.p.policy.TypicalRegionSpotCapacityGPUs,
		Serving:            serving,
		binding:            opt.est.Binding,
		offer:              oi,
	}
}

// concurrency is the sequences in flight when a deployment serves the
// target (Little's law): requests/s (the target over the output tokens of
// a request) × the mean time in the system (the mean time to first token
// plus the rest of the output at the mean time per output token); 0 for
// jobs.
func (r *run) concurrency(e *perf.Estimate) float64 {
	w := &r.workload
	if !r.inference || w.OutputTokens < 1 {
		return 0
	}
	seconds := (e.TTFTMs + float64(w.OutputTokens-1)*e.TPOTMs) / 1000
	return w.TokensPerSecond / float64(w.OutputTokens) * seconds
}
