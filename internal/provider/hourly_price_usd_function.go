// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/function"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/cost"
	"github.com/gpuplan/terraform-provider-gpu/internal/numfmt"
)

var _ function.Function = (*hourlyPriceUSDFunction)(nil)

// NewHourlyPriceUSDFunction returns the hourly_price_usd function.
func NewHourlyPriceUSDFunction() function.Function {
	return &hourlyPriceUSDFunction{}
}

type hourlyPriceUSDFunction struct{}

func (f *hourlyPriceUSDFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "hourly_price_usd"
}

func (f *hourlyPriceUSDFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "Hourly list price of a GPU instance in USD",
		MarkdownDescription: "Returns the hourly list price in USD of one instance of `instance_type` in `region` of `cloud` under " +
			"`pricing_model` (`on_demand`, `spot`, `reserved_1y`, `reserved_3y`, `capacity_block`; reserved and capacity-block prices are the " +
			"effective hourly rate of the commitment), rounded to 1/10,000 USD. Example: `provider::gpu::hourly_price_usd(\"aws\", \"p5.48xlarge\", \"us-east-1\", " +
			"\"on_demand\")`.\n\nTerraform calls provider functions without the provider configuration, so the price comes from the " +
			"**built-in** catalog: a `catalog_file` overlay and the provider-level `discounts` do **not** apply. Use the `gpu_offers` or " +
			"`gpu_tco` data sources for discounted or overlaid prices.",
		Parameters: []function.Parameter{
			function.StringParameter{Name: "cloud", MarkdownDescription: "Cloud ID, for example `aws`."},
			function.StringParameter{Name: "instance_type", MarkdownDescription: "The cloud's instance type, for example `p5.48xlarge`."},
			function.StringParameter{Name: "region", MarkdownDescription: "Region code, for example `us-east-1`."},
			function.StringParameter{Name: "pricing_model", MarkdownDescription: "`on_demand`, `spot`, `reserved_1y`, `reserved_3y` or `capacity_block`."},
		},
		Return: function.Float64Return{},
	}
}

func (f *hourlyPriceUSDFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var cloudID, it, regionID, model string
	resp.Error = function.ConcatFuncErrors(resp.Error, req.Arguments.Get(ctx, &cloudID, &it, &regionID, &model))
	if resp.Error != nil {
		return
	}
	cat, err := builtinCatalog()
	if err != nil {
		resp.Error = funcError(fmt.Errorf("the built-in catalog failed to load: %w", err), nil)
		return
	}
	price, err := cost.HourlyListPrice(cat, cloudID, it, regionID, catalog.PricingModel(model))
	if err != nil {
		resp.Error = funcError(err, map[string]int64{"cloud": 0, "instance_type": 1, "region": 2, "pricing_model": 3})
		return
	}
	resp.Error = function.ConcatFuncErrors(resp.Error, resp.Result.Set(ctx, numfmt.Price(price)))
}
