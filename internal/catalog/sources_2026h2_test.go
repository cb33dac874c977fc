// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package catalog_test

import (
	"math"
	"path"
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
	// AWS P3 (V100) no longer listed by AWS (2026-05): no offer outside
	// the China partition, which the evidence does not cover.
	for _, it := range []string{"p3.2xlarge", "p3.8xlarge", "p3.16xlarge"} {
		for _, o := range c.OffersOf("aws", it) {
			if !strings.HasPrefix(o.Region, "cn-") {
				t.Errorf("aws %s/%s: an offer of a retired type", it, o.Region)
			}
		}
	}
	// Lambda's us-south-1 is no longer among the regions Lambda lists.
	for _, it := range c.InstanceTypes("lambda") {
		if _, ok := c.Offer("lambda", it, "us-south-1"); ok {
			t.Errorf("lambda %s/us-south-1: an offer in a region Lambda no longer lists", it)
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

// TestAzureRetailAndSavingsPlans reads the Azure Retail Prices API snapshot
// (azure_retail_2026-08-22.csv) and the series savings-plan rows
// (azure_savings_plan_2026h2.csv) on their own: every snapshot row of an
// offer sets its on-demand price (dated 2026-08-22 unless a newer update
// replaced it), spot and reserved_1y = the 1-year savings plan, published;
// an NCv6 offer without a published rate is derived with the series'
// savings-plan share of on-demand; no Azure price is a Reserved VM
// Instance rate (the catalog's Azure reserved is the savings plan).
func TestAzureRetailAndSavingsPlans(t *testing.T) {
	c := builtin(t)
	snap := readSource(t, "azure_retail_2026-08-22.csv")
	n := 0
	want := func(o *catalog.Offer, pm catalog.PricingModel, v float64, basis catalog.PriceBasis, asOf string) {
		t.Helper()
		got, info, ok := o.PriceInfo(pm)
		if !ok || !near(got, v) || info.Basis != basis || info.AsOf.Format(time.DateOnly) != asOf {
			t.Errorf("azure %s/%s %s = %v %+v, want %v %s as of %s", o.InstanceType, o.Region, pm, got, info, v, basis, asOf)
		}
		n++
	}
	for _, r := range snap.rows {
		o, ok := c.Offer("azure", snap.get(r, "sku"), snap.get(r, "region"))
		if !ok {
			continue
		}
		od := snap.f(t, r, "on_demand_usd_per_hour")
		want(o, catalog.OnDemand, od, catalog.PricePublished, "2026-08-22")
		if s := snap.get(r, "spot_usd_per_hour"); s != "" {
			want(o, catalog.Spot, snap.f(t, r, "spot_usd_per_hour"), catalog.PricePublished, "2026-08-22")
		}
		if s := snap.get(r, "savings_plan_1y_usd_per_hour"); s != "" {
			want(o, catalog.Reserved1Y, snap.f(t, r, "savings_plan_1y_usd_per_hour"), catalog.PricePublished, "2026-08-22")
		}
		if _, info, _ := o.PriceInfo(catalog.Reserved3Y); info.Basis != catalog.PriceDerived {
			t.Errorf("azure %s/%s reserved_3y %+v: the snapshot has no 3-year rate, want derived", o.InstanceType, o.Region, info)
		}
	}
	sp := readSource(t, "azure_savings_plan_2026h2.csv")
	ratio := map[catalog.PricingModel]float64{}
	pattern := ""
	for _, r := range sp.rows {
		od := sp.f(t, r, "on_demand_usd_per_hour")
		ratio[catalog.Reserved1Y] = sp.f(t, r, "savings_plan_1y_usd_per_hour") / od
		ratio[catalog.Reserved3Y] = sp.f(t, r, "savings_plan_3y_usd_per_hour") / od
		pattern = sp.get(r, "applies_to")
	}
	ncv6 := 0
	for _, o := range c.Offers {
		if o.Cloud != "azure" || !matchGlob(t, pattern, o.InstanceType) {
			continue
		}
		ncv6++
		for _, pm := range []catalog.PricingModel{catalog.Reserved1Y, catalog.Reserved3Y} {
			if _, info, _ := o.PriceInfo(pm); info.Basis == catalog.PriceDerived {
				want(o, pm, math.Round(o.OnDemandUSD*ratio[pm]*1e6)/1e6, catalog.PriceDerived, info.AsOf.Format(time.DateOnly))
			}
		}
	}
	if ncv6 == 0 {
		t.Errorf("no offer matches the series pattern %q", pattern)
	}
	ri := readSource(t, "azure_spot_reserved.csv")
	for _, r := range ri.rows {
		o, ok := c.Offer("azure", ri.get(r, "sku"), ri.get(r, "region"))
		if v := ri.get(r, "reservation_1y_usd_per_hour"); ok && v != "" && near(o.Reserved1YUSD, ri.f(t, r, "reservation_1y_usd_per_hour")) {
			t.Errorf("azure %s/%s reserved_1y is the Reserved VM Instance rate %s", o.InstanceType, o.Region, v)
		}
	}
	compared(t, n, 150, "Azure snapshot and savings-plan prices")
}

func matchGlob(t *testing.T, pattern, s string) bool {
	t.Helper()
	ok, err := path.Match(pattern, s)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// TestAWSVantageRedated reads the 2026-01-21 copy of the vantage AWS data
// (aws_vantage_2026-01-21.csv) on its own: an aws_reserved.csv 1-year
// Standard RI the copy shows unchanged is dated 2026-01-21, one it does not
// show keeps the snapshot's 2025-11-30; so does the on-demand price of an
// offer the snapshot alone prices (source aws-vantage).
func TestAWSVantageRedated(t *testing.T) {
	c := builtin(t)
	cp := readSource(t, "aws_vantage_2026-01-21.csv")
	newer := map[string][]string{}
	for _, r := range cp.rows {
		newer[cp.get(r, "instance_type")+"/"+cp.get(r, "region")] = r
	}
	ar := readSource(t, "aws_reserved.csv")
	n := 0
	for _, r := range ar.rows {
		o, ok := c.Offer("aws", ar.get(r, "instance_type"), ar.get(r, "region"))
		if !ok || refreshed(o) || ar.get(r, "method") != "vantage_snapshot_via_tsaol" {
			continue
		}
		nr, has := newer[o.InstanceType+"/"+o.Region]
		same := func(col, newCol string) bool {
			return has && ar.get(r, col) != "" && cp.get(nr, newCol) != "" && ar.f(t, r, col) == cp.f(t, nr, newCol)
		}
		date := func(b bool) string {
			if b {
				return "2026-01-21"
			}
			return "2025-11-30"
		}
		if got, info, ok := o.PriceInfo(catalog.Reserved1Y); ok && info.Basis == catalog.PricePublished && near(got, ar.f(t, r, "ri_1y_standard_no_upfront")) {
			if want := date(same("ri_1y_standard_no_upfront", "reserved_1y_usd_per_hour")); info.AsOf.Format(time.DateOnly) != want {
				t.Errorf("aws %s/%s reserved_1y dated %v, want %s", o.InstanceType, o.Region, info.AsOf, want)
			}
			n++
		}
		if o.Source == "aws-vantage" || strings.HasPrefix(o.Source, "aws-vantage+") {
			_, info, _ := o.PriceInfo(catalog.OnDemand)
			if want := date(same("on_demand_usd_per_hour", "on_demand_usd_per_hour")); info.AsOf.Format(time.DateOnly) != want {
				t.Errorf("aws %s/%s on-demand dated %v, want %s", o.InstanceType, o.Region, info.AsOf, want)
			}
			n++
		}
	}
	compared(t, n, 500, "AWS vantage dates")
}
