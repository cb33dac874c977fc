// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package main

import (
	"encoding/csv"
	"encoding/json"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// writeAll writes the catalog files of data/ (see data/README.md).
func (g *gen) writeAll(regions []*catalog.Region, serverless []*catalog.ServerlessOffer) {
	must := func(err error) {
		if err != nil {
			log.Fatal(err)
		}
	}
	writeJSON := func(name string, v any) {
		b, err := json.MarshalIndent(v, "", " ")
		must(err)
		must(os.WriteFile(filepath.Join(*outDir, name), append(b, '\n'), 0o644))
	}
	clouds := make([]catalog.Cloud, len(g.clouds))
	for i, c := range g.clouds {
		clouds[i] = c.Cloud
	}
	writeJSON("accelerators.json", map[string]any{"accelerators": g.accels})
	writeJSON("clouds.json", map[string]any{"clouds": clouds})
	type rate struct {
		Currency    string  `json:"currency"`
		UnitsPerUSD float64 `json:"units_per_usd"`
		Date        string  `json:"date"`
		Source      string  `json:"source"`
	}
	var rates []rate
	for _, x := range g.meta.ExchangeRates {
		rates = append(rates, rate{x.Currency, x.CNYPerUSD, x.Date, x.Source})
	}
	used := map[string]string{}
	for _, k := range g.order {
		key := g.offers[k].Source
		if text, ok := g.offerSources[key]; ok {
			used[key] = text
		}
	}
	writeJSON("catalog.json", map[string]any{
		"catalog_date": g.meta.CatalogDate, "catalog_date_source": g.meta.CatalogDateSource,
		"exchange_rates": rates, "offer_sources": used,
	})

	f, err := os.Create(filepath.Join(*outDir, "regions.csv"))
	must(err)
	w := csv.NewWriter(f)
	must(w.Write(catalog.RegionHeader))
	for _, r := range regions {
		must(w.Write([]string{r.Cloud, r.ID, r.City, r.Country, r.Geography, string(r.Partition), strings.Join(r.Compliance, ";"),
			ff(r.GridGCO2ePerKWh), strconv.Itoa(r.GridYear), ff(r.PUE), r.Source}))
	}
	w.Flush()
	must(w.Error())
	must(f.Close())

	sort.Strings(g.order)
	for _, k := range g.order {
		if _, ok := g.offerSources[g.offers[k].Source]; !ok {
			log.Fatalf("offer %s: source key %q has no text in curated/offer_sources.json", k, g.offers[k].Source)
		}
	}
	f, err = os.Create(filepath.Join(*outDir, "offers.csv"))
	must(err)
	w = csv.NewWriter(f)
	must(w.Write(catalog.OfferHeader))
	for _, k := range g.order {
		o := g.offers[k]
		row := []string{o.Cloud, o.Region, o.InstanceType, o.Accelerator, strconv.Itoa(o.GPUs), ff(o.GPUFraction),
			ff(o.GPUMemoryGB), strconv.Itoa(o.VCPUs), ff(o.MemoryGB), ff(o.NetworkGbps), string(o.Fabric),
			ff(o.OnDemandUSD), ff(o.SpotUSD), ff(o.Reserved1YUSD), ff(o.Reserved3YUSD), ff(o.CapacityBlockUSD),
			strconv.FormatBool(o.ReservedDerived)}
		row = append(row, infoFields(o)...)
		row = append(row, o.Currency, ff(o.NativeOnDemand), ff(o.NativeSpot), ff(o.NativeReserved1Y), ff(o.NativeReserved3Y), o.Source)
		must(w.Write(row))
	}
	w.Flush()
	must(w.Error())
	must(f.Close())
	writeServerless(serverless, must)
}

// ff formats a number compactly; 0 is written as an empty field.
func ff(v float64) string {
	if v == 0 {
		return ""
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}
