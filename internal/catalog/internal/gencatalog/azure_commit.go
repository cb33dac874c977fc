// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package main

import (
	"log"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// The Azure commitment sources: a snapshot of the Retail Prices API with
// on-demand, spot and 1-year savings-plan meters of some regions, and
// savings-plan rows whose share of on-demand is the published ratio of a
// VM series (applies_to: a SKU pattern).
const (
	azureRetailFile  = "azure_retail_2026-08-22.csv"
	azureRetailDate  = "azure-pricing-radar"
	azureSPRatioFile = "azure_savings_plan_2026h2.csv"
	azureSPRatioDate = "datameaning-azure"
)

// seriesRatio is a published commitment rate of a series as a share of
// on-demand: the ratio a SKU of the series without its own published rate
// is derived with.
type seriesRatio struct {
	cloud, pattern string
	pm             catalog.PricingModel
	ratio          float64
	info           catalog.PriceInfo
	source         string
}

// azureSavingsPlanRatios reads the series savings-plan rows: their rates
// count toward the cloud's median commitment discount and their share of
// on-demand is the ratio of the series (applies_to).
func (g *gen) azureSavingsPlanRatios() {
	for _, r := range readRecs(src(azureSPRatioFile)) {
		od := num(r["on_demand_usd_per_hour"])
		s1, s3 := num(r["savings_plan_1y_usd_per_hour"]), num(r["savings_plan_3y_usd_per_hour"])
		info := g.published(azureSPRatioDate)
		if od <= 0 || s1 >= od || s3 >= od || r["applies_to"] == "" || r["as_of"] != info.AsOf.Format(dateLayout) {
			log.Fatalf("%s %s/%s: want rates below on-demand, a SKU pattern and as_of %s", azureSPRatioFile, r["sku"], r["region"],
				info.AsOf.Format(dateLayout))
		}
		g.commitmentRate("azure", od, s1, s3, info.AsOf)
		for _, t := range []struct {
			pm   catalog.PricingModel
			rate float64
		}{{catalog.Reserved1Y, s1}, {catalog.Reserved3Y, s3}} {
			if t.rate > 0 && !g.hasSeriesRatio("azure", r["applies_to"], t.pm) {
				g.seriesRatios = append(g.seriesRatios, seriesRatio{"azure", r["applies_to"], t.pm, t.rate / od, info,
					azureSPRatioFile + " " + r["sku"] + " " + r["region"]})
			}
		}
	}
}

// hasSeriesRatio reports whether a ratio of the series and model is known.
func (g *gen) hasSeriesRatio(cloud, pattern string, pm catalog.PricingModel) bool {
	for _, s := range g.seriesRatios {
		if s.cloud == cloud && s.pattern == pattern && s.pm == pm {
			return true
		}
	}
	return false
}

// seriesRatioOf is the published series ratio of an instance type under a
// reserved pricing model, if any.
func (g *gen) seriesRatioOf(cloud, it string, pm catalog.PricingModel) (seriesRatio, bool) {
	for _, s := range g.seriesRatios {
		if s.cloud == cloud && s.pm == pm && match(s.pattern, it) {
			return s, true
		}
	}
	return seriesRatio{}, false
}

// azureRetail reads the Retail Prices API snapshot by SKU/region.
func (g *gen) azureRetail() map[string]rec {
	out := map[string]rec{}
	for _, r := range readRecs(src(azureRetailFile)) {
		k := r["sku"] + "/" + r["region"]
		if _, dup := out[k]; dup || num(r["on_demand_usd_per_hour"]) <= 0 {
			log.Fatalf("%s %s: duplicate or without an on-demand price", azureRetailFile, k)
		}
		out[k] = r
	}
	return out
}

// applyAzureRetail sets an offer's prices from its snapshot row: the
// on-demand price (a newer copy showing the same price re-dates it), spot
// and the 1-year savings plan (the catalog's Azure reserved_1y) where the
// row has them below on-demand.
func (g *gen) applyAzureRetail(o *catalog.Offer, r rec) {
	info := g.published(azureRetailDate)
	o.OnDemandUSD, o.Source = num(r["on_demand_usd_per_hour"]), "azure-radar"
	setInfos(o, info, catalog.OnDemand)
	if s := num(r["spot_usd_per_hour"]); s > 0 && s < o.OnDemandUSD {
		o.SpotUSD = s
		setInfos(o, info, catalog.Spot)
	}
	if s := num(r["savings_plan_1y_usd_per_hour"]); s > 0 && s < o.OnDemandUSD {
		o.Reserved1YUSD = s
		setInfos(o, info, catalog.Reserved1Y)
	}
	g.commitmentRate("azure", o.OnDemandUSD, o.Reserved1YUSD, 0, info.AsOf)
}
