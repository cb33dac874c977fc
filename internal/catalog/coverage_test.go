// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package catalog_test

import (
	"math"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/catalog/pricelist"
)

// The coverage source files (testdata/sources, copied from the project reference data) are parsed here
// independently of the generator and every row the catalog carries is
// compared with its offer.

// medianBelow is the median of the zone rates strictly below on-demand
// rounded to the 4 decimals of the spot columns (0 when none).
func medianBelow(v []float64, od float64) float64 {
	var ok []float64
	for _, s := range v {
		if s > 0 && s < math.Round(od*1e4)/1e4 {
			ok = append(ok, s)
		}
	}
	if len(ok) == 0 {
		return 0
	}
	sort.Float64s(ok)
	n := len(ok)
	if n%2 == 1 {
		return ok[n/2]
	}
	return math.Round((ok[n/2-1]+ok[n/2])/2*1e6) / 1e6
}

// tpuHostShapes are the single-host slice shapes a user can rent on one TPU
// host (Cloud TPU docs: v5e and v6e hosts hold 8 chips, v5p and v4 hosts 4;
// v5p-8 and v4-8 count TensorCores).
var tpuHostShapes = map[string]struct {
	acc   string
	chips int
	ici   bool // a full host: joins multi-host slices over ICI
}{
	"v4-8": {"TPU-V4", 4, true}, "v5litepod-1": {"TPU-V5E", 1, false}, "v5litepod-4": {"TPU-V5E", 4, false},
	"v5litepod-8": {"TPU-V5E", 8, true}, "v5p-8": {"TPU-V5P", 4, true}, "v6e-1": {"TPU-V6E", 1, false},
	"v6e-4": {"TPU-V6E", 4, false}, "v6e-8": {"TPU-V6E", 8, true},
}

