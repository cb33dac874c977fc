// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/cost"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
	"github.com/gpuplan/terraform-provider-gpu/internal/planner"
)

// TestRecommendationCostEqualsTCO: for every pricing model, a
// recommendation's cost, hourly price, CO2e and carbon cost are what
// gpu_tco (cost.TCO) bills the same fleet: its nodes as instance_count,
// that pricing model only, the job's useful hours (or the inference
// pricing horizon, around the clock; a serverless offer at the workload's
// duty cycle) as the horizon, with the same discount, carbon price and
// workload kind. Random workloads, discounts and carbon prices on the
// built-in catalog. Spot serving differs by design (cost/doc.go: TCO bills
// a spot fleet as one synchronous job with rework, a recommendation
// carries spare nodes instead), so its cost is TCO's without the rework
// factor.
func TestRecommendationCostEqualsTCO(t *testing.T) {
	t.Parallel()
	p, m := builtin(t)
	cat := p.Catalog()
	cm, pol := models(t)
	rng := rand.New(rand.NewPCG(22, 2))
	compared := map[catalog.PricingModel]int{}
	for i := range 24 {
		w := randomWorkload(rng)
		prep, err := m.Prepare(w, perf.ValidateOptions{})
		if err != nil {
			t.Fatalf("case %d: %+v: %v", i, w, err)
		}
		discounts := map[string]float64{"aws": rng.Float64() / 2, "gcp": rng.Float64() / 2, "azure": rng.Float64() / 2}
		carbon := rng.Float64() * 200
		for _, pm := range catalog.AllPricingModels {
			req := planner.Request{Estimator: prep, Constraints: planner.Constraints{PricingModels: []catalog.PricingModel{pm}},
				Objective: planner.ObjectiveCost, Top: 8, Discounts: discounts, CarbonPriceUSDPerTonne: carbon}
			res, err := p.Recommend(req)
			var nc *planner.NoCandidateError
			if errors.As(err, &nc) {
				continue // e.g. serverless for a job, capacity blocks too small
			} else if err != nil {
				t.Fatalf("case %d %s: %v", i, pm, err)
			}
			for _, c := range res.Candidates {
				in := tcoInputOf(t, cat, cm, pol, w.Kind, prep.Workload().DutyCycle, c)
				in.Discount, in.CarbonPriceUSDPerTonne = discounts[c.Cloud], carbon
				tco, err := cm.TCO(in)
				if err != nil {
					t.Fatalf("case %d %s %s/%s/%s: TCO: %v", i, pm, c.Cloud, c.Region, c.InstanceType, err)
				}
				compareWithTCO(t, w.Kind, c, in, tco)
				compared[pm]++
			}
		}
	}
	for _, pm := range catalog.AllPricingModels {
		if compared[pm] == 0 {
			t.Errorf("no %s candidate compared: the random workloads miss it", pm)
		}
	}
	t.Logf("candidates compared per pricing model: %v", compared)
}

// randomWorkload is a valid workload of a random kind and size.
func randomWorkload(rng *rand.Rand) perf.Workload {
	params := math.Round(math.Exp(rng.Float64()*5)*10) / 10 // 1 B to 148 B
	switch rng.IntN(3) {
	case 0:
		return perf.Workload{Kind: perf.KindTraining, ModelParametersB: params, TrainingTokensB: math.Exp(rng.Float64()*6 - 2)}
	case 1:
		return perf.Workload{Kind: perf.KindFineTuning, ModelParametersB: params, TrainingTokensB: math.Exp(rng.Float64()*4 - 2),
			FineTuningMethod: []string{"lora", "qlora", "full"}[rng.IntN(3)]}
	}
	duty := 1.0
	if rng.IntN(2) == 0 {
		duty = math.Exp(-rng.Float64() * 5) // 0.7 % to 100 %
	}
	return perf.Workload{Kind: perf.KindInference, ModelParametersB: params, TokensPerSecond: math.Exp(4 + rng.Float64()*6),
		DutyCycle: duty}
}

// tcoInputOf is the gpu_tco input of a candidate's fleet.
func tcoInputOf(t *testing.T, cat *catalog.Catalog, cm *cost.Model, pol *planner.Policy, kind string, duty float64,
	c planner.Candidate) cost.Input {
	t.Helper()
	cl, _ := cat.Cloud(c.Cloud)
	rg, _ := cat.Region(c.Cloud, c.Region)
	acc, _ := cat.Accelerator(c.Accelerator)
	in := cost.Input{Cloud: cl, Region: rg, Accelerator: acc, InstanceCount: c.Nodes, Utilization: 1,
		PricingMix: map[catalog.PricingModel]float64{c.PricingModel: 1}, Workload: kind}
	if c.PricingModel == catalog.Serverless {
		in.Serverless, _ = cat.ServerlessOffer(c.Cloud, c.InstanceType, c.Region)
		in.Utilization = duty
	} else {
		in.Offer = offerOf(t, cat, c)
	}
	if kind == perf.KindInference {
		in.Months = pol.InferenceHorizonMonths
		return in
	}
	hours := c.EstimatedHours // wall-clock, with spot rework: back to the useful hours
	if c.PricingModel == catalog.Spot {
		hours /= cm.SpotRiskFactor(cl, c.Nodes)
	}
	in.Months = hours / cm.HoursPerMonth
	if lim, _ := catalog.InputLimit(catalog.LimitMonths); in.Months < lim.Min {
		// A job shorter than gpu_tco's shortest horizon: that horizon,
		// used the job's share of it.
		in.Months = lim.Min
		in.Utilization = hours / (in.Months * cm.HoursPerMonth)
	}
	return in
}

// compareWithTCO compares a candidate with the TCO of its fleet (per month
// for inference).
func compareWithTCO(t *testing.T, kind string, c planner.Candidate, in cost.Input, tco cost.Result) {
	t.Helper()
	if len(tco.Compute) != 1 {
		t.Fatalf("TCO compute lines %v, want one", tco.Compute)
	}
	line := tco.Compute[0]
	per := 1.0
	if kind == perf.KindInference {
		per = in.Months
	}
	want := line.USD / per
	if kind == perf.KindInference && c.PricingModel == catalog.Spot {
		want /= tco.SpotRiskFactor // serving: spare nodes, no rework
	}
	billed := float64(line.ReservedInstances)
	if billed == 0 {
		billed = float64(in.InstanceCount)
	}
	where := string(c.PricingModel) + " " + c.Cloud + "/" + c.Region + "/" + c.InstanceType
	near(t, where+" cost", c.EstimatedCostUSD, want)
	near(t, where+" hourly", c.HourlyCostUSD, line.HourlyUSD*billed)
	co2, carbon := tco.CO2eKg/per, tco.CarbonCostUSD/per
	if kind == perf.KindInference && c.PricingModel == catalog.Spot {
		co2, carbon = co2/tco.SpotRiskFactor, carbon/tco.SpotRiskFactor
	}
	near(t, where+" CO2e", c.EstimatedCO2eKg, co2)
	near(t, where+" carbon cost", c.CarbonCostUSD, carbon)
}

// near fails unless got equals want to 1e-9 relative (float association
// of the same products).
func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
		t.Errorf("%s: recommendation %v, gpu_tco %v", what, got, want)
	}
}
