// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package cost_test

import (
	"strings"
	"testing"
	"time"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/cost"
)

// TestSummaryPrices: the summary says what each price of the mix is, and
// names a derived price the total rests on; the oldest price of the mix is
// found for the age warning.
func TestSummaryPrices(t *testing.T) {
	m, err := cost.DefaultModel()
	if err != nil {
		t.Fatal(err)
	}
	in, offers, _ := regionOffers()
	o := *offers[0]
	jul, nov := time.Date(2026, 7, 30, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 14, 0, 0, 0, 0, time.UTC)
	o.PriceInfos.OnDemand = catalog.PriceInfo{Basis: catalog.PricePublished, AsOf: nov}
	o.PriceInfos.Reserved1Y = catalog.PriceInfo{Basis: catalog.PriceDerived, AsOf: jul}
	in.Offer, in.Region = &o, nil
	for _, tc := range []struct {
		mix        map[catalog.PricingModel]float64
		want       []string
		derived    bool
		oldest     catalog.PricingModel
		oldestDate time.Time
	}{
		{nil, []string{"Prices in the mix: on_demand published as of 2026-11-14.\n"}, false, catalog.OnDemand, nov},
		{map[catalog.PricingModel]float64{catalog.OnDemand: 0.5, catalog.Reserved1Y: 0.5},
			[]string{"Prices in the mix: on_demand published as of 2026-11-14, reserved_1y derived as of 2026-07-30.\n",
				"The reserved_1y price of this instance is derived from published prices (price_source says how), not a rate the cloud publishes for it"},
			true, catalog.Reserved1Y, jul},
	} {
		in.PricingMix = tc.mix
		res, err := m.TCO(in)
		if err != nil {
			t.Fatal(err)
		}
		got := cost.Summary(&in, &res, cost.SummaryRegions{})
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("mix %v: summary lacks %q:\n%s", tc.mix, w, got)
			}
		}
		if strings.Contains(got, "is derived from published prices") != tc.derived {
			t.Errorf("mix %v: derived note present = %v:\n%s", tc.mix, !tc.derived, got)
		}
		if pm, info, ok := in.OldestMixPrice(); !ok || pm != tc.oldest || !info.AsOf.Equal(tc.oldestDate) {
			t.Errorf("mix %v: oldest %s %v %v", tc.mix, pm, info, ok)
		}
	}
	in.Offer = offers[0] // no basis stated: no line
	in.PricingMix = nil
	res, _ := m.TCO(in)
	if got := cost.Summary(&in, &res, cost.SummaryRegions{}); strings.Contains(got, "Prices in the mix") {
		t.Errorf("a line without stated bases:\n%s", got)
	}
}