func TestTPUOffersMatchSources(t *testing.T) {
	c := builtin(t)
	src := readSource(t, "tpu_prices.csv")
	type key struct{ it, region string }
	ods, spots := map[key]float64{}, map[key][]float64{}
	perChip := map[string]float64{} // zone/version -> single-host on-demand per chip
	var trillium [3]float64         // on-demand, 1y, 3y per chip
	n := 0
	for _, r := range src.rows {
		it, region := src.get(r, "accelerator_type"), src.get(r, "region")
		if src.get(r, "commit_1y_usd_per_chip_hour") != "" {
			trillium = [3]float64{src.f(t, r, "on_demand_usd_per_chip_hour"), src.f(t, r, "commit_1y_usd_per_chip_hour"), src.f(t, r, "commit_3y_usd_per_chip_hour")}
			continue
		}
		if !strings.HasPrefix(src.get(r, "source"), "skypilot-org/") {
			continue
		}
		shape, single := tpuHostShapes[it]
		o, offered := c.Offer("gcp", it, region)
		if refreshed(o) {
			continue
		}
		switch {
		case !single:
			if offered {
				t.Errorf("gcp %s/%s: multi-host or legacy slice offered", it, region)
			}
			continue
		case src.get(r, "on_demand_usd_per_hour") == "":
			continue // SkyPilot's 700.0 placeholder, blanked
		case !offered:
			t.Errorf("gcp %s/%s: priced single-host slice missing", it, region)
			continue
		}
		od := src.f(t, r, "on_demand_usd_per_hour")
		k := key{it, region}
		if prev, seen := ods[k]; seen && prev != od {
			t.Errorf("gcp %s/%s: zones disagree on on-demand", it, region)
		}
		ods[k] = od
		spots[k] = append(spots[k], src.f(t, r, "spot_usd_per_hour"))
		perChip[src.get(r, "zone")+"/"+src.get(r, "tpu_version")] = od / src.f(t, r, "chips")
		if o.Accelerator != shape.acc || o.GPUs != shape.chips || float64(o.GPUs) != src.f(t, r, "chips") {
			t.Errorf("gcp %s/%s: %s x %d, want %s x %d", it, region, o.Accelerator, o.GPUs, shape.acc, shape.chips)
		}
		if (o.Fabric == catalog.FabricICI) != shape.ici {
			t.Errorf("gcp %s/%s: fabric %s", it, region, o.Fabric)
		}
		n++
	}
	for k, od := range ods {
		o, _ := c.Offer("gcp", k.it, k.region)
		if !near(o.OnDemandUSD, od) || !near(o.SpotUSD, medianBelow(spots[k], od)) {
			t.Errorf("gcp %s/%s: on-demand %v spot %v, source %v %v", k.it, k.region, o.OnDemandUSD, o.SpotUSD, od, medianBelow(spots[k], od))
		}
		chips := float64(o.GPUs)
		switch {
		case tpuHostShapes[k.it].acc != "TPU-V6E":
			if o.Reserved1YUSD != 0 || o.Reserved3YUSD != 0 {
				t.Errorf("gcp %s/%s: commitment price without a published TPU rate", k.it, k.region)
			}
		case near(od/chips, trillium[0]):
			if !near(o.Reserved1YUSD, trillium[1]*chips) || !near(o.Reserved3YUSD, trillium[2]*chips) || o.ReservedDerived {
				t.Errorf("gcp %s/%s: reserved %v/%v, Trillium %v/%v per chip", k.it, k.region, o.Reserved1YUSD, o.Reserved3YUSD, trillium[1], trillium[2])
			}
		default:
			if !near(o.Reserved1YUSD, math.Round(od*trillium[1]/trillium[0]*1e6)/1e6) || !o.ReservedDerived {
				t.Errorf("gcp %s/%s: derived reserved %v (derived=%v)", k.it, k.region, o.Reserved1YUSD, o.ReservedDerived)
			}
		}
	}
	// Multi-host slices cost chips x the single-host per-chip price: nodes
	// of the host shape price them exactly.
	for _, r := range src.rows {
		if _, single := tpuHostShapes[src.get(r, "accelerator_type")]; single || !strings.HasPrefix(src.get(r, "source"), "skypilot-org/") {
			continue
		}
		if pc, ok := perChip[src.get(r, "zone")+"/"+src.get(r, "tpu_version")]; ok {
			if !near(src.f(t, r, "on_demand_usd_per_hour"), pc*src.f(t, r, "chips")) {
				t.Errorf("%s in %s is not linear in chips", src.get(r, "accelerator_type"), src.get(r, "zone"))
			}
		}
	}
	if n < 100 || trillium[0] == 0 {
		t.Errorf("only %d TPU rows compared (Trillium row found: %v)", n, trillium[0] != 0)
	}
	t.Logf("%d TPU zone rows compared", n)
}

// TestTPUHostShapes: host vCPUs and RAM are the gpuhunt slice specs, which
// agree with the Compute Engine machine types except ct6e-standard-8t (the
// API's 360 vCPUs count threads the docs halve to 180).
func TestTPUHostShapes(t *testing.T) {
	c := builtin(t)
	src := readSource(t, "tpu_vm_shapes.csv")
	api := map[string][2]float64{}
	for _, r := range src.rows {
		if src.get(r, "kind") == "vm_machine_type" {
			api[src.get(r, "machine_type")] = [2]float64{src.f(t, r, "vcpus"), src.f(t, r, "memory_gb")}
		}
	}
	machine := map[string]string{"v5litepod-1": "ct5lp-hightpu-1t", "v5litepod-4": "ct5lp-hightpu-4t", "v5litepod-8": "ct5lp-hightpu-8t",
		"v5p-8": "ct5p-hightpu-4t", "v6e-1": "ct6e-standard-1t", "v6e-4": "ct6e-standard-4t", "v6e-8": "ct6e-standard-8t"}
	for _, r := range src.rows {
		it := src.get(r, "machine_type")
		if src.get(r, "kind") != "slice_host_spec (gpuhunt)" || machine[it] == "" {
			continue
		}
		offers := c.OffersOf("gcp", it)
		if len(offers) == 0 {
			t.Errorf("gcp %s: no offer", it)
		}
		for _, o := range offers {
			if float64(o.VCPUs) != src.f(t, r, "vcpus") || o.MemoryGB != src.f(t, r, "memory_gb") {
				t.Errorf("gcp %s/%s: %d vCPU %v GB, source %s / %s", it, o.Region, o.VCPUs, o.MemoryGB, src.get(r, "vcpus"), src.get(r, "memory_gb"))
			}
		}
		a := api[machine[it]]
		if a[1] != src.f(t, r, "memory_gb") || (a[0] != src.f(t, r, "vcpus") && it != "v6e-8") {
			t.Errorf("%s: gpuhunt %s/%s, machine type %s %v", it, src.get(r, "vcpus"), src.get(r, "memory_gb"), machine[it], a)
		}
	}
}

