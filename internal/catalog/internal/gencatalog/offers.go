// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package main

import (
	"fmt"
	"log"
	"time"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// put adds an offer, filling GPU memory (GPUs, or the GPU fraction, x
// datasheet memory), and network and fabric from curated/network.csv unless
// the source already gave them (o.Fabric set); an offer without a catalog
// accelerator is counted as dropped for the reason why.
func (g *gen) put(o *catalog.Offer, why string) {
	if o.Accelerator == "" {
		g.drops[why]++
		return
	}
	k := o.Cloud + "/" + o.InstanceType + "/" + o.Region
	if _, dup := g.offers[k]; dup {
		log.Fatalf("duplicate offer %s", k)
	}
	o.GPUMemoryGB = round(o.GPUCount()*g.accelMem[o.Accelerator], 2)
	if o.Fabric == "" {
		o.NetworkGbps, o.Fabric = g.net(o.Cloud, o.InstanceType)
	}
	if o.Currency == "" {
		o.Currency = "USD"
	}
	g.offers[k] = o
	g.order = append(g.order, k)
}

// commitmentRate records the discounts of a source row's published 1- and
// 3-year commitment rates (0 = none) for the cloud's median reserved
// discount. The guard, the same for every cloud: a rate counts only when the
// row has an on-demand price and the rate is strictly below it, so a missing
// on-demand price (division by zero) or a rate at or above on-demand (a
// source error, not a discount) never skews the median. asOf is the date of the row's source.
func (g *gen) commitmentRate(cloud string, od, r1y, r3y float64, asOf time.Time) {
	if od <= 0 {
		return
	}
	counted := false
	if r1y > 0 && r1y < od {
		g.disc1[cloud] = append(g.disc1[cloud], 1-r1y/od)
		counted = true
	}
	if r3y > 0 && r3y < od {
		g.disc3[cloud] = append(g.disc3[cloud], 1-r3y/od)
		counted = true
	}
	if d, ok := g.discDate[cloud]; counted && (!ok || asOf.Before(d)) {
		g.discDate[cloud] = asOf
	}
}

// finishOffers fills derived reserved prices and computes the discounts.
func (g *gen) finishOffers() {
	for _, c := range g.clouds {
		if !c.ReservedDiscountFromData {
			continue
		}
		d1, d3 := median(g.disc1[c.ID]), median(g.disc3[c.ID])
		if d1 <= 0 || d3 <= 0 {
			log.Fatalf("cloud %s: no commitment rates to derive a discount from", c.ID)
		}
		c.Reserved1YDiscount, c.Reserved3YDiscount = round(d1, 4), round(d3, 4)
		c.Source += fmt.Sprintf("; reserved_1y_discount/reserved_3y_discount = median (1 - published commitment rate / on-demand) over %d / %d source rows with per-SKU rates (DERIVED)", len(g.disc1[c.ID]), len(g.disc3[c.ID]))
	}
	byID := map[string]*cloudIn{}
	for _, c := range g.clouds {
		byID[c.ID] = c
	}
	types := g.typeDiscounts()
	for _, k := range g.order {
		o := g.offers[k]
		c := byID[o.Cloud]
		if o.OnDemandUSD == 0 || g.noDerive[k] || c.Reserved1YDiscount <= 0 || (o.Reserved1YUSD > 0 && o.Reserved3YUSD > 0) {
			continue // not sold on demand, commitments not the cloud's (TPU), none sold, or both published
		}
		kind := derivedByCloud
		for _, t := range []struct {
			pm    catalog.PricingModel
			cloud float64
		}{{catalog.Reserved1Y, c.Reserved1YDiscount}, {catalog.Reserved3Y, c.Reserved3YDiscount}} {
			if p := priceField(o, t.pm); *p == 0 {
				disc, asOf := t.cloud, g.discDate[o.Cloud]
				if td, ok := types[o.Cloud+"/"+o.InstanceType+"/"+string(t.pm)]; ok {
					disc, asOf, kind = td.disc, td.asOf, max(kind, derivedByType)
				} else if sr, ok := g.seriesRatioOf(o.Cloud, o.InstanceType, t.pm); ok {
					disc, asOf, kind = 1-sr.ratio, sr.info.AsOf, max(kind, derivedBySeries)
				}
				*p, *o.PriceInfos.Of(t.pm) = round(o.OnDemandUSD*(1-disc), pricePrecision), derived(o.PriceInfos.OnDemand.AsOf, asOf)
			}
		}
		o.Source = g.derivedSource(o.Source, kind)
	}
}

// How a reserved price was derived, in increasing precedence for the
// offer's source key: the cloud's median discount, a series' published
// ratio, or the instance type's median discount in its other regions.
const (
	derivedByCloud = iota
	derivedBySeries
	derivedByType
)

// typeDiscount is the median published commitment discount of one
// instance type over its regions, and the oldest date among those rates.
type typeDiscount struct {
	disc float64
	asOf time.Time
}

// typeDiscounts returns, per cloud/instance type/reserved pricing model,
// the median (1 - published rate / on-demand) over the type's offers with
// a published rate: the discount a region without a published rate most
// likely has (clouds price commitments per type as a share of on-demand).
func (g *gen) typeDiscounts() map[string]typeDiscount {
	discs, dates := map[string][]float64{}, map[string]time.Time{}
	for _, k := range g.order {
		o := g.offers[k]
		for _, pm := range []catalog.PricingModel{catalog.Reserved1Y, catalog.Reserved3Y} {
			p, info := *priceField(o, pm), o.PriceInfos.Of(pm)
			if p <= 0 || o.OnDemandUSD <= 0 || info.Basis != catalog.PricePublished {
				continue
			}
			tk := o.Cloud + "/" + o.InstanceType + "/" + string(pm)
			discs[tk] = append(discs[tk], 1-p/o.OnDemandUSD)
			d := derived(info.AsOf, o.PriceInfos.OnDemand.AsOf).AsOf
			if old, ok := dates[tk]; !ok || d.Before(old) {
				dates[tk] = d
			}
		}
	}
	out := make(map[string]typeDiscount, len(discs))
	for tk, v := range discs {
		out[tk] = typeDiscount{disc: median(v), asOf: dates[tk]}
	}
	return out
}

// derivedSource is the source key of an offer whose reserved prices
// finishOffers derived: key+"+derived" (the cloud's median discount),
// "+derived-series" (a series' published ratio) or "+derived-type" (the
// instance type's published discount in other regions), with the rule
// appended to the text.
func (g *gen) derivedSource(key string, kind int) string {
	text := g.offerSources[key]
	rule := "reserved_1y/reserved_3y missing in the source: DERIVED = on-demand x (1 - the cloud's reserved_1y_discount / " +
		"reserved_3y_discount in clouds.json)"
	dk := key + "+derived"
	switch kind {
	case derivedByType:
		rule = "reserved_1y/reserved_3y missing in the source for this region: DERIVED = on-demand x (1 - the median published " +
			"discount of the same instance type in its other regions; else its series' published ratio; else the cloud's reserved_*_discount in clouds.json)"
		dk = key + "+derived-type"
	case derivedBySeries:
		rule = "reserved_1y/reserved_3y missing in the source: DERIVED = on-demand x the published commitment rate / on-demand of the " +
			"same VM series (" + azureSPRatioFile + ": a savings-plan row of the series; the cloud's reserved_*_discount in clouds.json for a term the series has none)"
		dk = key + "+derived-series"
	}
	g.offerSources[dk] = text + "; " + rule
	return dk
}
