// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/cost"
	"github.com/gpuplan/terraform-provider-gpu/internal/inputerr"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
	"github.com/gpuplan/terraform-provider-gpu/internal/planner"
)

// TestFixtureCheapestTraining: 8B pre-training on 100B tokens fits one
// 8× X100 node (128 GB); the fake model gives 8 × 900 TFLOPS × 0.5 / (6 ×
// 8e9) = 75,000 tokens/s, 370.37 h. The cheapest is alpha's spot price, $8
// an hour, billed for the hours × the spot rework factor of one node (λ =
// 0.24/24 per hour, checkpoint interval and restart from the cost model).
func TestFixtureCheapestTraining(t *testing.T) {
	p := fixturePlanner(t)
	cm, err := cost.DefaultModel()
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Recommend(fixtureRequest(train8B, planner.Constraints{}, planner.ObjectiveCost))
	if err != nil {
		t.Fatal(err)
	}
	b := res.Best
	hours := 100e9 / 75000 / 3600
	// One node: Λ = 0.01/h; (1/Λ + R)(e^{Λτ} − 1)/τ.
	lambda := 0.24 / 24
	factor := (1/lambda + cm.RestartHours) * math.Expm1(lambda*cm.CheckpointIntervalHours) / cm.CheckpointIntervalHours
	want := hours * factor * 8
	if b.Cloud != "alpha" || b.Region != "us-1" || b.InstanceType != "a.x8" || b.Nodes != 1 || b.PricingModel != catalog.Spot {
		t.Fatalf("best = %s %s %s ×%d %s, want alpha us-1 a.x8 ×1 spot", b.Cloud, b.Region, b.InstanceType, b.Nodes, b.PricingModel)
	}
	if math.Abs(b.EstimatedCostUSD-want) > 0.005 || math.Abs(b.EstimatedHours-hours*factor) > 1e-6 {
		t.Errorf("cost %.4f for %.4f h, want %.4f for %.4f h", b.EstimatedCostUSD, b.EstimatedHours, want, hours*factor)
	}
}

// TestFixtureComplianceAndPartitions: each regime keeps exactly the offers
// of the regions that meet it (the gov and china partitions imply
// fedramp_high and mlps2), and every other (offer, pricing model) pair is
// counted under the compliance reason.
func TestFixtureComplianceAndPartitions(t *testing.T) {
	p := fixturePlanner(t)
	cat := p.Catalog()
	tests := []struct {
		regime  string
		regions []string
	}{
		{"gdpr", []string{"eu-1", "eu-2"}},
		{"fedramp_high", []string{"gov-1"}},
		{"mlps2", []string{"cn-1"}},
		{"hipaa", []string{"us-1", "eu-1", "gov-1"}}, // alpha signs a BAA
	}
	for _, tc := range tests {
		t.Run(tc.regime, func(t *testing.T) {
			// 250 tok/s: one replica on any accelerator that holds 8B.
			w := perf.Workload{Kind: "inference", ModelParametersB: 8, TokensPerSecond: 250}
			req := fixtureRequest(w, planner.Constraints{Compliance: []string{tc.regime}}, planner.ObjectiveCost)
			req.Top = planner.MaxTop
			res, err := p.Recommend(req)
			if err != nil {
				t.Fatal(err)
			}
			outside := 0
			for _, o := range cat.Offers {
				if !slices.Contains(tc.regions, o.Region) {
					outside += len(cost.OfferedModels(o))
				}
			}
			// Serverless workers placed by their platform are in no region
			// (and delta signs no BAA): one serverless pair each.
			outside += len(cat.Serverless)
			for _, c := range res.Candidates {
				if !slices.Contains(tc.regions, c.Region) {
					t.Errorf("candidate in %s", c.Region)
				}
			}
			if got := rejectedFor(res, planner.ReasonCompliance); got != outside {
				t.Errorf("compliance rejected %d pairs, want %d", got, outside)
			}
		})
	}
}

// TestFixtureTieBreak: candidates of equal score come in cloud, region,
// instance type order.
func TestFixtureTieBreak(t *testing.T) {
	p := fixturePlanner(t)
	req := fixtureRequest(train8B, planner.Constraints{PricingModels: []catalog.PricingModel{catalog.OnDemand}}, planner.ObjectiveTime)
	req.Top = planner.MaxTop
	res, err := p.Recommend(req)
	if err != nil {
		t.Fatal(err)
	}
	ties := 0
	for i := 1; i < len(res.Candidates); i++ {
		a, b := res.Candidates[i-1], res.Candidates[i]
		if a.Score != b.Score {
			continue
		}
		ties++
		if a.Cloud+"/"+a.Region+"/"+a.InstanceType > b.Cloud+"/"+b.Region+"/"+b.InstanceType {
			t.Errorf("tie out of order: %s/%s/%s before %s/%s/%s", a.Cloud, a.Region, a.InstanceType, b.Cloud, b.Region, b.InstanceType)
		}
	}
	if ties == 0 {
		t.Fatal("the fixture should produce ties (identical X100 nodes in several regions)")
	}
}

