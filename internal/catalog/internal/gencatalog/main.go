// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

// Command gencatalog regenerates the built-in catalog data files in
// internal/catalog/data from the unmodified public source files in
// internal/catalog/testdata/sources and the hand-curated tables in
// internal/catalog/internal/gencatalog/curated (each row of which names its
// source). Run it from internal/catalog:
//
//	go generate ./internal/catalog
//
// The output is deterministic: the same inputs give byte-identical files.
// Every choice the generator makes (collapsing zones, dropping rows, fixing
// known source errors) is described in data/SOURCES.md.
package main

import (
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

var (
	srcDir     = flag.String("sources", "testdata/sources", "directory with the public source files")
	curatedDir = flag.String("curated", "internal/gencatalog/curated", "directory with the curated tables")
	outDir     = flag.String("out", "data", "output directory")
)

// pricePrecision is the number of decimals kept for converted prices
// (sources carry at most 6 significant decimals).
const pricePrecision = 6

func main() {
	flag.Parse()
	log.SetFlags(0)
	g := &gen{drops: map[string]int{}}
	g.run()
}

type gen struct {
	accels   []*catalog.Accelerator
	accelKey map[string]string // lower-case id/alias -> canonical id
	accelMem map[string]float64
	clouds   []*cloudIn
	instAcc  map[string]string // cloud/instance_type -> accelerator override
	network  []netRow
	azure    map[string]azureSKU
	meta     metaIn

	offers map[string]*catalog.Offer // cloud/it/region
	order  []string
	drops  map[string]int
	// discounts computed from per-SKU commitment rates, per cloud.
	disc1, disc3 map[string][]float64
}

type cloudIn struct {
	catalog.Cloud
	ReservedDiscountFromData bool `json:"reserved_discount_from_data"`
}

type netRow struct {
	cloud, pattern, fabric, source string
	gbps                           float64
}

type azureSKU struct {
	accel       string
	gpus, vcpus int
	memGiB      float64
	source      string
}

type metaIn struct {
	CatalogDate       string `json:"catalog_date"`
	CatalogDateSource string `json:"catalog_date_source"`
	ExchangeRates     []struct {
		Currency  string  `json:"currency"`
		CNYPerUSD float64 `json:"cny_per_usd"`
		Date      string  `json:"date"`
		Source    string  `json:"source"`
	} `json:"exchange_rates"`
}

func (g *gen) run() {
	g.loadAccelerators()
	g.loadCurated()
	g.offers = map[string]*catalog.Offer{}
	g.disc1, g.disc3 = map[string][]float64{}, map[string][]float64{}
	g.aws()
	g.awsChina()
	g.gcp()
	g.azureOffers()
	g.skypilotSimple("oci", "oci-skypilot-v9")
	g.skypilotSimple("lambda", "lambda-skypilot-v9")
	g.skypilotSimple("nebius", "nebius-skypilot-v9")
	g.skypilotSimple("runpod", "runpod-skypilot-v7-v8")
	g.finishOffers()
	regions := g.regions()
	g.writeAll(regions)
	keys := make([]string, 0, len(g.drops))
	for k := range g.drops {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		log.Printf("dropped %4d source rows: %s", g.drops[k], k)
	}
	log.Printf("wrote %d accelerators, %d clouds, %d regions, %d offers", len(g.accels), len(g.clouds), len(regions), len(g.order))
}

// ---------- helpers ----------

func readCSV(p string) ([]string, [][]string) {
	f, err := os.Open(p)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	rows, err := r.ReadAll()
	if err != nil {
		log.Fatalf("%s: %v", p, err)
	}
	for i, row := range rows[1:] {
		if len(row) != len(rows[0]) {
			log.Fatalf("%s line %d: %d fields, header has %d", p, i+2, len(row), len(rows[0]))
		}
	}
	return rows[0], rows[1:]
}

type rec map[string]string

func readRecs(p string) []rec {
	h, rows := readCSV(p)
	out := make([]rec, len(rows))
	for i, row := range rows {
		m := rec{}
		for j, k := range h {
			m[k] = strings.TrimSpace(row[j])
		}
		out[i] = m
	}
	return out
}

func num(s string) float64 {
	if s == "" {
		return 0
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		log.Fatalf("bad number %q", s)
	}
	return v
}

func round(v float64, d int) float64 {
	p := math.Pow(10, float64(d))
	return math.Round(v*p) / p
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func readJSON(p string, v any) {
	b, err := os.ReadFile(p)
	if err != nil {
		log.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		log.Fatalf("%s: %v", p, err)
	}
}

func src(name string) string { return filepath.Join(*srcDir, name) }
func cur(name string) string { return filepath.Join(*curatedDir, name) }

// ---------- accelerators ----------

type accelCur struct {
	ID         string             `json:"id"`
	SourceRow  string             `json:"source_row"`
	Family     string             `json:"family"`
	Aliases    []string           `json:"aliases"`
	Remove     []string           `json:"remove"`
	Add        map[string]float64 `json:"add"`
	AddNotes   string             `json:"add_notes"`
	Fix        map[string]float64 `json:"fix"`
	FixNotes   string             `json:"fix_notes"`
	Name       string             `json:"name"`
	Vendor     string             `json:"vendor"`
	MemoryGB   float64            `json:"memory_gb"`
	MemoryType string             `json:"memory_type"`
	BW         float64            `json:"memory_bandwidth_tbps"`
	Peak       map[string]float64 `json:"peak_tflops"`
	TDP        float64            `json:"tdp_watts"`
	IC         string             `json:"interconnect"`
	ICGBps     float64            `json:"interconnect_gbps"`
	Form       string             `json:"form_factor"`
	Confidence string             `json:"confidence"`
	Source     string             `json:"source"`
}

func (g *gen) loadAccelerators() {
	rows := readRecs(src("accelerators.csv"))
	byName := map[string]rec{}
	for _, r := range rows {
		byName[r["name"]] = r
	}
	var cur0 struct {
		Accelerators []accelCur `json:"accelerators"`
	}
	readJSON(cur("accelerators.json"), &cur0)
	used := map[string]bool{}
	g.accelKey = map[string]string{}
	g.accelMem = map[string]float64{}
	for _, c := range cur0.Accelerators {
		a := &catalog.Accelerator{ID: c.ID, Family: c.Family, Aliases: c.Aliases}
		if c.SourceRow != "" {
			r, ok := byName[c.SourceRow]
			if !ok {
				log.Fatalf("accelerator %s: no row %q in accelerators.csv", c.ID, c.SourceRow)
			}
			used[c.SourceRow] = true
			a.Name, a.Vendor, a.MemoryType = r["name"], r["vendor"], r["memory_type"]
			a.MemoryGB, a.MemoryBandwidthTBps = num(r["memory_gb"]), num(r["mem_bw_tbps"])
			a.TDPWatts = num(r["tdp_w"])
			a.Interconnect, a.InterconnectGBps = r["interconnect"], num(r["interconnect_bw_gbps_per_device"])
			a.FormFactor, a.Confidence = r["form_factor"], r["confidence"]
			a.PeakTFLOPS = map[string]float64{}
			set := func(k, col string) {
				if v := num(r[col]); v > 0 {
					a.PeakTFLOPS[k] = v
				}
			}
			set("bf16", "bf16_fp16_dense_tflops")
			set("fp16", "bf16_fp16_dense_tflops")
			set("fp8", "fp8_dense_tflops")
			set("fp32", "fp32_tflops")
			set("int8", "int8_dense_tops")
			a.Source = "accelerators.csv row " + strconv.Quote(r["name"]) + ": " + r["source_url"] + " (confidence: " + r["confidence"] + "; verified: " + r["verified_against_source"] + ")"
		} else {
			a.Name, a.Vendor, a.MemoryType = c.Name, c.Vendor, c.MemoryType
			a.MemoryGB, a.MemoryBandwidthTBps, a.TDPWatts = c.MemoryGB, c.BW, c.TDP
			a.Interconnect, a.InterconnectGBps, a.FormFactor, a.Confidence = c.IC, c.ICGBps, c.Form, c.Confidence
			a.PeakTFLOPS = map[string]float64{}
			for k, v := range c.Peak {
				a.PeakTFLOPS[k] = v
			}
			a.Source = "not in accelerators.csv; " + c.Source
		}
		for _, p := range c.Remove {
			delete(a.PeakTFLOPS, p)
		}
		for k, v := range c.Add {
			a.PeakTFLOPS[k] = v
		}
		for k, v := range c.Fix {
			switch k {
			case "tdp_watts":
				a.TDPWatts = v
			case "memory_gb":
				a.MemoryGB = v
			default:
				log.Fatalf("accelerator %s: unknown fix %q", c.ID, k)
			}
		}
		if c.AddNotes != "" {
			a.Source += "; precisions: " + c.AddNotes
		}
		if c.FixNotes != "" {
			a.Source += "; correction: " + c.FixNotes
		}
		for _, k := range append([]string{a.ID}, a.Aliases...) {
			lk := strings.ToLower(k)
			if prev, dup := g.accelKey[lk]; dup {
				log.Fatalf("alias %q of %s already names %s", k, a.ID, prev)
			}
			g.accelKey[lk] = a.ID
		}
		g.accelMem[a.ID] = a.MemoryGB
		g.accels = append(g.accels, a)
	}
	for _, r := range rows {
		if !used[r["name"]] {
			log.Fatalf("accelerators.csv row %q not used", r["name"])
		}
	}
}

// accel maps a source accelerator name (with per-instance overrides) to a
// canonical ID; "" when the catalog has no such accelerator.
func (g *gen) accel(cloud, it, name string) string {
	if id, ok := g.instAcc[cloud+"/"+it]; ok {
		return id
	}
	return g.accelKey[strings.ToLower(strings.TrimSpace(name))]
}

// ---------- curated tables ----------

func (g *gen) loadCurated() {
	var cl struct {
		Clouds []*cloudIn `json:"clouds"`
	}
	readJSON(cur("clouds.json"), &cl)
	g.clouds = cl.Clouds
	readJSON(cur("meta.json"), &g.meta)
	g.instAcc = map[string]string{}
	for _, r := range readRecs(cur("instance_accelerators.csv")) {
		g.instAcc[r["cloud"]+"/"+r["instance_type"]] = r["accelerator"]
	}
	for _, r := range readRecs(cur("network.csv")) {
		g.network = append(g.network, netRow{r["cloud"], r["instance_type"], r["fabric"], r["source"], num(r["network_gbps"])})
	}
	g.azure = map[string]azureSKU{}
	for _, r := range readRecs(cur("azure_skus.csv")) {
		g.azure[r["sku"]] = azureSKU{r["accelerator"], int(num(r["gpus"])), int(num(r["vcpus"])), num(r["memory_gib"]), r["source"]}
	}
}

func (g *gen) net(cloud, it string) (float64, catalog.Fabric) {
	for _, exact := range []bool{true, false} {
		for _, n := range g.network {
			if n.cloud != cloud {
				continue
			}
			if exact && n.pattern == it {
				return n.gbps, catalog.Fabric(n.fabric)
			}
			if !exact {
				if ok, _ := path.Match(n.pattern, it); ok {
					return n.gbps, catalog.Fabric(n.fabric)
				}
			}
		}
	}
	log.Fatalf("network.csv: no row for %s/%s", cloud, it)
	return 0, ""
}

// ---------- offers ----------

func (g *gen) put(o *catalog.Offer, why string) {
	if o.Accelerator == "" {
		g.drops[why]++
		return
	}
	k := o.Cloud + "/" + o.InstanceType + "/" + o.Region
	if _, dup := g.offers[k]; dup {
		log.Fatalf("duplicate offer %s", k)
	}
	o.GPUMemoryGB = round(float64(o.GPUs)*g.accelMem[o.Accelerator], 2)
	o.NetworkGbps, o.Fabric = g.net(o.Cloud, o.InstanceType)
	if o.Currency == "" {
		o.Currency = "USD"
	}
	g.offers[k] = o
	g.order = append(g.order, k)
}

// zoneGroup collapses per-availability-zone rows of gpu_prices.csv.
type zoneGroup struct {
	first rec
	od    map[float64]bool
	spots []float64
	ver   string
}

func collapse(rows []rec, cloud string, key func(rec) string) (map[string]*zoneGroup, []string) {
	groups := map[string]*zoneGroup{}
	var order []string
	for _, r := range rows {
		if r["cloud"] != cloud {
			continue
		}
		k := key(r)
		zg, ok := groups[k]
		if !ok || (cloud == "runpod" && r["catalog_version"] > zg.ver) {
			// RunPod: the newer catalog version replaces the older.
			if !ok {
				order = append(order, k)
			}
			zg = &zoneGroup{first: r, od: map[float64]bool{}, ver: r["catalog_version"]}
			groups[k] = zg
		} else if r["catalog_version"] < zg.ver {
			continue
		}
		zg.od[num(r["price_on_demand_usd_per_hour"])] = true
		if s := num(r["price_spot_usd_per_hour"]); s > 0 {
			zg.spots = append(zg.spots, s)
		}
	}
	return groups, order
}

// spotOf returns the median spot price over zones, ignoring zone prices at
// or above on-demand (no discount: AWS caps spot at on-demand, and some
// sources repeat on-demand in the spot column).
func spotOf(spots []float64, od float64) float64 {
	var ok []float64
	for _, s := range spots {
		if s < od {
			ok = append(ok, s)
		}
	}
	return round(median(ok), pricePrecision)
}

func (g *gen) onlyOD(zg *zoneGroup, where string) (float64, bool) {
	if len(zg.od) != 1 {
		log.Fatalf("%s: on-demand differs across zones: %v", where, zg.od)
	}
	for v := range zg.od {
		return v, v > 0
	}
	return 0, false
}

func (g *gen) aws() {
	rows := readRecs(src("gpu_prices.csv"))
	groups, order := collapse(rows, "aws", func(r rec) string { return r["instance_type"] + "/" + r["region"] })
	specs := map[string]rec{}
	for _, k := range order {
		zg := groups[k]
		r := zg.first
		specs[r["instance_type"]] = r
		od, ok := g.onlyOD(zg, "aws/"+k)
		if !ok {
			g.drops["aws: no on-demand price (p5e capacity blocks, trn2, some trn1): offer dropped"]++
			continue
		}
		gpus := num(r["accelerator_count"])
		if gpus != math.Trunc(gpus) {
			g.drops["aws: fractional GPU (g6f): not representable"]++
			continue
		}
		g.put(&catalog.Offer{Cloud: "aws", Region: r["region"], InstanceType: r["instance_type"],
			Accelerator: g.accel("aws", r["instance_type"], r["accelerator"]), GPUs: int(gpus),
			VCPUs: int(num(r["vcpus"])), MemoryGB: num(r["memory_gib"]),
			OnDemandUSD: od, SpotUSD: spotOf(zg.spots, od), Source: "aws"}, "aws: accelerator not in catalog (inf1 Inferentia v1)")
	}
	// Regions with metadata: regions.csv plus the curated extra regions
	// (AWS ap-southeast-5, eu-central-2, il-central-1 are only in
	// regions_extra.csv).
	known := map[string]bool{}
	for _, p := range []string{src("regions.csv"), cur("regions_extra.csv")} {
		for _, r := range readRecs(p) {
			known[r["cloud"]+"/"+r["region"]] = true
		}
	}
	for _, r := range readRecs(src("aws_reserved.csv")) {
		it, region := r["instance_type"], r["region"]
		if !known["aws/"+region] {
			g.drops["aws_reserved.csv: Local/Wavelength zone (no region metadata)"]++
			continue
		}
		od := num(r["on_demand_usd_per_hour"])
		if r["method"] != "vantage_snapshot_via_tsaol" {
			g.drops["aws_reserved.csv: secondary_hand_read row not used (unverified)"]++
			continue
		}
		b1, b3 := num(r["best_1y_no_upfront"]), num(r["best_3y_no_upfront"])
		if od > 0 && b1 > 0 && b1 < od {
			g.disc1["aws"] = append(g.disc1["aws"], 1-b1/od)
		}
		if od > 0 && b3 > 0 && b3 < od {
			g.disc3["aws"] = append(g.disc3["aws"], 1-b3/od)
		}
		o, ok := g.offers["aws/"+it+"/"+region]
		if !ok {
			sp, known := specs[it]
			if !known || od <= 0 {
				g.drops["aws_reserved.csv: instance type without specs or on-demand"]++
				continue
			}
			o = &catalog.Offer{Cloud: "aws", Region: region, InstanceType: it,
				Accelerator: g.accel("aws", it, sp["accelerator"]), GPUs: int(num(sp["accelerator_count"])),
				VCPUs: int(num(r["vcpu"])), MemoryGB: num(r["memory_gib"]), OnDemandUSD: od, Source: "aws-vantage"}
			if s := num(r["spot_avg_usd_per_hour"]); s > 0 && s < od {
				o.SpotUSD = s
			}
			g.put(o, "aws_reserved.csv: accelerator not in catalog")
		} else {
			o.Source = "aws+vantage"
		}
		if b1 > 0 && b1 < o.OnDemandUSD {
			o.Reserved1YUSD = b1
		}
		if b3 > 0 && b3 < o.OnDemandUSD {
			o.Reserved3YUSD = b3
		}
	}
}

func (g *gen) awsChina() {
	rate := 0.0
	for _, x := range g.meta.ExchangeRates {
		if x.Currency == "CNY" {
			rate = x.CNYPerUSD
		}
	}
	if rate <= 0 {
		log.Fatal("meta.json: no CNY rate")
	}
	for _, r := range readRecs(src("cn_gpu_prices.csv")) {
		if r["provider"] != "aws-china" {
			g.drops["cn_gpu_prices.csv: marker row (no public price list: alibaba/tencent/huawei)"]++
			continue
		}
		if r["region"] != "cn-north-1" && r["region"] != "cn-northwest-1" {
			g.drops["cn_gpu_prices.csv: local zone cn-north-1-pkx-1 (parent region already priced)"]++
			continue
		}
		od := num(r["on_demand_per_hour"])
		c1, c3 := num(r["commit_1y_no_upfront_per_hour"]), num(r["commit_3y_no_upfront_per_hour"])
		o := &catalog.Offer{Cloud: "aws", Region: r["region"], InstanceType: r["instance_type"],
			Accelerator: g.accel("aws", r["instance_type"], r["accelerator_model"]), GPUs: int(num(r["accelerator_count"])),
			VCPUs: int(num(r["vcpu"])), MemoryGB: num(r["memory_gib"]), Currency: r["currency"],
			NativeOnDemand: od, OnDemandUSD: round(od/rate, pricePrecision), Source: "aws-cn"}
		if c1 > 0 && c1 < od {
			o.NativeReserved1Y, o.Reserved1YUSD = c1, round(c1/rate, pricePrecision)
		}
		if c3 > 0 && c3 < od {
			o.NativeReserved3Y, o.Reserved3YUSD = c3, round(c3/rate, pricePrecision)
		}
		g.put(o, "cn_gpu_prices.csv: accelerator not in catalog (K80 p2, M60 g3/g3s, Inferentia v1 inf1)")
	}
}

func (g *gen) gcp() {
	for _, r := range readRecs(src("gcp_machine_totals.csv")) {
		od, sp := num(r["on_demand_usd_per_hour"]), num(r["spot_usd_per_hour"])
		c1, c3 := num(r["commit_1y_usd_per_hour"]), num(r["commit_3y_usd_per_hour"])
		if od > 0 && c1 > 0 {
			g.disc1["gcp"] = append(g.disc1["gcp"], 1-c1/od)
		}
		if od > 0 && c3 > 0 {
			g.disc3["gcp"] = append(g.disc3["gcp"], 1-c3/od)
		}
		if r["offered_in_region_per_skypilot"] != "yes" {
			g.drops["gcp_machine_totals.csv: offered_in_region_per_skypilot is not 'yes'"]++
			continue
		}
		o := &catalog.Offer{Cloud: "gcp", Region: r["region"], InstanceType: r["name"],
			Accelerator: g.accel("gcp", r["name"], r["gpu_type"]), GPUs: int(num(r["gpu_count"])),
			VCPUs: int(num(r["vcpus"])), MemoryGB: num(r["ram_gb"]), OnDemandUSD: od, Source: "gcp"}
		if sp > 0 && sp < od {
			o.SpotUSD = sp
		}
		if c1 > 0 && c1 < od {
			o.Reserved1YUSD = c1
		}
		if c3 > 0 && c3 < od {
			o.Reserved3YUSD = c3
		}
		g.put(o, "gcp: accelerator not in catalog")
	}
}

func (g *gen) azureOffers() {
	type sr struct{ spot, r1, r3 float64 }
	extra := map[string]sr{}
	for _, r := range readRecs(src("azure_spot_reserved.csv")) {
		k := r["sku"] + "/" + r["region"]
		e := extra[k]
		if s := num(r["spot_usd_per_hour"]); s > 0 {
			e.spot = s
		}
		od := num(r["on_demand_usd_per_hour"])
		if v := num(r["reservation_1y_usd_per_hour"]); v > 0 {
			e.r1 = v
			g.disc1["azure"] = append(g.disc1["azure"], 1-v/od)
		}
		if v := num(r["reservation_3y_usd_per_hour"]); v > 0 {
			e.r3 = v
			g.disc3["azure"] = append(g.disc3["azure"], 1-v/od)
		}
		extra[k] = e
	}
	for _, r := range readRecs(src("azure_gpu_ondemand_2026-06-18.csv")) {
		sku, ok := g.azure[r["sku"]]
		if !ok {
			g.drops["azure: SKU not mapped (retired K80/M60 promo, fractional A10/MI25 GPU, Radeon V620/V710, FPGA NP, MA35D media, RTX PRO 6000 BSE with unverified GPU count)"]++
			continue
		}
		od := num(r["on_demand_usd_per_hour"])
		o := &catalog.Offer{Cloud: "azure", Region: r["region"], InstanceType: r["sku"], Accelerator: sku.accel,
			GPUs: sku.gpus, VCPUs: sku.vcpus, MemoryGB: sku.memGiB, OnDemandUSD: od, Source: "azure"}
		if e, ok := extra[r["sku"]+"/"+r["region"]]; ok {
			if e.spot > 0 && e.spot < od {
				o.SpotUSD = e.spot
			}
			if e.r1 > 0 && e.r1 < od {
				o.Reserved1YUSD = e.r1
				o.Source = "azure+reserved"
			}
			if e.r3 > 0 && e.r3 < od {
				o.Reserved3YUSD = e.r3
				o.Source = "azure+reserved"
			}
		}
		g.put(o, "azure: accelerator not in catalog")
	}
}

// skypilotSimple handles clouds whose rows come only from gpu_prices.csv.
func (g *gen) skypilotSimple(cloud, source string) {
	rows := readRecs(src("gpu_prices.csv"))
	regionOf := func(r rec) string {
		if cloud == "runpod" {
			return r["availability_zone"] // RunPod data centre ID
		}
		return r["region"]
	}
	groups, order := collapse(rows, cloud, func(r rec) string { return r["instance_type"] + "/" + regionOf(r) })
	for _, k := range order {
		zg := groups[k]
		r := zg.first
		od, ok := g.onlyOD(zg, cloud+"/"+k)
		if !ok {
			g.drops[cloud+": no on-demand price"]++
			continue
		}
		g.put(&catalog.Offer{Cloud: cloud, Region: regionOf(r), InstanceType: r["instance_type"],
			Accelerator: g.accel(cloud, r["instance_type"], r["accelerator"]), GPUs: int(num(r["accelerator_count"])),
			VCPUs: int(num(r["vcpus"])), MemoryGB: num(r["memory_gib"]), OnDemandUSD: od,
			SpotUSD: spotOf(zg.spots, od), Source: source}, cloud+": accelerator not in catalog")
	}
}

// finishOffers fills derived reserved prices and computes the discounts.
func (g *gen) finishOffers() {
	for _, c := range g.clouds {
		if !c.ReservedDiscountFromData {
			continue
		}
		d1, d3 := median(g.disc1[c.ID]), median(g.disc3[c.ID])
		if d1 <= 0 || d3 <= 0 {
			log.Fatalf("cloud %s: no commitment rates to derive a discount from", c.ID)
		}
		c.Reserved1YDiscount, c.Reserved3YDiscount = round(d1, 4), round(d3, 4)
		c.Source += fmt.Sprintf("; reserved_1y_discount/reserved_3y_discount = median (1 - published commitment rate / on-demand) over %d / %d source rows with per-SKU rates (DERIVED)", len(g.disc1[c.ID]), len(g.disc3[c.ID]))
	}
	byID := map[string]*cloudIn{}
	for _, c := range g.clouds {
		byID[c.ID] = c
	}
	for _, k := range g.order {
		o := g.offers[k]
		c := byID[o.Cloud]
		if c.Reserved1YDiscount <= 0 {
			continue
		}
		if o.Reserved1YUSD == 0 || o.Reserved3YUSD == 0 {
			if o.Reserved1YUSD == 0 {
				o.Reserved1YUSD = round(o.OnDemandUSD*(1-c.Reserved1YDiscount), pricePrecision)
			}
			if o.Reserved3YUSD == 0 {
				o.Reserved3YUSD = round(o.OnDemandUSD*(1-c.Reserved3YDiscount), pricePrecision)
			}
			o.ReservedDerived = true
		}
	}
}

// ---------- regions ----------

func yn(s string) bool { return strings.HasPrefix(strings.ToUpper(s), "Y") }

func partition(p string) string {
	switch {
	case strings.HasSuffix(p, "-us-gov"):
		return "gov"
	case strings.HasSuffix(p, "-cn"), strings.HasSuffix(p, "-china"):
		return "china"
	case p == "commercial":
		return "commercial"
	}
	log.Fatalf("regions.csv: unknown partition %q", p)
	return ""
}

func (g *gen) regions() []*catalog.Region {
	need := map[string]bool{}
	for _, k := range g.order {
		o := g.offers[k]
		need[o.Cloud+"/"+o.Region] = true
	}
	hipaa := map[string]bool{}
	for _, c := range g.clouds {
		hipaa[c.ID] = c.HIPAA
	}
	all := map[string]rec{}
	var out []*catalog.Region
	add := func(r *catalog.Region) {
		if hipaa[r.Cloud] && r.Partition != "china" {
			r.Compliance = append(r.Compliance, catalog.ComplianceHIPAA)
		}
		out = append(out, r)
	}
	for _, r := range readRecs(src("regions.csv")) {
		all[r["cloud"]+"/"+r["region"]] = r
		if !need[r["cloud"]+"/"+r["region"]] {
			continue
		}
		reg := &catalog.Region{Cloud: r["cloud"], ID: r["region"], City: r["city"], Country: r["country"],
			Geography: r["geo"], Partition: partition(r["partition"]), Compliance: []string{},
			GridGCO2ePerKWh: num(r["grid_gco2e_per_kwh"]), GridYear: int(num(r["grid_year"])), PUE: num(r["region_pue"])}
		for col, flag := range map[string]string{"gdpr_eu_eea": catalog.ComplianceGDPR, "uk_gdpr": catalog.ComplianceUKGDPR,
			"swiss_fadp": catalog.ComplianceSwissFADP, "china_mlps2": catalog.ComplianceMLPS2, "fedramp_high": catalog.ComplianceFedRAMPHigh} {
			if yn(r[col]) {
				reg.Compliance = append(reg.Compliance, flag)
			}
		}
		sort.Strings(reg.Compliance)
		reg.Source = "regions.csv; grid: " + r["grid_source"] + "; location: " + r["location_source"]
		if r["region_pue_source"] != "" {
			reg.Source += "; PUE " + r["region_pue_year"] + ": " + r["region_pue_source"]
		}
		add(reg)
		delete(need, reg.Cloud+"/"+reg.ID)
	}
	for _, r := range readRecs(cur("regions_extra.csv")) {
		k := r["cloud"] + "/" + r["region"]
		if !need[k] {
			continue
		}
		reg := &catalog.Region{Cloud: r["cloud"], ID: r["region"], City: r["city"], Country: r["country"],
			Geography: r["geo"], Partition: "commercial", Compliance: []string{}}
		if yn(r["gdpr"]) {
			reg.Compliance = append(reg.Compliance, catalog.ComplianceGDPR)
		}
		if yn(r["uk_gdpr"]) {
			reg.Compliance = append(reg.Compliance, catalog.ComplianceUKGDPR)
		}
		if yn(r["swiss_fadp"]) {
			reg.Compliance = append(reg.Compliance, catalog.ComplianceSwissFADP)
		}
		reg.Source = "curated regions_extra.csv; location: " + r["location_source"]
		if pc := r["grid_proxy_cloud"]; pc != "" {
			p, ok := all[pc+"/"+r["grid_proxy_region"]]
			if !ok {
				log.Fatalf("regions_extra.csv %s: proxy %s/%s not in regions.csv", k, pc, r["grid_proxy_region"])
			}
			if p["country"] != reg.Country && reg.Country != "" {
				log.Fatalf("regions_extra.csv %s: proxy in another country", k)
			}
			reg.GridGCO2ePerKWh, reg.GridYear = num(p["grid_gco2e_per_kwh"]), int(num(p["grid_year"]))
			reg.Source += "; grid: PROXY = regions.csv value of " + pc + "/" + r["grid_proxy_region"] + " (same country): " + p["grid_source"]
		} else {
			reg.Source += "; grid: unknown (0), no same-country value in regions.csv"
		}
		add(reg)
		delete(need, k)
	}
	if len(need) > 0 {
		var miss []string
		for k := range need {
			miss = append(miss, k)
		}
		sort.Strings(miss)
		log.Fatalf("regions without metadata: %v", miss)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Cloud != out[j].Cloud {
			return out[i].Cloud < out[j].Cloud
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// ---------- output ----------

// offerSources expands the short source keys of offers.csv.
var offerSources = map[string]string{
	"aws":                   "gpu_prices.csv <- SkyPilot catalog v9 aws/vms.csv @3e9a175 (written on/after 2026-07-09, Apache-2.0): zone rows collapsed to the region; spot = median over zones below on-demand; reserved DERIVED from the AWS median commitment discount",
	"aws+vantage":           "on-demand/spot: gpu_prices.csv <- SkyPilot catalog v9 aws/vms.csv @3e9a175 (newer, preferred); reserved_1y/3y: aws_reserved.csv best_1y_no_upfront/best_3y_no_upfront (min of Standard RI and Savings Plan, no upfront) <- instances.vantage.sh via tsaol/aws-gpu @2d0108c (2025-11-30)",
	"aws-vantage":           "aws_reserved.csv <- instances.vantage.sh via tsaol/aws-gpu @2d0108c (2025-11-30; region not in the SkyPilot v9 transcription): on-demand, spot_avg, best no-upfront 1y/3y",
	"aws-cn":                "cn_gpu_prices.csv <- instances.vantage.sh instances-cn.json via tsaol/aws-gpu @7412fd2 (2026-01-21), CNY converted to USD at the catalog.json rate; reserved = commit_*_no_upfront (best of Standard RI and Savings Plan)",
	"gcp":                   "gcp_machine_totals.csv <- Cyclenerd/google-cloud-pricing-cost-calculator pricing.yml @fd66b26 (2026-07-30, Apache-2.0): whole-machine totals (vCPU+RAM+GPU SKUs), commitment = monthly/730; only regions SkyPilot lists",
	"azure":                 "azure_gpu_ondemand_2026-06-18.csv <- Azure/karpenter-provider-azure zz_generated.pricing.go (2026-06-18, Apache-2.0); spot from azure_spot_reserved.csv (SkyPilot v6, older, US only); reserved DERIVED from the Azure median commitment discount",
	"azure+reserved":        "azure_gpu_ondemand_2026-06-18.csv on-demand; azure_spot_reserved.csv reservation rates (secondary_hand_read from the Azure Retail Prices API, unverified)",
	"oci-skypilot-v9":       "gpu_prices.csv <- SkyPilot catalog v9 oci/vms.csv @a5be538: 2 regions read (OCI prices GPU shapes globally [verify]); no spot, no commitment",
	"lambda-skypilot-v9":    "gpu_prices.csv <- SkyPilot catalog v9 lambda/vms.csv @2c3d7ea; GPU memory recomputed (source TotalGpuMemoryInMiB equals the per-GPU value)",
	"nebius-skypilot-v9":    "gpu_prices.csv <- SkyPilot catalog v9 nebius/vms.csv @d9bf3aa; GPU memory from the accelerator (source reports 0)",
	"runpod-skypilot-v7-v8": "gpu_prices.csv <- SkyPilot catalog runpod v8 (01acdfd, sampled; preferred) else v7 (0727c2b); region = data-centre ID; GPU memory from the accelerator (source SizeInMiB is GB); spot equal to on-demand dropped",
}

func (g *gen) writeAll(regions []*catalog.Region) {
	must := func(err error) {
		if err != nil {
			log.Fatal(err)
		}
	}
	writeJSON := func(name string, v any) {
		b, err := json.MarshalIndent(v, "", " ")
		must(err)
		must(os.WriteFile(filepath.Join(*outDir, name), append(b, '\n'), 0o644))
	}
	clouds := make([]catalog.Cloud, len(g.clouds))
	for i, c := range g.clouds {
		clouds[i] = c.Cloud
	}
	writeJSON("accelerators.json", map[string]any{"accelerators": g.accels})
	writeJSON("clouds.json", map[string]any{"clouds": clouds})
	type rate struct {
		Currency    string  `json:"currency"`
		UnitsPerUSD float64 `json:"units_per_usd"`
		Date        string  `json:"date"`
		Source      string  `json:"source"`
	}
	var rates []rate
	for _, x := range g.meta.ExchangeRates {
		rates = append(rates, rate{x.Currency, x.CNYPerUSD, x.Date, x.Source})
	}
	writeJSON("catalog.json", map[string]any{
		"catalog_date": g.meta.CatalogDate, "catalog_date_source": g.meta.CatalogDateSource,
		"exchange_rates": rates, "offer_sources": offerSources,
	})

	f, err := os.Create(filepath.Join(*outDir, "regions.csv"))
	must(err)
	w := csv.NewWriter(f)
	must(w.Write(regionHeader))
	for _, r := range regions {
		must(w.Write([]string{r.Cloud, r.ID, r.City, r.Country, r.Geography, r.Partition, strings.Join(r.Compliance, ";"),
			ff(r.GridGCO2ePerKWh), strconv.Itoa(r.GridYear), ff(r.PUE), r.Source}))
	}
	w.Flush()
	must(w.Error())
	must(f.Close())

	sort.Strings(g.order)
	f, err = os.Create(filepath.Join(*outDir, "offers.csv"))
	must(err)
	w = csv.NewWriter(f)
	must(w.Write(offerHeader))
	for _, k := range g.order {
		o := g.offers[k]
		must(w.Write([]string{o.Cloud, o.Region, o.InstanceType, o.Accelerator, strconv.Itoa(o.GPUs), ff(o.GPUMemoryGB),
			strconv.Itoa(o.VCPUs), ff(o.MemoryGB), ff(o.NetworkGbps), string(o.Fabric),
			ff(o.OnDemandUSD), ff(o.SpotUSD), ff(o.Reserved1YUSD), ff(o.Reserved3YUSD), strconv.FormatBool(o.ReservedDerived),
			o.Currency, ff(o.NativeOnDemand), ff(o.NativeSpot), ff(o.NativeReserved1Y), ff(o.NativeReserved3Y), o.Source}))
	}
	w.Flush()
	must(w.Error())
	must(f.Close())
}

var regionHeader = []string{"cloud", "region", "city", "country", "geography", "partition", "compliance", "grid_gco2e_per_kwh", "grid_year", "pue", "source"}

var offerHeader = []string{"cloud", "region", "instance_type", "accelerator", "gpus", "gpu_memory_gb", "vcpus", "memory_gb",
	"network_gbps", "fabric", "on_demand_usd", "spot_usd", "reserved_1y_usd", "reserved_3y_usd", "reserved_derived",
	"currency", "native_on_demand", "native_spot", "native_reserved_1y", "native_reserved_3y", "source"}

// ff formats a number compactly; 0 is written as an empty field.
func ff(v float64) string {
	if v == 0 {
		return ""
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}
