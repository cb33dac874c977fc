// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// TestAccPriceBasis: a recommendation's candidates carry the basis, date
// and source of the price they are ranked by, as the catalog states them
// for the chosen offer and pricing model, and the explanation names a
// derived price; gpu_tco's summary and comparison rows do the same for the
// instance the recommendation chose. Azure's reserved prices are mostly
// derived from on-demand (catalog data), so the answer is checked either
// way against the catalog, not assumed.
func TestAccPriceBasis(t *testing.T) {
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	const cfg = `
data "gpu_recommendation" "r" {
  workload    = { kind = "inference", model_parameters_b = 8, tokens_per_second = 500 }
  constraints = { clouds = ["azure"], pricing_models = ["reserved_1y"] }
}
data "gpu_tco" "t" {
  cloud         = data.gpu_recommendation.r.best.cloud
  region        = data.gpu_recommendation.r.best.region
  instance_type = data.gpu_recommendation.r.best.instance_type
  months        = 12
  pricing_mix   = { reserved_1y = 1 }
}`
	check := func(s *terraform.State) error {
		r := s.RootModule().Resources["data.gpu_recommendation.r"].Primary.Attributes
		o, ok := cat.Offer(r["best.cloud"], r["best.instance_type"], r["best.region"])
		if !ok {
			return fmt.Errorf("best %v is not a catalog offer", r)
		}
		_, info, _ := o.PriceInfo(catalog.Reserved1Y)
		date := info.AsOf.Format(time.DateOnly)
		derived := info.Basis == catalog.PriceDerived
		if r["best.price_basis"] != string(info.Basis) || r["best.price_as_of"] != date || r["best.price_source"] != o.Source {
			return fmt.Errorf("best price %q %q %q, catalog %q %q %q", r["best.price_basis"], r["best.price_as_of"], r["best.price_source"],
				info.Basis, date, o.Source)
		}
		if got := strings.Contains(r["best.explanation"], "rate derived from published prices"); got != derived {
			return fmt.Errorf("explanation mentions a derived price: %v, the price is %s: %q", got, info.Basis, r["best.explanation"])
		}
		tc := s.RootModule().Resources["data.gpu_tco.t"].Primary.Attributes
		if tc["pricing_model_comparison.0.pricing_model"] != "on_demand" {
			return fmt.Errorf("comparison starts with %q", tc["pricing_model_comparison.0.pricing_model"])
		}
		_, od, _ := o.PriceInfo(catalog.OnDemand)
		if tc["pricing_model_comparison.0.price_basis"] != string(od.Basis) || tc["pricing_model_comparison.0.price_as_of"] != od.AsOf.Format(time.DateOnly) {
			return fmt.Errorf("tco on_demand row %q %q, catalog %+v", tc["pricing_model_comparison.0.price_basis"], tc["pricing_model_comparison.0.price_as_of"], od)
		}
		line := fmt.Sprintf("Prices in the mix: reserved_1y %s as of %s.", info.Basis, date)
		if !strings.Contains(tc["summary"], line) || strings.Contains(tc["summary"], "is derived from published prices") != derived {
			return fmt.Errorf("tco summary lacks %q or misstates a derived price:\n%s", line, tc["summary"])
		}
		return nil
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps:                    []resource.TestStep{{Config: cfg, Check: check}},
	})
}
