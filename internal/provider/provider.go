// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

// Package provider is the terraform-plugin-framework glue of the gpu
// provider: schemas, model conversion and diagnostics. Planning logic lives
// in the pure packages under internal/.
package provider

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/float64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/cost"
	"github.com/gpuplan/terraform-provider-gpu/internal/planner"
)

var (
	_ provider.Provider              = (*gpuProvider)(nil)
	_ provider.ProviderWithFunctions = (*gpuProvider)(nil)
)

// New returns a constructor for the provider at the given version.
func New(version string) func() provider.Provider {
	return func() provider.Provider {
		return &gpuProvider{version: version, now: time.Now, builtin: catalog.Builtin}
	}
}

// gpuProvider is the provider implementation. now and builtin are injected
// so tests can fake the clock (catalog age) and the catalog.
type gpuProvider struct {
	version string
	now     func() time.Time
	builtin func() (*catalog.Catalog, error)
}

// providerData is what Configure hands to every data source, resource and
// (through the package-level accessor) function.
type providerData struct {
	Catalog *catalog.Catalog
	// Clouds is the default allow-list (nil = every cloud in the catalog).
	Clouds []string
	// Discounts maps cloud -> fraction off list price.
	Discounts              map[string]float64
	CarbonPriceUSDPerTonne float64
	// warnings shows assumption warnings once per plan (warn_once.go).
	warnings warnOnce

	// The planner of Catalog, built on the first recommendation of this
	// provider configuration (building it costs a few milliseconds, which a
	// plugin process that never recommends should not pay) and dropped with
	// the configuration, so a long-lived process does not accumulate one
	// per catalog overlay.
	plannerOnce sync.Once
	planner     *planner.Planner
	plannerErr  error
}

// Planner returns the planner of the configured catalog, built once even
// when many data sources are read concurrently.
func (d *providerData) Planner() (*planner.Planner, error) {
	d.plannerOnce.Do(func() {
		cm, err := cost.DefaultModel()
		if err != nil {
			d.plannerErr = err
			return
		}
		d.planner, d.plannerErr = planner.New(d.Catalog, cm)
	})
	return d.planner, d.plannerErr
}

// AllowsCloud reports whether a cloud is in the provider-level allow-list.
func (d *providerData) AllowsCloud(cloud string) bool {
	if d.Clouds == nil {
		return true
	}
	for _, c := range d.Clouds {
		if c == cloud {
			return true
		}
	}
	return false
}

// Discount returns the provider-level discount for a cloud (0 when none).
func (d *providerData) Discount(cloud string) float64 {
	return d.Discounts[cloud]
}

func (p *gpuProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "gpu"
	resp.Version = p.version
}

func (p *gpuProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	desc := "The `gpu` provider chooses, costs and describes GPU infrastructure across clouds. " +
		"It calls no cloud API: every answer comes from a built-in, dated catalog (optionally overlaid with `catalog_file`) " +
		"and a calibrated benchmark model, so `terraform plan` is offline and deterministic. All arguments are optional."
	// Only the date: the schema is read on every plugin start, and parsing
	// the whole catalog here would slow every plan.
	if date, err := catalog.BuiltinDate(); err == nil {
		desc += fmt.Sprintf("\n\nThis version's built-in catalog is dated **%s**.", date.Format(time.DateOnly))
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: desc,
		Attributes: map[string]schema.Attribute{
			"catalog_file": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Path to a JSON (`.json`) or YAML (`.yaml`, `.yml`) catalog overlay that adds or overrides clouds, " +
					"regions, accelerators, offers and prices (negotiated rates, private clouds, on-prem clusters). " +
					"The file is validated as a whole: every problem is reported with the file, line, entry and field, and nothing is applied. " +
					"A relative path is resolved against the directory Terraform runs in (the root module), not the module that sets it: " +
					"in a child module use `\"${path.module}/prices.yaml\"`. " +
					"See the [catalog overlay guide](guides/catalog-overlay.md).",
			},
			"clouds": schema.ListAttribute{
				Optional:            true,
				ElementType:         types.StringType,
				MarkdownDescription: "Default allow-list of clouds (for example `[\"aws\", \"gcp\"]`) applied to recommendations and offers. Defaults to every cloud in the catalog.",
			},
			"discounts": schema.MapAttribute{
				Optional:    true,
				ElementType: types.Float64Type,
				MarkdownDescription: "Fraction off list price per cloud, for enterprise agreements: `{ aws = 0.12 }` takes 12 % off every AWS price. " +
					"Each value must be in [0, 1).",
			},
			"carbon_price_usd_per_tonne": schema.Float64Attribute{
				Optional:            true,
				MarkdownDescription: "Internal carbon price in USD per tonne CO2e. When set, `gpu_tco` and recommendations add `carbon_cost_usd`. Default `0`.",
				Validators:          []validator.Float64{float64validator.AtLeast(0)},
			},
			"max_catalog_age_days": schema.Int64Attribute{
				Optional: true,
				MarkdownDescription: "Warn when the built-in catalog snapshot is older than this many days, " +
					"a reminder to upgrade the provider for fresh prices. Default: no warning.",
				Validators: []validator.Int64{int64validator.AtLeast(1)},
			},
		},
	}
}

