// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package catalog_test

import (
	"encoding/csv"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

func builtin(t testing.TB) *catalog.Catalog {
	t.Helper()
	c, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestBuiltinCounts(t *testing.T) {
	c := builtin(t)
	its, priced := map[string]bool{}, map[string]bool{}
	for _, o := range c.Offers {
		its[o.Cloud+"/"+o.InstanceType] = true
		priced[o.Cloud] = true
	}
	for _, tc := range []struct {
		what     string
		got, min int
	}{
		{"clouds with priced GPU instance offers", len(priced), 13},
		{"accelerators", len(c.Accelerators), 43},
		{"instance types", len(its), 300},
		{"priced rows (offers)", len(c.Offers), 4000},
	} {
		if tc.got < tc.min {
			t.Errorf("%s: %d, want >= %d", tc.what, tc.got, tc.min)
		}
		t.Logf("%s: %d", tc.what, tc.got)
	}
	for _, id := range []string{"aws", "gcp", "azure", "oci", "lambda", "nebius", "runpod", "coreweave", "together", "crusoe",
		"verda", "vast", "hyperstack"} {
		if !priced[id] {
			t.Errorf("cloud %s has no priced offer", id)
		}
	}
}

// TestCatalogDateIsOldestPriceDate: catalog_date is the oldest date that
// still decides a price, so no price is older than the catalog says.
func TestCatalogDateIsOldestPriceDate(t *testing.T) {
	c := builtin(t)
	var oldest time.Time
	for _, o := range c.Offers {
		for _, pm := range catalog.OfferPricingModels {
			if _, info, ok := o.PriceInfo(pm); ok && (oldest.IsZero() || info.AsOf.Before(oldest)) {
				oldest = info.AsOf
			}
		}
	}
	for _, s := range c.Serverless {
		if s.PriceInfo.AsOf.Before(oldest) {
			oldest = s.PriceInfo.AsOf
		}
	}
	if !c.Date.Equal(oldest) {
		t.Errorf("catalog date %v, oldest price date %v", c.Date.Format(time.DateOnly), oldest.Format(time.DateOnly))
	}
}

func TestBuiltinInvariants(t *testing.T) {
	c := builtin(t)
	for _, o := range c.Offers {
		if o.SpotUSD >= o.OnDemandUSD && o.SpotUSD > 0 && o.OnDemandUSD > 0 {
			t.Errorf("%s/%s/%s: spot %v >= on-demand %v", o.Cloud, o.InstanceType, o.Region, o.SpotUSD, o.OnDemandUSD)
		}
		if _, ok := c.Region(o.Cloud, o.Region); !ok {
			t.Errorf("offer region %s/%s without metadata", o.Cloud, o.Region)
		}
		cl, _ := c.Cloud(o.Cloud)
		if cl.Reserved1YDiscount == 0 && o.Reserved1YUSD != 0 {
			t.Errorf("%s sells no commitment but offer %s has reserved price", o.Cloud, o.InstanceType)
		}
	}
	for _, tc := range []struct {
		alias, want string
	}{
		{"h100-sxm", "H100"}, {"H100-SXM5", "H100"}, {"nvidia-h100-80gb", "H100"}, {"NVIDIA H100 80GB HBM3", "H100"},
		{"H100-MEGA", "H100"}, {"a100", "A100-40GB"}, {"nvidia-tesla-a100", "A100-40GB"}, {"A100-80GB", "A100-80GB"},
		{"t4g", "T4"}, {"trillium", "TPU-V6E"}, {"v100", "V100-16GB"},
		// The hardware names of the InferenceX calibration data.
		{"GB200 NVL72", "GB200"}, {"GB300 NVL72", "GB300"}, {"MI355X", "MI355X"}, {"RTX PRO 6000", "RTX-PRO-6000"},
	} {
		a, ok := c.Accelerator(tc.alias)
		if !ok || a.ID != tc.want {
			t.Errorf("Accelerator(%q) = %v, want %s", tc.alias, a, tc.want)
		}
	}
	// Precisions the hardware lacks are absent.
	for _, tc := range []struct {
		id, p   string
		present bool
	}{
		{"T4", "bf16", false}, {"T4", "fp16", true}, {"V100-16GB", "bf16", false}, {"A100-40GB", "fp8", false},
		{"A100-40GB", "tf32", true}, {"H100", "fp8", true}, {"B200", "fp4", true}, {"H100", "fp4", false},
	} {
		a, _ := c.Accelerator(tc.id)
		if _, ok := a.PeakTFLOPS[tc.p]; ok != tc.present {
			t.Errorf("%s %s present=%v, want %v", tc.id, tc.p, ok, tc.present)
		}
	}
	// Known source errors are corrected.
	if o, ok := c.Offer("azure", "Standard_ND96isr_H100_v5", "eastus"); !ok || o.GPUs != 8 || o.GPUMemoryGB != 640 {
		t.Errorf("azure ND96isr_H100_v5 = %+v, want 8 GPUs / 640 GB", o)
	}
	if o, ok := c.Offer("lambda", "gpu_8x_h100_sxm5", "us-east-1"); !ok || o.GPUMemoryGB != 640 || o.Fabric != catalog.FabricInfiniBand {
		t.Errorf("lambda 8x H100 = %+v", o)
	}
	if o, ok := c.Offer("aws", "p5.48xlarge", "us-east-1"); !ok || o.NetworkGbps != 3200 || o.Fabric != catalog.FabricEFA || o.ReservedDerived {
		t.Errorf("aws p5 = %+v", o)
	}
	// p5e has no on-demand price: only its capacity-block offer is carried.
	for _, o := range c.OffersOf("aws", "p5e.48xlarge") {
		if o.OnDemandUSD != 0 || o.SpotUSD != 0 || o.CapacityBlockUSD <= 0 {
			t.Errorf("p5e in %s: %+v, want a capacity-block-only offer", o.Region, o)
		}
	}
}

// ---------- comparison with the source files ----------

type srcRows struct {
	hdr  map[string]int
	rows [][]string
}

func readSource(t *testing.T, name string) srcRows {
	t.Helper()
	return readCSVFile(t, filepath.Join("testdata", "sources", name))
}

func readCSVFile(t *testing.T, path string) srcRows {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	all, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	h := map[string]int{}
	for i, k := range all[0] {
		h[k] = i
	}
	return srcRows{h, all[1:]}
}

func (s srcRows) get(row []string, col string) string { return row[s.hdr[col]] }

func (s srcRows) f(t *testing.T, row []string, col string) float64 {
	v := s.get(row, col)
	if v == "" {
		return 0
	}
	x, err := strconv.ParseFloat(v, 64)
	if err != nil {
		t.Fatalf("%s: %v", col, err)
	}
	return x
}

// priceListSource matches the source text of offers a price-list file of
// testdata/sources/pricelists refreshed (pricelist.Result.Source), or a
// newer dated source replaced prices of (price_updates_2026h2.csv,
// gpu_cloud_price_tables_2026h2.csv).
var priceListSource = regexp.MustCompile(`^(AWS Price List API|Azure Retail Prices API|Google Cloud Billing Catalog SKUs|newer published prices:|price table) `)

// refreshed reports whether a maintainers' price-list refresh or a newer
// dated source set the offer's prices: those are compared with the price
// lists (TestPriceListOffers) and the newer sources (TestPriceUpdates,
// TestPriceTables), not with the snapshot sources.
func refreshed(o *catalog.Offer) bool { return o != nil && priceListSource.MatchString(o.Source) }

// curatedRows reads a table of internal/gencatalog/curated.
func curatedRows(t *testing.T, name string) srcRows {
	t.Helper()
	return readCSVFile(t, filepath.Join("internal", "gencatalog", "curated", name))
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Max(1, math.Abs(b)) }

func TestOffersMatchSources(t *testing.T) {
	c := builtin(t)
	checked := map[string]int{}
	check := func(cloud, it, region, what string, got, want float64) {
		t.Helper()
		if !near(got, want) {
			t.Errorf("%s/%s/%s %s = %v, source %v", cloud, it, region, what, got, want)
		}
		checked[cloud]++
	}

	// gpu_prices.csv (zone rows): AWS, Lambda, Nebius, OCI on-demand, GPU count, GPU memory; spot = median of discounted zones.
	gp := readSource(t, "gpu_prices.csv")
	type zkey struct{ cloud, it, region string }
	spots := map[zkey][]float64{}
	for _, r := range gp.rows {
		cl := gp.get(r, "cloud")
		if cl == "gcp" || cl == "azure" || cl == "runpod" {
			continue
		}
		k := zkey{cl, gp.get(r, "instance_type"), gp.get(r, "region")}
		o, ok := c.Offer(k.cloud, k.it, k.region)
		if refreshed(o) {
			continue
		}
		if !ok || gp.get(r, "price_on_demand_usd_per_hour") == "" {
			continue // zones without an on-demand price: the offer's rates come from the coverage file (coverage_test.go)
		}
		check(k.cloud, k.it, k.region, "on_demand", o.OnDemandUSD, gp.f(t, r, "price_on_demand_usd_per_hour"))
		check(k.cloud, k.it, k.region, "gpus", o.GPUCount(), gp.f(t, r, "accelerator_count"))
		if m := gp.f(t, r, "gpu_memory_gib"); m > 0 && (k.cloud != "aws" || !strings.HasPrefix(k.it, "trn2")) {
			// Sources report usable GiB (e.g. A10G 22.35 GiB of 24 GB
			// nominal); the catalog uses the datasheet figure.
			if math.Abs(o.GPUMemoryGB-m) > 0.1*m {
				t.Errorf("%s/%s/%s gpu_memory = %v, source %v", k.cloud, k.it, k.region, o.GPUMemoryGB, m)
			}
			checked[k.cloud]++
		}
		// A zone spot rate is a discount only below on-demand rounded to
		// the 4 decimals of the spot column (SkyPilot repeats on-demand
		// truncated: 11.8112 for 11.81123).
		if s := gp.f(t, r, "price_spot_usd_per_hour"); s > 0 && s < math.Round(o.OnDemandUSD*1e4)/1e4 {
			spots[k] = append(spots[k], s)
		}
	}
	for k, v := range spots {
		sort.Float64s(v)
		want := v[len(v)/2]
		if len(v)%2 == 0 {
			want = (v[len(v)/2-1] + v[len(v)/2]) / 2
		}
		o, _ := c.Offer(k.cloud, k.it, k.region)
		if refreshed(o) {
			continue
		}
		check(k.cloud, k.it, k.region, "spot(median)", o.SpotUSD, math.Round(want*1e6)/1e6)
	}

	// aws_reserved.csv: the catalog's AWS reserved definition, the
	// Standard RI no-upfront rate (= EC2 Instance Savings Plan); a term
	// without one is derived, never a Convertible RI.
	ar := readSource(t, "aws_reserved.csv")
	for _, r := range ar.rows {
		o, ok := c.Offer("aws", ar.get(r, "instance_type"), ar.get(r, "region"))
		if refreshed(o) || !ok || ar.get(r, "method") != "vantage_snapshot_via_tsaol" {
			continue
		}
		for _, term := range []struct {
			pm  catalog.PricingModel
			col string
		}{{catalog.Reserved1Y, "ri_1y_standard_no_upfront"}, {catalog.Reserved3Y, "ri_3y_standard_no_upfront"}} {
			got, info, _ := o.PriceInfo(term.pm)
			if ar.get(r, term.col) == "" {
				if info.Basis != catalog.PriceDerived {
					t.Errorf("aws/%s/%s %s: no Standard RI in the source but %v %+v", o.InstanceType, o.Region, term.pm, got, info)
				}
				continue
			}
			check("aws", o.InstanceType, o.Region, string(term.pm), got, ar.f(t, r, term.col))
		}
	}

	// gcp_machine_totals.csv: whole-machine totals, except the shapes
	// curated/offer_drops.csv drops and the pricing models
	// curated/sold_as.csv says Google does not sell.
	dropped, soldAs := map[string]bool{}, map[string]string{}
	od := curatedRows(t, "offer_drops.csv")
	for _, r := range od.rows {
		if od.get(r, "cloud") == "gcp" && od.get(r, "region") == "*" {
			dropped[od.get(r, "instance_type")] = true
		}
	}
	sa := curatedRows(t, "sold_as.csv")
	for _, r := range sa.rows {
		soldAs[sa.get(r, "cloud")+"/"+sa.get(r, "instance_type")] = sa.get(r, "pricing_models")
	}
	gt := readSource(t, "gcp_machine_totals.csv")
	newer, listed := gcpNewerRows(t)
	gcpListed := map[string]bool{}
	for _, r := range gt.rows {
		k := gt.get(r, "name") + "/" + gt.get(r, "region")
		flag := gt.get(r, "offered_in_region_per_skypilot")
		gcpListed[k] = flag == "yes" || (flag == "unknown" && listed[k])
	}
	for _, r := range gt.rows {
		it, region := gt.get(r, "name"), gt.get(r, "region")
		o, ok := c.Offer("gcp", it, region)
		if refreshed(o) || dropped[it] {
			continue
		}
		// The 2026-08-20 extract replaces the 2026-07-30 row of the same
		// machine type and region, prices and date.
		prices, want := gt, r
		asOf := "2026-07-30"
		if n, ok := newer.byKey[it+"/"+region]; ok {
			prices, want, asOf = newer.srcRows, n, "2026-08-20"
		}
		if sold, limited := soldAs["gcp/"+it]; limited && ok {
			for _, pm := range catalog.OfferPricingModels {
				if _, priced := o.Price(pm); priced && !strings.Contains(sold, string(pm)) {
					t.Errorf("gcp %s/%s is sold only as %s but has a %s price", it, region, sold, pm)
				}
			}
			if s := prices.f(t, want, "spot_usd_per_hour"); s > 0 && strings.Contains(sold, "spot") {
				check("gcp", it, region, "spot", o.SpotUSD, s)
			}
			continue
		}
		if !gcpListed[it+"/"+region] {
			if ok {
				t.Errorf("gcp %s/%s: offered but neither SkyPilot nor (G2/G4) the machine-type list has it there", it, region)
			}
			continue
		}
		if !ok {
			t.Errorf("gcp %s/%s missing", it, region)
			continue
		}
		check("gcp", it, region, "on_demand", o.OnDemandUSD, prices.f(t, want, "on_demand_usd_per_hour"))
		if v := prices.f(t, want, "commit_1y_usd_per_hour"); v > 0 {
			check("gcp", it, region, "reserved_1y", o.Reserved1YUSD, v)
		}
		if v := prices.f(t, want, "commit_3y_usd_per_hour"); v > 0 {
			check("gcp", it, region, "reserved_3y", o.Reserved3YUSD, v)
		}
		check("gcp", it, region, "gpus", o.GPUCount(), gt.f(t, r, "gpu_count"))
		check("gcp", it, region, "vcpus", float64(o.VCPUs), gt.f(t, r, "vcpus"))
		if s := prices.f(t, want, "spot_usd_per_hour"); s < o.OnDemandUSD {
			check("gcp", it, region, "spot", o.SpotUSD, s)
		}
		if got, info, _ := o.PriceInfo(catalog.OnDemand); got > 0 && info.AsOf.Format(time.DateOnly) != asOf {
			t.Errorf("gcp %s/%s on-demand dated %v, source row %s", it, region, info.AsOf, asOf)
		}
	}

	// Azure on-demand.
	az := readSource(t, "azure_gpu_ondemand_2026-06-18.csv")
	for _, r := range az.rows {
		if o, ok := c.Offer("azure", az.get(r, "sku"), az.get(r, "region")); ok && !refreshed(o) {
			check("azure", o.InstanceType, o.Region, "on_demand", o.OnDemandUSD, az.f(t, r, "on_demand_usd_per_hour"))
		}
	}

	// AWS China: native CNY and the documented conversion.
	cn := readSource(t, "cn_gpu_prices.csv")
	rate := 0.0
	for _, x := range c.ExchangeRates {
		if x.Currency == "CNY" {
			rate = x.UnitsPerUSD
		}
	}
	for _, r := range cn.rows {
		o, ok := c.Offer("aws", cn.get(r, "instance_type"), cn.get(r, "region"))
		if refreshed(o) {
			continue
		}
		if !ok {
			continue
		}
		od := cn.f(t, r, "on_demand_per_hour")
		check("aws", o.InstanceType, o.Region, "native_on_demand", o.NativeOnDemand, od)
		check("aws", o.InstanceType, o.Region, "on_demand(usd)", o.OnDemandUSD, math.Round(od/rate*1e6)/1e6)
		if o.Currency != "CNY" {
			t.Errorf("%s/%s currency %q", o.InstanceType, o.Region, o.Currency)
		}
	}

	total := 0
	for cl, n := range checked {
		total += n
		t.Logf("%s: %d values compared", cl, n)
	}
	for _, cl := range []string{"aws", "gcp", "azure", "lambda", "nebius", "oci"} {
		if checked[cl] == 0 {
			t.Errorf("no %s values compared", cl)
		}
	}
	if total < 30 {
		t.Errorf("only %d values compared", total)
	}
}

// gcpNewer is the 2026-08-20 GCP extract (gcp_machine_prices_2026-08-20.csv)
// indexed by machine type/region.
type gcpNewer struct {
	srcRows srcRows
	byKey   map[string][]string
}

// gcpNewerRows reads the 2026-08-20 GCP price extract and the G2/G4
// machine-type regions of Compute Engine's list.
func gcpNewerRows(t *testing.T) (gcpNewer, map[string]bool) {
	t.Helper()
	n := gcpNewer{srcRows: readSource(t, "gcp_machine_prices_2026-08-20.csv"), byKey: map[string][]string{}}
	for _, r := range n.srcRows.rows {
		n.byKey[n.srcRows.get(r, "name")+"/"+n.srcRows.get(r, "region")] = r
	}
	listed := map[string]bool{}
	lr := readSource(t, "gcp_gpu_machine_regions_2026-08-17.csv")
	for _, r := range lr.rows {
		listed[lr.get(r, "name")+"/"+lr.get(r, "region")] = true
	}
	return n, listed
}

// TestAWSExtraRegions checks the AWS regions that have prices only in
// aws_reserved.csv and metadata only in the curated extra-regions table
// (regions.csv has no row for them): every vantage row of those regions is
// an offer with the source's on-demand, spot (when below on-demand) and best
// no-upfront 1y/3y prices, and the region metadata follows regions.csv's
// conventions (Zurich is Swiss FADP, not GDPR; grid PROXY from a
// same-country region, or 0 when regions.csv has none).
func TestAWSExtraRegions(t *testing.T) {
	c := builtin(t)
	rs := readSource(t, "regions.csv")
	srcRegion := map[string][]string{}
	for _, r := range rs.rows {
		srcRegion[rs.get(r, "cloud")+"/"+rs.get(r, "region")] = r
	}
	for _, tc := range []struct {
		region, country, geo string
		compliance           []string
		proxy                string // cloud/region in regions.csv; "" = grid unknown
	}{
		{"ap-southeast-5", "MY", "apac", []string{catalog.ComplianceHIPAA}, ""},
		{"eu-central-2", "CH", "eu", []string{catalog.ComplianceSwissFADP, catalog.ComplianceHIPAA}, "gcp/europe-west6"},
		{"il-central-1", "IL", "me", []string{catalog.ComplianceHIPAA}, "gcp/me-west1"},
	} {
		if _, inSource := srcRegion["aws/"+tc.region]; inSource {
			t.Errorf("aws/%s is now in regions.csv: drop it from curated/regions_extra.csv", tc.region)
		}
		reg, ok := c.Region("aws", tc.region)
		if !ok {
			t.Errorf("region aws/%s missing", tc.region)
			continue
		}
		if reg.Country != tc.country || reg.Geography != tc.geo || reg.Partition != "commercial" || reg.PUE != 0 {
			t.Errorf("aws/%s = %+v, want country %s, geography %s, commercial, PUE 0", tc.region, reg, tc.country, tc.geo)
		}
		if strings.Join(reg.Compliance, ";") != strings.Join(tc.compliance, ";") {
			t.Errorf("aws/%s compliance %v, want %v", tc.region, reg.Compliance, tc.compliance)
		}
		if tc.proxy == "" {
			if reg.GridGCO2ePerKWh != 0 || reg.GridYear != 0 {
				t.Errorf("aws/%s grid %v (%d), want 0 = unknown", tc.region, reg.GridGCO2ePerKWh, reg.GridYear)
			}
		} else {
			p, ok := srcRegion[tc.proxy]
			if !ok {
				t.Fatalf("proxy %s not in regions.csv", tc.proxy)
			}
			if rs.get(p, "country") != tc.country {
				t.Errorf("proxy %s is in %s, not %s", tc.proxy, rs.get(p, "country"), tc.country)
			}
			if !near(reg.GridGCO2ePerKWh, rs.f(t, p, "grid_gco2e_per_kwh")) || float64(reg.GridYear) != rs.f(t, p, "grid_year") {
				t.Errorf("aws/%s grid %v (%d), want proxy %s %s (%s)", tc.region, reg.GridGCO2ePerKWh, reg.GridYear,
					tc.proxy, rs.get(p, "grid_gco2e_per_kwh"), rs.get(p, "grid_year"))
			}
			if !strings.Contains(reg.Source, "PROXY") || !strings.Contains(reg.Source, tc.proxy) {
				t.Errorf("aws/%s source %q does not name the PROXY %s", tc.region, reg.Source, tc.proxy)
			}
		}
	}
	if reg, _ := c.Region("aws", "eu-central-2"); reg == nil || slices.Contains(reg.Compliance, catalog.ComplianceGDPR) {
		t.Errorf("aws/eu-central-2 (Zurich) is not GDPR: %v", reg.Compliance)
	}

	ar := readSource(t, "aws_reserved.csv")
	n := map[string]int{}
	for _, r := range ar.rows {
		region, it := ar.get(r, "region"), ar.get(r, "instance_type")
		if region != "ap-southeast-5" && region != "eu-central-2" && region != "il-central-1" {
			continue
		}
		if ar.get(r, "method") != "vantage_snapshot_via_tsaol" {
			continue
		}
		o, ok := c.Offer("aws", it, region)
		if refreshed(o) {
			continue
		}
		if !ok {
			t.Errorf("aws/%s/%s missing", it, region)
			continue
		}
		n[region]++
		od := ar.f(t, r, "on_demand_usd_per_hour")
		wantSpot := ar.f(t, r, "spot_avg_usd_per_hour")
		if wantSpot >= od {
			wantSpot = 0 // no discount: not carried
		}
		for _, v := range []struct {
			what      string
			got, want float64
		}{
			{"on_demand", o.OnDemandUSD, od},
			{"spot", o.SpotUSD, wantSpot},
			{"reserved_1y", o.Reserved1YUSD, ar.f(t, r, "best_1y_no_upfront")},
			{"reserved_3y", o.Reserved3YUSD, ar.f(t, r, "best_3y_no_upfront")},
			{"vcpus", float64(o.VCPUs), ar.f(t, r, "vcpu")},
			{"memory_gb", o.MemoryGB, ar.f(t, r, "memory_gib")},
		} {
			if !near(v.got, v.want) {
				t.Errorf("aws/%s/%s %s = %v, source %v", it, region, v.what, v.got, v.want)
			}
		}
		if o.ReservedDerived || !strings.HasPrefix(o.Source, "aws_reserved.csv") {
			t.Errorf("aws/%s/%s derived=%v source=%q, want published rates from aws_reserved.csv", it, region, o.ReservedDerived, o.Source)
		}
	}
	for _, region := range []string{"ap-southeast-5", "eu-central-2", "il-central-1"} {
		if n[region] == 0 {
			t.Errorf("no aws_reserved.csv offer checked in %s", region)
		}
		if got := len(offersIn(c, "aws", region)); got != n[region] {
			t.Errorf("aws/%s: %d offers, %d source rows", region, got, n[region])
		}
	}
	t.Logf("offers checked: %v", n)
}

func offersIn(c *catalog.Catalog, cloud, region string) []*catalog.Offer {
	var out []*catalog.Offer
	for _, o := range c.Offers {
		if o.Cloud == cloud && o.Region == region {
			out = append(out, o)
		}
	}
	return out
}

// ---------- validation ----------

const (
	fxMeta       = `{"catalog_date":"2026-01-02","catalog_date_source":"t","exchange_rates":[],"offer_sources":{"s":"test source"}}`
	fxAccels     = `{"accelerators":[{"id":"H100","name":"H100","vendor":"NVIDIA","family":"hopper","aliases":["h100-sxm"],"memory_gb":80,"memory_type":"HBM3","memory_bandwidth_tbps":3.35,"peak_tflops":{"bf16":989},"tdp_watts":700,"interconnect":"NVLink","interconnect_gbps":900,"interconnect_kind":"nvlink","nvlink_domain_gpus":8,"form_factor":"SXM","confidence":"high","source":"t"}]}`
	fxClouds     = `{"clouds":[{"id":"aws","name":"AWS","pue":1.15,"pue_source":"t","egress_tiers":[],"inter_region_usd_per_gb":0.02,"block_storage_usd_per_gb_month":0.08,"object_storage_usd_per_gb_month":0.023,"pricing_models":["on_demand"],"reserved_1y_discount":0,"reserved_3y_discount":0,"spot":{"available":false,"interruptions_per_day":0,"notice_seconds":0,"max_runtime_hours":0,"source":"t"},"hipaa":true,"source":"t"}]}`
	fxRegionsHdr = "cloud,region,city,country,geography,partition,compliance,grid_gco2e_per_kwh,grid_year,pue,source\n"
	fxRegion     = "aws,us-east-1,Virginia,US,us,commercial,hipaa,379,2020,1.15,t\n"
	fxOffersHdr  = "cloud,region,instance_type,accelerator,gpus,gpu_fraction,gpu_memory_gb,vcpus,memory_gb,network_gbps,fabric,on_demand_usd,spot_usd,reserved_1y_usd,reserved_3y_usd,capacity_block_usd,reserved_derived,currency,native_on_demand,native_spot,native_reserved_1y,native_reserved_3y,source\n"
	fxOffer      = "aws,us-east-1,p5.48xlarge,H100,8,,640,192,2048,3200,efa,55.04,20,,,,false,USD,,,,,s\n"
)

func fixture(regions, offers string) fstest.MapFS {
	return fstest.MapFS{
		catalog.FileMeta:         {Data: []byte(fxMeta)},
		catalog.FileAccelerators: {Data: []byte(fxAccels)},
		catalog.FileClouds:       {Data: []byte(fxClouds)},
		catalog.FileRegions:      {Data: []byte(fxRegionsHdr + regions)},
		catalog.FileOffers:       {Data: []byte(fxOffersHdr + offers)},
	}
}

func TestLoadValidation(t *testing.T) {
	c, err := catalog.Load(fixture(fxRegion, fxOffer))
	if err != nil {
		t.Fatalf("valid fixture: %v", err)
	}
	if o, ok := c.Offer("aws", "p5.48xlarge", "us-east-1"); !ok || o.Source != "test source" {
		t.Fatalf("offer = %+v", o)
	}
	for _, tc := range []struct {
		name, regions, offers, want string
	}{
		{"unknown accelerator", fxRegion, strings.Replace(fxOffer, "H100", "H1000", 1),
			`offers.csv line 2: offer aws/p5.48xlarge/us-east-1: field "accelerator": unknown accelerator "H1000" (did you mean "H100"?)`},
		{"duplicate offer", fxRegion, fxOffer + fxOffer, `offers.csv line 3: offer aws/p5.48xlarge/us-east-1: duplicate offer`},
		{"non-positive price", fxRegion, strings.Replace(fxOffer, "55.04", "-1", 1), `offers.csv line 2: offer aws/p5.48xlarge/us-east-1: field "on_demand_usd": must be from 0.0001 to 1,000,000 USD/h, got -1`},
		{"zero price", fxRegion, strings.Replace(fxOffer, "55.04,20", "0,0", 1), `field "on_demand_usd": must be from 0.0001 to 1,000,000 USD/h, got 0`},
		{"spot above on-demand", fxRegion, strings.Replace(fxOffer, ",20,", ",60,", 1), `field "spot_usd": 60 is not below on_demand_usd 55.04`},
		{"region without metadata", fxRegion, strings.Replace(fxOffer, "us-east-1", "us-east-9", 1), `offer aws/p5.48xlarge/us-east-9: field "region": region "us-east-9" of cloud "aws" has no metadata`},
		{"unknown cloud", fxRegion, strings.Replace(fxOffer, "aws", "awz", 1), `offer awz/p5.48xlarge/us-east-1: field "cloud": unknown cloud "awz" (did you mean "aws"?)`},
		{"bad fabric", fxRegion, strings.Replace(fxOffer, "efa", "myrinet", 1), `field "fabric": must be one of "efa", "infiniband", "roce", "ici", "none", got "myrinet"`},
		{"bad number", fxRegion, strings.Replace(fxOffer, ",8,", ",eight,", 1), `field "gpus": not an integer: "eight"`},
		{"region of unknown cloud", fxRegion + "gcp,us-central1,Iowa,US,us,commercial,,400,2024,,t\n", fxOffer, `regions.csv line 3: region gcp/us-central1: field "cloud": unknown cloud "gcp"`},
		{"bad partition", strings.Replace(fxRegion, "commercial", "public", 1), fxOffer, `field "partition": must be one of "commercial", "gov", "china", got "public"`},
		{"duplicate region", fxRegion + fxRegion, fxOffer, `regions.csv line 3: region aws/us-east-1: duplicate`},
		{"no GPUs", fxRegion, strings.Replace(fxOffer, ",8,,", ",0,,", 1), `field "gpus": must be a whole number from 1 to 65,536 GPUs, got 0`},
		{"gpus and fraction", fxRegion, strings.Replace(fxOffer, ",8,,", ",8,0.5,", 1), `field "gpu_fraction": give gpus or gpu_fraction, not both: got gpus 8 and gpu_fraction 0.5`},
		{"whole fraction", fxRegion, strings.Replace(fxOffer, ",8,,", ",0,1,", 1), `field "gpu_fraction": must be in (0, 1)`},
		{"negative capacity block", fxRegion, strings.Replace(fxOffer, ",,,,false,", ",,,-1,false,", 1), `field "capacity_block_usd": must be 0 or from 0.0001 to 1,000,000 USD/h, got -1`},
		{"no price at all", fxRegion, strings.Replace(fxOffer, ",55.04,20,,,,", ",,,,,,", 1), `field "on_demand_usd": must be from 0.0001 to 1,000,000 USD/h, got 0`},
		{"NaN price", fxRegion, strings.Replace(fxOffer, "55.04", "NaN", 1), `field "on_demand_usd": not a number: "NaN"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := catalog.Load(fixture(tc.regions, tc.offers))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v\nwant containing %s", err, tc.want)
			}
		})
	}
	// A fractional offer and offers not sold on demand (capacity blocks
	// only; spot above nothing; commitments only) load.
	frac := strings.Replace(fxOffer, "p5.48xlarge,H100,8,,640", "frac.xlarge,H100,0,0.25,20", 1)
	cb := strings.Replace(fxOffer, "p5.48xlarge,H100,8,,640,192,2048,3200,efa,55.04,20,,,,", "cb.48xlarge,H100,8,,640,192,2048,3200,efa,,,,,40,", 1)
	spotOnly := strings.Replace(fxOffer, "p5.48xlarge,H100,8,,640,192,2048,3200,efa,55.04,20,", "spot.48xlarge,H100,8,,640,192,2048,3200,efa,,20,", 1)
	commitOnly := strings.Replace(fxOffer, "p5.48xlarge,H100,8,,640,192,2048,3200,efa,55.04,20,,,", "commit.48xlarge,H100,8,,640,192,2048,3200,efa,,,90,60,", 1)
	c, err = catalog.Load(fixture(fxRegion, fxOffer+frac+cb+spotOnly+commitOnly))
	if err != nil {
		t.Fatalf("fractional and capacity-block offers: %v", err)
	}
	if o, _ := c.Offer("aws", "frac.xlarge", "us-east-1"); !o.Fractional() || o.GPUCount() != 0.25 {
		t.Errorf("fractional offer = %+v", o)
	}
	if o, _ := c.Offer("aws", "cb.48xlarge", "us-east-1"); o.CapacityBlockUSD != 40 || o.OnDemandUSD != 0 {
		t.Errorf("capacity-block offer = %+v", o)
	}
	if o, _ := c.Offer("aws", "spot.48xlarge", "us-east-1"); o.SpotUSD != 20 || o.OnDemandUSD != 0 {
		t.Errorf("spot-only offer = %+v", o)
	}
	if o, _ := c.Offer("aws", "commit.48xlarge", "us-east-1"); o.Reserved1YUSD != 90 || o.Reserved3YUSD != 60 {
		t.Errorf("commitments-only offer = %+v", o)
	}
	// A file written before gpu_fraction and capacity_block_usd existed
	// still loads.
	legacy := fixture(fxRegion, "")
	legacy[catalog.FileOffers].Data = []byte(strings.Replace(strings.Replace(fxOffersHdr, "gpu_fraction,", "", 1), "capacity_block_usd,", "", 1) +
		"aws,us-east-1,p5.48xlarge,H100,8,640,192,2048,3200,efa,55.04,20,,,false,USD,,,,,s\n")
	if c, err := catalog.Load(legacy); err != nil || len(c.Offers) != 1 || c.Offers[0].GPUs != 8 {
		t.Errorf("legacy offers.csv: %v", err)
	}
	// Missing file.
	fx := fixture(fxRegion, fxOffer)
	delete(fx, catalog.FileOffers)
	if _, err := catalog.Load(fx); err == nil || !strings.Contains(err.Error(), "offers.csv") {
		t.Errorf("missing file: %v", err)
	}
}

func TestClosest(t *testing.T) {
	c := builtin(t)
	for _, tc := range []struct {
		in   string
		want string
	}{
		{"H1000", "H100"}, {"a100-80", "A100-80GB"}, {"mi300", "MI300X"}, {"gaudi-2", "GAUDI2"}, {"mi355", "MI355X"},
	} {
		got := catalog.Closest(tc.in, c.AcceleratorIDs(), 3)
		if len(got) == 0 || got[0] != tc.want {
			t.Errorf("Closest(%q) = %v, want first %s", tc.in, got, tc.want)
		}
	}
	if got := catalog.Closest("awz", c.CloudIDs(), 1); len(got) != 1 || got[0] != "aws" {
		t.Errorf("Closest(awz) = %v", got)
	}
}

// ---------- benchmarks ----------

// BenchmarkLoad measures parse + validate + index of the built-in data
// without the Builtin cache.
func BenchmarkLoad(b *testing.B) {
	sub, err := fs.Sub(os.DirFS("."), "data")
	if err != nil {
		b.Fatal(err)
	}
	// Read the files once so the benchmark measures parsing, not disk I/O.
	mem := fstest.MapFS{}
	for _, n := range []string{catalog.FileMeta, catalog.FileAccelerators, catalog.FileClouds, catalog.FileRegions, catalog.FileOffers, catalog.FileServerless} {
		data, err := fs.ReadFile(sub, n)
		if err != nil {
			b.Fatal(err)
		}
		mem[n] = &fstest.MapFile{Data: data}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := catalog.Load(mem); err != nil {
			b.Fatal(err)
		}
	}
}

// TestLoadMemory reports the heap retained by one loaded catalog.
func TestLoadMemory(t *testing.T) {
	sub, _ := fs.Sub(os.DirFS("."), "data")
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	c, err := catalog.Load(sub)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&m1)
	live := int64(m1.HeapAlloc) - int64(m0.HeapAlloc)
	t.Logf("live heap of one catalog: %.2f MB (%d offers)", float64(live)/1e6, len(c.Offers))
	if live > 20e6 {
		t.Errorf("catalog retains %d bytes", live)
	}
	runtime.KeepAlive(c)
}

// With indexes a changed copy of the lists: an offer replaced in place
// (also by one with another key), one appended, the receiver unchanged.
func TestWith(t *testing.T) {
	base := builtin(t)
	offers := slices.Clone(base.Offers)
	first, second := *offers[0], *offers[1]
	first.OnDemandUSD++
	second.Region = "elsewhere-1"
	added := first
	added.InstanceType = "added.xlarge"
	offers[0], offers[1] = &first, &second
	offers = append(offers, &added)
	c := base.With(base.Accelerators, base.Clouds, base.Regions, offers)
	for _, o := range offers {
		if got, ok := c.Offer(o.Cloud, o.InstanceType, o.Region); !ok || got != o {
			t.Fatalf("offer %s/%s/%s not indexed", o.Cloud, o.InstanceType, o.Region)
		}
	}
	if _, ok := c.Offer(base.Offers[1].Cloud, base.Offers[1].InstanceType, base.Offers[1].Region); ok {
		t.Error("the replaced offer's key is still indexed")
	}
	if got := c.OffersOf(added.Cloud, added.InstanceType); len(got) != 1 || got[0] != &added {
		t.Errorf("OffersOf(added) = %v", got)
	}
	if o, _ := base.Offer(first.Cloud, first.InstanceType, first.Region); o != base.Offers[0] || len(base.OffersOf(added.Cloud, added.InstanceType)) != 0 {
		t.Error("the receiver changed")
	}
	total := 0
	for _, it := range c.InstanceTypes(first.Cloud) {
		total += len(c.OffersOf(first.Cloud, it))
	}
	want := 0
	for _, o := range offers {
		if o.Cloud == first.Cloud {
			want++
		}
	}
	if total != want {
		t.Errorf("%d offers grouped by instance type, want %d", total, want)
	}
}
