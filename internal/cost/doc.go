// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

// Package cost is the lifecycle cost model: compute under each pricing
// model, the hidden costs (storage, egress, inter-region transfer, extras),
// energy and carbon. It is pure Go (no terraform-plugin imports); every
// constant comes from internal/catalog/data/cost_model.json, every price from
// the catalog. Money is unrounded float64 USD; callers round at the boundary.
//
// # Horizon and demand
//
// The horizon is Months × hours_per_month (730) hours per instance. The
// fleet runs Utilization of those hours, so the useful instance-hours are
// D = InstanceCount × Months × 730 × Utilization, and the useful GPU-hours
// are D × Offer.GPUCount() (a fractional instance counts its share of one
// GPU).
//
// # Compute, per pricing model
//
// One biller applies the rules below: Rate (an offer's price under one
// pricing model, resolved once by Model.Rate or Model.ServerlessRate) and
// Rate.Bill (a Usage: instances, hours used, the horizon held, the duty
// cycle, serving or a job, the discount). TCO, JobCost, ServerlessCost and
// the planner's candidates are all billed by it; Bill allocates nothing,
// so the planner calls it for every candidate.
//
// The provider discount d (fraction off list) multiplies every list price of
// the cloud (compute, storage, egress, inter-region) by (1 − d). It does not
// apply to ExtraMonthlyUSD (the user's own figures) nor to carbon.
//
//   - on_demand: billed hours = useful hours.
//   - spot: billed hours = useful hours × R, the spot risk factor of a
//     synchronous job. A training or fine-tuning job stops when any of its
//     N instances is interrupted, so interruptions arrive at Λ = N·λ, λ =
//     SpotInfo.InterruptionsPerDay / 24 per running hour, plus 1 /
//     SpotInfo.MaxRuntimeHours when the cloud stops spot instances after a
//     maximum runtime (GCP preemptible: 24 h). The job checkpoints every τ =
//     spot_checkpoint_interval_hours (1 h) and an interruption costs the work
//     since the last checkpoint plus a restart of spot_restart_hours (0.25
//     h). With exponential arrivals each τ of work takes (1/Λ + restart)·
//     (e^{Λτ} − 1) hours on average, so R = (1/Λ + restart)(e^{Λτ} − 1)/τ
//     (SpotRiskFactor): about 1 + Λ·(τ/2 + restart) when Λτ is small (AWS,
//     128 nodes: 1.04), more when interruptions outpace checkpoints (GCP,
//     128 nodes: 1.50). When e^{−Λτ} < spot_min_checkpoint_completion the
//     job never finishes: an error, not a number. R ≥ 1, so spot never costs
//     less than its price × the useful hours. The rework also runs the
//     nodes, so it counts for energy. This is the rule for jobs (training,
//     fine_tuning); TCO prices a mix's spot instances (ceil(spot share ×
//     InstanceCount)) as one such job.
//   - spot, serving (JobCost with Workload inference): an interruption loses
//     no work, it removes capacity until a replacement serves, so billed
//     hours = useful hours (no R) and the caller provisions spare capacity
//     instead: SpotServingSpares gives the spare serving units (a unit = the
//     fewest instances holding one model replica, u instances) that keep
//     the target served on average. A unit is down a fraction u·λ·T of the
//     time, T = spot_serving_replacement_hours (0.25 h: new instance,
//     container start, weight load); a fleet of U' units has U'·u·λ·T units
//     down on average, so U' = ceil(U / (1 − u·λ·T)) for U units needed,
//     spares = max(min spares, U' − U) with the planner's policy floor
//     (planner_policy.json spot_serving_min_spare_units, 1). The spares run
//     and serve, so they count for energy. Example: GCP (λ = 0.1/24 per
//     hour), U = 3 one-instance units: u·λ·T = 0.00104, U' = ceil(3.003) = 4,
//     1 spare; billed 4 × 730 h a month at the spot price.
//   - reserved_1y / reserved_3y: billed for whole terms around the clock,
//     whatever the utilization. Terms = ceil(Months / term months) (12 or
//     36): a reservation is renewed when the horizon outlasts it, so 8 months
//     on reserved_3y bills 36 months and 40 months on reserved_1y bills 48.
//   - capacity_block: whole booking windows (capacity_block.*) on whole
//     cluster sizes, paid for the window whatever the use.
//   - serverless (a serverless offer, Input.Serverless or ServerlessCost):
//     billed per second of use, not per instance-hour. Utilization (the
//     duty cycle d) is the share of the horizon the load is there; it comes
//     in bursts of b = serverless.burst_seconds (900 s, an assumption),
//     so the gap between bursts is b·(1 − d)/d. Each burst is billed as the
//     platform bills a worker start (serverless.csv): the burst, the billed
//     idle tail before scale-to-zero, the cold start where billed, at least
//     the minimum, rounded up to the billing increment; a worker whose idle
//     timeout outlasts the gap never scales to zero, and an always-on worker
//     (RunPod active) is billed the whole horizon. Billed hours per worker =
//     horizon × ServerlessBilledShare(d) ≤ horizon, at the worker rate (GPUs
//     × the per-second GPU rate + the least host CPU and memory billed with
//     them) × 3,600. Example: Beam, 180 s keep-warm, d = 0.02: each 900 s
//     burst bills 1,080 s, so 730 × 0.024 = 17.5 h a month. The billed hours
//     hold the GPUs, so they count for energy (at the inference load).
//     Unpublished idle and start-up durations are 0 in the catalog, so the
//     figure is a floor for the platforms that bill them without saying how
//     long they last (Modal, Replicate).
//
// A pricing mix gives each model a share s of the useful instance-hours.
// On-demand and spot bill s × D hours (spot × R). A reserved share is served
// by N = ceil(s × InstanceCount) reserved instances (whole instances, rounded
// up: enough to run s × D hours since each is available all horizon long),
// each billed for the whole terms as above. Shares must sum to 1 within
// share_sum_tolerance and are then normalised.
//
// TCO keeps R for spot whatever the Workload (Input.Workload only selects
// the energy load factor): gpu_tco has no workload input and its fleet is
// the user's instance_count, so it cannot size spares; for a spot serving
// fleet, put the spares in instance_count (R then over-bills it as if it
// were one job). In the pricing-model comparison, a fleet that on spot
// would never finish is a spot row that is not available, with the reason.
//
// # Hidden costs
//
// storage_block = BlockGB × cloud block price × Months; storage_object
// likewise. egress = EgressUSD(cloud tiers, EgressGBPerMonth) × Months: the
// tiers apply in order to each month's volume (a free allowance is a tier at
// price 0; past the last tier the last rate applies). inter_region =
// InterRegionGBPerMonth × cloud inter-region price × Months. Each
// ExtraMonthlyUSD item becomes the line "extra:<name>" = USD × Months.
// Storage is kept for the whole horizon, not only while instances run.
//
// # Energy and carbon
//
// kWh = running instance-hours × node power × PUE. Node power (NodePowerKW)
// = GPUs × TDP (kW) × (gpu_load_factor + host_power_per_gpu_tdp): the GPUs
// at the load factor chosen by Workload (training 0.80, fine_tuning 0.80,
// inference 0.50; default training) plus the host (CPUs, memory, NICs,
// fans), 0.575 W per W of GPU TDP, derived from whole-node measurements (an
// 8× H100 node: 5.6 kW × 1.375 = 7.7 kW in training; measured 5.7–8.4 kW).
// Running hours are the useful hours plus spot rework (idle reserved hours
// count zero). The PUE is the region's when published, else the cloud's,
// else fallback_pue. CO2e kg = kWh × region grid gCO2e/kWh / 1000 (0, with
// a warning, when the grid intensity is unknown). Carbon USD = CO2e kg /
// 1000 × CarbonPriceUSDPerTonne.
//
// # Breakdown and comparison
//
// Result.Breakdown is, in order: compute, storage_block, storage_object,
// egress, inter_region (always present, possibly 0), extra:<name> sorted by
// name, then carbon only when the carbon price is positive (a carbon price
// of 0 means carbon is reported in kg but not charged). TotalUSD is the sum
// of the breakdown. Compare (FleetResult.Comparison) repeats the whole TCO
// with all compute bought one way: a row per pricing model of the offer's
// kind, each priced in the fleet's region (or, for a fleet whose region
// was not given, in the cheapest commercial region selling it that way),
// or not available with the reason (not sold so, spot that never
// finishes). Result.BreakEven gives, for each reservation, the
// utilization above which reserving the fleet for the horizon beats
// on-demand, and the months of use after which one term beats on-demand at
// the input utilization (Never, with months 0, when nothing runs).
//
// # Bounds
//
// Every input is checked against the limits of
// internal/catalog/data/input_limits.json (months 0.001 to 1,200, instance
// count 1 to 1,000,000, sizes up to 10^9 GB, extras up to 10^12 USD a month,
// carbon price up to 10^5 USD/t, ...), with an InputError naming the input,
// its value in plain notation and the range. Within those limits and the
// catalog's, every figure is finite; each is checked before it is returned
// all the same (NonFiniteError), so no NaN or ±Inf ever leaves the package.
package cost
