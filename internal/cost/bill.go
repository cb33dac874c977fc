// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package cost

import (
	"math"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// billRule is how a pricing model turns use into billed hours.
type billRule uint8

const (
	ruleHourly        billRule = iota // on_demand: the hours used
	ruleSpot                          // spot: the hours used, with rework for a job
	ruleReserved                      // reserved_1y/3y: whole terms around the clock
	ruleCapacityBlock                 // capacity_block: whole windows on whole cluster sizes
	ruleServerless                    // serverless: the billed share of the period
)

// Rate is one offer's price under one pricing model together with that
// model's billing rules: everything of a bill but the use, resolved once
// (Model.Rate, Model.ServerlessRate) so Bill is a few multiplications the
// planner can run for every candidate. It is the one place a bill is
// computed: TCO, JobCost, ServerlessCost and the planner all bill through
// it. The zero Rate bills nothing.
type Rate struct {
	m          *Model
	rule       billRule
	listUSD    float64 // per instance-hour (a serverless worker-hour), before the discount
	termHours  float64 // reserved: one term, hours
	cloud      *catalog.Cloud
	serverless *catalog.ServerlessOffer
	spot       *spotRisks // spot: the cloud's precomputed risk factors (nil: computed per bill)
}

// Usage is what a bill is for.
type Usage struct {
	// Instances bought this way (serverless: workers serving at once while
	// the load is there). A share of a TCO fleet may be fractional: a
	// reservation and a capacity block book the whole instances it rounds
	// up to; spot rework counts them as one synchronous job.
	Instances float64
	// Hours each instance works: a job's duration, a fleet's running hours
	// (horizon × utilization), without spot rework.
	Hours float64
	// HorizonHours is the period the instances are held: a reservation
	// bills the whole terms it spans (at least one), a serverless worker
	// its billed share of it.
	HorizonHours float64
	// DutyCycle is the share of the horizon the load is there (serverless).
	DutyCycle float64
	// Serving: spot loses no work to an interruption (the caller carries
	// spare capacity in Instances, SpotServingSpares); otherwise spot
	// instances are one synchronous job billed with SpotRiskFactor.
	Serving bool
	// Discount is the provider-level fraction off the list price, [0, 1).
	Discount float64
}

// Bill is the compute bill of a Usage.
type Bill struct {
	HourlyUSD float64 // one instance (worker), after the discount
	// Instances billed: whole instances for a reservation, a whole cluster
	// size (1, 2, 4 … max) for a capacity block, else Usage.Instances.
	Instances float64
	// BilledHours per billed instance: the hours used (on-demand), with
	// spot rework (a spot job), whole terms (reserved), the booked window
	// (capacity block), the billed share of the horizon (serverless).
	BilledHours float64
	// RunningHours per used instance: the hours the GPUs draw power, spot
	// rework and billed serverless time included, idle reserved hours not.
	RunningHours float64
	USD          float64 // Instances × BilledHours × HourlyUSD
}

// InstanceHours is the billed instance-hours.
func (b Bill) InstanceHours() float64 { return b.Instances * b.BilledHours }

// Rate is an offer's rate under a pricing model (an instance model:
// catalog.InstancePricingModels), and whether the offer is sold that way.
// cl is the offer's cloud (its spot interruption rate).
func (m *Model) Rate(o *catalog.Offer, cl *catalog.Cloud, pm catalog.PricingModel) (Rate, bool) {
	price, ok := o.Price(pm)
	if !ok || pm == catalog.Serverless {
		return Rate{}, false
	}
	r := Rate{m: m, listUSD: price, cloud: cl}
	switch pm {
	case catalog.Spot:
		r.rule, r.spot = ruleSpot, m.spotRisks(cl)
	case catalog.Reserved1Y, catalog.Reserved3Y:
		r.rule, r.termHours = ruleReserved, m.TermMonths[pm]*m.HoursPerMonth
	case catalog.CapacityBlock:
		r.rule = ruleCapacityBlock
	}
	return r, true
}

// ServerlessRate is the rate of a serverless offer's workers (its only
// pricing model, serverless).
func (m *Model) ServerlessRate(s *catalog.ServerlessOffer, cl *catalog.Cloud) Rate {
	return Rate{m: m, rule: ruleServerless, listUSD: ServerlessWorkerUSDPerHour(s), cloud: cl, serverless: s}
}

// ListUSD is the list price of one instance (worker) for one hour.
func (r *Rate) ListUSD() float64 { return r.listUSD }

// BillsLike reports whether Bill gives this rate and o the same
// Instances, BilledHours and RunningHours for every usage: the same model
// and billing rule (and term) for on-demand, reserved and capacity-block
// rates, whatever their offers; for spot, the same cloud's interruption
// risks too; a serverless rate bills like no other. Each bill's USD is
// InstanceHours × HourlyUSD, multiplied in that order, and HourlyUSD the
// list price × (1 − discount), so a caller may bound the bills of many
// offers from one (the planner's pruning).
func (r *Rate) BillsLike(o *Rate) bool {
	if r.m != o.m || r.rule != o.rule {
		return false
	}
	switch r.rule {
	case ruleReserved:
		return r.termHours == o.termHours
	case ruleSpot:
		return r.cloud == o.cloud && r.spot == o.spot
	case ruleServerless:
		return false
	}
	return true
}

// Bill bills a use at this rate. It allocates nothing. A spot job that
// never finishes (SpotRiskFactor +Inf) bills +Inf: callers check.
func (r *Rate) Bill(u *Usage) Bill {
	b := Bill{HourlyUSD: r.listUSD * (1 - u.Discount), Instances: u.Instances, BilledHours: u.Hours, RunningHours: u.Hours}
	switch r.rule {
	case ruleSpot:
		if !u.Serving {
			// A synchronous job stops when any of its instances is interrupted.
			b.BilledHours = u.Hours * r.spotRisk(int(wholeInstances(u.Instances)))
			b.RunningHours = b.BilledHours
		}
	case ruleReserved:
		b.Instances = wholeInstances(u.Instances)
		b.BilledHours = atLeastOne(math.Ceil(u.HorizonHours/r.termHours-ceilTolerance)) * r.termHours
	case ruleCapacityBlock:
		n := wholeInstances(u.Instances)
		b.Instances = float64(r.m.CapacityBlockInstances(int(n)))
		// Each booked instance covers the window its share of the hours needs.
		b.BilledHours = r.m.CapacityBlockHours(u.Hours * (u.Instances / n))
	case ruleServerless:
		// Busy time, idle tails and cold starts as the platform bills them;
		// billed workers hold their GPUs (energy).
		b.BilledHours = u.HorizonHours * r.m.ServerlessBilledShare(r.serverless, u.DutyCycle)
		b.RunningHours = b.BilledHours
	}
	b.USD = b.Instances * b.BilledHours * b.HourlyUSD
	return b
}

// wholeInstances is the whole instances a (possibly fractional) count
// needs, at least 1.
func wholeInstances(n float64) float64 {
	return atLeastOne(math.Ceil(n - ceilTolerance))
}

// atLeastOne is max(1, n) for the hot loop: math.Max's NaN and signed-zero
// rules cost a call; a NaN stays NaN here too.
func atLeastOne(n float64) float64 {
	if n < 1 {
		return 1
	}
	return n
}
