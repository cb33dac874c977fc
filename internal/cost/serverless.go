// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package cost

import (
	"errors"
	"fmt"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// secondsPerHour converts per-second rates (a unit, not a model constant).
const secondsPerHour = 3600

// ServerlessRules are the cost model's assumption about how serving demand
// arrives on a serverless offer (cost_model.json serverless).
type ServerlessRules struct {
	// BurstSeconds: busy time arrives in bursts of continuous demand of
	// this length, evenly spread over the period.
	BurstSeconds float64
}

// ServerlessWorkerUSDPerHour is the list price of one worker of a
// serverless offer for one billed hour: its GPUs at the per-second GPU rate
// plus the least host CPU and memory the platform bills with them.
func ServerlessWorkerUSDPerHour(o *catalog.ServerlessOffer) float64 {
	return o.USDPerWorkerSecond() * secondsPerHour
}

// ServerlessBilledShare is the billed hours per hour of the period of one
// worker of a serverless offer that is busy a share duty of the period. An
// always-on worker (RunPod active) is billed the whole period, and so is a
// worker busy all the time (duty ≥ 1). Otherwise the busy time comes in
// bursts of b = BurstSeconds, so the gap between two bursts is
// g = b·(1 − duty)/duty. When the offer's billed idle tail lasts at least g,
// the worker never scales to zero and is billed throughout (1). Otherwise
// each burst is billed as the offer bills one worker start,
// catalog.ServerlessOffer.BilledSeconds(b, cold): the burst, the idle tail,
// the cold start where the platform bills it, at least the minimum, rounded
// up to the billing increment; there are duty/b bursts per second of the
// period, so the share is BilledSeconds × duty / b, at most 1. 0 when the
// worker is never busy.
func (m *Model) ServerlessBilledShare(o *catalog.ServerlessOffer, duty float64) float64 {
	switch {
	case o.AlwaysOn || duty >= 1:
		return 1
	case !(duty > 0):
		return 0
	}
	b := m.Serverless.BurstSeconds
	gap := b * (1 - duty) / duty
	if o.IdleBilledSeconds >= gap {
		return 1
	}
	return min(1, o.BilledSeconds(b, true)*duty/b)
}

// ServerlessInput is a serving deployment on a serverless offer for a
// period: Workers workers serve the load while it is there, a share
// DutyCycle of the period.
type ServerlessInput struct {
	Offer       *catalog.ServerlessOffer
	Cloud       *catalog.Cloud
	Region      *catalog.Region      // optional (nil when the platform places workers): PUE, grid intensity
	Accelerator *catalog.Accelerator // optional (TDP)

	Workers   int     // workers serving at once while the load is there
	Hours     float64 // the period
	DutyCycle float64 // share of the period the load is there, (0, 1]
	Discount  float64 // provider-level fraction off list, [0, 1)

	CarbonPriceUSDPerTonne float64
}

// ServerlessResult is the cost of a serverless deployment. Hours are per
// worker.
type ServerlessResult struct {
	WorkerUSDPerHour float64 // one worker, after the discount
	BusyHours        float64 // Hours × DutyCycle
	// BilledHours: Hours × ServerlessBilledShare (busy time, idle tails and
	// cold starts as billed; the whole period for always-on workers).
	BilledHours   float64
	ComputeUSD    float64 // Workers × BilledHours × WorkerUSDPerHour
	EnergyKWh     float64 // the billed hours at the inference load, with PUE
	CO2eKg        float64
	CarbonCostUSD float64
}

// ServerlessCost prices a serverless deployment with the built-in model.
func ServerlessCost(in ServerlessInput) (ServerlessResult, error) {
	m, err := DefaultModel()
	if err != nil {
		return ServerlessResult{}, err
	}
	return m.ServerlessCost(in)
}

// ServerlessCost prices a serverless deployment with this model. Energy
// counts every billed hour, idle tails included (the worker holds its GPUs
// then), at the inference load factor.
func (m *Model) ServerlessCost(in ServerlessInput) (ServerlessResult, error) {
	var r ServerlessResult
	switch {
	case in.Offer == nil || in.Cloud == nil:
		return r, errors.New("cost: ServerlessInput.Offer and ServerlessInput.Cloud are required")
	case in.Offer.Cloud != in.Cloud.ID:
		return r, fmt.Errorf("cost: serverless offer of cloud %q priced with cloud %q", in.Offer.Cloud, in.Cloud.ID)
	}
	if err := firstBad(append([]bound{
		{field: "workers", summary: "Invalid Workers", limit: catalog.LimitNodeCount, v: float64(in.Workers)},
		{field: "hours", summary: "Invalid Hours", limit: catalog.LimitHours, v: in.Hours},
		{field: "duty_cycle", summary: "Invalid Duty Cycle", limit: catalog.LimitDutyCycle, v: in.DutyCycle,
			hint: "It is the share of the time the load is there, for example 0.05."},
	}, providerBounds(in.Discount, in.CarbonPriceUSDPerTonne)...)); err != nil {
		return r, err
	}
	workers := float64(in.Workers)
	rate := m.ServerlessRate(in.Offer, in.Cloud)
	b := rate.Bill(&Usage{Instances: workers, HorizonHours: in.Hours, DutyCycle: in.DutyCycle, Discount: in.Discount})
	r.WorkerUSDPerHour, r.BilledHours, r.ComputeUSD = b.HourlyUSD, b.BilledHours, b.USD
	r.BusyHours = in.Hours * in.DutyCycle
	r.EnergyKWh = workers * r.BilledHours * m.ServerlessWorkerKWhPerHour(in.Offer, in.Cloud, in.Region, in.Accelerator)
	if in.Region != nil && in.Region.GridGCO2ePerKWh > 0 {
		r.CO2eKg = r.EnergyKWh * in.Region.GridGCO2ePerKWh / gramsPerKg
	}
	r.CarbonCostUSD = r.CO2eKg / kgPerTonne * in.CarbonPriceUSDPerTonne
	var f figures
	for _, v := range []struct {
		name string
		v    float64
	}{{"worker_usd_per_hour", r.WorkerUSDPerHour}, {"billed_hours", r.BilledHours}, {"compute_usd", r.ComputeUSD},
		{"energy_kwh", r.EnergyKWh}, {"co2e_kg", r.CO2eKg}, {"carbon_cost_usd", r.CarbonCostUSD}} {
		f.add(v.name, v.v)
	}
	if err := f.result(); err != nil {
		return ServerlessResult{}, err
	}
	return r, nil
}

// ServerlessWorkerKWhPerHour is the facility energy of one worker of a
// serverless offer for one billed hour: its GPUs and their host at the
// inference load (NodePowerKW), times the PUE of the region, else the
// cloud's, else the fallback; 0 without the accelerator's TDP.
func (m *Model) ServerlessWorkerKWhPerHour(o *catalog.ServerlessOffer, cl *catalog.Cloud, r *catalog.Region, acc *catalog.Accelerator) float64 {
	return m.gpusPowerKW(float64(o.GPUs), acc, workloadInference) * m.PUE(cl, r)
}
