// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"math"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/numfmt"
)

func TestAccOffersDataSource(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	p5, ok := cat.Offer("aws", "p5.48xlarge", "us-east-1")
	if !ok {
		t.Fatal("catalog lacks aws p5.48xlarge in us-east-1")
	}
	// Expected counts come from the catalog, computed independently of the
	// data source's filter code.
	countAWSH100 := 0
	for _, o := range cat.Offers {
		if o.Cloud == "aws" && o.Accelerator == "H100" && o.GPUs >= 8 {
			countAWSH100++
		}
	}

	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: `
data "gpu_offers" "p5" {
  clouds       = ["aws"]
  regions      = ["us-east-1"]
  accelerators = ["h100-sxm"]
  min_gpus     = 8
}
data "gpu_offers" "aws_h100" {
  clouds       = ["aws"]
  accelerators = ["H100"]
  min_gpus     = 8
}`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.gpu_offers.p5", tfjsonpath.New("offers"), knownvalue.ListPartial(map[int]knownvalue.Check{
						0: knownvalue.ObjectExact(map[string]knownvalue.Check{
							"cloud":              knownvalue.StringExact("aws"),
							"region":             knownvalue.StringExact("us-east-1"),
							"instance_type":      knownvalue.StringExact(p5.InstanceType),
							"accelerator":        knownvalue.StringExact("H100"),
							"gpus":               knownvalue.Int64Exact(8),
							"gpu_memory_gb":      knownvalue.Float64Exact(640),
							"vcpus":              knownvalue.Int64Exact(192),
							"memory_gb":          knownvalue.Float64Exact(p5.MemoryGB),
							"network_gbps":       knownvalue.Float64Exact(3200),
							"on_demand_usd":      knownvalue.Float64Exact(55.04),
							"spot_usd":           priceCheck(p5.SpotUSD),
							"reserved_1y_usd":    priceCheck(p5.Reserved1YUSD),
							"reserved_3y_usd":    priceCheck(p5.Reserved3YUSD),
							"country":            knownvalue.StringExact("US"),
							"price_source":       knownvalue.StringExact(p5.Source),
							"capacity_block_usd": priceCheck(p5.CapacityBlockUSD),
							"serverless_usd":     knownvalue.Null(),
							"gpu_fraction":       knownvalue.Null(),
							"price_basis":        priceInfoCheck(p5, true),
							"price_as_of":        priceInfoCheck(p5, false),
						}),
					})),
					statecheck.ExpectKnownValue("data.gpu_offers.aws_h100", tfjsonpath.New("offers"), knownvalue.ListSizeExact(countAWSH100)),
				},
			},
			{
				Config:      `data "gpu_offers" "bad" { clouds = ["amazon"] }`,
				ExpectError: regexp.MustCompile(`(?s)Unknown Cloud.*clouds\[0\] = "amazon"`),
			},
			{
				Config:      `data "gpu_offers" "bad" { regions = ["us-east-9"] }`,
				ExpectError: regexp.MustCompile(`(?s)Unknown Region.*regions\[0\] = "us-east-9".*Closest:\s+.*"us-east-1"`),
			},
			{
				Config:      `data "gpu_offers" "bad" { min_gpus = 0 }`,
				ExpectError: regexp.MustCompile(`(?s)min_gpus\s+must\s+be\s+a\s+whole\s+number\s+from\s+1\s+to\s+65,536\s+GPUs,\s+got\s+0`),
			},
			{
				// Provider-level discounts apply to every price.
				Config: `
provider "gpu" {
  discounts = { aws = 0.25 }
}
data "gpu_offers" "p5" {
  clouds        = ["aws"]
  regions       = ["us-east-1"]
  accelerators  = ["H100"]
  min_gpus      = 8
}`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.gpu_offers.p5", tfjsonpath.New("offers").AtSliceIndex(0).AtMapKey("on_demand_usd"),
						knownvalue.Float64Exact(41.28)), // 55.04 × (1 − 0.25)
				},
			},
			{
				// Provider-level allow-list: gcp is excluded even when asked for.
				Config: `
provider "gpu" {
  clouds = ["aws"]
}
data "gpu_offers" "gcp" {
  clouds = ["gcp"]
}`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.gpu_offers.gcp", tfjsonpath.New("offers"), knownvalue.ListSizeExact(0)),
				},
			},
			{
				Config: `
data "gpu_offers" "big" {
  min_gpu_memory_gb = 141
}`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.gpu_offers.big", tfjsonpath.New("offers"), everyOffer(func(o map[string]any) error {
						gpus, _ := o["gpus"].(float64)
						mem, _ := o["gpu_memory_gb"].(float64)
						if gpus == 0 || mem/gpus < 141 {
							return fmt.Errorf("offer %v/%v has %v GB per GPU", o["cloud"], o["instance_type"], mem/gpus)
						}
						return nil
					})),
				},
			},
		},
	})
}

