// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
)

// Policy holds the planner's policy numbers, read from
// internal/catalog/data/planner_policy.json (provenance in SOURCES.md).
type Policy struct {
	// BalancedWeights weigh cost, time and carbon in the balanced objective.
	BalancedWeights struct{ Cost, Time, Carbon float64 }
	// DefaultMaxNodes bounds the training node counts tried when
	// constraints.max_nodes is not set.
	DefaultMaxNodes int
	// MaxServingUnits bounds the serving units of an inference deployment
	// when constraints.max_nodes is not set.
	MaxServingUnits int
	// InferenceHorizonMonths is the period inference is priced over
	// (reported per month).
	InferenceHorizonMonths float64
	// SpotServingMinSpareUnits is the fewest spare serving units an
	// inference deployment on spot carries (cost.Model.SpotServingSpares).
	SpotServingMinSpareUnits int
	// DefaultTop and MaxTop: candidates returned when Request.Top is 0, and
	// the largest accepted Request.Top.
	DefaultTop, MaxTop int
	// RelativeTolerance is the float error forgiven before rounding a count
	// up, and the epsilon of the balanced objective's ratios.
	RelativeTolerance float64
	// SpotRiskMention: a spot training candidate's explanation mentions its
	// rework factor above this.
	SpotRiskMention float64
	// DefaultMaxTimePerOutputTokenMs is the p99 limit on time per output
	// token a serving recommendation applies when the workload sets none
	// (see WorkloadOptions).
	DefaultMaxTimePerOutputTokenMs float64
	// TypicalRegionQuotaGPUs is an assumption: the GPUs one account can
	// typically run on demand or on spot in one region without asking the
	// cloud. Candidates above it are flagged (Candidate.BeyondTypicalQuota).
	TypicalRegionQuotaGPUs int
}

// WorkloadOptions are the options a recommendation's workload is
// validated and prepared with (perf.Model.Prepare, which applies every
// default once): tokens_per_second is required for inference, and an
// inference workload that sets no latency limit gets the policy's, so a
// serving recommendation is interactive unless the user asks otherwise.
func (p *Policy) WorkloadOptions() perf.ValidateOptions {
	return perf.ValidateOptions{RequireTokensPerSecond: true, DefaultMaxTimePerOutputTokenMs: p.DefaultMaxTimePerOutputTokenMs}
}

type policyNum struct {
	Value *float64 `json:"value"`
}

type policyJSON struct {
	BalancedWeights struct {
		Cost   policyNum `json:"cost"`
		Time   policyNum `json:"time"`
		Carbon policyNum `json:"carbon"`
	} `json:"balanced_weights"`
	DefaultMaxNodes        policyNum `json:"default_max_nodes"`
	MaxServingUnits        policyNum `json:"max_serving_units"`
	InferenceHorizonMonths policyNum `json:"inference_pricing_horizon_months"`
	SpotServingMinSpare    policyNum `json:"spot_serving_min_spare_units"`
	DefaultTop             policyNum `json:"default_top"`
	MaxTop                 policyNum `json:"max_top"`
	RelativeTolerance      policyNum `json:"relative_tolerance"`
	SpotRiskMention        policyNum `json:"spot_risk_mention"`
	DefaultMaxTPOTMs       policyNum `json:"default_max_time_per_output_token_ms"`
	TypicalRegionQuotaGPUs policyNum `json:"typical_region_quota_gpus"`
}

var (
	policyOnce sync.Once
	thePolicy  *Policy
	policyErr  error
)

// BuiltinPolicy returns the built-in policy, parsed once.
func BuiltinPolicy() (*Policy, error) {
	policyOnce.Do(func() {
		raw, err := catalog.ReadDataFile("planner_policy.json")
		if err != nil {
			policyErr = fmt.Errorf("planner: reading planner_policy.json: %w", err)
			return
		}
		thePolicy, policyErr = ParsePolicy(raw)
	})
	return thePolicy, policyErr
}

// ParsePolicy parses policy numbers in the planner_policy.json format.
func ParsePolicy(raw []byte) (*Policy, error) {
	var pj policyJSON
	if err := json.Unmarshal(raw, &pj); err != nil {
		return nil, fmt.Errorf("planner: parsing planner_policy.json: %w", err)
	}
	var errs []string
	num := func(name string, n policyNum) float64 {
		if n.Value == nil || !(*n.Value > 0) {
			errs = append(errs, name)
			return 0
		}
		return *n.Value
	}
	integer := func(name string, n policyNum) int {
		v := num(name, n)
		if v != float64(int(v)) {
			errs = append(errs, name)
		}
		return int(v)
	}
	// count accepts 0 (an integer >= 0).
	count := func(name string, n policyNum) int {
		if n.Value == nil || !(*n.Value >= 0) || *n.Value != float64(int(*n.Value)) {
			errs = append(errs, name)
			return 0
		}
		return int(*n.Value)
	}
	p := &Policy{
		DefaultMaxNodes:                integer("default_max_nodes", pj.DefaultMaxNodes),
		MaxServingUnits:                integer("max_serving_units", pj.MaxServingUnits),
		InferenceHorizonMonths:         num("inference_pricing_horizon_months", pj.InferenceHorizonMonths),
		SpotServingMinSpareUnits:       count("spot_serving_min_spare_units", pj.SpotServingMinSpare),
		DefaultTop:                     integer("default_top", pj.DefaultTop),
		MaxTop:                         integer("max_top", pj.MaxTop),
		RelativeTolerance:              num("relative_tolerance", pj.RelativeTolerance),
		SpotRiskMention:                num("spot_risk_mention", pj.SpotRiskMention),
		DefaultMaxTimePerOutputTokenMs: num("default_max_time_per_output_token_ms", pj.DefaultMaxTPOTMs),
		TypicalRegionQuotaGPUs:         integer("typical_region_quota_gpus", pj.TypicalRegionQuotaGPUs),
	}
	p.BalancedWeights.Cost = num("balanced_weights.cost", pj.BalancedWeights.Cost)
	p.BalancedWeights.Time = num("balanced_weights.time", pj.BalancedWeights.Time)
	p.BalancedWeights.Carbon = num("balanced_weights.carbon", pj.BalancedWeights.Carbon)
	if len(errs) > 0 {
		return nil, fmt.Errorf("planner: planner_policy.json: %v must be positive numbers (integers for counts; spot_serving_min_spare_units an integer >= 0)", errs)
	}
	if p.DefaultTop > p.MaxTop {
		return nil, fmt.Errorf("planner: planner_policy.json: default_top %d exceeds max_top %d", p.DefaultTop, p.MaxTop)
	}
	return p, nil
}

// mustPolicy is BuiltinPolicy for the exported package variables; the
// embedded file is checked by the tests, so a failure is a build defect.
func mustPolicy() *Policy {
	p, err := BuiltinPolicy()
	if err != nil {
		panic(err)
	}
	return p
}
