// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner

import (
	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/inputerr"
)

// Objective is what the ranking minimises.
type Objective string

// The objectives.
const (
	// ObjectiveCost ranks by estimated total cost of the job (training,
	// fine-tuning) or monthly cost of serving the target (inference).
	ObjectiveCost Objective = "cost"
	// ObjectiveTime ranks by wall-clock hours (training, fine-tuning) or by
	// time per output token (inference: the latency a user sees).
	ObjectiveTime Objective = "time"
	// ObjectiveCarbon ranks by estimated kg CO2e.
	ObjectiveCarbon Objective = "carbon"
	// ObjectiveBalanced ranks by a weighted blend of cost, time and carbon,
	// each normalised to the best feasible value (see Policy.BalancedWeights).
	ObjectiveBalanced Objective = "balanced"
)

// Objectives lists every objective, in documentation order.
var Objectives = []Objective{ObjectiveCost, ObjectiveTime, ObjectiveCarbon, ObjectiveBalanced}

// ObjectiveNames lists the objectives as strings, in documentation order.
func ObjectiveNames() []string {
	out := make([]string, len(Objectives))
	for i, o := range Objectives {
		out[i] = string(o)
	}
	return out
}

// DistinctBy says which candidates count as one row of the answer.
type DistinctBy string

// The ways candidates are made distinct.
const (
	// DistinctInstanceType: one candidate per (cloud, instance type), at its
	// best region, node count and pricing model (the default), as an
	// optimizer table shows one row per instance type.
	DistinctInstanceType DistinctBy = "instance_type"
	// DistinctRegion: one candidate per (cloud, instance type, region).
	DistinctRegion DistinctBy = "region"
	// DistinctDeployment: every (offer, node count, pricing model).
	DistinctDeployment DistinctBy = "deployment"
)

// DistinctByValues lists the ways candidates are made distinct, default first.
var DistinctByValues = []string{string(DistinctInstanceType), string(DistinctRegion), string(DistinctDeployment)}

// Constraints restrict the candidates. Zero values and nil slices mean
// "no constraint"; an empty non-nil PricingModels allows none.
type Constraints struct {
	Clouds        []string
	Regions       []string
	Geographies   []string
	Countries     []string // ISO 3166-1 alpha-2, any case
	Accelerators  []string // canonical IDs or aliases
	PricingModels []catalog.PricingModel

	MaxHourlyCostUSD float64 // whole deployment (all nodes), after discounts
	MaxTotalCostUSD  float64 // job total (inference: monthly)
	DeadlineHours    float64 // wall-clock, spot risk-adjusted
	MaxGPUs          int
	MaxNodes         int
	MinGPUMemoryGB   float64 // per accelerator
	MinNetworkGbps   float64 // per node scale-out bandwidth
	Compliance       []string
	MaxCO2eKg        float64
	// SoftwareStacks are the stacks the team runs (cuda, rocm, xla,
	// neuron, gaudi; any case); nil = the catalog's default, ["cuda"].
	SoftwareStacks []string
	// Near is a geography or a country (code or name) whose regions win
	// ties: equal score and CO2e; "" = none.
	Near string
}

// Request is one recommendation question. The workload is the
// estimator's: validated and given its defaults before it gets here.
type Request struct {
	Estimator   Estimator
	Constraints Constraints
	Objective   Objective  // default cost
	Top         int        // default Policy.DefaultTop
	DistinctBy  DistinctBy // default DistinctInstanceType

	// Provider-level settings.
	AllowedClouds          []string           // nil = every cloud
	Discounts              map[string]float64 // cloud -> fraction off list price
	CarbonPriceUSDPerTonne float64

	// TradeOffs asks for Result.TradeOffs: what the deadline or the
	// latency limits cost (tradeoffs.go), from the same search.
	TradeOffs bool
	// Relimit prepares the workload again under other p99 latency limits
	// for the serving trade-offs; nil gives only the request's own row.
	Relimit Relimit

	// cheapestOnly: only Result.Best matters (a serving trade-off row), so
	// the search skips hardware that cannot beat the cheapest candidate
	// found (physicsCheapest); the counts and the other candidates are
	// partial.
	cheapestOnly bool
	// exhaustive: bill every candidate, pruning none (prune.go), and keep
	// a job's trade-off candidates for cheapestEach instead of streaming
	// its rows (rows.go); the tests compare the answers.
	exhaustive bool
	// seedGroup+1 (with cheapestOnly): a group to evaluate first; 0 none.
	seedGroup int
	// perNode (with cheapestOnly): run.perNodeMonth of the request, which
	// the trade-off rows share; nil computes it.
	perNode []float64
}