func TestAWSCoverageMatchesSources(t *testing.T) {
	c := builtin(t)
	src := readSource(t, "aws_accelerator_offers.csv")
	spots := map[string][]float64{}
	n := 0
	for _, r := range src.rows {
		it := strings.TrimSuffix(src.get(r, "instance_type"), " (inferred)")
		region, pm, v := src.get(r, "region"), src.get(r, "pricing_model"), src.get(r, "usd_per_hour")
		o, ok := c.Offer("aws", it, region)
		if refreshed(o) {
			continue
		}
		if strings.HasPrefix(it, "dl2q") || strings.Contains(src.get(r, "accelerator"), "Qualcomm") {
			if ok {
				t.Errorf("aws %s/%s: Qualcomm Cloud AI 100 is not a catalog accelerator", it, region)
			}
			continue
		}
		if region == "" || v == "" {
			continue
		}
		if src.get(r, "pricing_model") == "capacity_block_effective_hourly" && !ok {
			continue // a capacity-block-only offer of a stale rate: not carried
		}
		if !ok {
			t.Errorf("aws %s/%s: priced row (%s) without an offer", it, region, pm)
			continue
		}
		n++
		switch pm {
		case "on_demand_linux":
			if !near(o.OnDemandUSD, src.f(t, r, "usd_per_hour")) {
				t.Errorf("aws %s/%s on-demand %v, source %s", it, region, o.OnDemandUSD, v)
			}
			if strings.HasPrefix(src.get(r, "confidence"), "LOW") && (!strings.Contains(o.Source, "LOW CONFIDENCE") || o.Reserved1YUSD != 0) {
				t.Errorf("aws %s/%s: the LOW-confidence rate is not flagged in the offer source (%q) or has a derived commitment", it, region, o.Source)
			}
		case "spot":
			spots[it+"/"+region] = append(spots[it+"/"+region], src.f(t, r, "usd_per_hour"))
		case "capacity_block_effective_hourly":
			// Rates in effect before 2025-01-01 are not carried: the
			// current ones come from price_updates_2026h2.csv.
			if o.CapacityBlockUSD == src.f(t, r, "usd_per_hour") {
				t.Errorf("aws %s/%s: the pre-2025 capacity-block rate %s is still carried", it, region, v)
			}
		}
		if o.GPUCount() != src.f(t, r, "accelerator_count") || float64(o.VCPUs) != src.f(t, r, "vcpus") {
			t.Errorf("aws %s/%s: %v GPUs %d vCPU, source %s / %s", it, region, o.GPUCount(), o.VCPUs, src.get(r, "accelerator_count"), src.get(r, "vcpus"))
		}
	}
	for k, v := range spots {
		it, region, _ := strings.Cut(k, "/")
		o, _ := c.Offer("aws", it, region)
		if refreshed(o) {
			continue
		}
		if !near(o.SpotUSD, medianBelow(v, o.OnDemandUSD)) {
			t.Errorf("aws %s spot %v, source zones %v", k, o.SpotUSD, v)
		}
	}
	// An offer not sold on demand has another price and is one of the
	// shapes the sources say are sold that way.
	for _, o := range c.Offers {
		if o.OnDemandUSD != 0 {
			continue
		}
		if o.CapacityBlockUSD <= 0 && o.SpotUSD <= 0 && o.Reserved1YUSD <= 0 && o.Reserved3YUSD <= 0 {
			t.Errorf("%s/%s/%s: no price at all", o.Cloud, o.InstanceType, o.Region)
		}
		if o.Cloud != "gcp" {
			t.Errorf("%s/%s/%s: no on-demand price (only GCP spot/commitment-only shapes are expected)", o.Cloud, o.InstanceType, o.Region)
		}
	}
	// intel_gaudi_offers.csv: the AWS dl1 rows are the same offers; the
	// others (IBM Cloud Gaudi 3, Intel Tiber, Denvr) have no public price.
	gaudi := readSource(t, "intel_gaudi_offers.csv")
	for _, r := range gaudi.rows {
		if gaudi.get(r, "provider") != "aws" {
			if gaudi.get(r, "usd_per_hour") != "" {
				t.Errorf("%s %s: priced Gaudi offer not carried", gaudi.get(r, "provider"), gaudi.get(r, "offer"))
			}
			continue
		}
		o, ok := c.Offer("aws", gaudi.get(r, "offer"), gaudi.get(r, "region"))
		if !ok || o.Accelerator != "GAUDI1" || o.GPUs != 8 || o.GPUMemoryGB != 8*gaudi.f(t, r, "accelerator_memory_gb_each") {
			t.Fatalf("aws dl1 in %s: %+v", gaudi.get(r, "region"), o)
		}
		v := gaudi.f(t, r, "usd_per_hour")
		if gaudi.get(r, "pricing_model") == "on_demand_linux" && !near(o.OnDemandUSD, v) {
			t.Errorf("dl1 %s on-demand %v, source %v", o.Region, o.OnDemandUSD, v)
		}
		n++
	}
	compared(t, n, 20, "AWS coverage rows")
}

