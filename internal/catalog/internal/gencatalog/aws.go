// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package main

import (
	"log"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// aws reads the AWS commercial and gov regions: on-demand and spot from
// gpu_prices.csv (SkyPilot v9), commitments from aws_reserved.csv (vantage),
// which also adds the regions SkyPilot lacks. The catalog's AWS
// reserved_1y/reserved_3y is one definition everywhere: the no-upfront
// Standard Reserved Instance rate, which is the EC2 Instance Savings Plan
// rate (price_updates_2026h2.csv gives the Compute Savings Plan where AWS
// publishes no Instance plan for the term); never a Convertible RI.
func (g *gen) aws() {
	rows := readRecs(src("gpu_prices.csv"))
	groups, order := collapse(rows, "aws", false, func(r rec) string { return r["instance_type"] + "/" + r["region"] })
	specs := map[string]rec{}
	for _, k := range order {
		zg := groups[k]
		r := zg.first
		specs[r["instance_type"]] = r
		od, ok := g.onlyOD(zg, "aws/"+k)
		if !ok {
			g.awsNoOD[k] = zg // capacity-block-only or unpriced: see awsCoverage
			continue
		}
		gpus, frac := gpusOf(r["accelerator_count"], "gpu_prices.csv aws/"+k)
		o := &catalog.Offer{Cloud: "aws", Region: r["region"], InstanceType: r["instance_type"],
			Accelerator: g.accel("aws", r["instance_type"], r["accelerator"]), GPUs: gpus, GPUFraction: frac,
			VCPUs: int(num(r["vcpus"])), MemoryGB: num(r["memory_gib"]),
			OnDemandUSD: od, SpotUSD: spotOf(zg.spots, od), Source: "aws"}
		setInfos(o, g.published(skypilotSource(r)), catalog.OnDemand, catalog.Spot)
		g.put(o, "aws: accelerator not in catalog")
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
	confirm := map[string]rec{}
	for _, r := range readRecs(src(vantageConfirmFile)) {
		confirm[r["instance_type"]+"/"+r["region"]] = r
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
		b1, b3 := num(r["ri_1y_standard_no_upfront"]), num(r["ri_3y_standard_no_upfront"])
		if r["ri_1y_standard_no_upfront"] == "" && r["ri_1y_convertible_no_upfront"] != "" {
			g.drops["aws_reserved.csv: Convertible RI without a Standard RI for the term (not the catalog's reserved definition; derived instead)"]++
		}
		vantage := g.published("vantage-aws")
		g.commitmentRate("aws", od, b1, b3, vantage.AsOf)
		odInfo, r1Info := g.vantageConfirmed(confirm[it+"/"+region], od, b1)
		o, ok := g.offers["aws/"+it+"/"+region]
		if !ok {
			sp, known := specs[it]
			if !known || od <= 0 {
				g.drops["aws_reserved.csv: instance type without specs or on-demand"]++
				continue
			}
			gpus, frac := gpusOf(sp["accelerator_count"], "aws_reserved.csv "+it)
			o = &catalog.Offer{Cloud: "aws", Region: region, InstanceType: it,
				Accelerator: g.accel("aws", it, sp["accelerator"]), GPUs: gpus, GPUFraction: frac,
				VCPUs: int(num(r["vcpu"])), MemoryGB: num(r["memory_gib"]), OnDemandUSD: od, Source: "aws-vantage"}
			if s := num(r["spot_avg_usd_per_hour"]); s > 0 && s < od {
				o.SpotUSD = s
			}
			setInfos(o, vantage, catalog.Spot)
			setInfos(o, odInfo, catalog.OnDemand)
			g.put(o, "aws_reserved.csv: accelerator not in catalog")
		} else {
			o.Source = "aws+vantage"
		}
		if b1 > 0 && b1 < o.OnDemandUSD {
			o.Reserved1YUSD, o.PriceInfos.Reserved1Y = b1, r1Info
		}
		if b3 > 0 && b3 < o.OnDemandUSD {
			o.Reserved3YUSD, o.PriceInfos.Reserved3Y = b3, vantage
		}
	}
}

// vantageConfirmFile is the 2026-01-21 copy of the vantage AWS data
// (tsaol/aws-gpu per-family files): on-demand and 1-year Standard RI no
// upfront per instance type and region.
const vantageConfirmFile = "aws_vantage_2026-01-21.csv"

// vantageConfirmed dates an aws_reserved.csv row's on-demand and 1-year
// prices: the newer copy's date where it shows the same price (a newer
// copy showing the same price re-dates it), else the snapshot's.
func (g *gen) vantageConfirmed(c rec, od, r1 float64) (odInfo, r1Info catalog.PriceInfo) {
	odInfo, r1Info = g.published("vantage-aws"), g.published("vantage-aws")
	if c == nil {
		return odInfo, r1Info
	}
	newer := g.published("vantage-aws-2026-01-21")
	if c["on_demand_usd_per_hour"] != "" && num(c["on_demand_usd_per_hour"]) == od {
		odInfo = newer
	}
	if r1 > 0 && c["reserved_1y_usd_per_hour"] != "" && num(c["reserved_1y_usd_per_hour"]) == r1 {
		r1Info = newer
	}
	return odInfo, r1Info
}

// awsChina reads the AWS China regions (cn_gpu_prices.csv, CNY) and converts
// the prices at the dated rate of curated/meta.json.
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
		c1, c3 := num(r["ri_1y_standard_no_upfront"]), num(r["ri_3y_standard_no_upfront"])
		o := &catalog.Offer{Cloud: "aws", Region: r["region"], InstanceType: r["instance_type"],
			Accelerator: g.accel("aws", r["instance_type"], r["accelerator_model"]), GPUs: int(num(r["accelerator_count"])),
			VCPUs: int(num(r["vcpu"])), MemoryGB: num(r["memory_gib"]), Currency: r["currency"],
			NativeOnDemand: od, OnDemandUSD: round(od/rate, pricePrecision), Source: "aws-cn"}
		setInfos(o, g.published("vantage-aws-cn"), catalog.OnDemand, catalog.Reserved1Y, catalog.Reserved3Y)
		if c1 > 0 && c1 < od {
			o.NativeReserved1Y, o.Reserved1YUSD = c1, round(c1/rate, pricePrecision)
		}
		if c3 > 0 && c3 < od {
			o.NativeReserved3Y, o.Reserved3YUSD = c3, round(c3/rate, pricePrecision)
		}
		g.put(o, "cn_gpu_prices.csv: accelerator not in catalog (K80 p2, M60 g3/g3s)")
	}
}
