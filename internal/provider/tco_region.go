// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/cost"
	"github.com/gpuplan/terraform-provider-gpu/internal/inputerr"
	"github.com/gpuplan/terraform-provider-gpu/internal/numfmt"
)

// gpu_tco's optional region: without one, the TCO is priced in every
// region of the cloud that sells the instance type under the pricing mix
// and the cheapest is used; regions lists the others either way.

var tcoRegionAttrTypes = map[string]attr.Type{
	"region":         types.StringType,
	"country":        types.StringType,
	"total_cost_usd": types.Float64Type,
	"difference_usd": types.Float64Type,
}

const tcoRegionDoc = "The cloud's region code, for example `us-east-1`. Optional: when unset, the TCO is priced in every " +
	"commercial region (not GovCloud, Azure Government or a China region, which need an account of their own) that sells " +
	"`instance_type` under `pricing_mix`, and the cheapest (lowest `total_cost_usd`, ties by region code) is used and returned " +
	"here; the others are in `regions`. When set, the instance type must be offered there."

func tcoRegionsAttribute() schema.ListNestedAttribute {
	return schema.ListNestedAttribute{Computed: true,
		MarkdownDescription: "The other regions of `cloud` in the selected region's partition (commercial, gov or china) that sell " +
			"`instance_type` under `pricing_mix` (every one, the selected `region` left out), cheapest first by `total_cost_usd`, ties by region code; each priced with the same inputs. " +
			"Empty when no other region sells it so. With `region` unset, every entry costs at least as much as the selected region.",
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"region":         schema.StringAttribute{Computed: true, MarkdownDescription: "The region code."},
			"country":        schema.StringAttribute{Computed: true, MarkdownDescription: "Its country, ISO 3166-1 alpha-2 (empty when the catalog has no metadata for it)."},
			"total_cost_usd": schema.Float64Attribute{Computed: true, MarkdownDescription: "The whole TCO there, USD."},
			"difference_usd": schema.Float64Attribute{Computed: true,
				MarkdownDescription: "Its `total_cost_usd` minus this data source's `total_cost_usd`, USD: positive when it costs more."},
		}},
	}
}

// tcoRegionID is the region to resolve the offer in: the configured one,
// or without one any region offering the instance type (the TCO then
// picks the cheapest), so unknown clouds and instance types are reported
// as with a region.
func tcoRegionID(cat *catalog.Catalog, cloudID, instanceType string, region types.String) string {
	if region.IsNull() {
		if offers := cat.OffersOf(cloudID, instanceType); len(offers) > 0 {
			return offers[0].Region
		}
	}
	return region.ValueString()
}

// tcoByRegion prices in: in its own region when pinned (the offer
// resolved from the configured region), else in the cheapest region
// selling the instance under the mix, which it sets in in.Offer and
// in.Region. It returns the chosen region's result and the other regions,
// cheapest first.
func tcoByRegion(cat *catalog.Catalog, in *cost.Input, pinned bool) (cost.Result, []cost.RegionTCO, error) {
	m, err := cost.DefaultModel()
	if err != nil {
		return cost.Result{}, nil, err
	}
	lookup := func(id string) *catalog.Region {
		r, _ := cat.Region(in.Offer.Cloud, id)
		return r
	}
	everywhere := cat.OffersOf(in.Offer.Cloud, in.Offer.InstanceType)
	partition := catalog.PartitionCommercial
	if pinned && in.Region != nil {
		partition = in.Region.Partition
	}
	offers := offersIn(everywhere, partition, lookup)
	if !pinned && len(offers) == 0 {
		return cost.Result{}, nil, onlySeparateAccounts(everywhere, lookup)
	}
	if pinned {
		res, err := m.TCO(*in)
		if err != nil {
			return cost.Result{}, nil, err
		}
		all, err := m.ByRegion(*in, offers, lookup)
		if err != nil {
			all = nil // no region sells the mix; the pinned one answered for itself
		}
		var others []cost.RegionTCO
		for _, r := range all {
			if r.Offer.Region != in.Offer.Region {
				others = append(others, r)
			}
		}
		return res, others, nil
	}
	all, err := m.ByRegion(*in, offers, lookup)
	if err != nil {
		return cost.Result{}, nil, err
	}
	in.Offer, in.Region = all[0].Offer, all[0].Region
	return all[0].Result, all[1:], nil
}

// offersIn keeps the offers in regions of a partition; a region without
// metadata counts as commercial.
func offersIn(offers []*catalog.Offer, p catalog.Partition, lookup func(string) *catalog.Region) []*catalog.Offer {
	var out []*catalog.Offer
	for _, o := range offers {
		part := catalog.PartitionCommercial
		if r := lookup(o.Region); r != nil {
			part = r.Partition
		}
		if part == p {
			out = append(out, o)
		}
	}
	return out
}

// onlySeparateAccounts is the error of an instance type offered only in
// partitions that need an account of their own, so no region is chosen
// for the user.
func onlySeparateAccounts(offers []*catalog.Offer, lookup func(string) *catalog.Region) error {
	where := make([]string, len(offers))
	for i, o := range offers {
		where[i] = o.Region
		if r := lookup(o.Region); r != nil {
			where[i] += " (" + string(r.Partition) + ")"
		}
	}
	return inputerr.New(inputerr.Root("region"), "No Commercial Region Offers The Instance Type",
		"%s %s is offered only in regions that need an account of their own: %s. Set region to one of them to price it there.",
		offers[0].Cloud, offers[0].InstanceType, strings.Join(where, ", "))
}

// tcoRegionsValue is the regions attribute: each other region's total and
// its difference from total, the selected region's.
func tcoRegionsValue(others []cost.RegionTCO, total float64, diags *diag.Diagnostics) types.List {
	vals := make([]attr.Value, len(others))
	for i, r := range others {
		country := ""
		if r.Region != nil {
			country = r.Region.Country
		}
		vals[i] = types.ObjectValueMust(tcoRegionAttrTypes, map[string]attr.Value{
			"region":         types.StringValue(r.Offer.Region),
			"country":        types.StringValue(country),
			"total_cost_usd": float64Value(diags, fmt.Sprintf("regions[%d].total_cost_usd", i), r.TotalUSD),
			"difference_usd": float64Value(diags, fmt.Sprintf("regions[%d].difference_usd", i), numfmt.USD(r.TotalUSD-total)),
		})
	}
	return types.ListValueMust(types.ObjectType{AttrTypes: tcoRegionAttrTypes}, vals)
}

const tcoSummaryDoc = "The TCO as fixed-width text for plan output: a title line (instances, instance type, cloud and region, " +
	"\"the cheapest of N regions\" when `region` was chosen, horizon, utilization, mix), the `breakdown` with each line's share " +
	"and the total, the `pricing_model_comparison` (total, savings against on-demand, a reservation's break-even, the mix's " +
	"share of each model) and the five cheapest other `regions` with their difference. Rounded as the attributes are. " +
	"Show it with `output \"tco\" { value = data.gpu_tco.x.summary }`."
