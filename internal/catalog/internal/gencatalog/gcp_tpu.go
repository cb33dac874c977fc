// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package main

import (
	"log"
	"math"
	"sort"
	"strings"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// tpuVersion is a row of curated/tpu_versions.csv.
type tpuVersion struct {
	accel     string
	hostChips int
}

// tpuCommitment is Google's Trillium (v6e) commitment statement: per-chip
// on-demand and 1-/3-year CUD rates of the lowest-priced regions.
type tpuCommitment struct{ od, c1, c3 float64 }

// linearityTolerance is the relative difference allowed between a
// multi-host slice price and chips x the single-host per-chip price.
const linearityTolerance = 1e-6

// gcpTPU reads Cloud TPU offers from tpu_prices.csv: the single-host slice
// shapes SkyPilot prices per zone (collapsed to regions like AWS zones:
// on-demand must agree, spot = median below on-demand), with host vCPUs and
// RAM from tpu_vm_shapes.csv. Multi-host slices are not offers: they are
// ICI nodes of the full-host shape, and their prices are checked to be
// linear in chips. v6e gets Google's Trillium commitment rates; no other
// TPU commitment price is published, so none is carried or derived.
func (g *gen) gcpTPU() {
	versions := map[string]tpuVersion{}
	for _, r := range readRecs(cur("tpu_versions.csv")) {
		versions[r["tpu_version"]] = tpuVersion{r["accelerator"], int(num(r["chips_per_host"]))}
	}
	shapes := map[string]rec{}
	for _, r := range readRecs(src("tpu_vm_shapes.csv")) {
		if r["kind"] == "slice_host_spec (gpuhunt)" {
			shapes[r["machine_type"]] = r
		}
	}
	rows := readRecs(src("tpu_prices.csv"))
	var trillium tpuCommitment
	var sky []rec
	for _, r := range rows {
		switch {
		case strings.HasPrefix(r["source"], "skypilot-org/"):
			sky = append(sky, r)
		case r["commit_1y_usd_per_chip_hour"] != "":
			trillium = tpuCommitment{num(r["on_demand_usd_per_chip_hour"]), num(r["commit_1y_usd_per_chip_hour"]), num(r["commit_3y_usd_per_chip_hour"])}
		default:
			g.drops["tpu_prices.csv: gpuhunt per-chip rows (hand-copied 2024; v4 spot is a slice price, v6e spot equals the 1-year CUD): SkyPilot zone rows used instead"]++
		}
	}
	if trillium.od <= 0 || trillium.c1 <= 0 || trillium.c3 <= 0 {
		log.Fatal("tpu_prices.csv: no Trillium commitment row")
	}
	groups := map[string]*zoneGroup{}
	var order []string
	for _, r := range sky {
		v, ok := versions[r["tpu_version"]]
		chips := int(num(r["chips"]))
		switch {
		case !ok:
			g.drops["tpu_prices.csv: TPU v2/v3 (legacy generations): accelerator not in the catalog"]++
			continue
		case r["on_demand_usd_per_hour"] == "":
			g.drops["tpu_prices.csv: SkyPilot placeholder price 700.0 (unavailable), blanked in the source"]++
			continue
		case chips > v.hostChips:
			g.checkLinear(r, sky)
			g.drops["tpu_prices.csv: multi-host slice (not an offer: nodes of the full-host shape over ICI; price checked linear in chips)"]++
			continue
		}
		k := r["accelerator_type"] + "/" + r["region"]
		zg, ok := groups[k]
		if !ok {
			zg = &zoneGroup{first: r, od: map[float64]bool{}}
			groups[k] = zg
			order = append(order, k)
		}
		zg.od[num(r["on_demand_usd_per_hour"])] = true
		if s := num(r["spot_usd_per_hour"]); s > 0 {
			zg.spots = append(zg.spots, s)
		}
	}
	sort.Strings(order)
	for _, k := range order {
		g.tpuOffer(k, groups[k], versions, shapes, trillium)
	}
}

// tpuOffer adds one single-host TPU slice shape in one region.
func (g *gen) tpuOffer(k string, zg *zoneGroup, versions map[string]tpuVersion, shapes map[string]rec, trillium tpuCommitment) {
	r := zg.first
	od, _ := g.onlyOD(zg, "tpu_prices.csv "+k)
	chips := int(num(r["chips"]))
	v := versions[r["tpu_version"]]
	o := &catalog.Offer{Cloud: "gcp", Region: r["region"], InstanceType: r["accelerator_type"], Accelerator: v.accel,
		GPUs: chips, OnDemandUSD: od, SpotUSD: spotOf(zg.spots, od), Source: "gcp-tpu"}
	setInfos(o, g.published("skypilot-v9-gcp"), catalog.OnDemand, catalog.Spot)
	if sh, ok := shapes[o.InstanceType]; ok {
		o.VCPUs, o.MemoryGB = int(num(sh["vcpus"])), num(sh["memory_gb"])
	}
	if r["tpu_version"] == "v6e" {
		perChip := od / float64(chips)
		if math.Abs(perChip-trillium.od) < 1e-9 {
			o.Reserved1YUSD = round(trillium.c1*float64(chips), pricePrecision)
			o.Reserved3YUSD = round(trillium.c3*float64(chips), pricePrecision)
			o.Source = "gcp-tpu-v6e"
			setInfos(o, g.published("trillium-commitments"), catalog.Reserved1Y, catalog.Reserved3Y)
		} else {
			o.Reserved1YUSD = round(od*trillium.c1/trillium.od, pricePrecision)
			o.Reserved3YUSD = round(od*trillium.c3/trillium.od, pricePrecision)
			setInfos(o, derived(o.PriceInfos.OnDemand.AsOf, g.asOf("trillium-commitments")), catalog.Reserved1Y, catalog.Reserved3Y)
			o.Source = "gcp-tpu-v6e-derived"
		}
	}
	g.noDerive["gcp/"+o.InstanceType+"/"+o.Region] = true
	g.put(o, "")
}

// checkLinear verifies that a multi-host slice costs its chips times the
// per-chip price of the single-host rows of the same version and zone.
func (g *gen) checkLinear(multi rec, sky []rec) {
	chips := num(multi["chips"])
	for _, r := range sky {
		if r["tpu_version"] != multi["tpu_version"] || r["zone"] != multi["zone"] || r["accelerator_type"] == multi["accelerator_type"] ||
			r["on_demand_usd_per_hour"] == "" {
			continue
		}
		perChip := num(r["on_demand_usd_per_hour"]) / num(r["chips"])
		if want := perChip * chips; math.Abs(num(multi["on_demand_usd_per_hour"])-want) > linearityTolerance*want {
			log.Fatalf("tpu_prices.csv: %s in %s costs %s, not %v chips x %v", multi["accelerator_type"], multi["zone"],
				multi["on_demand_usd_per_hour"], chips, perChip)
		}
		return
	}
	log.Fatalf("tpu_prices.csv: no single-host row to check %s in %s against", multi["accelerator_type"], multi["zone"])
}
