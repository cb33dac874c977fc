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
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/catalog/overlay"
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
	// CatalogFileUnknown is set when catalog_file was not known at plan
	// (it depends on a value computed during apply): Catalog is then the
	// built-in one, which must not price anything (catalogKnown).
	CatalogFileUnknown bool
	// CatalogFile and CatalogDigest are the catalog_file as configured and
	// the SHA-256 of what was read from it ("" without one): a plan
	// records the digest, so that apply can tell the file changed since
	// (gpu_cluster_spec, catalog_change.go).
	CatalogFile, CatalogDigest string
	// unknown holds the other provider arguments that change answers and
	// were not known at plan (argClouds, argDiscounts, argCarbonPrice):
	// the objects that read them report it (catalogKnown).
	unknown map[string]bool
	// Clouds is the default allow-list (nil = every cloud in the catalog).
	Clouds []string
	// Discounts maps cloud -> fraction off list price.
	Discounts              map[string]float64
	CarbonPriceUSDPerTonne float64
	// warnings shows assumption warnings once per plan (warn_once.go).
	warnings warnOnce
	// age is when prices are called old (price_info.go).
	age priceAge

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

// Provider arguments that change answers, by name: an object that reads
// one passes it to catalogKnown.
const (
	argClouds      = "clouds"
	argDiscounts   = "discounts"
	argCarbonPrice = "carbon_price_usd_per_tonne"
)

