// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package cost_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/cost"
)

// regionOffers: gpu.8x in three regions of acme. us-test-1 is the fixture
// (on_demand 40, spot 12, reserved 28 / 18); eu-test-1 is cheaper on
// demand (36) and sells no spot; ap-test-1 ties us-test-1 on demand (40),
// so the region code breaks the tie, and sells spot at 10.
func regionOffers() (cost.Input, []*catalog.Offer, func(string) *catalog.Region) {
	cl, rg, acc, of := fixtures()
	eu := *of
	eu.Region, eu.OnDemandUSD, eu.SpotUSD = "eu-test-1", 36, 0
	ap := *of
	ap.Region, ap.SpotUSD = "ap-test-1", 10
	regions := map[string]*catalog.Region{"us-test-1": rg}
	in := cost.Input{Cloud: cl, Accelerator: acc, InstanceCount: 2, Months: 12, Utilization: 1}
	return in, []*catalog.Offer{of, &eu, &ap}, func(id string) *catalog.Region { return regions[id] }
}

func TestByRegion(t *testing.T) {
	m, err := cost.DefaultModel()
	if err != nil {
		t.Fatal(err)
	}
	in, offers, region := regionOffers()
	tests := []struct {
		name string
		mix  map[catalog.PricingModel]float64
		want []string
	}{
		{"on demand: cheapest first, the tie by region code", nil, []string{"eu-test-1", "ap-test-1", "us-test-1"}},
		{"spot: regions without spot left out", map[catalog.PricingModel]float64{catalog.Spot: 1}, []string{"ap-test-1", "us-test-1"}},
		{"a mix needs every model in the region", map[catalog.PricingModel]float64{catalog.Spot: 0.5, catalog.Reserved1Y: 0.5}, []string{"ap-test-1", "us-test-1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := in
			in.PricingMix = tt.mix
			got, err := m.ByRegion(in, offers, region)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for i, r := range got {
				ids = append(ids, r.Offer.Region)
				if r.TotalUSD != r.Result.ShownTotalUSD() || r.Offer != offers[indexOf(offers, r.Offer.Region)] {
					t.Errorf("%s: TotalUSD %v, shown %v", r.Offer.Region, r.TotalUSD, r.Result.ShownTotalUSD())
				}
				if i > 0 && got[i-1].TotalUSD > r.TotalUSD {
					t.Errorf("not cheapest first: %v", ids)
				}
			}
			if strings.Join(ids, ",") != strings.Join(tt.want, ",") {
				t.Errorf("regions = %v, want %v", ids, tt.want)
			}
			if (got[0].Region == nil) != (got[0].Offer.Region != "us-test-1") {
				t.Errorf("region metadata of %s: %v", got[0].Offer.Region, got[0].Region)
			}
		})
	}
}

func indexOf(offers []*catalog.Offer, region string) int {
	for i, o := range offers {
		if o.Region == region {
			return i
		}
	}
	return -1
}

func TestByRegionErrors(t *testing.T) {
	m, err := cost.DefaultModel()
	if err != nil {
		t.Fatal(err)
	}
	in, offers, region := regionOffers()
	tests := []struct {
		name       string
		mix        map[catalog.PricingModel]float64
		offers     []*catalog.Offer
		months     float64
		wantKey    string
		wantDetail []string
	}{
		{name: "a model sold nowhere", mix: map[catalog.PricingModel]float64{catalog.CapacityBlock: 1}, offers: offers, wantKey: "capacity_block",
			wantDetail: []string{`acme gpu.8x is not sold as "capacity_block" in any of its 3 regions`,
				"on_demand (3 regions), spot (2 regions), reserved_1y (3 regions), reserved_3y (3 regions)"}},
		{name: "on demand by default, sold nowhere", offers: []*catalog.Offer{spotOnly(offers[0])},
			wantDetail: []string{`acme gpu.8x is not sold as "on_demand" in any of its 1 region`, "sold as: spot (1 region)"}},
		{name: "models sold, never together", mix: map[catalog.PricingModel]float64{catalog.Spot: 0.5, catalog.OnDemand: 0.5},
			offers:     []*catalog.Offer{spotOnly(offers[0]), offers[1]},
			wantDetail: []string{"no region sells acme gpu.8x under every pricing model of pricing_mix together"}},
		{name: "a bad input is returned as is", offers: offers, months: -1, wantDetail: []string{"months"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := in
			in.PricingMix = tt.mix
			if tt.months != 0 {
				in.Months = tt.months
			}
			_, err := m.ByRegion(in, tt.offers, region)
			var ie *cost.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v is not an input error", err)
			}
			if ie.MapKey != tt.wantKey {
				t.Errorf("key %q, want %q", ie.MapKey, tt.wantKey)
			}
			for _, want := range tt.wantDetail {
				if !strings.Contains(ie.Error(), want) {
					t.Errorf("error lacks %q:\n%s", want, ie.Error())
				}
			}
		})
	}
	if got, err := m.ByRegion(in, nil, region); err != nil || len(got) != 0 {
		t.Errorf("no offers: %v, %v", got, err)
	}
}

func spotOnly(o *catalog.Offer) *catalog.Offer {
	s := *o
	s.OnDemandUSD, s.Reserved1YUSD, s.Reserved3YUSD = 0, 0, 0
	return &s
}
