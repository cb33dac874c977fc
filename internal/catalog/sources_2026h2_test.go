// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package catalog_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// TestPriceUpdates compares price_updates_2026h2.csv, read here on its own,
// with the offers: every row's price is the offer's (region "*": every
// region the instance type is offered in), published and dated by the row,
// unless a newer source (a price-list refresh) replaced it.
func TestPriceUpdates(t *testing.T) {
	c := builtin(t)
	u := readSource(t, "price_updates_2026h2.csv")
	n := 0
	for _, r := range u.rows {
		pm := catalog.PricingModel(u.get(r, "pricing_model"))
		asOf, err := time.Parse(time.DateOnly, u.get(r, "as_of"))
		if err != nil {
			t.Fatalf("as_of %q: %v", u.get(r, "as_of"), err)
		}
		var offers []*catalog.Offer
		for _, o := range c.OffersOf(u.get(r, "cloud"), u.get(r, "instance_type")) {
			if u.get(r, "region") == "*" || o.Region == u.get(r, "region") {
				offers = append(offers, o)
			}
		}
		if len(offers) == 0 {
			t.Errorf("%s/%s/%s: no offer", u.get(r, "cloud"), u.get(r, "instance_type"), u.get(r, "region"))
		}
		for _, o := range offers {
			got, info, ok := o.PriceInfo(pm)
			if !ok || !near(got, u.f(t, r, "usd_per_hour")) || info.Basis != catalog.PricePublished || !info.AsOf.Equal(asOf) {
				t.Errorf("%s/%s/%s %s = %v %+v, update %s as of %s", o.Cloud, o.InstanceType, o.Region, pm, got, info,
					u.get(r, "usd_per_hour"), u.get(r, "as_of"))
			}
			n++
		}
	}
	t.Logf("%d updated prices compared", n)
}

// TestPriceTables expands gpu_cloud_price_tables_2026h2.csv here on its own
// (GPU counts, per-GPU rates, region sets of curated/region_sets.csv) and
// compares every price with the offers.
func TestPriceTables(t *testing.T) {
	c := builtin(t)
	sets := map[string][]string{}
	rs := curatedRows(t, "region_sets.csv")
	for _, r := range rs.rows {
		sets[rs.get(r, "cloud")+"/@"+rs.get(r, "set")] = strings.Split(rs.get(r, "regions"), ";")
	}
	tb := readSource(t, "gpu_cloud_price_tables_2026h2.csv")
	n := 0
	for _, r := range tb.rows {
		cloud := tb.get(r, "cloud")
		regions := strings.Split(tb.get(r, "regions"), ";")
		if strings.HasPrefix(tb.get(r, "regions"), "@") {
			regions = sets[cloud+"/"+tb.get(r, "regions")]
		}
		for _, g := range strings.Split(tb.get(r, "gpus"), ";") {
			gpus, err := strconv.Atoi(g)
			if err != nil {
				t.Fatal(err)
			}
			it := strings.ReplaceAll(tb.get(r, "instance_type"), "{n}", g)
			want := tb.f(t, r, "usd_per_hour")
			if tb.get(r, "per_gpu") == "Y" {
				want *= float64(gpus)
			}
			for _, region := range regions {
				o, ok := c.Offer(cloud, it, region)
				if !ok {
					t.Errorf("%s/%s/%s: no offer", cloud, it, region)
					continue
				}
				got, info, _ := o.PriceInfo(catalog.PricingModel(tb.get(r, "pricing_model")))
				if !near(got, want) || info.Basis != catalog.PricePublished || info.AsOf.Format(time.DateOnly) != tb.get(r, "as_of") ||
					o.GPUs != gpus {
					t.Errorf("%s/%s/%s %s = %v %+v (%d GPUs), table %v as of %s", cloud, it, region, tb.get(r, "pricing_model"), got, info,
						o.GPUs, want, tb.get(r, "as_of"))
				}
				n++
			}
		}
	}
	compared(t, n, 1500, "table prices")
}

