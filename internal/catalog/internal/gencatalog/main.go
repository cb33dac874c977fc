// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

// Command gencatalog regenerates the built-in catalog data files in
// internal/catalog/data from the unmodified public source files in
// internal/catalog/testdata/sources and the hand-curated tables in
// internal/catalog/internal/gencatalog/curated (each row of which names its
// source). Run it from internal/catalog:
//
//	go generate ./internal/catalog
//
// The output is deterministic: the same inputs give byte-identical files.
// Every choice the generator makes (collapsing zones, dropping rows, fixing
// known source errors) is described in data/SOURCES.md.
//
// One file per source or step: accelerators.go (accelerators.csv + curated
// parts), curated.go (the curated tables), aws.go (SkyPilot, vantage and AWS
// China rows), gcp.go (Cyclenerd machine totals), azure.go (karpenter Azure
// prices), skypilot.go (zone rows of gpu_prices.csv and the clouds read only
// from it), offers.go (adding offers, derived commitment prices), regions.go
// (region metadata) and write.go (the output files). Provenance texts and SKU
// lists are data in curated/, not code.
package main

import (
	"flag"
	"log"
	"sort"
	"time"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

var (
	srcDir     = flag.String("sources", "testdata/sources", "directory with the public source files")
	curatedDir = flag.String("curated", "internal/gencatalog/curated", "directory with the curated tables")
	outDir     = flag.String("out", "data", "output directory")
)

// pricePrecision is the number of decimals kept for converted prices
// (sources carry at most 6 significant decimals).
const pricePrecision = 6

func main() {
	flag.Parse()
	log.SetFlags(0)
	g := &gen{drops: map[string]int{}}
	g.run()
}

type gen struct {
	accels   []*catalog.Accelerator
	accelKey map[string]string // lower-case id/alias -> canonical id
	accelMem map[string]float64
	clouds   []*cloudIn
	instAcc  map[string]string // cloud/instance_type -> accelerator override
	network  []netRow
	azure    map[string]azureSKU
	// azureDropped is curated/azure_dropped.csv: SKU pattern and reason.
	azureDropped [][2]string
	meta         metaIn
	// offerSources expands the short source keys of offers.csv
	// (curated/offer_sources.json).
	offerSources map[string]string
	// skypilot lists the clouds read only from gpu_prices.csv
	// (curated/skypilot_clouds.csv).
	skypilot []skypilotCloud

	offers map[string]*catalog.Offer // cloud/it/region
	order  []string
	// noDerive marks offers (cloud/it/region) that must not get reserved
	// prices derived from the cloud's median commitment discount: their
	// commitments are priced differently (TPU) or not sold.
	noDerive map[string]bool
	// awsNoOD keeps the SkyPilot zone groups of AWS instance types without
	// an on-demand price (capacity-block-only, trn2) for the coverage rows.
	awsNoOD map[string]*zoneGroup
	// knownRegions caches the regions with metadata (regionKnown).
	knownRegions map[string]bool
	drops        map[string]int
	// discounts computed from per-SKU commitment rates, per cloud, and the
	// oldest date among the rates (the date of a price derived from them).
	disc1, disc3 map[string][]float64
	discDate     map[string]time.Time
	// seriesRatios are published commitment rates of a VM series as a
	// share of on-demand (azure_savings_plan_2026h2.csv).
	seriesRatios []seriesRatio
	// sourceDates is curated/source_dates.csv: price source ID -> date;
	// usedSources the IDs a price was dated by.
	sourceDates map[string]time.Time
	usedSources map[string]bool
}

type cloudIn struct {
	catalog.Cloud
	ReservedDiscountFromData bool `json:"reserved_discount_from_data"`
}

type netRow struct {
	cloud, pattern, fabric, source string
	gbps                           float64
}

type azureSKU struct {
	accel       string
	gpus, vcpus int
	frac        float64 // share of one GPU (fractional sizes), else 0
	memGiB      float64
	netGbps     float64 // from the SKU source when it gives one, else 0 (network.csv)
	source      string
}

type metaIn struct {
	CatalogDate       string `json:"catalog_date"`
	CatalogDateSource string `json:"catalog_date_source"`
	ExchangeRates     []struct {
		Currency  string  `json:"currency"`
		CNYPerUSD float64 `json:"cny_per_usd"`
		Date      string  `json:"date"`
		Source    string  `json:"source"`
	} `json:"exchange_rates"`
}

func (g *gen) run() {
	g.loadAccelerators()
	g.loadCurated()
	g.offers = map[string]*catalog.Offer{}
	g.noDerive, g.awsNoOD = map[string]bool{}, map[string]*zoneGroup{}
	g.disc1, g.disc3, g.discDate = map[string][]float64{}, map[string][]float64{}, map[string]time.Time{}
	g.loadSourceDates()
	g.aws()
	g.awsCoverage()
	g.awsChina()
	g.gcp()
	g.gcpTPU()
	g.azureOffers()
	for _, sc := range g.skypilot {
		g.skypilotSimple(sc)
	}
	g.offerDrops()
	g.priceTables()
	g.priceUpdates()
	g.priceLists()
	g.soldAs()
	g.finishOffers()
	g.checkPriceInfos()
	sl := g.serverless()
	g.checkSourceDatesUsed()
	g.catalogDate(sl)
	regions := g.regions(sl)
	g.writeAll(regions, sl)
	keys := make([]string, 0, len(g.drops))
	for k := range g.drops {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		log.Printf("dropped %4d source rows: %s", g.drops[k], k)
	}
	log.Printf("wrote %d accelerators, %d clouds, %d regions, %d offers, %d serverless offers", len(g.accels), len(g.clouds),
		len(regions), len(g.order), len(sl))
}
