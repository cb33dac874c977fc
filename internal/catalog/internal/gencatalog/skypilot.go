// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package main

import (
	"log"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// zoneGroup collapses per-availability-zone rows of gpu_prices.csv.
type zoneGroup struct {
	first rec
	od    map[float64]bool
	spots []float64
	ver   string
}

// collapse groups the zone rows of one cloud by key (instance type and
// region), keeping each group's on-demand prices and spot prices.
func collapse(rows []rec, cloud string, newestVersionWins bool, key func(rec) string) (map[string]*zoneGroup, []string) {
	groups := map[string]*zoneGroup{}
	var order []string
	for _, r := range rows {
		if r["cloud"] != cloud {
			continue
		}
		k := key(r)
		zg, ok := groups[k]
		if !ok || (newestVersionWins && r["catalog_version"] > zg.ver) {
			// The newer catalog version replaces the older (RunPod).
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

// spotDecimals is the precision of SkyPilot's spot column (on-demand has
// up to 5 decimals): a spot rate equal to on-demand rounded to it is
// on-demand, not a discount.
const spotDecimals = 4

// spotOf returns the median spot price over zones, ignoring zone prices at
// or above on-demand (no discount: AWS caps spot at on-demand, and some
// sources repeat on-demand in the spot column, truncated to 4 decimals:
// 11.8112 for an on-demand 11.81123).
func spotOf(spots []float64, od float64) float64 {
	var ok []float64
	for _, s := range spots {
		if s < round(od, spotDecimals) {
			ok = append(ok, s)
		}
	}
	return round(median(ok), pricePrecision)
}

// onlyOD returns the one on-demand price of a zone group (fatal when the
// zones disagree) and whether it is positive.
func (g *gen) onlyOD(zg *zoneGroup, where string) (float64, bool) {
	if len(zg.od) != 1 {
		log.Fatalf("%s: on-demand differs across zones: %v", where, zg.od)
	}
	for v := range zg.od {
		return v, v > 0
	}
	return 0, false
}

// skypilotSource is the curated/source_dates.csv ID of a gpu_prices.csv
// row: its SkyPilot catalog version and cloud ("skypilot-v9-aws").
func skypilotSource(r rec) string { return "skypilot-" + r["catalog_version"] + "-" + r["cloud"] }

// skypilotCloud is a row of curated/skypilot_clouds.csv: a cloud read only
// from gpu_prices.csv.
type skypilotCloud struct {
	cloud, source string
	// regionColumn is the gpu_prices.csv column holding the catalog region
	// ("region", or "availability_zone" for RunPod's data-centre IDs).
	regionColumn string
	// newestVersionWins: rows of a newer SkyPilot catalog version replace
	// the older version's rows of the same offer (RunPod v8 over v7).
	newestVersionWins bool
}

// skypilotSimple handles clouds whose rows come only from gpu_prices.csv.
func (g *gen) skypilotSimple(sc skypilotCloud) {
	cloud, source := sc.cloud, sc.source
	rows := readRecs(src("gpu_prices.csv"))
	regionOf := func(r rec) string { return r[sc.regionColumn] }
	groups, order := collapse(rows, cloud, sc.newestVersionWins, func(r rec) string { return r["instance_type"] + "/" + regionOf(r) })
	for _, k := range order {
		zg := groups[k]
		r := zg.first
		od, ok := g.onlyOD(zg, cloud+"/"+k)
		if !ok {
			g.drops[cloud+": no on-demand price"]++
			continue
		}
		o := &catalog.Offer{Cloud: cloud, Region: regionOf(r), InstanceType: r["instance_type"],
			Accelerator: g.accel(cloud, r["instance_type"], r["accelerator"]), GPUs: int(num(r["accelerator_count"])),
			VCPUs: int(num(r["vcpus"])), MemoryGB: num(r["memory_gib"]), OnDemandUSD: od,
			SpotUSD: spotOf(zg.spots, od), Source: source}
		setInfos(o, g.published(skypilotSource(r)), catalog.OnDemand, catalog.Spot)
		g.put(o, cloud+": accelerator not in catalog")
	}
}
