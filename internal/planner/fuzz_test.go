// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner_test

import (
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/fuzzutil"
	"github.com/gpuplan/terraform-provider-gpu/internal/inputerr"
	"github.com/gpuplan/terraform-provider-gpu/internal/numfmt"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
	"github.com/gpuplan/terraform-provider-gpu/internal/planner"
)

// recommendInput is one fuzzed gpu_recommendation: the workload's numbers,
// the numeric constraints, and the provider-level carbon price and
// discount.
type recommendInput struct {
	kind, objective, accel, cloud                 uint8
	params, tokens, tps, ttft, tpot               float64
	seq, input, output                            int64
	maxHourly, maxTotal, deadline, maxCO2, minMem float64
	minNet, carbon, discount                      float64
	maxGPUs, maxNodes, top                        int64
}

// recommendSeeds are the examples' and tests' recommendations, and the
// numbers that broke the providers' inputs before (0, negatives, NaN, ±Inf,
// 1e308, 2^62).
func recommendSeeds() []recommendInput {
	nan, inf := math.NaN(), math.Inf(1)
	return []recommendInput{
		// examples/recommendation: Llama 70B LoRA fine-tuning under a budget;
		// serving an 8B model; pre-training 8B with a deadline.
		{kind: 1, params: 70, tokens: 1, maxTotal: 5000, top: 3},
		{kind: 2, params: 8, tps: 5000, tpot: 50, objective: 1, accel: 1},
		{kind: 0, params: 8, tokens: 100, deadline: 720, maxNodes: 16, objective: 3, carbon: 80, discount: 0.1, cloud: 1},
		{kind: 2, params: 70, tps: 20000, tpot: 50, ttft: 2000, maxGPUs: 64, objective: 2, cloud: 2},
		// The extremes.
		{kind: 0, params: 1e308, tokens: 1e308, maxGPUs: 1 << 62, maxNodes: 1 << 62, top: 1 << 62},
		{kind: 2, params: 7, tps: 1e308, tpot: 5e-324, ttft: 1e308, seq: math.MaxInt64, input: 1 << 62, output: 1 << 62},
		{kind: 1, params: nan, tokens: inf, maxHourly: -inf, maxTotal: nan, deadline: -1, maxCO2: inf, minMem: nan, minNet: -inf},
		{kind: 2, params: 1e5, tps: 1e9, maxNodes: 1000000, maxGPUs: 1000000, carbon: 1e308, discount: 1},
		{kind: 0, params: 0, tokens: 0, tps: -1, top: -1, maxNodes: -1, maxGPUs: -(1 << 62), carbon: -1, discount: nan},
		{kind: 3, params: 5e-324, tokens: 5e-324, maxHourly: 5e-324, minMem: 1e308, minNet: 1e308},
	}
}

// FuzzRecommend (make fuzz): whatever the numbers, a recommendation is a
// result, input errors naming the attribute, or a no-candidate error with
// a detail, within a minute; never a panic or a hang. Within the input
// limits the provider enforces (its schema refuses the rest), every number
// of the result is finite.
func FuzzRecommend(f *testing.F) {
	for _, s := range recommendSeeds() {
		f.Add(s.kind, s.objective, s.accel, s.cloud, s.params, s.tokens, s.tps, s.ttft, s.tpot, s.seq, s.input, s.output,
			s.maxHourly, s.maxTotal, s.deadline, s.maxCO2, s.minMem, s.minNet, s.carbon, s.discount, s.maxGPUs, s.maxNodes, s.top)
	}
	p, model := builtin(f)
	policy, err := planner.BuiltinPolicy()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, kind, objective, accel, cloud uint8, params, tokens, tps, ttft, tpot float64, seq, input, output int64,
		maxHourly, maxTotal, deadline, maxCO2, minMem, minNet, carbon, discount float64, maxGPUs, maxNodes, top int64) {
		in := recommendInput{kind, objective, accel, cloud, params, tokens, tps, ttft, tpot, seq, input, output,
			maxHourly, maxTotal, deadline, maxCO2, minMem, minNet, carbon, discount, maxGPUs, maxNodes, top}
		fuzzutil.Within(t, time.Minute, func() string { return recommendOnce(p, model, policy, in) })
	})
}