func TestAzureNCv6MatchesSources(t *testing.T) {
	c := builtin(t)
	skus := readSource(t, "azure_ncv6_rtxpro6000_skus.csv")
	prices := readSource(t, "azure_gpu_ondemand_2026-06-18.csv")
	n := 0
	for _, r := range skus.rows {
		sku := skus.get(r, "sku")
		offers := c.OffersOf("azure", sku)
		if !strings.HasPrefix(skus.get(r, "status"), "GA") {
			if len(offers) != 0 {
				t.Errorf("%s (%s) is offered", sku, skus.get(r, "status"))
			}
			continue
		}
		priced := 0
		for _, p := range prices.rows {
			if prices.get(p, "sku") != sku {
				continue
			}
			priced++
			o, ok := c.Offer("azure", sku, prices.get(p, "region"))
			if refreshed(o) {
				continue
			}
			if !ok || !near(o.OnDemandUSD, prices.f(t, p, "on_demand_usd_per_hour")) {
				t.Errorf("%s in %s: offer %v, source %s", sku, prices.get(p, "region"), o, prices.get(p, "on_demand_usd_per_hour"))
			}
		}
		if priced == 0 || priced != len(offers) || float64(priced) != skus.f(t, r, "priced_regions") {
			t.Errorf("%s: %d offers, %d priced rows, source says %s regions", sku, len(offers), priced, skus.get(r, "priced_regions"))
		}
		frac := skus.f(t, r, "gpu_fraction")
		for _, o := range offers {
			n++
			if o.Accelerator != "RTX-PRO-6000" || o.GPUCount() != frac || o.Fractional() != (frac < 1) ||
				o.GPUMemoryGB != skus.f(t, r, "gpu_memory_gb") || float64(o.VCPUs) != skus.f(t, r, "vcpus") ||
				o.MemoryGB != skus.f(t, r, "memory_gb") || o.NetworkGbps*1000 != skus.f(t, r, "max_network_mbps") {
				t.Errorf("%s/%s = %+v, source %v", sku, o.Region, o, r)
			}
		}
	}
	compared(t, n, 100, "NCv6 offers")
}

