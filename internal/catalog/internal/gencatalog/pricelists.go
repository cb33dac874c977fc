// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package main

import (
	"log"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/catalog/pricelist"
)

// priceListDir is the folder of testdata/sources holding the clouds' own
// price-list files (AWS EC2 offer file, Azure Retail Prices pages, GCP
// Billing Catalog SKUs), in any number and in any of the three formats.
const priceListDir = "pricelists"

// OffersOf and InstanceTypes let the price-list readers see the offers
// built so far (pricelist.Known).
func (g *gen) OffersOf(cloud, it string) []*catalog.Offer {
	var out []*catalog.Offer
	for _, k := range g.order {
		if o := g.offers[k]; o.Cloud == cloud && o.InstanceType == it {
			out = append(out, o)
		}
	}
	return out
}

// InstanceTypes lists the instance types of a cloud built so far.
func (g *gen) InstanceTypes(cloud string) []string {
	set := map[string]bool{}
	for _, k := range g.order {
		if o := g.offers[k]; o.Cloud == cloud {
			set[o.InstanceType] = true
		}
	}
	out := make([]string, 0, len(set))
	for it := range set {
		out = append(out, it)
	}
	sort.Strings(out)
	return out
}

// priceLists applies the price-list files of testdata/sources/pricelists on
// top of the offers of the other sources (a maintainers' refresh: drop the
// downloaded files there, go generate, review the diff). Their prices
// replace the offer's on-demand price and the spot and reserved prices the
// file gives; a spot or reserved price it does not give is kept when it is
// still below the new on-demand price, else dropped. A known instance type
// in a region with metadata but no offer yet becomes a new offer with the
// instance's specs. Its prices are dated by the file (catalog_date stays the
// oldest date that still decides a price).
func (g *gen) priceLists() {
	files, err := filepath.Glob(filepath.Join(*srcDir, priceListDir, "*.json"))
	if err != nil {
		log.Fatal(err)
	}
	sort.Strings(files)
	for _, f := range files {
		results, err := pricelist.ReadAll(f, g)
		if err != nil {
			log.Fatal(err)
		}
		for _, res := range results {
			g.priceList(f, res)
		}
	}
}

// priceList applies one price-list result (a file, or one answer of a
// refresh extract).
func (g *gen) priceList(f string, res *pricelist.Result) {
	for _, u := range res.Unknown {
		log.Printf("%s: not in the catalog: %s", f, u)
	}
	for _, n := range res.Notes {
		log.Printf("%s: %s", f, n)
	}
	key := "pricelist:" + res.File
	g.offerSources[key] = res.Source + " (dated " + res.Date + ")"
	asOf, err := time.Parse(dateLayout, res.Date)
	if err != nil {
		log.Fatalf("%s: date %q: %v", f, res.Date, err)
	}
	for _, p := range res.Prices {
		g.applyPrice(&p, key, catalog.PriceInfo{Basis: catalog.PricePublished, AsOf: asOf})
	}
}

// applyPrice merges one price-list price, published as of info, into the
// offers.
func (g *gen) applyPrice(p *pricelist.Price, source string, info catalog.PriceInfo) {
	k := p.Cloud + "/" + p.InstanceType + "/" + p.Region
	o, ok := g.offers[k]
	if !ok {
		tmpl := g.OffersOf(p.Cloud, p.InstanceType)
		if len(tmpl) == 0 || !g.regionKnown(p.Cloud, p.Region) {
			g.drops["pricelists: region without metadata (add it to curated/regions_extra.csv)"]++
			return
		}
		o = &catalog.Offer{Cloud: p.Cloud, Region: p.Region, InstanceType: p.InstanceType, Accelerator: tmpl[0].Accelerator,
			GPUs: tmpl[0].GPUs, GPUFraction: tmpl[0].GPUFraction, VCPUs: tmpl[0].VCPUs, MemoryGB: tmpl[0].MemoryGB}
		g.put(o, "")
	} else if o.PriceInfos.OnDemand.AsOf.After(info.AsOf) {
		g.drops["pricelists: the offer's price is newer than the file (the newer published price wins)"]++
		return
	}
	o.OnDemandUSD, o.Source, o.PriceInfos.OnDemand = p.OnDemandUSD, source, info
	o.Currency, o.NativeOnDemand, o.NativeSpot, o.NativeReserved1Y, o.NativeReserved3Y = "USD", 0, 0, 0, 0
	for _, f := range []struct {
		dst *float64
		pm  catalog.PricingModel
		v   float64
	}{{&o.SpotUSD, catalog.Spot, p.SpotUSD}, {&o.Reserved1YUSD, catalog.Reserved1Y, p.Reserved1YUSD},
		{&o.Reserved3YUSD, catalog.Reserved3Y, p.Reserved3YUSD}} {
		old := o.PriceInfos.Of(f.pm)
		switch {
		case f.v > 0:
			*f.dst, *old = f.v, info
		case *f.dst >= o.OnDemandUSD || old.Basis == catalog.PriceDerived:
			// Not below the new on-demand price, or derived from the old
			// one (finishOffers derives it again).
			*f.dst, *old = 0, catalog.PriceInfo{}
		}
	}
}

// regionKnown reports whether regions.csv or curated/regions_extra.csv has
// metadata for the region.
func (g *gen) regionKnown(cloud, region string) bool {
	if g.knownRegions == nil {
		g.knownRegions = map[string]bool{}
		for _, p := range []string{src("regions.csv"), cur("regions_extra.csv")} {
			for _, r := range readRecs(p) {
				g.knownRegions[strings.TrimSpace(r["cloud"])+"/"+r["region"]] = true
			}
		}
	}
	return g.knownRegions[cloud+"/"+region]
}