// recommendOnce prepares the workload as the provider does and asks for a
// recommendation, returning what is wrong with the answer ("" when
// nothing is).
func recommendOnce(p *planner.Planner, model *perf.Model, policy *planner.Policy, in recommendInput) string {
	w := perf.Workload{
		Kind:             []string{perf.KindTraining, perf.KindFineTuning, perf.KindInference, "mining"}[in.kind%4],
		ModelParametersB: in.params, TrainingTokensB: in.tokens, SequenceLength: fuzzutil.Int(in.seq),
		TokensPerSecond: in.tps, InputTokens: fuzzutil.Int(in.input), OutputTokens: fuzzutil.Int(in.output),
		MaxTimeToFirstTokenMs: in.ttft, MaxTimePerOutputTokenMs: in.tpot,
	}
	prep, err := model.Prepare(w, policy.WorkloadOptions())
	if err != nil {
		return inputErrorProblem("Prepare", err)
	}
	clouds := []string{"", "aws", "gcp", "azure"}
	c := planner.Constraints{
		MaxHourlyCostUSD: in.maxHourly, MaxTotalCostUSD: in.maxTotal, DeadlineHours: in.deadline, MaxCO2eKg: in.maxCO2,
		MinGPUMemoryGB: in.minMem, MinNetworkGbps: in.minNet, MaxGPUs: fuzzutil.Int(in.maxGPUs), MaxNodes: fuzzutil.Int(in.maxNodes),
	}
	if a := []string{"", "H100", "A100-80GB", "L4", "MI300X", "B200"}[in.accel%6]; a != "" {
		c.Accelerators = []string{a}
	}
	req := planner.Request{Estimator: prep, Constraints: c, Objective: planner.Objectives[int(in.objective)%len(planner.Objectives)],
		Top: fuzzutil.Int(in.top), CarbonPriceUSDPerTonne: in.carbon, TradeOffs: true,
		Relimit: modelRelimit(model, w, policy.WorkloadOptions())}
	if cl := clouds[in.cloud%4]; cl != "" {
		req.AllowedClouds, req.Discounts = []string{cl}, map[string]float64{cl: in.discount}
	}
	res, err := p.Recommend(req)
	var nc *planner.NoCandidateError
	switch {
	case err == nil:
		if len(res.Candidates) == 0 || res.Best.Explanation == "" {
			return "a result without candidates or explanation"
		}
		// Score ranks, and is +Inf for an unknown CO2e under the carbon
		// objective (unknown figures last); it is not an output.
		res.Best.Score = 0
		for i := range res.Candidates {
			res.Candidates[i].Score = 0
		}
		if res.TradeOffs == nil {
			return "no trade-offs"
		}
		if !fuzzutil.WorkloadWithinLimits(w) || !in.withinLimits() {
			return ""
		}
		return numfmt.NonFinite(res, "Result")
	case errors.As(err, &nc):
		if nc.Detail == "" {
			return "a no-candidate error without detail"
		}
		return ""
	}
	return inputErrorProblem("Recommend", err)
}

// inputErrorProblem says what is wrong with an error that should be input
// errors naming their attributes ("" when nothing is).
func inputErrorProblem(what string, err error) string {
	errs := inputerr.From(err)
	if len(errs) == 0 {
		return fmt.Sprintf("%s: %v (%T), want input errors", what, err, err)
	}
	for _, e := range errs {
		if e.Path.IsEmpty() || e.Detail == "" {
			return fmt.Sprintf("%s: input error without attribute or detail: %v", what, e)
		}
	}
	return ""
}

// withinLimits reports whether every number of the constraints and the
// provider settings is within the input limit the provider's schema
// applies to it.
func (in recommendInput) withinLimits() bool {
	return fuzzutil.WithinLimits(
		fuzzutil.Set{Limit: catalog.LimitHourlyCostUSD, V: in.maxHourly},
		fuzzutil.Set{Limit: catalog.LimitTotalCostUSD, V: in.maxTotal},
		fuzzutil.Set{Limit: catalog.LimitHours, V: in.deadline},
		fuzzutil.Set{Limit: catalog.LimitCO2eKg, V: in.maxCO2},
		fuzzutil.Set{Limit: catalog.LimitAcceleratorMemoryGB, V: in.minMem},
		fuzzutil.Set{Limit: catalog.LimitNetworkGbps, V: in.minNet},
		fuzzutil.Set{Limit: catalog.LimitCarbonPriceUSDPerTonne, V: in.carbon},
		fuzzutil.Set{Limit: catalog.LimitDiscountFraction, V: in.discount},
		fuzzutil.Set{Limit: catalog.LimitGPUCount, V: float64(in.maxGPUs)},
		fuzzutil.Set{Limit: catalog.LimitNodeCount, V: float64(in.maxNodes)},
	)
}
