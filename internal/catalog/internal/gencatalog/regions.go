// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package main

import (
	"log"
	"slices"
	"sort"
	"strings"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// yn reports whether a source flag says yes ("Y", "Y (…)").
func yn(s string) bool { return strings.HasPrefix(strings.ToUpper(s), "Y") }

// partition normalises a regions.csv partition to the catalog's.
func partition(p string) catalog.Partition {
	switch {
	case strings.HasSuffix(p, "-us-gov"):
		return catalog.PartitionGov
	case strings.HasSuffix(p, "-cn"), strings.HasSuffix(p, "-china"):
		return catalog.PartitionChina
	case p == "commercial":
		return catalog.PartitionCommercial
	}
	log.Fatalf("regions.csv: unknown partition %q", p)
	return ""
}

// regions returns the metadata of every region that has an offer, from
// regions.csv and curated/regions_extra.csv; a region without metadata is
// fatal.
func (g *gen) regions(serverless []*catalog.ServerlessOffer) []*catalog.Region {
	need := map[string]bool{}
	for _, k := range g.order {
		o := g.offers[k]
		need[o.Cloud+"/"+o.Region] = true
	}
	for _, s := range serverless {
		if s.Region != "" {
			need[s.Cloud+"/"+s.Region] = true
		}
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
		delete(need, r.Cloud+"/"+r.ID)
	}
	for _, r := range readRecs(src("regions.csv")) {
		all[r["cloud"]+"/"+r["region"]] = r
		if need[r["cloud"]+"/"+r["region"]] {
			add(regionFromSource(r))
		}
	}
	for _, r := range readRecs(cur("regions_extra.csv")) {
		if need[r["cloud"]+"/"+r["region"]] {
			add(regionFromCurated(r, all))
		}
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

// regionFromSource is a region read from its regions.csv row.
func regionFromSource(r rec) *catalog.Region {
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
	if regime, ok := catalog.PartitionCompliance[reg.Partition]; ok && !slices.Contains(reg.Compliance, regime) {
		log.Fatalf("regions.csv %s/%s: partition %s but no %s flag: the source must say which regime the region carries", reg.Cloud, reg.ID, reg.Partition, regime)
	}
	reg.Source = "regions.csv; grid: " + r["grid_source"] + "; location: " + r["location_source"]
	if r["region_pue_source"] != "" {
		reg.Source += "; PUE " + r["region_pue_year"] + ": " + r["region_pue_source"]
	}
	return reg
}

// regionFromCurated is a region of curated/regions_extra.csv; its grid
// intensity is a same-country proxy from regions.csv (all) or unknown.
func regionFromCurated(r rec, all map[string]rec) *catalog.Region {
	k := r["cloud"] + "/" + r["region"]
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
	pc := r["grid_proxy_cloud"]
	if pc == "" {
		reg.Source += "; grid: unknown (0), no same-country value in regions.csv"
		return reg
	}
	p, ok := all[pc+"/"+r["grid_proxy_region"]]
	if !ok {
		log.Fatalf("regions_extra.csv %s: proxy %s/%s not in regions.csv", k, pc, r["grid_proxy_region"])
	}
	if p["country"] != reg.Country && reg.Country != "" {
		log.Fatalf("regions_extra.csv %s: proxy in another country", k)
	}
	reg.GridGCO2ePerKWh, reg.GridYear = num(p["grid_gco2e_per_kwh"]), int(num(p["grid_year"]))
	reg.Source += "; grid: PROXY = regions.csv value of " + pc + "/" + r["grid_proxy_region"] + " (same country): " + p["grid_source"]
	return reg
}
