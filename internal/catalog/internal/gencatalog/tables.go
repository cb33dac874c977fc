// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package main

import (
	"crypto/sha256"
	"encoding/hex"
	"log"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// Source files of the dated price tables and updates (our own extracts of
// newer public sources; each row names its source, URL and date).
const (
	priceTablesFile  = "gpu_cloud_price_tables_2026h2.csv"
	priceUpdatesFile = "price_updates_2026h2.csv"
)

// gpuCountPlaceholder is replaced by the GPU count in the instance_type of
// a price-table row that lists several counts.
const gpuCountPlaceholder = "{n}"

// tableRow is one row of the price tables expanded to one GPU count.
type tableRow struct {
	r      rec
	it     string
	gpus   int
	scale  float64 // per-GPU values are multiplied by it (the GPU count), else 1
	region string
}

// priceTables adds or replaces offers from gpu_cloud_price_tables_2026h2.csv:
// per-GPU or per-instance published rates of the clouds read from their
// price pages (neoclouds, RunPod pods, GCP shapes the older files lack).
// A row's regions are IDs or a named set of curated/region_sets.csv; a
// per-GPU row lists the GPU counts sold and its instance_type has {n}. A
// price a table gives replaces the same offer's price from an older source.
func (g *gen) priceTables() {
	sets := map[string][]string{}
	for _, r := range readRecs(cur("region_sets.csv")) {
		sets[r["cloud"]+"/@"+r["set"]] = strings.Split(r["regions"], ";")
	}
	texts := map[string][]string{} // offer key -> its price sources
	prev := map[string]string{}    // offer key -> the source key of an offer an older source made
	seen := map[string]bool{}
	for _, r := range readRecs(src(priceTablesFile)) {
		for _, tr := range expandTableRow(r, sets) {
			k := tr.r["cloud"] + "/" + tr.it + "/" + tr.region
			if seen[k+"/"+tr.r["pricing_model"]] {
				log.Fatalf("%s: two rows price %s %s", priceTablesFile, k, tr.r["pricing_model"])
			}
			seen[k+"/"+tr.r["pricing_model"]] = true
			if o, ok := g.offers[k]; ok && texts[k] == nil {
				prev[k] = o.Source
			}
			g.tableOffer(k, tr)
			texts[k] = append(texts[k], tr.r["pricing_model"]+": "+tr.r["source"]+" <"+tr.r["url"]+"> ("+tr.r["as_of"]+")")
		}
	}
	for k, t := range texts {
		text := "price table " + priceTablesFile + ": " + strings.Join(t, "; ")
		if p, ok := prev[k]; ok {
			text += "; other prices: " + g.offerSources[p]
		}
		g.offers[k].Source = g.sourceKey("table:"+g.offers[k].Cloud, text)
	}
}

// expandTableRow expands a price-table row to its GPU counts and regions.
func expandTableRow(r rec, sets map[string][]string) []tableRow {
	regions := strings.Split(r["regions"], ";")
	if strings.HasPrefix(r["regions"], "@") {
		var ok bool
		if regions, ok = sets[r["cloud"]+"/"+r["regions"]]; !ok {
			log.Fatalf("%s: %s: no region set %q in curated/region_sets.csv", priceTablesFile, r["instance_type"], r["regions"])
		}
	}
	perGPU := yn(r["per_gpu"])
	var out []tableRow
	for _, n := range strings.Split(r["gpus"], ";") {
		gpus, err := strconv.Atoi(n)
		if err != nil || gpus < 1 {
			log.Fatalf("%s: %s: bad GPU count %q", priceTablesFile, r["instance_type"], n)
		}
		it := strings.ReplaceAll(r["instance_type"], gpuCountPlaceholder, n)
		if strings.Contains(r["gpus"], ";") && it == r["instance_type"] {
			log.Fatalf("%s: %s lists several GPU counts but has no %s", priceTablesFile, it, gpuCountPlaceholder)
		}
		scale := 1.0
		if perGPU {
			scale = float64(gpus)
		}
		for _, region := range regions {
			out = append(out, tableRow{r: r, it: it, gpus: gpus, scale: scale, region: region})
		}
	}
	return out
}

// tableOffer sets the price of a price-table row on its offer, creating the
// offer with the row's specs when no source had it.
func (g *gen) tableOffer(k string, tr tableRow) {
	o, ok := g.offers[k]
	if !ok {
		acc := g.accel(tr.r["cloud"], tr.it, tr.r["accelerator"])
		if acc == "" {
			log.Fatalf("%s: %s: accelerator %q not in the catalog", priceTablesFile, k, tr.r["accelerator"])
		}
		o = &catalog.Offer{Cloud: tr.r["cloud"], Region: tr.region, InstanceType: tr.it, Accelerator: acc, GPUs: tr.gpus,
			VCPUs: int(num(tr.r["vcpus"]) * tr.scale), MemoryGB: num(tr.r["memory_gib"]) * tr.scale}
		if tr.r["fabric"] != "" {
			o.Fabric, o.NetworkGbps = catalog.Fabric(tr.r["fabric"]), num(tr.r["network_gbps"])
		}
		g.put(o, "")
	}
	pm := catalog.PricingModel(tr.r["pricing_model"])
	if priceField(o, pm) == nil {
		log.Fatalf("%s: %s: unknown pricing model %q", priceTablesFile, k, pm)
	}
	*priceField(o, pm) = round(num(tr.r["usd_per_hour"])*tr.scale, pricePrecision)
	*o.PriceInfos.Of(pm) = catalog.PriceInfo{Basis: catalog.PricePublished, AsOf: day(tr.r["as_of"], priceTablesFile+" "+k)}
}

// sourceKey registers a generated source text under a short, stable key
// (prefix + a hash of the text) in the offer sources and returns the key.
func (g *gen) sourceKey(prefix, text string) string {
	h := sha256.Sum256([]byte(text))
	k := prefix + ":" + hex.EncodeToString(h[:4])
	if prev, ok := g.offerSources[k]; ok && prev != text {
		log.Fatalf("source key %s: hash collision", k)
	}
	g.offerSources[k] = text
	return k
}

// day parses a YYYY-MM-DD date of a source row.
func day(s, where string) time.Time {
	d, err := time.Parse(dateLayout, s)
	if err != nil {
		log.Fatalf("%s: date %q: want YYYY-MM-DD", where, s)
	}
	return d
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
