// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package main

import (
	"log"
	"path"
	"strings"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// azureOffers reads Azure on-demand prices (karpenter-provider-azure) for the
// SKUs of curated/azure_skus.csv; the newer Retail Prices API snapshot
// (azure_retail_2026-08-22.csv) re-dates or replaces them and adds spot and
// the 1-year savings plan where it has the SKU and region. The catalog's
// Azure reserved_1y/reserved_3y is the savings plan for compute: the
// Reserved VM Instance rates of azure_spot_reserved.csv are not carried.
func (g *gen) azureOffers() {
	for _, r := range readRecs(src("azure_spot_reserved.csv")) {
		if num(r["spot_usd_per_hour"]) > 0 {
			g.drops["azure_spot_reserved.csv: spot rate of SkyPilot azure v6 (undated, about 2024): too old to price a plan, not carried"]++
		}
		if num(r["reservation_1y_usd_per_hour"]) > 0 || num(r["reservation_3y_usd_per_hour"]) > 0 {
			g.drops["azure_spot_reserved.csv: Reserved VM Instance rate: the catalog's Azure reserved_1y/reserved_3y is the savings plan for compute"]++
		}
	}
	g.azureSavingsPlanRatios()
	retail := g.azureRetail()
	skip := g.azureNCv6()
	for _, r := range readRecs(src("azure_gpu_ondemand_2026-06-18.csv")) {
		sku, ok := g.azure[r["sku"]]
		if !ok {
			g.drops["azure: "+g.azureDropReason(r["sku"], skip)]++
			continue
		}
		od := num(r["on_demand_usd_per_hour"])
		o := &catalog.Offer{Cloud: "azure", Region: r["region"], InstanceType: r["sku"], Accelerator: sku.accel,
			GPUs: sku.gpus, GPUFraction: sku.frac, VCPUs: sku.vcpus, MemoryGB: sku.memGiB, OnDemandUSD: od, Source: "azure"}
		setInfos(o, g.published("karpenter-azure"), catalog.OnDemand)
		if sku.netGbps > 0 {
			o.NetworkGbps, o.Fabric = sku.netGbps, catalog.FabricNone
		}
		if n, ok := retail[r["sku"]+"/"+r["region"]]; ok {
			g.applyAzureRetail(o, n)
			delete(retail, r["sku"]+"/"+r["region"])
		}
		g.put(o, "azure: accelerator not in catalog")
	}
	g.drops[azureRetailFile+": SKU and region not a catalog offer"] += len(retail)
}

// azureNCv6 adds the GA sizes of the NCv6 series (RTX PRO 6000 Blackwell
// Server Edition) from azure_ncv6_rtxpro6000_skus.csv to the SKU table:
// whole GPUs or a GPU fraction, vCPUs, RAM and network from the row. It
// returns the drop reason of every other size of the file.
func (g *gen) azureNCv6() map[string]string {
	skip := map[string]string{}
	for _, r := range readRecs(src("azure_ncv6_rtxpro6000_skus.csv")) {
		sku, status := r["sku"], r["status"]
		switch {
		case strings.HasPrefix(status, "GA"):
		case strings.Contains(status, "retired at GA"):
			skip[sku] = "azure_ncv6_rtxpro6000_skus.csv: NCv6 preview size retired at GA (new VMs on preview sizes no longer work; priced like its GA counterpart)"
			continue
		case strings.Contains(status, "early preview"):
			skip[sku] = "azure_ncv6_rtxpro6000_skus.csv: NCv6 early preview size without a GPU count in any source"
			continue
		default:
			skip[sku] = "azure_ncv6_rtxpro6000_skus.csv: NCv6 size without a spec in any source (" + status + ")"
			continue
		}
		if _, dup := g.azure[sku]; dup {
			log.Fatalf("azure_ncv6_rtxpro6000_skus.csv: %s is also in curated/azure_skus.csv", sku)
		}
		s := azureSKU{accel: g.accel("azure", sku, "RTX PRO 6000 Blackwell"), vcpus: int(num(r["vcpus"])),
			memGiB: num(r["memory_gb"]), netGbps: num(r["max_network_mbps"]) / mbpsPerGbps,
			source: "azure_ncv6_rtxpro6000_skus.csv: " + r["spec_source"]}
		if f := num(r["gpu_fraction"]); f < 1 {
			s.frac = f
		} else {
			s.gpus = int(f)
		}
		if s.accel == "" || (s.frac == 0 && s.gpus == 0) {
			log.Fatalf("azure_ncv6_rtxpro6000_skus.csv: %s: no accelerator or GPU count", sku)
		}
		g.azure[sku] = s
	}
	return skip
}

// azureDropReason is why an Azure SKU without a SKU-table entry is not an
// offer: its NCv6 status, else the first matching row of
// curated/azure_dropped.csv. A SKU neither explains is fatal, so a price-list
// refresh cannot silently drop a new GPU series.
func (g *gen) azureDropReason(sku string, ncv6 map[string]string) string {
	if why, ok := ncv6[sku]; ok {
		return why
	}
	for _, d := range g.azureDropped {
		if ok, _ := path.Match(d[0], sku); ok {
			return d[1]
		}
	}
	log.Fatalf("azure SKU %s has a price but no row in curated/azure_skus.csv or curated/azure_dropped.csv", sku)
	return ""
}