// TestFractionalOffers: a fractional offer holds a share of one GPU and the
// same share of its memory, and says so in GPUFraction (GPUs = 0).
func TestFractionalOffers(t *testing.T) {
	c := builtin(t)
	seen := map[string]bool{}
	for _, o := range c.Offers {
		if !o.Fractional() {
			if o.GPUs < 1 {
				t.Errorf("%s/%s: no GPUs", o.Cloud, o.InstanceType)
			}
			continue
		}
		a, _ := c.Accelerator(o.Accelerator)
		if o.GPUs != 0 || o.GPUFraction >= 1 || math.Abs(o.GPUMemoryGB-o.GPUFraction*a.MemoryGB) > 0.01 || o.GPUCount() != o.GPUFraction {
			t.Errorf("%s/%s/%s: %d GPUs, fraction %v, %v GB of %s's %v", o.Cloud, o.InstanceType, o.Region, o.GPUs, o.GPUFraction,
				o.GPUMemoryGB, a.ID, a.MemoryGB)
		}
		seen[o.Cloud+"/"+o.InstanceType] = true
	}
	// Azure NVads A10 v5 partial sizes (docs: 1/6, 1/3, 1/2 of an A10 with
	// 4, 8, 12 GiB), NCv6 1/4 and 1/2, AWS g6f (gpu_prices.csv: 0.25 L4).
	for _, tc := range []struct {
		cloud, it string
		frac, mem float64
	}{
		{"azure", "Standard_NV6ads_A10_v5", 1.0 / 6, 4}, {"azure", "Standard_NV12ads_A10_v5", 1.0 / 3, 8},
		{"azure", "Standard_NV18ads_A10_v5", 0.5, 12}, {"azure", "Standard_NC24lds_xl_RTXPRO6000BSE_v6", 0.25, 24},
		{"azure", "Standard_NC72ds_xl_RTXPRO6000BSE_v6", 0.5, 48}, {"aws", "g6f.2xlarge", 0.25, 6},
	} {
		offers := c.OffersOf(tc.cloud, tc.it)
		if len(offers) == 0 {
			t.Errorf("%s/%s: no offer", tc.cloud, tc.it)
		}
		for _, o := range offers {
			if !near(o.GPUFraction, tc.frac) || o.GPUMemoryGB != tc.mem {
				t.Errorf("%s/%s/%s: fraction %v, %v GB; want %v, %v GB", tc.cloud, tc.it, o.Region, o.GPUFraction, o.GPUMemoryGB, tc.frac, tc.mem)
			}
		}
	}
	t.Logf("fractional instance types: %d", len(seen))
}

// TestPriceListOffers: after a maintainers' refresh (price-list files in
// testdata/sources/pricelists, see SOURCES.md), every price a file gives
// for an offer of the catalog is the offer's price. Without such files it
// checks nothing.
func TestPriceListOffers(t *testing.T) {
	c := builtin(t)
	files, _ := filepath.Glob(filepath.Join("testdata", "sources", "pricelists", "*.json"))
	n := 0
	for _, f := range files {
		res, err := pricelist.ReadFile(f, pricelist.Read, c)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range res.Prices {
			o, ok := c.Offer(p.Cloud, p.InstanceType, p.Region)
			if !ok {
				continue // a region without metadata: left out by the generator
			}
			n++
			if !near(o.OnDemandUSD, p.OnDemandUSD) || !refreshed(o) ||
				(p.SpotUSD > 0 && !near(o.SpotUSD, p.SpotUSD)) || (p.Reserved1YUSD > 0 && !near(o.Reserved1YUSD, p.Reserved1YUSD)) ||
				(p.Reserved3YUSD > 0 && !near(o.Reserved3YUSD, p.Reserved3YUSD)) {
				t.Errorf("%s/%s/%s = %+v, price list %s: %+v", p.Cloud, p.InstanceType, p.Region, o, f, p)
			}
		}
	}
	t.Logf("%d price-list files, %d prices compared", len(files), n)
}

// compared fails when fewer than least values of a source were compared with
// the catalog, and logs how many were.
func compared(t *testing.T, n, least int, what string) {
	t.Helper()
	if n < least {
		t.Errorf("only %d %s compared", n, what)
	}
	t.Logf("%d %s compared", n, what)
}
