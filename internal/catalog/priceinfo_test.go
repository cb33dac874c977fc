// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package catalog_test

import (
	"strings"
	"testing"
	"time"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// fxInfoHdr is the offers.csv header with the price basis and as-of
// columns; fxInfoOffer has on-demand and spot published and reserved_1y
// derived.
var (
	fxInfoHdr   = strings.Join(catalog.OfferHeader, ",") + "\n"
	fxInfoOffer = "aws,us-east-1,p5.48xlarge,H100,8,,640,192,2048,3200,efa,55.04,20,40,,,true," +
		"published,2026-11-14,published,2026-11-01,derived,2026-09-30,,,,,USD,,,,,s\n"
)

func day(s string) time.Time {
	d, err := time.Parse("2006-01-02", s)
	if err != nil {
		panic(err)
	}
	return d
}

// TestOfferPriceInfo: every price carries its basis and source date; a
// file without the columns (written before they existed) gets published
// prices dated catalog_date, reserved ones derived when reserved_derived.
func TestOfferPriceInfo(t *testing.T) {
	fx := fixture(fxRegion, "")
	fx[catalog.FileOffers].Data = []byte(fxInfoHdr + fxInfoOffer)
	c, err := catalog.Load(fx)
	if err != nil {
		t.Fatal(err)
	}
	o, _ := c.Offer("aws", "p5.48xlarge", "us-east-1")
	for _, tc := range []struct {
		pm    catalog.PricingModel
		usd   float64
		basis catalog.PriceBasis
		asOf  string
		ok    bool
	}{
		{catalog.OnDemand, 55.04, catalog.PricePublished, "2026-11-14", true},
		{catalog.Spot, 20, catalog.PricePublished, "2026-11-01", true},
		{catalog.Reserved1Y, 40, catalog.PriceDerived, "2026-09-30", true},
		{catalog.Reserved3Y, 0, "", "", false},
		{catalog.CapacityBlock, 0, "", "", false},
	} {
		usd, info, ok := o.PriceInfo(tc.pm)
		var want time.Time
		if tc.asOf != "" {
			want = day(tc.asOf)
		}
		if usd != tc.usd || ok != tc.ok || info.Basis != tc.basis || !info.AsOf.Equal(want) {
			t.Errorf("PriceInfo(%s) = %v, %+v, %v; want %v, %s %s, %v", tc.pm, usd, info, ok, tc.usd, tc.basis, tc.asOf, tc.ok)
		}
	}

	legacy, err := catalog.Load(fixture(fxRegion, strings.Replace(fxOffer, ",55.04,20,,,,false,", ",55.04,20,40,30,,true,", 1)))
	if err != nil {
		t.Fatal(err)
	}
	lo := legacy.Offers[0]
	if lo.PriceInfos.OnDemand != (catalog.PriceInfo{Basis: catalog.PricePublished, AsOf: legacy.Date}) ||
		lo.PriceInfos.Spot.Basis != catalog.PricePublished || lo.PriceInfos.Reserved1Y.Basis != catalog.PriceDerived ||
		lo.PriceInfos.Reserved3Y != (catalog.PriceInfo{Basis: catalog.PriceDerived, AsOf: legacy.Date}) ||
		lo.PriceInfos.CapacityBlock != (catalog.PriceInfo{}) {
		t.Errorf("legacy file: price infos %+v, catalog date %v", lo.PriceInfos, legacy.Date)
	}
}

func TestOfferPriceInfoValidation(t *testing.T) {
	for _, tc := range []struct{ name, old, new, want string }{
		{"basis without a price", ",,,,,USD,", ",published,2026-11-01,,,USD,",
			`fields "reserved_3y_basis" and "reserved_3y_as_of": set without a price ("published", "2026-11-01")`},
		{"bad basis", "published,2026-11-14", "list,2026-11-14",
			`field "on_demand_basis": must be one of "published", "derived" for a price, got "list"`},
		{"no date", "published,2026-11-14", "published,",
			`field "on_demand_as_of": want the source's date as YYYY-MM-DD for a price, got ""`},
		{"bad date", "2026-11-01", "2026-13-01", `field "spot_as_of": want the source's date as YYYY-MM-DD for a price, got "2026-13-01"`},
		{"reserved_derived disagrees", ",true,published", ",false,published",
			`field "reserved_derived": false, but reserved_1y_basis "derived" and reserved_3y_basis ""`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := fixture(fxRegion, "")
			fx[catalog.FileOffers].Data = []byte(fxInfoHdr + strings.Replace(fxInfoOffer, tc.old, tc.new, 1))
			if _, err := catalog.Load(fx); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v\nwant containing %s", err, tc.want)
			}
		})
	}
	// The columns come together.
	fx := fixture(fxRegion, "")
	fx[catalog.FileOffers].Data = []byte(strings.Replace(fxInfoHdr, ",capacity_block_basis,capacity_block_as_of", "", 1) +
		strings.Replace(fxInfoOffer, ",,,,,USD,", ",,,USD,", 1))
	want := `offers.csv: columns "on_demand_basis", "on_demand_as_of", "spot_basis", "spot_as_of", "reserved_1y_basis", ` +
		`"reserved_1y_as_of", "reserved_3y_basis", "reserved_3y_as_of", "capacity_block_basis", "capacity_block_as_of" come together: ` +
		`missing "capacity_block_basis", "capacity_block_as_of"`
	if _, err := catalog.Load(fx); err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
}

// TestBuiltinPriceInfo: every price of the built-in catalog says whether
// it is published or derived and the date of its source; the source text
// of a derived price states its rule.
func TestBuiltinPriceInfo(t *testing.T) {
	c := builtin(t)
	count := map[string]int{}
	for _, o := range c.Offers {
		for _, pm := range catalog.OfferPricingModels {
			_, info, ok := o.PriceInfo(pm)
			if !ok {
				continue
			}
			count[string(pm)+"/"+string(info.Basis)]++
			if info.Basis != catalog.PricePublished && info.Basis != catalog.PriceDerived || info.AsOf.IsZero() {
				t.Errorf("%s/%s/%s %s: price info %+v", o.Cloud, o.InstanceType, o.Region, pm, info)
			}
			if info.Basis == catalog.PriceDerived && !strings.Contains(strings.ToUpper(o.Source), "DERIVED") {
				t.Errorf("%s/%s/%s %s is derived, but its source states no rule: %s", o.Cloud, o.InstanceType, o.Region, pm, o.Source)
			}
		}
	}
	for _, s := range c.Serverless {
		if s.PriceInfo.Basis == "" || s.PriceInfo.AsOf.IsZero() {
			t.Errorf("serverless %s/%s: price info %+v", s.Cloud, s.Name, s.PriceInfo)
		}
		count["serverless/"+string(s.PriceInfo.Basis)]++
	}
	t.Logf("priced rows by pricing model and basis: %v", count)
}
