// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package main

import (
	"encoding/csv"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// Roles of the rows of curated/serverless_offers.csv.
const (
	roleGPU    = "gpu"
	roleCPU    = "cpu"
	roleMemory = "memory"
	roleDrop   = "drop"
)

// secondsPerHour converts the per-second rates to the hourly figure the
// source also states (checked).
const secondsPerHour = 3600

// serverless builds the serverless offers from serverless_gpu_pricing.csv:
// each row is mapped by curated/serverless_offers.csv (provider, resource,
// tier) to a cloud, offer name, product and catalog accelerator, or dropped
// with its reason; billing rules per (cloud, product) come from
// curated/serverless_billing.csv, host CPU and memory rates from the
// source's CPU and memory rows. A source row the mapping does not know is
// fatal, so a refreshed file cannot silently lose a GPU.
func (g *gen) serverless() []*catalog.ServerlessOffer {
	maps := map[string]serverlessMapping{}
	for _, r := range readRecs(cur("serverless_offers.csv")) {
		maps[r["provider"]+"|"+r["resource"]+"|"+r["tier"]] = serverlessMapping{r["role"], r["cloud"], r["offer"], r["product"],
			r["accelerator"], r["region"], r["reason"]}
	}
	billing := map[string]rec{}
	for _, r := range readRecs(cur("serverless_billing.csv")) {
		billing[r["cloud"]+"/"+r["product"]] = r
	}
	rows := readRecs(src("serverless_gpu_pricing.csv"))
	// Host rates first: they apply to every GPU offer of the product.
	hostCPU, hostMem, hostDate := g.serverlessHostRates(rows, maps)
	var out []*catalog.ServerlessOffer
	for _, r := range rows {
		k := r["provider"] + "|" + r["resource"] + "|" + r["tier"]
		m, ok := maps[k]
		switch {
		case !ok:
			log.Fatalf("serverless_gpu_pricing.csv: row %q has no row in curated/serverless_offers.csv", k)
		case m.role == roleDrop:
			g.drops["serverless_gpu_pricing.csv: "+m.note]++
			continue
		case m.role != roleGPU:
			continue
		}
		perSec := num(r["usd_per_second"])
		if h := num(r["usd_per_hour"]); h != 0 && round(perSec*secondsPerHour, 6) != round(h, 6) {
			log.Fatalf("serverless_gpu_pricing.csv %s: %v/s is not %v/h", k, perSec, h)
		}
		b, ok := billing[m.cloud+"/"+m.product]
		if !ok {
			log.Fatalf("serverless %s/%s: no row in curated/serverless_billing.csv", m.cloud, m.product)
		}
		s := &catalog.ServerlessOffer{Cloud: m.cloud, Region: m.region, Name: m.name, Product: m.product, Accelerator: m.accel,
			GPUs: 1, GPUMemoryGB: g.accelMem[m.accel], USDPerGPUSecond: perSec,
			BillingIncrementSeconds: num(b["billing_increment_seconds"]), MinBilledSeconds: num(b["min_billed_seconds"]),
			IdleBilledSeconds: num(b["idle_billed_seconds"]), ColdStartSeconds: num(b["cold_start_seconds"]),
			ColdStartBilled: yn(b["cold_start_billed"]), AlwaysOn: yn(b["always_on"]),
			CPUUSDPerCoreSecond: num(b["cpu_usd_per_core_second"]), MemoryUSDPerGiBSecond: num(b["memory_usd_per_gib_second"]),
			MinCPUCores: num(b["min_cpu_cores"]), MinMemoryGiB: num(b["min_memory_gib"]), Confidence: r["confidence"]}
		if v, ok := hostCPU[m.cloud+"/"+m.product]; ok {
			s.CPUUSDPerCoreSecond = v
		}
		if v, ok := hostMem[m.cloud+"/"+m.product]; ok {
			s.MemoryUSDPerGiBSecond = v
		}
		s.PriceInfo = g.serverlessInfo(r, hostDate[m.cloud+"/"+m.product])
		if s.GPUMemoryGB == 0 {
			log.Fatalf("serverless %s/%s: accelerator %q not in the catalog", m.cloud, m.name, m.accel)
		}
		s.Source = "serverless_gpu_pricing.csv <- " + r["source"] + " @" + r["source_ref"] + " (" + r["source_date"] + "; confidence " +
			r["confidence"] + "); billing: " + b["source"]
		if m.note != "" {
			s.Source += "; accelerator: " + m.note
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Cloud != out[j].Cloud {
			return out[i].Cloud < out[j].Cloud
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// serverlessMapping is a row of curated/serverless_offers.csv: what a
// serverless_gpu_pricing.csv row is (role) and where it goes.
type serverlessMapping struct{ role, cloud, name, product, accel, region, note string }

// serverlessHostRates reads the host CPU and memory rates per (cloud,
// product) and the oldest date among each product's host rates.
func (g *gen) serverlessHostRates(rows []rec, maps map[string]serverlessMapping) (cpu, mem map[string]float64, date map[string]time.Time) {
	cpu, mem, date = map[string]float64{}, map[string]float64{}, map[string]time.Time{}
	for _, r := range rows {
		m := maps[r["provider"]+"|"+r["resource"]+"|"+r["tier"]]
		k := m.cloud + "/" + m.product
		switch m.role {
		case roleCPU:
			cpu[k] = num(r["usd_per_second"])
		case roleMemory:
			mem[k] = num(r["usd_per_second"])
		default:
			continue
		}
		if d, ok := date[k]; !ok || g.serverlessDate(r).Before(d) {
			date[k] = g.serverlessDate(r)
		}
	}
	return cpu, mem, date
}

// serverlessDate is the date of a serverless_gpu_pricing.csv row: its
// source_date when it starts with one (a month without a day: its first
// day, the oldest it can be), else the provider's date in
// curated/source_dates.csv ("serverless/<provider>").
func (g *gen) serverlessDate(r rec) time.Time {
	s := r["source_date"]
	for _, layout := range []string{dateLayout, "2006-01"} {
		if len(s) >= len(layout) {
			if d, err := time.Parse(layout, s[:len(layout)]); err == nil {
				return d
			}
		}
	}
	return g.asOf("serverless/" + r["provider"])
}

// serverlessInfo is the price info of a serverless GPU offer: published,
// dated the oldest of its GPU rate and the host rates billed with it
// (hostDate, zero when none).
func (g *gen) serverlessInfo(r rec, hostDate time.Time) catalog.PriceInfo {
	d := g.serverlessDate(r)
	if !hostDate.IsZero() && hostDate.Before(d) {
		d = hostDate
	}
	return catalog.PriceInfo{Basis: catalog.PricePublished, AsOf: d}
}

// writeServerless writes data/serverless.csv.
func writeServerless(offers []*catalog.ServerlessOffer, must func(error)) {
	f, err := os.Create(filepath.Join(*outDir, catalog.FileServerless))
	must(err)
	w := csv.NewWriter(f)
	must(w.Write(catalog.ServerlessHeader))
	for _, s := range offers {
		must(w.Write([]string{s.Cloud, s.Region, s.Name, s.Product, s.Accelerator, strconv.Itoa(s.GPUs), ff(s.GPUMemoryGB),
			ff(s.USDPerGPUSecond), ff(s.BillingIncrementSeconds), ff(s.MinBilledSeconds), ff(s.IdleBilledSeconds),
			ff(s.ColdStartSeconds), strconv.FormatBool(s.ColdStartBilled), strconv.FormatBool(s.AlwaysOn),
			ff(s.CPUUSDPerCoreSecond), ff(s.MemoryUSDPerGiBSecond), ff(s.MinCPUCores), ff(s.MinMemoryGiB), s.Confidence,
			string(s.PriceInfo.Basis), s.PriceInfo.AsOf.Format(dateLayout), s.Source}))
	}
	w.Flush()
	must(w.Error())
	must(f.Close())
}
