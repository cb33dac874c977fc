// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// cheapestByPrice ranks the commercial regions selling an instance type
// under one pricing model by its list price, ties by region code. Every
// other line of a TCO (storage, egress, the spot risk factor) is priced
// per cloud, so without a carbon price the cheapest TCO is the cheapest
// list price: the test derives the answer from the catalog alone.
func cheapestByPrice(t *testing.T, cloud, instanceType string, pm catalog.PricingModel) []*catalog.Offer {
	t.Helper()
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	var out []*catalog.Offer
	for _, o := range cat.OffersOf(cloud, instanceType) {
		r, ok := cat.Region(cloud, o.Region)
		if _, sold := o.Price(pm); sold && (!ok || r.Partition == catalog.PartitionCommercial) {
			out = append(out, o)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		pi, _ := out[i].Price(pm)
		pj, _ := out[j].Price(pm)
		if pi != pj {
			return pi < pj
		}
		return out[i].Region < out[j].Region
	})
	if len(out) < 3 {
		t.Fatalf("the catalog sells %s %s as %s in %d regions; the test needs 3", cloud, instanceType, pm, len(out))
	}
	return out
}

// regionsInOrder checks the regions attribute against the expected ranking
// (the selected region first, then the list) and each entry's total and
// difference, to within tol USD.
func regionsInOrder(want []*catalog.Offer, hoursTimesFactor func(*catalog.Offer) float64, tol float64) func(map[string]any) error {
	return func(attrs map[string]any) error {
		total, _ := attrs["total_cost_usd"].(float64)
		regions, _ := attrs["regions"].([]any)
		if attrs["region"] != want[0].Region || len(regions) != len(want)-1 {
			return fmt.Errorf("region %v with %d others, want %s with %d", attrs["region"], len(regions), want[0].Region, len(want)-1)
		}
		for i, el := range regions {
			r, _ := el.(map[string]any)
			o := want[i+1]
			got, _ := r["total_cost_usd"].(float64)
			diff, _ := r["difference_usd"].(float64)
			if r["region"] != o.Region || math.Abs(got-hoursTimesFactor(o)) > tol || math.Abs(diff-(got-total)) > 0.011 {
				return fmt.Errorf("regions[%d] = %v, want %s at %.2f (difference %.2f)", i, r, o.Region, hoursTimesFactor(o), got-total)
			}
		}
		summary, _ := attrs["summary"].(string)
		for _, s := range []string{fmt.Sprintf("(the cheapest of %d regions)", len(want)), "OTHER REGION", want[1].Region} {
			if !strings.Contains(summary, s) {
				return fmt.Errorf("summary lacks %q:\n%s", s, summary)
			}
		}
		return nil
	}
}

func TestAccTCOCheapestRegion(t *testing.T) {
	t.Parallel()
	const hours = 12 * 730.0
	od := cheapestByPrice(t, "gcp", "a3-highgpu-8g", catalog.OnDemand)
	spot := cheapestByPrice(t, "gcp", "a3-highgpu-8g", catalog.Spot)
	aws := cheapestByPrice(t, "aws", "p5.48xlarge", catalog.OnDemand)
	odTotal := func(o *catalog.Offer) float64 { return hours * o.OnDemandUSD }
	// Spot totals share one risk factor per cloud: the ratio to the cheapest.
	spotTotal := func(base float64) func(*catalog.Offer) float64 {
		return func(o *catalog.Offer) float64 { return base * o.SpotUSD / spot[0].SpotUSD }
	}
	var spotBase float64
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: `
data "gpu_tco" "od" {
  cloud         = "gcp"
  instance_type = "a3-highgpu-8g"
  months        = 12
}
data "gpu_tco" "spot" {
  cloud         = "gcp"
  instance_type = "a3-highgpu-8g"
  months        = 12
  pricing_mix   = { spot = 1 }
}
data "gpu_tco" "aws" {
  cloud         = "aws"
  instance_type = "p5.48xlarge"
  months        = 12
}
data "gpu_tco" "pinned" {
  cloud         = "gcp"
  region        = "` + od[2].Region + `"
  instance_type = "a3-highgpu-8g"
  months        = 12
}
`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.gpu_tco.od", tfjsonpath.New("total_cost_usd"), usd(odTotal(od[0]))),
				checkState("data.gpu_tco.od", regionsInOrder(od, odTotal, 0.011)),
				checkState("data.gpu_tco.spot", func(attrs map[string]any) error {
					spotBase, _ = attrs["total_cost_usd"].(float64)
					// The base total is rounded to a cent, scaled by up to ×6.
					return regionsInOrder(spot, spotTotal(spotBase), 0.04)(attrs)
				}),
				// Ties on price (us-east-1, us-east-2, us-west-2) go to the first region code.
				checkState("data.gpu_tco.aws", regionsInOrder(aws, odTotal, 0.011)),
				// A configured region is kept; regions lists every other one, cheaper ones included.
				statecheck.ExpectKnownValue("data.gpu_tco.pinned", tfjsonpath.New("region"), knownvalue.StringExact(od[2].Region)),
				statecheck.ExpectKnownValue("data.gpu_tco.pinned", tfjsonpath.New("regions").AtSliceIndex(0).AtMapKey("region"),
					knownvalue.StringExact(od[0].Region)),
				statecheck.ExpectKnownValue("data.gpu_tco.pinned", tfjsonpath.New("regions"), knownvalue.ListSizeExact(len(od)-1)),
			},
		}},
	})
}

func TestAccTCORegionErrors(t *testing.T) {
	t.Parallel()
	tco := func(body string) string { return "data \"gpu_tco\" \"x\" {\n  months = 12\n" + body + "\n}\n" }
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      tco(`  cloud = "gcp"` + "\n" + `  instance_type = "a3-highgpu-8x"`),
				ExpectError: errRe(`Unknown Instance Type .* instance_type = "a3-highgpu-8x" is not a gcp instance type or serverless offer in the catalog. Closest: "a3-highgpu-8g"`),
			},
			{
				Config:      tco(`  cloud = "azure"` + "\n" + `  instance_type = "Standard_ND96isr_H100_v5"` + "\n" + `  pricing_mix = { spot = 1 }`),
				ExpectError: errRe(`Pricing Model Not Offered In Any Region .* azure Standard_ND96isr_H100_v5 is not sold as "spot" in any of its \d+ regions in the catalog; it is sold as: on_demand`),
			},
		},
	})
}