func rejectedFor(res *planner.Result, reason string) int {
	for _, r := range res.Rejected {
		if r.Reason == reason {
			return r.Count
		}
	}
	return 0
}

// TestFixturePartitionsOnlyWhenAsked: regions of a separate-account
// partition (gov-1, cn-1) are candidates only when the constraints ask for
// the partition: a jurisdiction only it meets, one of its regions, or a
// geography or country only it has; otherwise every (offer, pricing model)
// pair there is counted under partition_not_requested.
func TestFixturePartitionsOnlyWhenAsked(t *testing.T) {
	p := fixturePlanner(t)
	w := perf.Workload{Kind: "inference", ModelParametersB: 8, TokensPerSecond: 250}
	tests := []struct {
		name    string
		c       planner.Constraints
		allowed []string // separate-partition regions allowed
	}{
		{"not asked", planner.Constraints{}, nil},
		{"us geography does not ask for gov", planner.Constraints{Geographies: []string{"us"}}, nil},
		{"US country does not ask for gov", planner.Constraints{Countries: []string{"us"}}, nil},
		{"fedramp_high", planner.Constraints{Compliance: []string{"fedramp_high"}}, []string{"gov-1"}},
		{"a gov region", planner.Constraints{Regions: []string{"gov-1", "us-1"}}, []string{"gov-1"}},
		{"cn geography", planner.Constraints{Geographies: []string{"cn"}}, []string{"cn-1"}},
		{"CN country", planner.Constraints{Countries: []string{"cn"}}, []string{"cn-1"}},
	}
	separate := map[string]bool{"gov-1": true, "cn-1": true}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := fixtureRequest(w, tc.c, planner.ObjectiveCost)
			req.Top = planner.MaxTop
			res, err := p.Recommend(req)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range res.Candidates {
				if separate[c.Region] && !slices.Contains(tc.allowed, c.Region) {
					t.Errorf("candidate in %s, a partition not asked for", c.Region)
				}
			}
			if len(tc.allowed) == 0 && rejectedFor(res, planner.ReasonPartitionNotRequested) == 0 &&
				tc.c.Geographies == nil && tc.c.Countries == nil {
				t.Error("no pair counted under partition_not_requested")
			}
		})
	}
}

// TestFixtureCountries: countries keep exactly the regions of those
// countries, any case; UK means GB; unknown codes get the closest.
func TestFixtureCountries(t *testing.T) {
	p := fixturePlanner(t)
	w := perf.Workload{Kind: "inference", ModelParametersB: 8, TokensPerSecond: 250}
	req := fixtureRequest(w, planner.Constraints{Countries: []string{"de", "FR"}}, planner.ObjectiveCost)
	req.Top = planner.MaxTop
	res, err := p.Recommend(req)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Candidates {
		if c.Country != "DE" && c.Country != "FR" {
			t.Errorf("candidate in %s (%s)", c.Region, c.Country)
		}
	}
	for _, name := range []string{"Germany", "DEU", "the federal republic of germany"} {
		res, err := p.Recommend(fixtureRequest(w, planner.Constraints{Countries: []string{name}}, planner.ObjectiveCost))
		if err != nil {
			t.Fatalf("countries = [%q]: %v", name, err)
		}
		for _, c := range res.Candidates {
			if c.Country != "DE" {
				t.Errorf("countries = [%q]: candidate in %s (%s)", name, c.Region, c.Country)
			}
		}
	}
	for _, tc := range []struct{ code, want string }{
		{"DX", `Closest: "DE" (Germany)`},
		{"Germny", `Closest: "DE" (Germany)`},
		{"UK", `"UK" is United Kingdom (GB), which has no region in the catalog`},
		{"Portugal", `"Portugal" is Portugal (PT), which has no region in the catalog. Countries with regions: "CN" (China), "DE" (Germany)`},
	} {
		_, err := p.Recommend(fixtureRequest(w, planner.Constraints{Countries: []string{tc.code}}, planner.ObjectiveCost))
		errs := inputerr.From(err)
		if len(errs) != 1 || errs[0].Path.String() != "constraints.countries[0]" || !strings.Contains(errs[0].Detail, tc.want) {
			t.Errorf("countries = [%q]: %v, want an error on constraints.countries[0] containing %s", tc.code, err, tc.want)
		}
	}
	_, err = p.Recommend(fixtureRequest(w, planner.Constraints{Countries: []string{"CN"}, Clouds: []string{"alpha"}}, planner.ObjectiveCost))
	if errs := inputerr.From(err); len(errs) != 1 || !strings.Contains(errs[0].Detail, `has regions only on "beta"`) {
		t.Errorf("CN on alpha: %v", err)
	}
}