// catalogKnown reports an error, and returns false, when catalog_file, or
// one of the other provider arguments the caller reads (uses), was not
// known at plan: prices, offers and allow-lists must be known at plan, so
// that the plan shows the figures apply will use; nothing stands in for
// the missing value (the built-in catalog, no discount, every cloud).
func (d *providerData) catalogKnown(diags *diag.Diagnostics, uses ...string) bool {
	var missing []string
	if d.CatalogFileUnknown {
		missing = append(missing, "catalog_file")
	}
	for _, name := range uses {
		if d.unknown[name] {
			missing = append(missing, name)
		}
	}
	switch len(missing) {
	case 0:
		return true
	case 1:
		if missing[0] == "catalog_file" {
			diags.AddError("Catalog File Not Known At Plan",
				"The provider's catalog_file is not known until apply: it depends on a value computed during apply. "+
					"Offers, prices and accelerators come from the catalog and must be known at plan, so that the plan shows "+
					"the figures apply will use; the built-in catalog is not used in its place. Set the provider's catalog_file to "+
					"a path known before apply (a literal, a variable or \"${path.module}/prices.yaml\"), or create the file first "+
					"(in another configuration, or with terraform apply -target).")
			return false
		}
	}
	names, verb, they := "The provider's "+missing[0]+" is", "depends", "it"
	if len(missing) > 1 {
		names = "The provider's " + strings.Join(missing[:len(missing)-1], ", ") + " and " + missing[len(missing)-1] + " are"
		verb, they = "depend", "they"
	}
	diags.AddError("Provider Configuration Not Known At Plan", fmt.Sprintf("%s not known until apply: %s %s on a value computed "+
		"during apply. This data source or resource plans its figures with %s, and nothing stands in for an unknown value (the "+
		"built-in catalog, no discount, no carbon price, every cloud), which would plan figures apply does not use. Set %s from "+
		"literals, variables or values known before apply, or create what %s %s on first (in another configuration, or with "+
		"terraform apply -target).", names, they, verb, itThem(they), itThem(they), they, verb))
	return false
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
	discount, carbon := limitOf(catalog.LimitDiscountFraction), limitOf(catalog.LimitCarbonPriceUSDPerTonne)
	maxAge := limitOf(catalog.LimitCatalogAgeDays)
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
				Validators: []validator.String{notEmpty{"give the path of a .json, .yaml or .yml catalog file, or omit catalog_file " +
					"for the built-in catalog"}},
			},
			"clouds": schema.ListAttribute{
				Optional:    true,
				ElementType: types.StringType,
				MarkdownDescription: "Default allow-list of clouds (for example `[\"aws\", \"gcp\"]`) applied to recommendations and offers. " +
					"Defaults to every cloud in the catalog. At least one cloud, each once.",
				Validators: []validator.List{nameList{empty: "an empty allow-list allows no cloud, so every recommendation would fail and " +
					"gpu_offers would list nothing. Omit clouds to allow every cloud in the catalog, or list at least one."}},
			},
			"discounts": schema.MapAttribute{
				Optional:    true,
				ElementType: discount.Float64(),
				MarkdownDescription: "Fraction off list price per cloud, for enterprise agreements: `{ aws = 0.12 }` takes 12% off every AWS price." +
					discount.DocAs("Each value"),
				Validators: []validator.Map{noNullValues{}},
			},
			"carbon_price_usd_per_tonne": schema.Float64Attribute{
				Optional: true,
				MarkdownDescription: "Internal carbon price in USD per tonne CO2e. When set, `gpu_tco` and recommendations add `carbon_cost_usd`. Default `0`." +
					carbon.Doc(),
				CustomType: carbon.Float64(),
			},
			"max_catalog_age_days": schema.Int64Attribute{
				Optional: true,
				MarkdownDescription: "Warn, once per plan, when prices are older than this many days: the built-in catalog's " +
					"(its `catalog_date`, the oldest source date that still decides a price; not checked when a `catalog_file` may have " +
					"refreshed them) or the price that decided a recommendation, a `gpu_tco` or a `gpu_cluster_spec`. " +
					priceAgeDefaultDoc() + " This setting can only lower it. Refresh prices with " +
					"`terraform-provider-gpu refresh` (guide: Refresh prices)." + maxAge.Doc(),
				CustomType: maxAge.Int64(),
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
	data := &providerData{Discounts: map[string]float64{}}
	switch {
	case cfg.CatalogFile.IsUnknown():
		// Data sources and gpu_cluster_spec report it (catalogKnown):
		// provider functions never read the file.
		data.CatalogFileUnknown = true
	case !cfg.CatalogFile.IsNull():
		data.CatalogFile = cfg.CatalogFile.ValueString()
		if cat, data.CatalogDigest = overlayCatalog(cat, data.CatalogFile, &resp.Diagnostics); cat == nil {
			return
		}
	}
	data.Catalog = cat

	data.unknown = unknownArguments(map[string]attr.Value{
		argClouds: cfg.Clouds, argDiscounts: cfg.Discounts, argCarbonPrice: cfg.CarbonPriceUSDPerTonne,
	})
	if !cfg.Clouds.IsNull() && !data.unknown[argClouds] {
		resp.Diagnostics.Append(cfg.Clouds.ElementsAs(ctx, &data.Clouds, false)...)
		unknowns := 0
		for i, c := range data.Clouds {
			if cl, ok := cat.Cloud(c); ok {
				data.Clouds[i] = cl.ID // names match in any case
			} else if !data.CatalogFileUnknown {
				at := fmt.Sprintf("clouds[%d]", i)
				resp.Diagnostics.AddAttributeError(path.Root("clouds").AtListIndex(i), "Unknown Cloud",
					lazyDetail(&unknowns, at, func() string { return cat.UnknownCloud(at, c) }))
			}
		}
	}
	if !cfg.Discounts.IsNull() && !data.unknown[argDiscounts] {
		resp.Diagnostics.Append(cfg.Discounts.ElementsAs(ctx, &data.Discounts, false)...)
		unknowns := 0
		for _, c := range slices.Sorted(maps.Keys(data.Discounts)) {
			if cl, ok := cat.Cloud(c); ok && cl.ID != c {
				// Names match in any case: the key as the catalog spells it,
				// once.
				if _, dup := data.Discounts[cl.ID]; dup {
					resp.Diagnostics.AddAttributeError(path.Root("discounts").AtMapKey(c), "Duplicate Cloud",
						fmt.Sprintf("discounts has the keys %q and %q, one cloud (names match in any case): give each cloud once.", cl.ID, c))
				}
				data.Discounts[cl.ID] = data.Discounts[c]
				delete(data.Discounts, c)
			} else if !ok && !data.CatalogFileUnknown {
				at := fmt.Sprintf("discounts[%q]", c)
				resp.Diagnostics.AddAttributeError(path.Root("discounts").AtMapKey(c), "Unknown Cloud",
					lazyDetail(&unknowns, at, func() string {
						return fmt.Sprintf("discounts has the key %q, which is not a cloud in the catalog. Closest: %s.",
							c, catalog.QuoteList(catalog.Closest(c, cat.CloudIDs(), 3)))
					}))
			}
		}
	}
	if !cfg.CarbonPriceUSDPerTonne.IsNull() && !data.unknown[argCarbonPrice] {
		data.CarbonPriceUSDPerTonne = cfg.CarbonPriceUSDPerTonne.ValueFloat64()
	}
	days, err := catalog.PriceAgeWarningDays()
	if err != nil {
		resp.Diagnostics.AddError("Built-In Catalog Failed To Load",
			"The provider's embedded data is invalid; this is a provider bug, please report it: "+err.Error())
		return
	}
	data.age = priceAge{days: days, now: p.now}
	if v := cfg.MaxCatalogAgeDays; !v.IsNull() && !v.IsUnknown() && v.ValueInt64() < int64(days) {
		data.age.days, data.age.byUser = int(v.ValueInt64()), true
	}
	if cfg.CatalogFile.IsNull() {
		// With a catalog_file the prices that decide answers may be
		// newer than the built-in catalog: each answer checks its own.
		data.warnCatalogAge(cat, &resp.Diagnostics)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	resp.DataSourceData = data
	resp.ResourceData = data
}

// unknownArguments returns the names of the values not wholly known: an
// unknown value, or a list or map with an unknown element.
func unknownArguments(args map[string]attr.Value) map[string]bool {
	out := map[string]bool{}
	for name, v := range args {
		if !whollyKnown(v) {
			out[name] = true
		}
	}
	return out
}

// whollyKnown reports whether v and every element of a list or map in it
// are known.
func whollyKnown(v attr.Value) bool {
	if v.IsUnknown() {
		return false
	}
	var elems []attr.Value
	switch c := v.(type) {
	case types.List:
		elems = c.Elements()
	case types.Map:
		for _, e := range c.Elements() {
			elems = append(elems, e)
		}
	}
	for _, e := range elems {
		if !whollyKnown(e) {
			return false
		}
	}
	return true
}

// overlayCatalog applies the catalog_file at file to cat and returns the
// digest of what it read; nil, with the error on catalog_file, when the
// file is rejected.
func overlayCatalog(cat *catalog.Catalog, file string, diags *diag.Diagnostics) (*catalog.Catalog, string) {
	res, err := overlay.Apply(cat, file, overlay.Options{})
	if err != nil {
		where := fmt.Sprintf("%q", file)
		if abs, absErr := filepath.Abs(file); absErr == nil && !filepath.IsAbs(file) {
			where = fmt.Sprintf("%q (relative: resolved against the root module directory, where Terraform runs, whichever "+
				"module sets it, so %s; in a child module write \"${path.module}/%s\")", file, abs, filepath.ToSlash(file))
		}
		diags.AddAttributeError(path.Root("catalog_file"), "Invalid Catalog File",
			fmt.Sprintf("The catalog file %s was rejected as a whole; nothing from it was applied.\n\n%s", where, err))
		return nil, ""
	}
	for _, w := range res.Warnings {
		diags.AddAttributeWarning(path.Root("catalog_file"), "Catalog File Adjusted", w.String())
	}
	return res.Catalog, res.Digest
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
		NewModelsDataSource,
		NewRegionsDataSource,
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

// itThem is the object form of a pronoun: "it" or "them".
func itThem(they string) string {
	if they == "they" {
		return "them"
	}
	return "it"
}
