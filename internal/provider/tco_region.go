// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuplan/terraform-provider-gpu/internal/cost"
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
