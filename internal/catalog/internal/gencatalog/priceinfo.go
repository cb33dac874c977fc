// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package main

import (
	"fmt"
	"log"
	"strings"
	"time"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// dateLayout is the layout of the dates of curated/source_dates.csv and of
// the generated as-of columns.
const dateLayout = "2006-01-02"

// loadSourceDates reads curated/source_dates.csv: the date of each price
// source the generator reads, by source ID, with the evidence for it.
func (g *gen) loadSourceDates() {
	g.sourceDates, g.usedSources = map[string]time.Time{}, map[string]bool{}
	for _, r := range readRecs(cur("source_dates.csv")) {
		d, err := time.Parse(dateLayout, r["as_of"])
		if err != nil || r["evidence"] == "" {
			log.Fatalf("source_dates.csv %s: want as_of YYYY-MM-DD and its evidence, got %q", r["source"], r["as_of"])
		}
		if _, dup := g.sourceDates[r["source"]]; dup {
			log.Fatalf("source_dates.csv: %s twice", r["source"])
		}
		g.sourceDates[r["source"]] = d
	}
}

// checkSourceDatesUsed fails when curated/source_dates.csv dates a source
// no price used (a stale row).
func (g *gen) checkSourceDatesUsed() {
	for _, s := range sortedKeys(g.sourceDates) {
		if !g.usedSources[s] {
			log.Fatalf("curated/source_dates.csv: source %q dates no price (remove the row)", s)
		}
	}
}

// catalogDate sets catalog_date to the oldest date that still decides a
// price (of an offer or a serverless offer), naming the prices that hold it.
func (g *gen) catalogDate(serverless []*catalog.ServerlessOffer) {
	var oldest time.Time
	count := map[string]int{}
	note := func(info catalog.PriceInfo, what string) {
		switch {
		case oldest.IsZero() || info.AsOf.Before(oldest):
			oldest, count = info.AsOf, map[string]int{what: 1}
		case info.AsOf.Equal(oldest):
			count[what]++
		}
	}
	for _, k := range g.order {
		o := g.offers[k]
		for _, pm := range catalog.OfferPricingModels {
			if _, ok := o.Price(pm); ok {
				note(*o.PriceInfos.Of(pm), o.Cloud+" "+string(pm))
			}
		}
	}
	for _, s := range serverless {
		note(s.PriceInfo, s.Cloud+" serverless")
	}
	var held []string
	for _, w := range sortedKeys(count) {
		held = append(held, fmt.Sprintf("%s (%d)", w, count[w]))
	}
	g.meta.CatalogDate = oldest.Format(dateLayout)
	g.meta.CatalogDateSource = "the oldest date that still decides a price: " + strings.Join(held, ", ") +
		" (each price's own date is in its *_as_of column; curated/source_dates.csv gives the evidence per source)"
}

// asOf is the date of a price source (curated/source_dates.csv).
func (g *gen) asOf(source string) time.Time {
	d, ok := g.sourceDates[source]
	g.usedSources[source] = true
	if !ok {
		log.Fatalf("curated/source_dates.csv has no date for source %q", source)
	}
	return d
}

// published is a published price of a source of curated/source_dates.csv.
func (g *gen) published(source string) catalog.PriceInfo {
	return catalog.PriceInfo{Basis: catalog.PricePublished, AsOf: g.asOf(source)}
}

// derived is a price derived from inputs of the given dates: dated the
// oldest of them.
func derived(dates ...time.Time) catalog.PriceInfo {
	d := dates[0]
	for _, x := range dates[1:] {
		if x.Before(d) {
			d = x
		}
	}
	return catalog.PriceInfo{Basis: catalog.PriceDerived, AsOf: d}
}

// setInfos sets the price info of the given pricing models of o.
func setInfos(o *catalog.Offer, info catalog.PriceInfo, pms ...catalog.PricingModel) {
	for _, pm := range pms {
		*o.PriceInfos.Of(pm) = info
	}
}

// checkPriceInfos makes the infos of every offer agree with its prices: a
// price without an info is fatal (every path that sets a price dates it),
// the info of a model the offer is not sold under is cleared, and
// reserved_derived follows the reserved bases.
func (g *gen) checkPriceInfos() {
	for _, k := range g.order {
		o := g.offers[k]
		for _, pm := range catalog.OfferPricingModels {
			info := o.PriceInfos.Of(pm)
			if _, ok := o.Price(pm); !ok {
				*info = catalog.PriceInfo{}
				continue
			}
			if info.Basis == "" || info.AsOf.IsZero() {
				log.Fatalf("offer %s: %s price without a basis and date", k, pm)
			}
		}
		o.ReservedDerived = o.PriceInfos.Reserved1Y.Basis == catalog.PriceDerived || o.PriceInfos.Reserved3Y.Basis == catalog.PriceDerived
	}
}

// priceField is the price field of o under a pricing model (nil for
// serverless or an unknown model).
func priceField(o *catalog.Offer, pm catalog.PricingModel) *float64 {
	switch pm {
	case catalog.OnDemand:
		return &o.OnDemandUSD
	case catalog.Spot:
		return &o.SpotUSD
	case catalog.Reserved1Y:
		return &o.Reserved1YUSD
	case catalog.Reserved3Y:
		return &o.Reserved3YUSD
	case catalog.CapacityBlock:
		return &o.CapacityBlockUSD
	}
	return nil
}

// infoFields renders the basis and as-of columns of an offer, in
// catalog.OfferHeader order.
func infoFields(o *catalog.Offer) []string {
	out := make([]string, 0, 2*len(catalog.OfferPricingModels))
	for _, pm := range catalog.OfferPricingModels {
		info := o.PriceInfos.Of(pm)
		if info.Basis == "" {
			out = append(out, "", "")
			continue
		}
		out = append(out, string(info.Basis), info.AsOf.Format(dateLayout))
	}
	return out
}