// Candidate is one ranked deployment.
type Candidate struct {
	Cloud        string
	Region       string
	Country      string // ISO 3166-1 alpha-2 of the region
	InstanceType string
	Accelerator  string
	// SoftwareStack is the accelerator's stack (cuda, rocm, xla, neuron, gaudi).
	SoftwareStack string
	GPUsPerNode   int // whole GPUs per node; 0 for a fractional instance
	// GPUFraction is a fractional instance's share of one GPU (0 for whole GPUs).
	GPUFraction  float64
	Nodes        int
	TotalGPUs    int
	PricingModel catalog.PricingModel
	// HourlyCostUSD is the price of all nodes for one hour, after discounts.
	HourlyCostUSD float64
	// EstimatedHours is the wall-clock of the job (spot: risk-adjusted);
	// for inference it is the serving period priced, one month.
	EstimatedHours float64
	// EstimatedCostUSD is what the cloud bills: the job's compute
	// (inference: per month), without the carbon cost.
	EstimatedCostUSD float64
	EstimatedCO2eKg  float64
	// CO2eKnown is false when the catalog lacks the accelerator's power or
	// the region's grid intensity: EstimatedCO2eKg is then 0 and meaningless.
	CO2eKnown bool
	// CarbonCostUSD is EstimatedCO2eKg at the provider's carbon price
	// (inference: per month); the cost objective ranks by
	// EstimatedCostUSD + CarbonCostUSD.
	CarbonCostUSD   float64
	TokensPerSecond float64
	MemoryPerGPUGB  float64
	Replicas        int
	// SpareNodes and SpareReplicas are the spare capacity of an inference
	// deployment on spot (included in Nodes, TotalGPUs, Replicas,
	// TokensPerSecond and the cost): enough serving units that the expected
	// units down to interruptions are covered, at least the policy's
	// spot_serving_min_spare_units. 0 otherwise.
	SpareNodes    int
	SpareReplicas int
	// TTFTMs and TPOTMs are the 99th percentiles of the latencies the
	// deployment was sized for (inference), what the limits bound.
	TTFTMs float64
	TPOTMs float64
	// Concurrency is the sequences in flight at the target rate
	// (inference; Little's law: the target's requests/s × the mean time a
	// request spends from arrival to its last token). 0 for jobs.
	Concurrency float64
	// BeyondTypicalQuota is true when an on-demand or spot candidate needs
	// more GPUs in its region than an account's quota typically allows
	// without a request (Policy.TypicalRegionQuotaGPUs, an assumption).
	BeyondTypicalQuota bool
	// BeyondSpotCapacity is true when a spot candidate needs more GPUs in
	// its region than spot typically yields one account at once
	// (Policy.TypicalRegionSpotCapacityGPUs, an assumption).
	BeyondSpotCapacity bool
	// Serving is how an inference deployment serves (nil for training and
	// fine-tuning): the whole deployment's prefill and decode workers.
	Serving     *ServingLayout
	Explanation string

	// Score is the objective's value (lower is better).
	Score float64
	// binding is the benchmark model's binding resource (perf.Bind*).
	binding string
	offer   *offerInfo
}

// ServingLayout is how an inference deployment serves: Mode is
// perf.ServingAggregated (every replica prefills and decodes) or
// perf.ServingDisaggregated (PrefillWorkers workers of PrefillGPUs GPUs in
// all hand prompts' KV caches to DecodeWorkers workers of DecodeGPUs GPUs);
// the counts are for the whole deployment, spares included.
// ExpertParallel is a replica's expert-parallel width (0 = tensor-parallel).
type ServingLayout struct {
	Mode                          string
	PrefillGPUs, DecodeGPUs       int
	PrefillWorkers, DecodeWorkers int
	ExpertParallel                int
}

// Rejection counts the (offer, pricing model) pairs rejected for one reason.
type Rejection struct {
	Reason string
	Count  int
}

// Result is the planner's answer.
type Result struct {
	Best       Candidate
	Candidates []Candidate
	Rejected   []Rejection
	// Feasible is the number of candidates that passed every filter.
	Feasible    int
	CatalogDate string
	// LeftOut is the cheapest candidate (cost plus carbon cost) that only
	// constraints.software_stacks removed, when it is cheaper than Best;
	// nil otherwise. Best's explanation says what it would cost and how to
	// allow it.
	LeftOut *Candidate
	// TradeOffs is what the request's limit costs, when Request.TradeOffs
	// asked for it; nil otherwise.
	TradeOffs *TradeOffs
}

// NoCandidateError is returned when no candidate survives: Path is the
// attribute of the binding constraint (constraints.deadline_hours, say),
// Reason its rejection reason, and Detail names the nearest miss.
type NoCandidateError struct {
	Path     inputerr.Path
	Reason   string
	Detail   string
	Rejected []Rejection
}

func (e *NoCandidateError) Error() string { return e.Detail }
