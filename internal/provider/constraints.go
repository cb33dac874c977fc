// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"sync"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/planner"
)

// constraintsKeys is the key table of gpu_recommendation's `constraints`,
// built once.
var constraintsKeys = sync.OnceValue(func() *objectKeys[planner.Constraints] {
	type C = planner.Constraints
	const empty = "an empty list allows nothing, so nothing could be recommended. Omit the attribute for no restriction, " +
		"or list at least one value."
	limit := func(name string) inputLimit { return limitOf(name).positive() }
	return &objectKeys[C]{keys: []key[C]{
		{name: "clouds", doc: "Only these clouds, for example `[\"aws\", \"gcp\"]` (within the provider's `clouds`).",
			is: names(empty, nil, func(c *C, ss []string) { c.Clouds = ss })},
		{name: "regions", doc: "Only these regions (each cloud's own codes, for example `eu-west-1`, `europe-west4`).",
			is: names(empty, nil, func(c *C, ss []string) { c.Regions = ss })},
		{name: "geographies", doc: "Only regions in these geography buckets, any case, for example `[\"eu\", \"uk\"]`: " +
			geographyDoc() + ". `gpu_regions` lists the regions of each.",
			is: names(empty, nil, func(c *C, ss []string) { c.Geographies = ss })},
		{name: "countries", doc: "Only regions in these countries: ISO 3166-1 alpha-2 or alpha-3 codes or English names, in any " +
			"case, for example `[\"DE\", \"France\"]` (`UK` is read as `GB`). Naming a country whose regions are all in a " +
			"separate-account partition (`CN`) asks for that partition. `gpu_regions` lists the countries that have regions.",
			is: names(empty, nil, func(c *C, ss []string) { c.Countries = ss })},
		{name: "accelerators", doc: "Only these accelerators, by ID or alias, for example `[\"H100\", \"H200\"]`.",
			is: names(empty, nil, func(c *C, ss []string) { c.Accelerators = ss })},
		{name: "pricing_models", doc: "Only these pricing models: `capacity_block` is " + capacityBlockDoc() + "; `serverless` " +
			"per-second GPU workers, inference only, billed for `workload.duty_cycle` of the month. Spot for inference: an " +
			"interruption takes serving capacity away, so a serving deployment is on spot only when this list names it, and then " +
			"carries spare replicas to ride out interruptions (its explanation says how many). A spot candidate needing more spot " +
			"GPUs in one region than spot typically yields one account (" + spotCapacityDoc() + ", an assumption) is flagged in its " +
			"explanation and, when it is the best, with a warning; a spot price implausibly far below on-demand (" +
			implausibleSpotDoc() + ") is flagged in its explanation.",
			def: "all of them, except `spot` for inference",
			is: names(empty, catalog.PricingModelNames(catalog.AllPricingModels), func(c *C, ss []string) {
				c.PricingModels = make([]catalog.PricingModel, len(ss))
				for i, s := range ss {
					c.PricingModels[i] = catalog.PricingModel(s)
				}
			})},
		{name: "compliance", doc: "Regimes every candidate must satisfy: `gdpr` (EU/EEA region), `uk_gdpr`, `swiss_fadp`, " +
			"`mlps2` (mainland-China region), `fedramp_high` (US government partition), `hipaa` (cloud signs a BAA). " +
			"The jurisdictions (all but `hipaa`) exclude each other.",
			is: names(empty, catalog.ComplianceRegimes, func(c *C, ss []string) { c.Compliance = ss })},
		{name: "max_hourly_cost_usd", doc: "Most USD per hour for all nodes together.", def: "no limit",
			is: number(limit(catalog.LimitHourlyCostUSD), func(c *C) *float64 { return &c.MaxHourlyCostUSD })},
		{name: "max_total_cost_usd", doc: "Most USD for the whole job (inference: per month).", def: "no limit",
			is: number(limit(catalog.LimitTotalCostUSD), func(c *C) *float64 { return &c.MaxTotalCostUSD })},
		{name: "deadline_hours", doc: "Latest wall-clock hours for a training or fine-tuning job (spot: risk-adjusted).",
			def: "no limit", is: number(limit(catalog.LimitHours), func(c *C) *float64 { return &c.DeadlineHours })},
		{name: "max_gpus", doc: "Most GPUs in total.", def: "no limit",
			is: whole(limitOf(catalog.LimitGPUCount), func(c *C) *int { return &c.MaxGPUs })},
		{name: "max_nodes", doc: "Most instances (nodes).", def: defaultMaxNodesDoc() + " for training; unlimited for inference",
			is: whole(limitOf(catalog.LimitNodeCount), func(c *C) *int { return &c.MaxNodes })},
		{name: "min_gpu_memory_gb", doc: "Least memory per accelerator, GB.", def: "no minimum",
			is: number(limitOf(catalog.LimitAcceleratorMemoryGB).orZero(), func(c *C) *float64 { return &c.MinGPUMemoryGB })},
		{name: "min_network_gbps", doc: "Least scale-out bandwidth per node, Gbit/s.", def: "no minimum",
			is: number(limitOf(catalog.LimitNetworkGbps), func(c *C) *float64 { return &c.MinNetworkGbps })},
		{name: "max_co2e_kg", doc: "Most kg CO2e for the job (inference: per month); candidates of unknown CO2e are rejected.",
			def: "no limit", is: number(limit(catalog.LimitCO2eKg), func(c *C) *float64 { return &c.MaxCO2eKg })},
		{name: "software_stacks", doc: "The software stacks your code runs on, any case: " + stackListDoc() + ". Most training " +
			"and serving code is written for CUDA; list another stack only when your code runs there (for example `[\"cuda\", " +
			"\"rocm\"]` for PyTorch with ROCm builds, `\"xla\"` for JAX on TPUs). When a cheaper candidate on another stack was " +
			"left out, the best candidate's explanation says what it would cost and how to allow it.", def: defaultStacksDoc(),
			is: names(empty, stackIDs(), func(c *C, ss []string) { c.SoftwareStacks = ss })},
		{name: "near", doc: "A geography (" + geographyDoc() + ") or a country (ISO 3166-1 code or English name, any case) whose " +
			"regions win ties: among candidates of equal score and CO2e, those in it rank first. No candidate is excluded.",
			def: "none (ties go by name)", is: text(nil, func(c *C) *string { return &c.Near }),
			blank: "name a geography such as \"eu\" or a country such as \"DE\", or leave near out (or null)"},
	}}
})
