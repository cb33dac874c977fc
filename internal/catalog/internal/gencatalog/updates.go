// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package main

import (
	"log"
	"path"
	"slices"
	"strings"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// priceUpdates applies price_updates_2026h2.csv: dated published prices of
// existing offers from sources newer than the bulk files (AWS Savings
// Plans and capacity blocks, Azure reservations and November 2026
// on-demand rates, GCP page rates, neocloud rates re-read). Region "*" is
// every region the instance type has an offer in. The newer published
// price wins; an update older than the offer's price is not applied.
func (g *gen) priceUpdates() {
	texts := map[string][]string{}
	prev := map[string]string{}
	for _, r := range readRecs(src(priceUpdatesFile)) {
		pm := catalog.PricingModel(r["pricing_model"])
		asOf := day(r["as_of"], priceUpdatesFile+" "+r["instance_type"])
		var keys []string
		for _, o := range g.OffersOf(r["cloud"], r["instance_type"]) {
			if r["region"] == "*" || o.Region == r["region"] {
				keys = append(keys, o.Cloud+"/"+o.InstanceType+"/"+o.Region)
			}
		}
		if len(keys) == 0 {
			log.Fatalf("%s: no offer %s/%s in %s", priceUpdatesFile, r["cloud"], r["instance_type"], r["region"])
		}
		for _, k := range keys {
			o := g.offers[k]
			dst, info := priceField(o, pm), o.PriceInfos.Of(pm)
			if dst == nil {
				log.Fatalf("%s: %s: unknown pricing model %q", priceUpdatesFile, k, pm)
			}
			if *dst > 0 && info.AsOf.After(asOf) {
				g.drops[priceUpdatesFile+": older than the offer's price (not applied)"]++
				continue
			}
			if _, ok := prev[k]; !ok {
				prev[k] = o.Source
			}
			*dst, *info = round(num(r["usd_per_hour"]), pricePrecision), catalog.PriceInfo{Basis: catalog.PricePublished, AsOf: asOf}
			texts[k] = append(texts[k], string(pm)+": "+r["rate_type"]+", "+r["source"]+" <"+r["url"]+"> ("+r["as_of"]+")")
		}
	}
	for _, k := range sortedKeys(texts) {
		o := g.offers[k]
		g.dropAboveOnDemand(o)
		o.Source = g.sourceKey("update:"+o.Cloud, "newer published prices: "+strings.Join(texts[k], "; ")+"; other prices: "+g.offerSources[prev[k]])
	}
}

// dropAboveOnDemand clears the spot and reserved prices of o that a new
// on-demand price left at or above it (the cloud sells no such discount).
func (g *gen) dropAboveOnDemand(o *catalog.Offer) {
	if o.OnDemandUSD <= 0 {
		return
	}
	for _, pm := range []catalog.PricingModel{catalog.Spot, catalog.Reserved1Y, catalog.Reserved3Y} {
		if p := priceField(o, pm); *p >= o.OnDemandUSD {
			*p, *o.PriceInfos.Of(pm) = 0, catalog.PriceInfo{}
			g.drops["a "+string(pm)+" price not below the newer on-demand price: not carried"]++
		}
	}
}

// offerDrops applies curated/offer_drops.csv: offers of the bulk sources
// not to carry (retired sizes, rows of a suspect source). It runs before
// the price tables, which may carry the same shape from a better source.
func (g *gen) offerDrops() {
	for _, r := range readRecs(cur("offer_drops.csv")) {
		n := 0
		for _, k := range slices.Clone(g.order) {
			o := g.offers[k]
			if o.Cloud == r["cloud"] && match(r["instance_type"], o.InstanceType) && match(r["region"], o.Region) {
				g.remove(k)
				n++
			}
		}
		if n == 0 {
			log.Fatalf("curated/offer_drops.csv: %s/%s/%s matches no offer", r["cloud"], r["instance_type"], r["region"])
		}
		g.drops["offer_drops.csv: "+r["reason"]] += n
	}
}

// soldAs applies curated/sold_as.csv: shapes the cloud sells only under
// some pricing models keep only those prices (and get none derived).
func (g *gen) soldAs() {
	for _, r := range readRecs(cur("sold_as.csv")) {
		sold := strings.Split(r["pricing_models"], ";")
		for _, k := range g.order {
			o := g.offers[k]
			if o.Cloud != r["cloud"] || !match(r["instance_type"], o.InstanceType) {
				continue
			}
			for _, pm := range catalog.OfferPricingModels {
				if p := priceField(o, pm); *p > 0 && !slices.Contains(sold, string(pm)) {
					*p, *o.PriceInfos.Of(pm) = 0, catalog.PriceInfo{}
					g.drops["sold_as.csv: "+string(pm)+" price of "+r["instance_type"]+": "+r["reason"]]++
				}
			}
			g.noDerive[k] = true
		}
	}
}

// match reports whether a curated pattern (path.Match syntax, "*" = all)
// matches s.
func match(pattern, s string) bool {
	ok, err := path.Match(pattern, s)
	if err != nil {
		log.Fatalf("bad pattern %q: %v", pattern, err)
	}
	return ok
}

// remove deletes an offer.
func (g *gen) remove(k string) {
	delete(g.offers, k)
	g.order = slices.DeleteFunc(g.order, func(x string) bool { return x == k })
}
