// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package browse

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/numfmt"
	"github.com/gpuplan/terraform-provider-gpu/internal/textable"
)

// Offer is one row of gpu_offers as its summary reads it.
type Offer struct {
	Cloud, Region, InstanceType, Accelerator string
	// GPUs is the accelerators per instance (a fraction for a fractional
	// instance); GPUMemoryGB their memory in total.
	GPUs, GPUMemoryGB float64
	// Prices are hourly USD per instance after the provider's discounts,
	// by pricing model; a model the offer is not sold under is absent.
	Prices map[catalog.PricingModel]float64
}

// instanceRow is one instance type of a cloud in the summary: the offer in
// its cheapest region and how many regions sell it.
type instanceRow struct {
	cheapest Offer
	regions  int
}

// OffersSummary renders offers as one table per cloud, one row per
// instance type: accelerator, GPUs, GPU memory, the cheapest region (by
// on-demand price, else by the first pricing model it is sold under), how
// many regions sell it, and its price under every pricing model the
// cloud's rows have, in that region. Clouds are sorted; rows by
// accelerator, GPUs and instance type.
func OffersSummary(offers []Offer) string {
	byCloud := map[string]map[string]*instanceRow{}
	regions := map[string]bool{}
	for _, o := range offers {
		if o.Region != "" { // platform-placed serverless workers are in no region
			regions[o.Cloud+"/"+o.Region] = true
		}
		its := byCloud[o.Cloud]
		if its == nil {
			its = map[string]*instanceRow{}
			byCloud[o.Cloud] = its
		}
		r := its[o.InstanceType]
		if r == nil {
			its[o.InstanceType] = &instanceRow{cheapest: o, regions: 1}
			continue
		}
		r.regions++
		if cheaper(o, r.cheapest) {
			r.cheapest = o
		}
	}
	clouds := make([]string, 0, len(byCloud))
	types := 0
	for c, its := range byCloud {
		clouds = append(clouds, c)
		types += len(its)
	}
	slices.Sort(clouds)
	var b strings.Builder
	fmt.Fprintf(&b, "%s of %s in %s on %s; hourly USD per instance in the cheapest region\n",
		countOf(len(offers), "offer"), countOf(types, "instance type"), countOf(len(regions), "region"), countOf(len(clouds), "cloud"))
	for _, c := range clouds {
		b.WriteString("\n")
		b.WriteString(cloudTable(c, byCloud[c]))
	}
	return b.String()
}

// referencePrice is the price that ranks an offer's regions: on-demand,
// else the first pricing model it is sold under.
func referencePrice(o Offer) (catalog.PricingModel, float64) {
	for _, pm := range catalog.AllPricingModels {
		if p, ok := o.Prices[pm]; ok {
			return pm, p
		}
	}
	return "", 0
}

// cheaper reports whether a is a cheaper region of the instance than b.
func cheaper(a, b Offer) bool {
	pa, va := referencePrice(a)
	pb, vb := referencePrice(b)
	switch {
	case pa != pb:
		return slices.Index(catalog.AllPricingModels, pa) < slices.Index(catalog.AllPricingModels, pb)
	case va != vb:
		return va < vb
	}
	return a.Region < b.Region
}

// cloudTable is the table of one cloud's instance types.
func cloudTable(cloud string, its map[string]*instanceRow) string {
	rows := make([]*instanceRow, 0, len(its))
	for _, r := range its {
		rows = append(rows, r)
	}
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i].cheapest, rows[j].cheapest
		if a.Accelerator != b.Accelerator {
			return a.Accelerator < b.Accelerator
		}
		if a.GPUs != b.GPUs {
			return a.GPUs < b.GPUs
		}
		return a.InstanceType < b.InstanceType
	})
	models := soldModels(rows)
	cols := []textable.Column{{Header: "INSTANCE TYPE"}, {Header: "ACCELERATOR"}, {Header: "GPUS", Align: textable.Right},
		{Header: "GPU MEM GB", Align: textable.Right}, {Header: "CHEAPEST REGION"}, {Header: "REGIONS", Align: textable.Right}}
	for _, pm := range models {
		cols = append(cols, textable.Column{Header: strings.ToUpper(strings.ReplaceAll(string(pm), "_", "-")), Align: textable.Right})
	}
	t := textable.New(cols...)
	for _, r := range rows {
		o := r.cheapest
		region := o.Region
		if region == "" {
			region = "(platform)"
		}
		cells := []string{o.InstanceType, o.Accelerator, numfmt.Trim(o.GPUs, 2), numfmt.Trim(o.GPUMemoryGB, 1), region, numfmt.Int(float64(r.regions))}
		for _, pm := range models {
			cell := "-"
			if p, ok := o.Prices[pm]; ok {
				cell = numfmt.Thousands(p, 2)
			}
			cells = append(cells, cell)
		}
		t.Row(cells...)
	}
	return fmt.Sprintf("%s: %s\n%s", cloud, countOf(len(rows), "instance type"), t.String())
}

// soldModels lists the pricing models any row is priced under, in
// canonical order.
func soldModels(rows []*instanceRow) []catalog.PricingModel {
	var out []catalog.PricingModel
	for _, pm := range catalog.AllPricingModels {
		if slices.ContainsFunc(rows, func(r *instanceRow) bool { _, ok := r.cheapest.Prices[pm]; return ok }) {
			out = append(out, pm)
		}
	}
	return out
}
