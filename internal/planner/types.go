// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

// Package planner recommends GPU infrastructure for a workload: it
// enumerates every catalog offer × node count × pricing model, filters the
// candidates by the user's constraints and by physics (memory fit, a
// scale-out fabric for multi-node training, the inference throughput and
// latency targets), scores the survivors by an objective and explains the
// ranking. It is pure Go: no terraform-plugin imports.
//
// The benchmark model and the cost model are reached through two small
// interfaces, Estimator and Coster, so the planner can be tested with fakes
// and bound to internal/perf and internal/cost by the adapters in perf.go
// and cost.go.
package planner

import (
	"fmt"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
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
	// each normalised to the best feasible value (see BalancedWeights).
	ObjectiveBalanced Objective = "balanced"
)

// Objectives lists every objective, in documentation order.
var Objectives = []Objective{ObjectiveCost, ObjectiveTime, ObjectiveCarbon, ObjectiveBalanced}

// BalancedWeights are the weights of the balanced objective, from
// planner_policy.json (balanced_weights; 0.5, 0.3 and 0.2 built in). A
// candidate's balanced score is
//
//	w_cost·cost/min_cost + w_time·time/min_time + w_carbon·co2e/min_co2e
//
// over the feasible candidates (a value of 1 means "as good as the best on
// that axis"); lower is better. The planner scores with its Policy; this
// variable reports the built-in one.
var BalancedWeights = mustPolicy().BalancedWeights

// Workload kinds.
const (
	KindTraining   = "training"
	KindFineTuning = "fine_tuning"
	KindInference  = "inference"
)

// Compliance regimes understood by Constraints.Compliance.
var ComplianceRegimes = []string{
	catalog.ComplianceGDPR, catalog.ComplianceUKGDPR, catalog.ComplianceSwissFADP,
	catalog.ComplianceMLPS2, catalog.ComplianceFedRAMPHigh, catalog.ComplianceHIPAA,
}

// Constraints restrict the candidates. Zero values and nil slices mean
// "no constraint".
type Constraints struct {
	Clouds        []string
	Regions       []string
	Geographies   []string
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
}

// Workload is what the planner needs to know about the workload itself; the
// benchmark questions go through the Estimator bound to the same workload.
type Workload struct {
	Kind string // training, fine_tuning, inference
	// TokensPerSecond is the aggregate output tokens/s target (inference).
	TokensPerSecond float64
	// TrainingTokensB is the number of training tokens in billions
	// (training, fine-tuning), used in explanations only.
	TrainingTokensB float64
	// ModelParametersB is the model size in billions, used in messages only.
	ModelParametersB float64
}

// Request is one recommendation question.
type Request struct {
	Workload    Workload
	Estimator   Estimator
	Constraints Constraints
	Objective   Objective // default cost
	Top         int       // default 5

	// Provider-level settings.
	AllowedClouds          []string           // nil = every cloud
	Discounts              map[string]float64 // cloud -> fraction off list price
	CarbonPriceUSDPerTonne float64
}

// Candidate is one ranked deployment.
type Candidate struct {
	Cloud        string
	Region       string
	InstanceType string
	Accelerator  string
	GPUsPerNode  int
	Nodes        int
	TotalGPUs    int
	PricingModel catalog.PricingModel
	// HourlyCostUSD is the price of all nodes for one hour, after discounts.
	HourlyCostUSD float64
	// EstimatedHours is the wall-clock of the job (spot: risk-adjusted);
	// for inference it is the serving period priced, one month.
	EstimatedHours   float64
	EstimatedCostUSD float64
	EstimatedCO2eKg  float64
	// CO2eKnown is false when the catalog lacks the accelerator's power or
	// the region's grid intensity: EstimatedCO2eKg is then 0 and meaningless.
	CO2eKnown       bool
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
	TTFTMs        float64
	TPOTMs        float64
	Explanation   string

	// Score is the objective's value (lower is better).
	Score float64
	bound string
	offer *offerInfo
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
}

// InputError is a bad input tied to the constraint attribute carrying it
// (Field in dotted form, relative to the data source: "constraints.regions[2]",
// "workload.tokens_per_second", "objective").
type InputError struct {
	Field   string
	Summary string
	Detail  string
}

func (e *InputError) Error() string { return e.Field + ": " + e.Detail }

// InputErrors is a list of input errors, reported together.
type InputErrors []*InputError

func (e InputErrors) Error() string {
	if len(e) == 0 {
		return "no error"
	}
	if len(e) == 1 {
		return e[0].Error()
	}
	return fmt.Sprintf("%s (and %d more)", e[0].Error(), len(e)-1)
}

// NoCandidateError is returned when no candidate survives: it names the
// binding constraint (Field, e.g. "constraints.deadline_hours") and the
// nearest miss in Detail.
type NoCandidateError struct {
	Field    string
	Reason   string
	Detail   string
	Rejected []Rejection
}

func (e *NoCandidateError) Error() string { return e.Detail }