// priceCheck expects the rounded catalog price, or null when not sold.
func priceCheck(v float64) knownvalue.Check {
	if v <= 0 {
		return knownvalue.Null()
	}
	return knownvalue.Float64Exact(math.Round(v*1e4) / 1e4)
}

// priceInfoCheck is the price_basis (basis) or price_as_of map of an
// offer row, read from the catalog offer's fields: one key per priced
// model.
func priceInfoCheck(o *catalog.Offer, basis bool) knownvalue.Check {
	want := map[string]knownvalue.Check{}
	for pm, info := range map[catalog.PricingModel]catalog.PriceInfo{catalog.OnDemand: o.PriceInfos.OnDemand, catalog.Spot: o.PriceInfos.Spot,
		catalog.Reserved1Y: o.PriceInfos.Reserved1Y, catalog.Reserved3Y: o.PriceInfos.Reserved3Y, catalog.CapacityBlock: o.PriceInfos.CapacityBlock} {
		if info.Basis == "" {
			continue
		}
		if basis {
			want[string(pm)] = knownvalue.StringExact(string(info.Basis))
		} else {
			want[string(pm)] = knownvalue.StringExact(info.AsOf.Format("2006-01-02"))
		}
	}
	return knownvalue.MapExact(want)
}

// TestAccOffersSummary: the summary lists each instance type once per
// cloud, in its cheapest region by on-demand price, with every pricing
// model the cloud's rows are sold under; the expectation is computed from
// the catalog here, apart from browse.OffersSummary.
func TestAccOffersSummary(t *testing.T) {
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	var best *catalog.Offer
	for _, o := range cat.OffersOf("aws", "p5.48xlarge") {
		if o.OnDemandUSD > 0 && (best == nil || o.OnDemandUSD < best.OnDemandUSD || (o.OnDemandUSD == best.OnDemandUSD && o.Region < best.Region)) {
			best = o
		}
	}
	if best == nil {
		t.Fatal("catalog lacks an on-demand aws p5.48xlarge")
	}
	row := regexp.MustCompile(`(?m)^p5\.48xlarge +H100 +8 +640 +` + regexp.QuoteMeta(best.Region) + ` +\d+ +` +
		regexp.QuoteMeta(numfmt.Thousands(numfmt.Price(best.OnDemandUSD), 2)) + `( |$)`)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: `
data "gpu_offers" "h100" {
  clouds       = ["aws", "modal"]
  accelerators = ["H100", "H100-PCIE"]
}
output "summary" { value = data.gpu_offers.h100.summary }`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownOutputValue("summary", knownvalue.StringFunc(func(s string) error {
					if !row.MatchString(s) {
						return fmt.Errorf("no row matching %s in:\n%s", row, s)
					}
					return wantLines(s, "aws: ", "modal: ", "CHEAPEST REGION", "ON-DEMAND", "SERVERLESS", "(platform)")
				})),
			},
		}},
	})
}
