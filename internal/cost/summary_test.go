// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package cost_test

import (
	"strings"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/cost"
)

func TestSummary(t *testing.T) {
	m, err := cost.DefaultModel()
	if err != nil {
		t.Fatal(err)
	}
	in, offers, region := regionOffers()
	in.PricingMix = map[catalog.PricingModel]float64{catalog.OnDemand: 0.25, catalog.Reserved1Y: 0.75}
	in.BlockGB = 1000
	all, err := m.ByRegion(in, offers, region)
	if err != nil {
		t.Fatal(err)
	}
	in.Offer, in.Region = all[0].Offer, all[0].Region
	res := all[0].Result
	got := cost.Summary(&in, &res, cost.SummaryRegions{Cheapest: true, Others: all[1:], Comparison: compare(t, m, in)})

	// 2 instances × 12 months × 730 h: on_demand 0.25 × 17,520 h × 36 =
	// 157,680; reserved_1y ceil(0.75 × 2) = 2 × 8,760 h × 28 = 490,560;
	// block 1,000 GB × 0.08 × 12 = 960. Total 649,200.
	for _, want := range []string{
		"2× gpu.8x on acme eu-test-1 (the cheapest of 3 regions), 12 months at 100% utilization, on_demand 25% + reserved_1y 75%\n",
		"compute         648,240.00  99.9%\n",
		"storage_block       960.00   0.1%\n",
		"total           649,200.00   100%\n",
		// The same fleet all on demand: 17,520 × 36 + 960 = 631,680.
		"on_demand          631,680.00         0.00                                              25%\n",
		// The fixture offer sells no spot: a row that says so.
		"spot            not available\n",
		// All reserved: 2 × 8,760 h × 28 + 960 = 491,520; it beats on demand
		// above 28 / 36 = 0.7778 utilization, one term pays off after
		// 12 × 28 / 36 = 9.33 months.
		"reserved_1y        491,520.00   140,160.00  utilization > 0.7778, after 9.33 months     75%\n",
		"reserved_3y        947,040.00  -315,360.00  never within the horizon\n",
		"OTHER REGION  COUNTRY   TOTAL USD  DIFFERENCE USD\n",
		"us-test-1     ",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "more (attribute regions)") {
		t.Errorf("two other regions are all listed:\n%s", got)
	}

	// More than SummaryOtherRegions other regions: the rest are counted.
	many := make([]cost.RegionTCO, cost.SummaryOtherRegions+3)
	for i := range many {
		many[i] = all[1]
	}
	got = cost.Summary(&in, &res, cost.SummaryRegions{Others: many, Comparison: compare(t, m, in)})
	if !strings.Contains(got, "… and 3 more (attribute regions)\n") || strings.Contains(got, "the cheapest of") {
		t.Errorf("summary of a pinned region with many others:\n%s", got)
	}
}

// compare is in's comparison in its region.
func compare(t *testing.T, m *cost.Model, in cost.Input) []cost.ComparisonRow {
	t.Helper()
	rows, err := m.Compare(in)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}
