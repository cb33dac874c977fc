// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package main

import "github.com/gpuplan/terraform-provider-gpu/internal/catalog"

// gcp reads whole-machine GCP prices (gcp_machine_totals.csv, Cyclenerd):
// on-demand, spot and 1-/3-year commitments of the machines SkyPilot lists
// in the region.
func (g *gen) gcp() {
	for _, r := range readRecs(src("gcp_machine_totals.csv")) {
		od, sp := num(r["on_demand_usd_per_hour"]), num(r["spot_usd_per_hour"])
		c1, c3 := num(r["commit_1y_usd_per_hour"]), num(r["commit_3y_usd_per_hour"])
		info := g.published("cyclenerd-gcp")
		g.commitmentRate("gcp", od, c1, c3, info.AsOf)
		if r["offered_in_region_per_skypilot"] != "yes" {
			g.drops["gcp_machine_totals.csv: offered_in_region_per_skypilot is not 'yes'"]++
			continue
		}
		o := &catalog.Offer{Cloud: "gcp", Region: r["region"], InstanceType: r["name"],
			Accelerator: g.accel("gcp", r["name"], r["gpu_type"]), GPUs: int(num(r["gpu_count"])),
			VCPUs: int(num(r["vcpus"])), MemoryGB: num(r["ram_gb"]), OnDemandUSD: od, Source: "gcp"}
		setInfos(o, info, catalog.OnDemand, catalog.Spot, catalog.Reserved1Y, catalog.Reserved3Y)
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