// TestFixtureDistinct: the distinct answer is the full ranking with every
// candidate after the first of its row dropped (row: cloud and instance
// type, or cloud, instance type and region), for every objective.
func TestFixtureDistinct(t *testing.T) {
	p := fixturePlanner(t)
	for _, obj := range planner.Objectives {
		for _, w := range []perf.Workload{train8B, tune70B, serve8BF} {
			all := fixtureRequest(w, planner.Constraints{}, obj)
			all.Top, all.DistinctBy = planner.MaxTop, planner.DistinctDeployment
			full, err := p.Recommend(all)
			if err != nil {
				t.Fatal(err)
			}
			if full.Feasible > len(full.Candidates) {
				t.Fatalf("%s: the fixture has more than %d candidates", obj, planner.MaxTop)
			}
			for _, by := range []planner.DistinctBy{planner.DistinctInstanceType, planner.DistinctRegion} {
				row := func(c planner.Candidate) string {
					if by == planner.DistinctRegion {
						return c.Cloud + "/" + c.InstanceType + "/" + c.Region
					}
					return c.Cloud + "/" + c.InstanceType
				}
				var want []string
				seen := map[string]bool{}
				for _, c := range full.Candidates {
					if !seen[row(c)] && len(want) < 3 {
						seen[row(c)] = true
						want = append(want, fmt.Sprintf("%s/%s/%d/%s", row(c), c.Region, c.Nodes, c.PricingModel))
					}
				}
				req := fixtureRequest(w, planner.Constraints{}, obj)
				req.Top, req.DistinctBy = 3, by
				res, err := p.Recommend(req)
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, c := range res.Candidates {
					got = append(got, fmt.Sprintf("%s/%s/%d/%s", row(c), c.Region, c.Nodes, c.PricingModel))
				}
				if !slices.Equal(got, want) {
					t.Errorf("%s %s by %s:\n got %v\nwant %v", w.Kind, obj, by, got, want)
				}
			}
		}
	}
}

// TestFixtureTypicalQuota: a candidate is flagged, and its explanation says
// so, exactly when it runs more GPUs than the policy's typical regional
// quota on demand or on spot; reservations are capacity arranged with the
// cloud and never flagged.
func TestFixtureTypicalQuota(t *testing.T) {
	p := fixturePlanner(t)
	pol, err := planner.BuiltinPolicy()
	if err != nil {
		t.Fatal(err)
	}
	quota := pol.TypicalRegionQuotaGPUs
	for _, pms := range [][]catalog.PricingModel{nil, {catalog.Reserved1Y}} {
		res, err := p.Recommend(fixtureRequest(train8B, planner.Constraints{PricingModels: pms}, planner.ObjectiveTime))
		if err != nil {
			t.Fatal(err)
		}
		flagged := 0
		for _, c := range res.Candidates {
			want := (c.PricingModel == catalog.OnDemand || c.PricingModel == catalog.Spot) && c.TotalGPUs > quota
			says := strings.Contains(c.Explanation, "typical quota")
			warns := p.QuotaWarning(&c) != ""
			if c.BeyondTypicalQuota != want || says != want || warns != want {
				t.Errorf("%v: %s %s ×%d GPUs %s: flagged %v, explanation mentions it %v, warning %v, want %v",
					pms, c.Cloud, c.InstanceType, c.TotalGPUs, c.PricingModel, c.BeyondTypicalQuota, says, warns, want)
			}
			if want {
				flagged++
			}
		}
		// The fastest training uses every node it may: on demand it is
		// beyond the quota; reserved, never.
		if got := flagged > 0; got != (pms == nil) {
			t.Errorf("%v: %d candidates flagged", pms, flagged)
		}
	}
}

// TestFixtureEnumsAnyCase: the objective, distinct_by, compliance and
// pricing models are read in any case, with the same answer.
func TestFixtureEnumsAnyCase(t *testing.T) {
	p := fixturePlanner(t)
	ask := func(obj planner.Objective, by planner.DistinctBy, pm catalog.PricingModel, regime string) planner.Candidate {
		req := fixtureRequest(train8B, planner.Constraints{PricingModels: []catalog.PricingModel{pm}, Compliance: []string{regime}}, obj)
		req.DistinctBy = by
		res, err := p.Recommend(req)
		if err != nil {
			t.Fatal(err)
		}
		return res.Best
	}
	lower := ask("cost", "region", "spot", "gdpr")
	upper := ask("COST", " Region", "Spot", "GDPR")
	if lower.Cloud != upper.Cloud || lower.InstanceType != upper.InstanceType || lower.PricingModel != upper.PricingModel ||
		lower.EstimatedCostUSD != upper.EstimatedCostUSD {
		t.Errorf("upper case %+v, lower case %+v", upper, lower)
	}
}