type providerModel struct {
	CatalogFile            types.String  `tfsdk:"catalog_file"`
	Clouds                 types.List    `tfsdk:"clouds"`
	Discounts              types.Map     `tfsdk:"discounts"`
	CarbonPriceUSDPerTonne types.Float64 `tfsdk:"carbon_price_usd_per_tonne"`
	MaxCatalogAgeDays      types.Int64   `tfsdk:"max_catalog_age_days"`
}

func (p *gpuProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var cfg providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}

	cat, err := p.builtin()
	if err != nil {
		resp.Diagnostics.AddError("Built-In Catalog Failed To Load",
			"The provider's embedded catalog is invalid; this is a provider bug, please report it: "+err.Error())
		return
	}
	if !cfg.CatalogFile.IsNull() && !cfg.CatalogFile.IsUnknown() {
		overlaid, warnings, err := cat.WithOverlay(cfg.CatalogFile.ValueString())
		if err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("catalog_file"), "Invalid Catalog File",
				fmt.Sprintf("The catalog file %q was rejected as a whole; nothing from it was applied.\n\n%s",
					cfg.CatalogFile.ValueString(), err))
			return
		}
		for _, w := range warnings {
			resp.Diagnostics.AddAttributeWarning(path.Root("catalog_file"), "Catalog File Adjusted", w.String())
		}
		cat = overlaid
	}

	data := &providerData{Catalog: cat, Discounts: map[string]float64{}}

	if !cfg.Clouds.IsNull() && !cfg.Clouds.IsUnknown() {
		var clouds []string
		resp.Diagnostics.Append(cfg.Clouds.ElementsAs(ctx, &clouds, false)...)
		for i, c := range clouds {
			if _, ok := cat.Cloud(c); !ok {
				resp.Diagnostics.AddAttributeError(path.Root("clouds").AtListIndex(i), "Unknown Cloud",
					fmt.Sprintf("clouds[%d] = %q is not a cloud in the catalog. Closest: %s. Allowed: %s.",
						i, c, catalog.QuoteList(catalog.Closest(c, cat.CloudIDs(), 3)), catalog.QuoteList(cat.CloudIDs())))
			}
		}
		data.Clouds = clouds
	}
	if !cfg.Discounts.IsNull() && !cfg.Discounts.IsUnknown() {
		var discounts map[string]float64
		resp.Diagnostics.Append(cfg.Discounts.ElementsAs(ctx, &discounts, false)...)
		for _, c := range slices.Sorted(maps.Keys(discounts)) {
			v := discounts[c]
			if _, ok := cat.Cloud(c); !ok {
				resp.Diagnostics.AddAttributeError(path.Root("discounts").AtMapKey(c), "Unknown Cloud",
					fmt.Sprintf("discounts has the key %q, which is not a cloud in the catalog. Closest: %s.",
						c, catalog.QuoteList(catalog.Closest(c, cat.CloudIDs(), 3))))
			}
			if math.IsNaN(v) || v < 0 || v >= 1 {
				resp.Diagnostics.AddAttributeError(path.Root("discounts").AtMapKey(c), "Invalid Discount",
					fmt.Sprintf("discounts[%q] = %v: a discount is the fraction off list price and must be in [0, 1), for example 0.15 for 15 %% off.", c, v))
			}
		}
		data.Discounts = discounts
	}
	if !cfg.CarbonPriceUSDPerTonne.IsNull() {
		data.CarbonPriceUSDPerTonne = cfg.CarbonPriceUSDPerTonne.ValueFloat64()
	}
	if !cfg.MaxCatalogAgeDays.IsNull() && !cfg.MaxCatalogAgeDays.IsUnknown() {
		maxAge := cfg.MaxCatalogAgeDays.ValueInt64()
		age := int64(p.now().Sub(cat.Date).Hours() / 24)
		if age > maxAge {
			resp.Diagnostics.AddAttributeWarning(path.Root("max_catalog_age_days"), "Catalog Is Older Than max_catalog_age_days",
				fmt.Sprintf("The built-in catalog is dated %s, %d days ago, more than max_catalog_age_days = %d. "+
					"Prices may have changed: upgrade the provider, or download the clouds' price lists and run "+
					"`make overlay AWS_PRICE_LIST=<file> AZURE_RETAIL_PRICES=<file> GCP_BILLING_SKUS=<file> OUT=prices.yaml` "+
					"(guide: Price-list overlay), then set catalog_file = \"prices.yaml\".",
					cat.Date.Format(time.DateOnly), age, maxAge))
		}
	}
	if resp.Diagnostics.HasError() {
		return
	}
	resp.DataSourceData = data
	resp.ResourceData = data
}

func (p *gpuProvider) Resources(_ context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		NewClusterSpecResource,
	}
}

func (p *gpuProvider) DataSources(_ context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{
		NewOffersDataSource,
		NewAcceleratorsDataSource,
		NewTCODataSource,
		NewRecommendationDataSource,
		NewEstimateDataSource,
	}
}

func (p *gpuProvider) Functions(_ context.Context) []func() function.Function {
	return []func() function.Function{
		NewHourlyPriceUSDFunction,
		NewInstanceTypeFunction,
		NewVRAMRequiredGBFunction,
		NewTrainingHoursFunction,
	}
}
