// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package overlay_test

import (
	"strings"
	"testing"
	"time"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

func date(s string) time.Time {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return d
}

// TestOverlayPriceInfo: the prices a catalog_file entry gives carry its
// price_basis and price_as_of (nothing when it states none), built-in
// prices it rescales and discounted prices become derived, dated by their
// oldest input.
func TestOverlayPriceInfo(t *testing.T) {
	base := builtin(t)
	bp5, _ := base.Offer("aws", "p5.48xlarge", "us-east-1")
	if bp5.Reserved1YUSD <= 0 || bp5.SpotUSD <= 0 || bp5.PriceInfos.Reserved1Y.AsOf.IsZero() || bp5.PriceInfos.Spot.AsOf.IsZero() {
		t.Fatalf("fixture: built-in p5 = %+v", bp5)
	}
	oldest := func(ts ...time.Time) time.Time {
		m := ts[0]
		for _, x := range ts[1:] {
			if x.Before(m) {
				m = x
			}
		}
		return m
	}
	dec := date("2026-12-01")
	published := catalog.PriceInfo{Basis: catalog.PricePublished, AsOf: dec}
	// Below spot and reserved: both are rescaled.
	low := bp5.SpotUSD * 0.5
	for _, tc := range []struct {
		name, body string
		pm         catalog.PricingModel
		want       catalog.PriceInfo
		derived    bool // Offer.ReservedDerived
	}{
		{"stated", p5 + "    on_demand_usd: 40\n    price_basis: published\n    price_as_of: \"2026-12-01\"\n", catalog.OnDemand, published, false},
		{"date alone", p5 + "    on_demand_usd: 40\n    price_as_of: \"2026-12-01\"\n", catalog.OnDemand, catalog.PriceInfo{AsOf: dec}, false},
		{"not stated", p5 + "    on_demand_usd: 40\n", catalog.OnDemand, catalog.PriceInfo{}, false},
		{"derived reserved", p5 + "    reserved_1y_usd: 30\n    price_basis: derived\n    price_as_of: \"2026-12-01\"\n",
			catalog.Reserved1Y, catalog.PriceInfo{Basis: catalog.PriceDerived, AsOf: dec}, true},
		{"untouched built-in price", p5 + "    on_demand_usd: 54\n    price_as_of: \"2026-12-01\"\n", catalog.Spot, bp5.PriceInfos.Spot, false},
		{"rescaled, dated", p5 + "    on_demand_usd: " + catalog.FormatNumber(low) + "\n    price_basis: published\n    price_as_of: \"2026-12-01\"\n",
			catalog.Reserved1Y, catalog.PriceInfo{Basis: catalog.PriceDerived,
				AsOf: oldest(bp5.PriceInfos.Reserved1Y.AsOf, bp5.PriceInfos.OnDemand.AsOf, dec)}, true},
		{"rescaled spot", p5 + "    on_demand_usd: " + catalog.FormatNumber(low) + "\n    price_as_of: \"2026-12-01\"\n",
			catalog.Spot, catalog.PriceInfo{Basis: catalog.PriceDerived, AsOf: oldest(bp5.PriceInfos.Spot.AsOf, bp5.PriceInfos.OnDemand.AsOf, dec)}, true},
		{"rescaled, undated new price", p5 + "    on_demand_usd: " + catalog.FormatNumber(low) + "\n",
			catalog.Reserved1Y, catalog.PriceInfo{Basis: catalog.PriceDerived}, true},
		{"discount", "discounts:\n  aws: 0.1\n", catalog.OnDemand, catalog.PriceInfo{Basis: catalog.PriceDerived, AsOf: bp5.PriceInfos.OnDemand.AsOf}, true},
		{"discount, reserved", "discounts:\n  aws: 0.1\n", catalog.Reserved1Y, catalog.PriceInfo{Basis: catalog.PriceDerived, AsOf: bp5.PriceInfos.Reserved1Y.AsOf}, true},
		{"removed price", p5 + "    spot_usd: 0\n    price_basis: published\n", catalog.Spot, catalog.PriceInfo{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _, err := applyBytes(base, "prices.yaml", []byte(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			o, _ := c.Offer("aws", "p5.48xlarge", "us-east-1")
			if got := *o.PriceInfos.Of(tc.pm); got != tc.want || o.ReservedDerived != tc.derived {
				t.Errorf("%s info %+v reserved_derived %v, want %+v %v", tc.pm, got, o.ReservedDerived, tc.want, tc.derived)
			}
		})
	}
	t.Run("new offer", func(t *testing.T) {
		body := "offers:\n  - {cloud: aws, instance_type: x.8gpu, region: us-east-1, accelerator: H100, gpus: 8, on_demand_usd: 20, spot_usd: 9, price_basis: published, price_as_of: \"2026-12-01\"}\n"
		c, _, err := applyBytes(base, "new.yaml", []byte(body))
		if err != nil {
			t.Fatal(err)
		}
		o, _ := c.Offer("aws", "x.8gpu", "us-east-1")
		if o.PriceInfos.OnDemand != published || o.PriceInfos.Spot != published || o.PriceInfos.Reserved1Y != (catalog.PriceInfo{}) {
			t.Errorf("infos %+v", o.PriceInfos)
		}
	})
}

func TestOverlayPriceInfoErrors(t *testing.T) {
	base := builtin(t)
	for _, tc := range []struct{ name, body, field, msg string }{
		{"basis", p5 + "    on_demand_usd: 40\n    price_basis: quoted\n", "price_basis", `must be one of "published", "derived", got "quoted"`},
		{"date", p5 + "    on_demand_usd: 40\n    price_as_of: \"2026-13-01\"\n", "price_as_of", `want the date of the prices as YYYY-MM-DD, got "2026-13-01"`},
		{"no price", p5 + "    vcpus: 100\n    price_as_of: \"2026-12-01\"\n", "price_as_of", "describes the prices this entry gives, and it gives none"},
		{"no price, basis", p5 + "    price_basis: published\n", "price_basis", "describes the prices this entry gives"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := applyBytes(base, "bad.yaml", []byte(tc.body))
			ps := problems(t, err)
			if len(ps) != 1 {
				t.Fatalf("problems %v, want one", ps)
			}
			if p := ps[0]; p.Field != tc.field || !strings.Contains(p.Msg, tc.msg) {
				t.Errorf("problem %s, want field %s and %q", p, tc.field, tc.msg)
			}
		})
	}
}
