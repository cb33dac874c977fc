// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner_test

import (
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
	"github.com/gpuplan/terraform-provider-gpu/internal/planner"
)

// TestSpotServingOnlyWhenNamed: serving defaults to capacity that is not
// taken away (no spot candidate, spot counted under pricing_models);
// naming spot allows it, with spare replicas said in the explanation.
func TestSpotServingOnlyWhenNamed(t *testing.T) {
	p := fixturePlanner(t)
	req := fixtureRequest(serve8BF, planner.Constraints{}, planner.ObjectiveCost)
	req.Top, req.DistinctBy = planner.MaxTop, planner.DistinctDeployment
	res, err := p.Recommend(req)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Candidates {
		if c.PricingModel == catalog.Spot {
			t.Errorf("%s %s on spot by default", c.Cloud, c.InstanceType)
		}
	}
	if !hasRejection(res.Rejected, planner.ReasonPricingModels) {
		t.Errorf("rejected = %v: spot not counted under pricing_models", res.Rejected)
	}
	res, err = p.Recommend(fixtureRequest(serve8BF, planner.Constraints{PricingModels: []catalog.PricingModel{catalog.Spot}}, planner.ObjectiveCost))
	if err != nil {
		t.Fatal(err)
	}
	if b := res.Best; b.PricingModel != catalog.Spot || b.SpareNodes < 1 || !strings.Contains(b.Explanation, "spot: +") {
		t.Errorf("best %s %s %s, spares %d, explanation %q: want spot with spare replicas explained", b.Cloud, b.InstanceType, b.PricingModel, b.SpareNodes, b.Explanation)
	}
	// A training job still considers spot by default.
	res, err = p.Recommend(fixtureRequest(train8B, planner.Constraints{}, planner.ObjectiveCost))
	if err != nil {
		t.Fatal(err)
	}
	if res.Best.PricingModel != catalog.Spot {
		t.Errorf("training: best %s, want the fixture's cheapest, spot", res.Best.PricingModel)
	}
}

// TestSpotCapacityAndImplausiblePrice: a synchronous job on more spot GPUs
// in one region than the policy's typical spot capacity is flagged (and
// warned about when it is the best), one within it is not; a spot price
// below the policy's share of on-demand is flagged as implausibly low.
func TestSpotCapacityAndImplausiblePrice(t *testing.T) {
	p := fixturePlanner(t)
	pol, err := planner.BuiltinPolicy()
	if err != nil {
		t.Fatal(err)
	}
	spot := []catalog.PricingModel{catalog.Spot}
	req := fixtureRequest(train8B, planner.Constraints{PricingModels: spot}, planner.ObjectiveTime)
	req.Top, req.DistinctBy = planner.MaxTop, planner.DistinctDeployment
	res, err := p.Recommend(req)
	if err != nil {
		t.Fatal(err)
	}
	flagged := 0
	for _, c := range res.Candidates {
		beyond := c.TotalGPUs > pol.TypicalRegionSpotCapacityGPUs
		said := strings.Contains(c.Explanation, "spot GPUs in one region at once for one synchronous job: more than the 64 spot typically yields")
		if c.BeyondSpotCapacity != beyond || said != beyond || (p.SpotCapacityWarning(&c) != "") != beyond {
			t.Errorf("%d spot GPUs: flagged %v, said %v, warning %q", c.TotalGPUs, c.BeyondSpotCapacity, said, p.SpotCapacityWarning(&c))
		}
		if beyond {
			flagged++
		}
	}
	if flagged == 0 || flagged == len(res.Candidates) {
		t.Fatalf("%d of %d candidates beyond the spot capacity: the test needs both kinds", flagged, len(res.Candidates))
	}

	fsys := fixtureFS()
	fsys[catalog.FileOffers].Data = []byte(strings.Replace(string(fsys[catalog.FileOffers].Data),
		"alpha,us-1,a.y1,Y10,1,24,8,64,25,none,0.8,0.3,", "alpha,us-1,a.y1,Y10,1,24,8,64,25,none,0.8,0.1,", 1))
	cat, err := catalog.Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	cheap, err := planner.New(cat, nil)
	if err != nil {
		t.Fatal(err)
	}
	w := perf.Workload{Kind: "inference", ModelParametersB: 8, TokensPerSecond: 200}
	res, err = cheap.Recommend(fixtureRequest(w, planner.Constraints{PricingModels: spot}, planner.ObjectiveCost))
	if err != nil {
		t.Fatal(err)
	}
	implausible := regexp.MustCompile(`spot price 87\.5% off on-demand is implausibly low \(more than 85(\.0)?% off\)`)
	if b := res.Best; b.InstanceType != "a.y1" || !implausible.MatchString(b.Explanation) {
		t.Errorf("best %s: explanation %q does not flag the $0.10 spot price against $0.80 on demand", b.InstanceType, b.Explanation)
	}
	res, err = p.Recommend(fixtureRequest(w, planner.Constraints{PricingModels: spot}, planner.ObjectiveCost))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Best.Explanation, "implausibly") {
		t.Errorf("a spot price 62.5%% off is flagged: %q", res.Best.Explanation)
	}
}

// TestRequestsPerSecondAndConcurrency: a target in requests/s is that many
// requests of output_tokens each, and every serving candidate reports the
// sequences in flight at the target by Little's law (requests/s × the mean
// time from arrival to the last token), said in its explanation.
func TestRequestsPerSecondAndConcurrency(t *testing.T) {
	p := fixturePlanner(t)
	w := perf.Workload{Kind: "inference", ModelParametersB: 8, RequestsPerSecond: 20, OutputTokens: 256}
	req := fixtureRequest(w, planner.Constraints{}, planner.ObjectiveCost)
	if got := req.Estimator.Workload().TokensPerSecond; got != 20*256 {
		t.Fatalf("tokens_per_second %v, want 20 requests/s × 256 tokens", got)
	}
	res, err := p.Recommend(req)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Candidates {
		// The fake model: mean TPOT 30/bandwidth ms, mean TTFT twice that.
		a, _ := p.Catalog().Accelerator(c.Accelerator)
		tpot := 30 / a.MemoryBandwidthTBps
		want := 20 * (2*tpot + 255*tpot) / 1000
		if math.Abs(c.Concurrency-want) > 1e-9 {
			t.Errorf("%s: concurrency %v, want %v", c.InstanceType, c.Concurrency, want)
		}
		if !strings.Contains(c.Explanation, "target (20 requests/s)") || !strings.Contains(c.Explanation, "sequences in flight") {
			t.Errorf("%s: explanation %q lacks the requests/s or the concurrency", c.InstanceType, c.Explanation)
		}
	}
	_, err = p.Recommend(fixtureRequest(perf.Workload{Kind: "training", ModelParametersB: 1, TrainingTokensB: 1}, planner.Constraints{}, planner.ObjectiveCost))
	if err != nil {
		t.Fatal(err)
	}
}