// TestIssue19Fixes pins the corrections issue 19 asked for, each against
// the number the audit found.
func TestIssue19Fixes(t *testing.T) {
	c := builtin(t)
	// Azure NCv3 retired on 2025-09-30: no offer.
	for _, it := range []string{"Standard_NC6s_v3", "Standard_NC12s_v3", "Standard_NC24s_v3", "Standard_NC24rs_v3"} {
		if n := len(c.OffersOf("azure", it)); n != 0 {
			t.Errorf("azure %s: %d offers of a retired size", it, n)
		}
	}
	// GCP a3-highgpu-1g/2g/4g: Spot (or Flex-start) only.
	for _, it := range []string{"a3-highgpu-1g", "a3-highgpu-2g", "a3-highgpu-4g"} {
		offers := c.OffersOf("gcp", it)
		if len(offers) == 0 {
			t.Errorf("gcp %s: no spot offer", it)
		}
		for _, o := range offers {
			if o.OnDemandUSD != 0 || o.Reserved1YUSD != 0 || o.Reserved3YUSD != 0 || o.SpotUSD <= 0 {
				t.Errorf("gcp %s/%s: %+v, want spot only", it, o.Region, o)
			}
		}
	}
	// GCP a3-ultragpu-8g: no host+GPU sum of about $50/h anywhere; outside
	// the US the Billing Catalog's $92-100.
	for _, o := range c.OffersOf("gcp", "a3-ultragpu-8g") {
		if o.OnDemandUSD != 0 && o.OnDemandUSD < 80 {
			t.Errorf("gcp a3-ultragpu-8g/%s on-demand %v", o.Region, o.OnDemandUSD)
		}
	}
	for _, tc := range []struct {
		cloud, it, region string
		pm                catalog.PricingModel
		lo, hi            float64
	}{
		{"gcp", "a3-ultragpu-8g", "europe-west1", catalog.OnDemand, 91.9, 100.5},
		{"gcp", "a3-ultragpu-8g", "asia-south1", catalog.OnDemand, 91.9, 100.5},
		// RunPod A100: one per-GPU rate at 1, 2, 4 and 8 GPUs (the newer feed).
		{"runpod", "1x_A100-80GB_SECURE", "US-TX-3", catalog.OnDemand, 1.79, 1.79},
		{"runpod", "8x_A100-80GB_SECURE", "US-TX-3", catalog.OnDemand, 8 * 1.79, 8 * 1.79},
		// AWS reserved = EC2 Instance Savings Plan (Compute SP where no
		// Instance plan exists), not a Convertible RI; p6 1y published.
		{"aws", "p5.48xlarge", "us-east-1", catalog.Reserved1Y, 34.6752, 34.6752},
		{"aws", "p6-b200.48xlarge", "us-east-1", catalog.Reserved1Y, 89.72208, 89.72208},
		{"aws", "p6-b300.48xlarge", "us-east-1", catalog.Reserved1Y, 112.1526, 112.1526},
		// Current capacity blocks (2026-09).
		{"aws", "p5.48xlarge", "us-east-1", catalog.CapacityBlock, 41.528, 41.528},
		// Azure 2- and 4-GPU NC A100 v4 in eastus (November 2026).
		{"azure", "Standard_NC48ads_A100_v4", "eastus", catalog.OnDemand, 9.554, 9.554},
		{"azure", "Standard_NC96ads_A100_v4", "eastus", catalog.OnDemand, 19.108, 19.108},
	} {
		got, info, ok := mustOffer(t, c, tc.cloud, tc.it, tc.region).PriceInfo(tc.pm)
		if !ok || got < tc.lo-1e-9 || got > tc.hi+1e-9 || info.Basis != catalog.PricePublished {
			t.Errorf("%s/%s/%s %s = %v (%+v), want %v..%v published", tc.cloud, tc.it, tc.region, tc.pm, got, info, tc.lo, tc.hi)
		}
	}
	// p6-b200 1y in another region: derived from the type's published
	// discount, not the cloud median, and marked derived.
	if _, info, ok := mustOffer(t, c, "aws", "p6-b200.48xlarge", "us-west-2").PriceInfo(catalog.Reserved1Y); !ok || info.Basis != catalog.PriceDerived {
		t.Errorf("p6-b200 us-west-2 reserved_1y: %+v", info)
	}
	if o := mustOffer(t, c, "aws", "p6-b200.48xlarge", "us-west-2"); !near(o.Reserved1YUSD, 89.72208) {
		t.Errorf("p6-b200 us-west-2 reserved_1y %v, want the us-east-1 Compute Savings Plan share of the same on-demand price", o.Reserved1YUSD)
	}
}

func mustOffer(t *testing.T, c *catalog.Catalog, cloud, it, region string) *catalog.Offer {
	t.Helper()
	o, ok := c.Offer(cloud, it, region)
	if !ok {
		t.Fatalf("no offer %s/%s/%s", cloud, it, region)
	}
	return o
}
