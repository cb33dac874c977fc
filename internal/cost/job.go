// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package cost

import (
	"errors"
	"fmt"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// JobInput is one job of a known wall-clock duration on a number of
// identical instances bought one way. The planner prices candidates with it.
type JobInput struct {
	Offer       *catalog.Offer
	Cloud       *catalog.Cloud
	Region      *catalog.Region      // optional (PUE, grid intensity)
	Accelerator *catalog.Accelerator // optional (TDP)

	// Nodes: identical instances. For spot inference (serving), include the
	// spare nodes of SpotServingSpares: serving is billed without rework.
	Nodes        int
	Hours        float64 // useful wall-clock hours of the job (without spot rework)
	PricingModel catalog.PricingModel
	Discount     float64 // provider-level fraction off list, [0, 1)
	Workload     string  // training | fine_tuning | inference; "" = default

	CarbonPriceUSDPerTonne float64 // optional, >= 0
}

// JobResult is the cost of a job. Hours are per node.
type JobResult struct {
	HourlyUSD float64 // per node, after the discount
	// BilledHours per node: Hours (on-demand; spot inference); Hours × spot
	// risk factor (spot training and fine-tuning); whole commitment terms
	// around the clock (reserved).
	BilledHours float64
	// RunningHours per node: wall-clock the GPUs work, including spot rework.
	RunningHours  float64
	ComputeUSD    float64 // Nodes × BilledHours × HourlyUSD
	EnergyKWh     float64
	CO2eKg        float64
	CarbonCostUSD float64
}

// JobCost prices a job with the built-in model.
func JobCost(in JobInput) (JobResult, error) {
	m, err := DefaultModel()
	if err != nil {
		return JobResult{}, err
	}
	return m.JobCost(in)
}

// JobCost prices a job with this model.
func (m *Model) JobCost(in JobInput) (JobResult, error) {
	var r JobResult
	switch {
	case in.Offer == nil || in.Cloud == nil:
		return r, errors.New("cost: JobInput.Offer and JobInput.Cloud are required")
	case in.Offer.Cloud != in.Cloud.ID:
		return r, fmt.Errorf("cost: offer of cloud %q priced with cloud %q", in.Offer.Cloud, in.Cloud.ID)
	}
	if err := firstBad(append([]bound{
		{field: "nodes", summary: "Invalid Nodes", limit: catalog.LimitNodeCount, v: float64(in.Nodes)},
		{field: "hours", summary: "Invalid Hours", limit: catalog.LimitHours, v: in.Hours},
	}, providerBounds(in.Discount, in.CarbonPriceUSDPerTonne)...)); err != nil {
		return r, err
	}
	if !knownModel(in.PricingModel) {
		return r, inputErr("pricing_model", "Unknown Pricing Model",
			"pricing_model = %q; allowed: %s.", in.PricingModel, joinModels(catalog.InstancePricingModels))
	}
	rate, ok := m.Rate(in.Offer, in.Cloud, in.PricingModel)
	if !ok {
		return r, notSoldErr("pricing_model", "", in.Offer, in.PricingModel)
	}
	wl := in.Workload
	if wl == "" {
		wl = m.DefaultWorkload
	}
	_, ok = m.LoadFactor[wl]
	if !ok {
		return r, inputErr("workload", "Invalid Workload", "workload = %q: allowed: %q.", in.Workload, m.Workloads())
	}

	// Serving loses no work to a spot interruption, only capacity: the
	// caller provisions spare nodes (SpotServingSpares) in Nodes.
	nodes := float64(in.Nodes)
	b := rate.Bill(&Usage{Instances: nodes, Hours: in.Hours, HorizonHours: in.Hours, Serving: wl == workloadInference,
		Discount: in.Discount})
	if bad(b.BilledHours) {
		return JobResult{}, inputErr("pricing_model", "Spot Job Never Finishes",
			"a synchronous job on %d spot instances of %s is interrupted far more often than it checkpoints: it would never finish.",
			in.Nodes, in.Cloud.ID)
	}
	r.HourlyUSD, r.BilledHours, r.RunningHours, r.ComputeUSD = b.HourlyUSD, b.BilledHours, b.RunningHours, b.USD
	r.EnergyKWh = nodes * r.RunningHours * m.NodeKWhPerHour(in.Offer, in.Cloud, in.Region, in.Accelerator, wl)
	if in.Region != nil && in.Region.GridGCO2ePerKWh > 0 {
		r.CO2eKg = r.EnergyKWh * in.Region.GridGCO2ePerKWh / gramsPerKg
	}
	r.CarbonCostUSD = r.CO2eKg / kgPerTonne * in.CarbonPriceUSDPerTonne
	if err := r.checkFinite(); err != nil {
		return JobResult{}, err
	}
	return r, nil
}
