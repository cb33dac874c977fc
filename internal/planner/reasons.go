// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner

import "github.com/gpuplan/terraform-provider-gpu/internal/inputerr"

// Rejection reasons. These strings are part of the Terraform contract
// (`rejected[*].reason`) and never change. Each (offer, pricing model) pair
// the planner looks at is counted once, under the first reason that removed
// its last node count; pairs with at least one surviving node count are
// feasible and not counted. Offer-level filters are applied in the order
// listed here, then physics, then the numeric limits.
const (
	// ReasonProviderClouds: the cloud is not in the provider's `clouds` allow-list.
	ReasonProviderClouds = "provider_clouds"
	// ReasonClouds: the cloud is not in constraints.clouds.
	ReasonClouds = "clouds"
	// ReasonRegions: the region is not in constraints.regions.
	ReasonRegions = "regions"
	// ReasonGeographies: the region's geography is not in constraints.geographies.
	ReasonGeographies = "geographies"
	// ReasonCountries: the region's country is not in constraints.countries.
	ReasonCountries = "countries"
	// ReasonCompliance: the region (or cloud, for hipaa) lacks a required regime.
	ReasonCompliance = "compliance"
	// ReasonPartitionNotRequested: the region is in a separate-account
	// partition (AWS GovCloud, AWS China) that the constraints did not ask
	// for: a compliance regime only it meets, a region of it, or a
	// geography or country only it has.
	ReasonPartitionNotRequested = "partition_not_requested"
	// ReasonAccelerators: the accelerator is not in constraints.accelerators.
	ReasonAccelerators = "accelerators"
	// ReasonInferenceOnly: a training or fine-tuning job on an accelerator
	// built for inference only (its catalog purpose, Inferentia2).
	ReasonInferenceOnly = "inference_only_accelerator"
	// ReasonStackMethod: the accelerator's software stack does not run the
	// workload's fine-tuning method (software_stacks.json: QLoRA needs
	// bitsandbytes, which has no TPU or Neuron backend).
	ReasonStackMethod = "stack_cannot_run_method"
	// ReasonStackPrecision: the accelerator's software stack does not train
	// at the workload's precision (FP8 and FP4 training, software_stacks.json).
	ReasonStackPrecision = "stack_cannot_train_precision"
	// ReasonPricingModels: the pricing model is not in
	// constraints.pricing_models (for inference without it: spot, which
	// serving uses only when pricing_models names it).
	ReasonPricingModels = "pricing_models"
	// ReasonMinGPUMemory: the accelerator has less memory than min_gpu_memory_gb.
	ReasonMinGPUMemory = "min_gpu_memory_gb"
	// ReasonMinNetwork: the node's scale-out bandwidth is below min_network_gbps.
	ReasonMinNetwork = "min_network_gbps"
	// ReasonFractionalGPU: a training or fine-tuning job on a fractional
	// instance (a share of one GPU): such jobs need whole GPUs.
	ReasonFractionalGPU = "fractional_gpu"
	// ReasonServerlessInferenceOnly: a training or fine-tuning job on a
	// serverless offer. Serverless workers are priced for serving (the busy
	// share of a month, workload.duty_cycle) and run one worker each, with
	// no fabric between workers; jobs go on instances.
	ReasonServerlessInferenceOnly = "serverless_inference_only"
	// ReasonSoftwareStacks: the accelerator's software stack is not in
	// constraints.software_stacks (default ["cuda"]). The last offer-level
	// filter: the cheapest candidate it alone removed is named in the
	// best candidate's explanation.
	ReasonSoftwareStacks = "software_stacks"
	// ReasonPrecisionUnsupported: the accelerator cannot run the workload's precision.
	ReasonPrecisionUnsupported = "precision_unsupported"
	// ReasonDoesNotFit: the workload does not fit in memory at any node count allowed.
	ReasonDoesNotFit = "does_not_fit"
	// ReasonNoFabric: a training or fine-tuning job, or one serving replica,
	// needs several nodes but the offer has no scale-out fabric (fabric
	// "none"), or needs more TPU hosts than the ICI of one pod joins (fabric
	// "ici" beyond the accelerator's nvlink_domain_gpus). Independent
	// serving replicas on separate nodes need none.
	ReasonNoFabric = "multi_node_without_fabric"
	// ReasonLatency: no batch meets max_time_to_first_token_ms / max_time_per_output_token_ms.
	ReasonLatency = "latency_limits"
	// ReasonMaxNodes: the node count needed exceeds max_nodes.
	ReasonMaxNodes = "max_nodes"
	// ReasonMaxGPUs: the GPU count needed exceeds max_gpus.
	ReasonMaxGPUs = "max_gpus"
	// ReasonSpotNeverFinishes: a training or fine-tuning job on spot whose
	// nodes, as one synchronous job, are interrupted far more often than it
	// checkpoints (cost_model.json spot_min_checkpoint_completion).
	ReasonSpotNeverFinishes = "spot_never_finishes"
	// ReasonMaxHourlyCost: hourly cost of all nodes above max_hourly_cost_usd.
	ReasonMaxHourlyCost = "max_hourly_cost_usd"
	// ReasonDeadline: wall-clock above deadline_hours.
	ReasonDeadline = "deadline_hours"
	// ReasonMaxTotalCost: estimated cost above max_total_cost_usd.
	ReasonMaxTotalCost = "max_total_cost_usd"
	// ReasonMaxCO2e: estimated CO2e above max_co2e_kg.
	ReasonMaxCO2e = "max_co2e_kg"
	// ReasonEstimateFailed: the benchmark or cost model could not price the
	// candidate (a catalog gap, never expected with the built-in catalog).
	ReasonEstimateFailed = "estimate_failed"
)

