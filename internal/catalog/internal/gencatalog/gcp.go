// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package main

import (
	"log"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// gcpNewer is the newer Cyclenerd pricing.yml extract: whole-machine prices
// that replace the gcp_machine_totals.csv ones of the same machine type and
// region (source key and source-date ID).
const (
	gcpNewerFile    = "gcp_machine_prices_2026-08-20.csv"
	gcpNewerRegions = "gcp_gpu_machine_regions_2026-08-17.csv"
	gcpNewerKey     = "gcp-2026-08-20"
	gcpNewerSource  = "cyclenerd-gcp-2026-08-20"
)

// gcpMachine is one machine type in one region: its whole-machine prices
// and the source they come from.
type gcpMachine struct {
	od, spot, r1y, r3y float64
	key, source        string
}

// gcpPrices returns the prices of a gcp_machine_totals.csv row, or the
// newer extract's prices of the same machine type and region.
func gcpPrices(r rec, newer map[string]rec) gcpMachine {
	if n, ok := newer[r["name"]+"/"+r["region"]]; ok {
		r = n
		return gcpMachine{num(r["on_demand_usd_per_hour"]), num(r["spot_usd_per_hour"]), num(r["commit_1y_usd_per_hour"]),
			num(r["commit_3y_usd_per_hour"]), gcpNewerKey, gcpNewerSource}
	}
	return gcpMachine{num(r["on_demand_usd_per_hour"]), num(r["spot_usd_per_hour"]), num(r["commit_1y_usd_per_hour"]),
		num(r["commit_3y_usd_per_hour"]), "gcp", "cyclenerd-gcp"}
}

// byNameRegion indexes the rows of a GCP source file by machine type/region.
func byNameRegion(file string) map[string]rec {
	out := map[string]rec{}
	for _, r := range readRecs(src(file)) {
		out[r["name"]+"/"+r["region"]] = r
	}
	return out
}

// gcp reads whole-machine GCP prices (gcp_machine_totals.csv, Cyclenerd
// 2026-07-30, replaced row by row by the 2026-08-20 extract): on-demand,
// spot and 1-/3-year commitments of the machines SkyPilot lists in the
// region, and of the machine types SkyPilot does not list (flag "unknown":
// G2 and G4) in the regions Compute Engine's machine-type list has them.
func (g *gen) gcp() {
	newer, listed := byNameRegion(gcpNewerFile), byNameRegion(gcpNewerRegions)
	for _, r := range readRecs(src("gcp_machine_totals.csv")) {
		p := gcpPrices(r, newer)
		info := g.published(p.source)
		g.commitmentRate("gcp", p.od, p.r1y, p.r3y, info.AsOf)
		switch flag := r["offered_in_region_per_skypilot"]; {
		case flag == "unknown" && listed[r["name"]+"/"+r["region"]] != nil:
		case flag != "yes":
			g.drops["gcp_machine_totals.csv: not offered in the region (SkyPilot, or Compute Engine's machine-type list for G2/G4)"]++
			continue
		}
		gpus, frac := gpusOf(r["gpu_count"], "gcp "+r["name"])
		o := &catalog.Offer{Cloud: "gcp", Region: r["region"], InstanceType: r["name"],
			Accelerator: g.accel("gcp", r["name"], r["gpu_type"]), GPUs: gpus, GPUFraction: frac,
			VCPUs: int(num(r["vcpus"])), MemoryGB: num(r["ram_gb"]), OnDemandUSD: p.od, Source: p.key}
		setInfos(o, info, catalog.OnDemand, catalog.Spot, catalog.Reserved1Y, catalog.Reserved3Y)
		if p.spot > 0 && p.spot < p.od {
			o.SpotUSD = p.spot
		}
		if p.r1y > 0 && p.r1y < p.od {
			o.Reserved1YUSD = p.r1y
		}
		if p.r3y > 0 && p.r3y < p.od {
			o.Reserved3YUSD = p.r3y
		}
		g.put(o, "gcp: accelerator not in catalog")
	}
	for _, r := range readRecs(src("gcp_machine_totals.csv")) {
		delete(newer, r["name"]+"/"+r["region"])
	}
	if len(newer) > 0 {
		log.Fatalf("%s: %d rows without a gcp_machine_totals.csv row (shape unknown), e.g. %v", gcpNewerFile, len(newer), sortedKeys(newer)[0])
	}
}
