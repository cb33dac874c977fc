// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package main

import "github.com/gpuplan/terraform-provider-gpu/internal/catalog"

// azureOffers reads Azure on-demand prices (karpenter-provider-azure) for the
// SKUs of curated/azure_skus.csv, with spot and reservation rates from
// azure_spot_reserved.csv where it has them.
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
		r1, r3 := num(r["reservation_1y_usd_per_hour"]), num(r["reservation_3y_usd_per_hour"])
		if r1 > 0 {
			e.r1 = r1
		}
		if r3 > 0 {
			e.r3 = r3
		}
		g.commitmentRate("azure", od, r1, r3)
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