// Reasons lists every rejection reason in filter order. It is an array,
// so counters indexed by reason are sized by len(Reasons).
var Reasons = [...]string{
	ReasonProviderClouds, ReasonClouds, ReasonRegions, ReasonGeographies, ReasonCountries, ReasonCompliance,
	ReasonPartitionNotRequested, ReasonAccelerators, ReasonInferenceOnly, ReasonStackMethod, ReasonStackPrecision, ReasonPricingModels,
	ReasonMinGPUMemory, ReasonMinNetwork, ReasonFractionalGPU, ReasonServerlessInferenceOnly, ReasonSoftwareStacks, ReasonPrecisionUnsupported, ReasonDoesNotFit, ReasonNoFabric, ReasonLatency,
	ReasonMaxNodes, ReasonMaxGPUs, ReasonSpotNeverFinishes, ReasonMaxHourlyCost, ReasonDeadline, ReasonMaxTotalCost,
	ReasonMaxCO2e, ReasonEstimateFailed,
}

// reasonCounts counts (offer, pricing model) pairs per reason, indexed
// like Reasons.
type reasonCounts [len(Reasons)]int

// reasonIndex maps a reason to its position in Reasons (the last, for a
// string that is no reason).
func reasonIndex(r string) int {
	if i, ok := reasonIndexes[r]; ok {
		return i
	}
	return len(Reasons) - 1
}

// reasonIndexes maps each reason to its position in Reasons: scan counts
// thousands of rejected offers per recommendation.
var reasonIndexes = func() map[string]int {
	m := make(map[string]int, len(Reasons))
	for i := len(Reasons) - 1; i >= 0; i-- { // the first of equal strings wins, as a scan would
		m[Reasons[i]] = i
	}
	return m
}()

// Reason indexes of the numeric limits, for the hot loop.
var (
	reasonMaxHourlyCostIdx = reasonIndex(ReasonMaxHourlyCost)
	reasonDeadlineIdx      = reasonIndex(ReasonDeadline)
	reasonMaxTotalCostIdx  = reasonIndex(ReasonMaxTotalCost)
	reasonMaxCO2eIdx       = reasonIndex(ReasonMaxCO2e)
)

// reasonPath is the attribute that carries the constraint behind a
// reason; empty for reasons no attribute of the data source names.
func reasonPath(reason string) inputerr.Path {
	constraints := inputerr.Root("constraints")
	workload := inputerr.Root("workload")
	switch reason {
	case ReasonProviderClouds, ReasonEstimateFailed, ReasonPartitionNotRequested:
		return inputerr.Path{}
	case ReasonSpotNeverFinishes:
		return constraints.Name("pricing_models")
	case ReasonPrecisionUnsupported:
		return workload.Name("precision")
	case ReasonFractionalGPU, ReasonServerlessInferenceOnly, ReasonInferenceOnly:
		return workload.Name("kind")
	case ReasonStackMethod:
		return workload.Name("fine_tuning_method")
	case ReasonStackPrecision:
		return workload.Name("precision")
	case ReasonDoesNotFit:
		return workload.Name("model_parameters_b")
	case ReasonNoFabric:
		return constraints
	case ReasonLatency:
		return workload.Name("max_time_per_output_token_ms")
	}
	// Every other reason is named after its constraint attribute.
	return constraints.Name(reason)
}
