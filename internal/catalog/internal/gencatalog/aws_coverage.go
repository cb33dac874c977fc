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

// Pricing-model values of aws_accelerator_offers.csv.
const (
	covOnDemand      = "on_demand_linux"
	covSpot          = "spot"
	covCapacityBlock = "capacity_block_effective_hourly"
	covSpecOnly      = "spec_only"
)

// covGroup is one (instance type, region) of aws_accelerator_offers.csv.
type covGroup struct {
	spec     rec       // a row with the instance's specs
	od       []float64 // on-demand rates (karpenter and SkyPilot must agree)
	spots    []float64 // SkyPilot zone spot rates
	low      bool      // the on-demand rate is a LOW-confidence row (trn2)
	karpOD   bool      // an on-demand rate comes from karpenter-provider-aws
	accelRaw string
}

// awsCoverage adds what aws_accelerator_offers.csv has beyond gpu_prices.csv
// and aws_reserved.csv: on-demand rates of regions SkyPilot lacks
// (karpenter us-east-1, e.g. p6-b300), dl1 (Gaudi) offers, the
// LOW-confidence trn2.48xlarge rate (flagged in its source text),
// capacity-block rates on existing offers and capacity-block-only offers
// (p5e, trn1 in Melbourne). Rates it shares with an existing offer must
// agree with it.
func (g *gen) awsCoverage() {
	groups := map[string]*covGroup{}
	for _, r := range readRecs(src("aws_accelerator_offers.csv")) {
		it := strings.TrimSuffix(r["instance_type"], " (inferred)")
		if r["region"] == "" {
			if r["pricing_model"] != covSpecOnly && r["usd_per_hour"] == "" {
				g.drops["aws_accelerator_offers.csv: no published price (p6e-gb200 UltraServers are sold as capacity blocks without a public rate)"]++
			}
			continue // spec-only rows: the offers carry the priced rows' specs
		}
		k := it + "/" + r["region"]
		cg := groups[k]
		if cg == nil {
			cg = &covGroup{spec: r, accelRaw: r["accelerator"]}
			groups[k] = cg
		}
		v := num(r["usd_per_hour"])
		switch pm := r["pricing_model"]; {
		case pm == covOnDemand && v <= 0:
			g.drops["aws_accelerator_offers.csv: on-demand row without a price (p5e and trn2 in the vantage snapshot: capacity blocks / savings plans only)"]++
		case pm == covOnDemand:
			cg.od = append(cg.od, v)
			cg.low = cg.low || strings.HasPrefix(r["confidence"], "LOW")
			cg.karpOD = cg.karpOD || strings.HasPrefix(r["source"], "aws/karpenter-provider-aws")
		case pm == covSpot:
			cg.spots = append(cg.spots, v)
		case pm == covCapacityBlock:
			// Rates in effect before 2025-01-01: AWS resets capacity-block
			// prices regularly; the current ones are in
			// price_updates_2026h2.csv.
			g.drops["aws_accelerator_offers.csv: capacity-block rate in effect before 2025-01-01 (stale; current rates from price_updates_2026h2.csv)"]++
		default: // vantage spot_avg and RI variants (dl2q only)
			g.drops["aws_accelerator_offers.csv: vantage spot_avg/RI rows of dl2q (Qualcomm Cloud AI 100, accelerator not in the catalog)"]++
		}
	}
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		g.awsCoverageOffer(k, groups[k])
	}
	for range g.awsNoOD {
		g.drops["aws: no on-demand price and no capacity-block rate in any source (spot-only zones of p5e, trn1.32xlarge, trn2.3xlarge): not carried"]++
	}
	g.checkGaudiFile()
}

// awsCoverageOffer merges one coverage group into the offers.
func (g *gen) awsCoverageOffer(k string, cg *covGroup) {
	r := cg.spec
	it, region := r["instance_type"], r["region"]
	it = strings.TrimSuffix(it, " (inferred)")
	od := 0.0
	for _, v := range cg.od {
		if od != 0 && math.Abs(v-od) > 1e-9 {
			log.Fatalf("aws_accelerator_offers.csv %s: on-demand rates disagree: %v", k, cg.od)
		}
		od = v
	}
	if o, ok := g.offers["aws/"+k]; ok {
		if od != 0 && math.Abs(o.OnDemandUSD-od) > 1e-9 {
			log.Fatalf("aws_accelerator_offers.csv %s: on-demand %v, gpu_prices.csv/aws_reserved.csv %v", k, od, o.OnDemandUSD)
		}
		return
	}
	acc := g.accel("aws", it, cg.accelRaw)
	if acc == "" {
		g.drops["aws_accelerator_offers.csv: accelerator not in catalog (dl2q: Qualcomm Cloud AI 100)"]++
		return
	}
	nood := g.awsNoOD[k]
	delete(g.awsNoOD, k)
	gpus, frac := gpusOf(r["accelerator_count"], "aws_accelerator_offers.csv "+k)
	o := &catalog.Offer{Cloud: "aws", Region: region, InstanceType: it, Accelerator: acc, GPUs: gpus, GPUFraction: frac,
		VCPUs: int(num(r["vcpus"])), MemoryGB: num(r["memory_gib"]), OnDemandUSD: od}
	spots := cg.spots
	if nood != nil {
		spots = append(spots, nood.spots...)
	}
	switch {
	case od > 0 && cg.low:
		o.Source, o.PriceInfos.OnDemand = "aws-low", g.published("tsaol-aws-trn2")
		g.noDerive["aws/"+k] = true // no commitment derived from an unverified rate
	case od > 0 && cg.karpOD:
		o.Source, o.PriceInfos.OnDemand = "aws-karpenter", g.published("karpenter-aws")
	case od > 0:
		o.Source, o.PriceInfos.OnDemand = "aws-skypilot-coverage", g.published("skypilot-v9-aws-coverage")
	default:
		g.drops["aws_accelerator_offers.csv: no price for the region"]++
		return
	}
	o.SpotUSD, o.PriceInfos.Spot = spotOf(spots, od), g.published("skypilot-v9-aws-coverage")
	g.put(o, "")
}

// checkGaudiFile reads intel_gaudi_offers.csv: its AWS dl1 rows must agree
// with the dl1 offers taken from aws_accelerator_offers.csv; the offers it
// lists without a public price (IBM Cloud Gaudi 3, Intel Tiber, Denvr) and
// the hardware list price are not offers (SOURCES.md names them).
func (g *gen) checkGaudiFile() {
	for _, r := range readRecs(src("intel_gaudi_offers.csv")) {
		if r["provider"] != "aws" {
			g.drops["intel_gaudi_offers.csv: no public price (IBM Cloud gx3d Gaudi 3, Intel Tiber AI Cloud and Denvr Gaudi 2) or a hardware list price, not an hourly offer"]++
			continue
		}
		o, ok := g.offers["aws/"+r["offer"]+"/"+r["region"]]
		if !ok {
			log.Fatalf("intel_gaudi_offers.csv: %s in %s is not an offer", r["offer"], r["region"])
		}
		want := o.OnDemandUSD
		if r["pricing_model"] == covSpot {
			want = o.SpotUSD
			if num(r["usd_per_hour"]) >= round(o.OnDemandUSD, spotDecimals) {
				continue // no discount (on-demand truncated to 4 decimals): not carried as spot
			}
		}
		if math.Abs(num(r["usd_per_hour"])-want) > 1e-9 {
			log.Fatalf("intel_gaudi_offers.csv: %s %s %s %s, offer has %v", r["offer"], r["region"], r["pricing_model"], r["usd_per_hour"], want)
		}
	}
}
