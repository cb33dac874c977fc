// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package main

import (
	"log"
	"path"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// loadCurated reads the hand-curated tables of curated/ (each row names its
// source).
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
	var os struct {
		OfferSources map[string]string `json:"offer_sources"`
	}
	readJSON(cur("offer_sources.json"), &os)
	g.offerSources = os.OfferSources
	for _, r := range readRecs(cur("skypilot_clouds.csv")) {
		g.skypilot = append(g.skypilot, skypilotCloud{cloud: r["cloud"], source: r["source_key"],
			regionColumn: r["region_column"], newestVersionWins: yn(r["newest_version_wins"])})
	}
	for _, r := range readRecs(cur("azure_dropped.csv")) {
		g.azureDropped = append(g.azureDropped, [2]string{r["sku_pattern"], r["reason"]})
	}
	g.azure = map[string]azureSKU{}
	for _, r := range readRecs(cur("azure_skus.csv")) {
		g.azure[r["sku"]] = azureSKU{accel: r["accelerator"], gpus: int(num(r["gpus"])), frac: fraction(r["gpu_fraction"]),
			vcpus: int(num(r["vcpus"])), memGiB: num(r["memory_gib"]), source: r["source"]}
	}
}

// net returns the network bandwidth and fabric of an instance type from
// curated/network.csv: an exact row first, else the first matching pattern.
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
