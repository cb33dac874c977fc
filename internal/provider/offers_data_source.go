// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuplan/terraform-provider-gpu/internal/browse"
	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/cost"
	"github.com/gpuplan/terraform-provider-gpu/internal/numfmt"
)

var _ datasource.DataSourceWithConfigure = (*offersDataSource)(nil)

// NewOffersDataSource returns the gpu_offers data source.
func NewOffersDataSource() datasource.DataSource {
	return &offersDataSource{}
}

type offersDataSource struct {
	data *providerData
}

func (d *offersDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_offers"
}

var offerAttrTypes = map[string]attr.Type{
	"cloud":              types.StringType,
	"region":             types.StringType,
	"country":            types.StringType,
	"instance_type":      types.StringType,
	"accelerator":        types.StringType,
	"gpus":               types.Int64Type,
	"gpu_memory_gb":      types.Float64Type,
	"vcpus":              types.Int64Type,
	"memory_gb":          types.Float64Type,
	"network_gbps":       types.Float64Type,
	"on_demand_usd":      types.Float64Type,
	"spot_usd":           types.Float64Type,
	"reserved_1y_usd":    types.Float64Type,
	"reserved_3y_usd":    types.Float64Type,
	"capacity_block_usd": types.Float64Type,
	"serverless_usd":     types.Float64Type,
	"gpu_fraction":       types.Float64Type,
	"price_source":       types.StringType,
	"price_basis":        types.MapType{ElemType: types.StringType},
	"price_as_of":        types.MapType{ElemType: types.StringType},
}

func (d *offersDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	price := func(model string) schema.Float64Attribute {
		return schema.Float64Attribute{Computed: true, MarkdownDescription: fmt.Sprintf(
			"Hourly %s price of the whole instance in USD, after the provider's `discounts`; null where the cloud does not sell it that way.", model)}
	}
	filter := func(desc string) schema.ListAttribute {
		return schema.ListAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: desc,
			Validators: []validator.List{nameList{empty: "an empty list matches no offer. Omit the attribute for no filter, or list at least one value."}}}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Lists priced GPU instance offers of the catalog, one per (cloud, instance type, region), filtered. " +
			"Prices are list prices per instance-hour in USD (converted from the native currency where the cloud bills in another one), " +
			"with the provider-level `discounts` applied. The provider-level `clouds` allow-list applies too. Serverless offers (pricing " +
			"model `serverless`: Modal, RunPod Serverless, Replicate, Beam, Cloud Run) are listed too, one row per offer with the " +
			"offer's name as `instance_type`, one worker as the instance and only `serverless_usd` priced.",
		Attributes: map[string]schema.Attribute{
			"clouds":       filter("Only these clouds, for example `[\"aws\", \"gcp\"]`."),
			"regions":      filter("Only these regions (each cloud's own codes, for example `us-east-1`, `europe-west4`)."),
			"accelerators": filter("Only these accelerators, by ID or alias (for example `[\"H100\", \"H200\"]`)."),
			"min_gpus":     intInput("Only instances with at least this many accelerators.", limitOf(catalog.LimitGPUsPerInstance)),
			"min_gpu_memory_gb": floatInput("Only instances whose accelerators each have at least this much memory, GB.",
				limitOf(catalog.LimitAcceleratorMemoryGB).orZero()),
			"offers": schema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: "Matching offers sorted by cloud, instance type and region.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"cloud":         schema.StringAttribute{Computed: true, MarkdownDescription: "Cloud ID, for example `aws`."},
					"region":        schema.StringAttribute{Computed: true, MarkdownDescription: "Region code."},
					"country":       schema.StringAttribute{Computed: true, MarkdownDescription: "Country of the region, ISO 3166-1 alpha-2; null when the catalog has no metadata for the region."},
					"instance_type": schema.StringAttribute{Computed: true, MarkdownDescription: "The cloud's instance type, for example `p5.48xlarge`."},
					"accelerator":   schema.StringAttribute{Computed: true, MarkdownDescription: "Canonical accelerator ID."},
					"gpus": schema.Int64Attribute{Computed: true,
						MarkdownDescription: "Whole accelerators per instance; `0` for a fractional instance (see `gpu_fraction`)."},
					"gpu_fraction": schema.Float64Attribute{Computed: true,
						MarkdownDescription: "For a fractional instance, its share of one accelerator (for example `0.25` for Azure's " +
							"`Standard_NV6ads_A10_v5`), with that share of the GPU's memory in `gpu_memory_gb` and of its throughput; usable " +
							"for inference only. Null for whole GPUs."},
					"gpu_memory_gb":   schema.Float64Attribute{Computed: true, MarkdownDescription: "Total accelerator memory of the instance, GB."},
					"vcpus":           schema.Int64Attribute{Computed: true, MarkdownDescription: "vCPUs per instance."},
					"memory_gb":       schema.Float64Attribute{Computed: true, MarkdownDescription: "Host RAM per instance, GB."},
					"network_gbps":    schema.Float64Attribute{Computed: true, MarkdownDescription: "Scale-out network bandwidth per instance, Gbit/s."},
					"on_demand_usd":   price("on-demand"),
					"spot_usd":        price("spot"),
					"reserved_1y_usd": price("1-year commitment"),
					"reserved_3y_usd": price("3-year commitment"),
					"capacity_block_usd": schema.Float64Attribute{Computed: true, MarkdownDescription: "Effective hourly price of one instance in an " +
						"EC2 Capacity Block (instances booked ahead for a window of whole days or weeks), USD, after the provider's `discounts`; " +
						"null where none is published. An offer with only this price has a null `on_demand_usd`."},
					"serverless_usd": schema.Float64Attribute{Computed: true, MarkdownDescription: "Serverless offers: the price of one " +
						"worker for one billed hour (its GPUs at the per-second GPU rate × 3,600, plus the least host CPU and memory the " +
						"platform bills with them), USD, after the provider's `discounts`; billed only while the worker runs (see `gpu_tco` " +
						"and the serverless guide). Null for instances. A serverless row has an empty `region` when the platform places the " +
						"workers, `vcpus`, `memory_gb` and `network_gbps` 0 (the platform sizes the host) and every instance price null."},
					"price_source": schema.StringAttribute{Computed: true,
						MarkdownDescription: "Where the prices come from: the built-in source file and its date, or the `catalog_file` entry that set them."},
					"price_basis": schema.MapAttribute{Computed: true, ElementType: types.StringType,
						MarkdownDescription: "Per pricing model the row is priced under (`on_demand`, `spot`, `reserved_1y`, `reserved_3y`, " +
							"`capacity_block`, `serverless`), what the price is: " + priceBasisDoc + ". A model the catalog states no basis for " +
							"(a `catalog_file` entry without one) is absent."},
					"price_as_of": schema.MapAttribute{Computed: true, ElementType: types.StringType,
						MarkdownDescription: "Per pricing model, " + priceAsOfDoc + ". A model whose source states no date is absent."},
				}},
			},
			"summary": schema.StringAttribute{Computed: true, MarkdownDescription: "The matching offers as fixed-width text tables, " +
				"one per cloud and one row per instance type: accelerator, GPUs, GPU memory, the cheapest region (by on-demand " +
				"price, else by the first pricing model it is sold under), how many regions sell it, and its hourly price under " +
				"every pricing model the cloud's rows are sold under, in that region (`-` where it is not sold that way); " +
				"serverless rows placed by the platform show `(platform)`. For an `output`, as `sky show-gpus` prints it."},
		},
	}
}

func (d *offersDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = configuredData(req.ProviderData, &resp.Diagnostics)
}

// stringSet reads an optional list of names and checks each against valid,
// reporting unknown ones with the closest valid names.
// unknown gives the detail of a diagnostic about value v at attribute at.
func stringSet(ctx context.Context, l types.List, attrName, what string, unknown func(at, v string) string, normalize func(string) (string, bool), diags *diag.Diagnostics) map[string]bool {
	if l.IsNull() || l.IsUnknown() {
		return nil
	}
	var vals []string
	diags.Append(l.ElementsAs(ctx, &vals, false)...)
	set := make(map[string]bool, len(vals))
	unknowns := 0
	for i, v := range vals {
		n, ok := normalize(v)
		if !ok {
			at := fmt.Sprintf("%s[%d]", attrName, i)
			diags.AddAttributeError(path.Root(attrName).AtListIndex(i), "Unknown "+strings.ToUpper(what[:1])+what[1:],
				lazyDetail(&unknowns, at, func() string { return unknown(at, v) }))
			continue
		}
		set[n] = true
	}
	return set
}

func (d *offersDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m offersModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() || d.data == nil {
		return
	}
	if !d.data.catalogKnown(&resp.Diagnostics, argClouds, argDiscounts) {
		return
	}
	cat := d.data.Catalog
	in := func(ids []string) func(string) (string, bool) {
		return func(s string) (string, bool) {
			for _, id := range ids {
				if strings.EqualFold(id, s) { // names are accepted in any case
					return id, true
				}
			}
			return "", false
		}
	}
	unknownRegion := func(at, v string) string { return catalog.UnknownRegion(at, v, cat.RegionIDs("")) }
	clouds := stringSet(ctx, m.Clouds, "clouds", "cloud", cat.UnknownCloud, in(cat.CloudIDs()), &resp.Diagnostics)
	regions := stringSet(ctx, m.Regions, "regions", "region", unknownRegion, in(cat.RegionIDs("")), &resp.Diagnostics)
	accels := stringSet(ctx, m.Accelerators, "accelerators", "accelerator", cat.UnknownAccelerator, func(s string) (string, bool) {
		a, ok := cat.Accelerator(s)
		if !ok {
			return "", false
		}
		return a.ID, true
	}, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	warnAmbiguousAccelerators(ctx, &resp.Diagnostics, cat, m.Accelerators, path.Root("accelerators"), "accelerators")
	minGPUs := int(m.MinGPUs.ValueInt64())
	minMem := m.MinGPUMemoryGB.ValueFloat64()

	keep := func(o *catalog.Offer) bool {
		return d.data.AllowsCloud(o.Cloud) && (clouds == nil || clouds[o.Cloud]) && (regions == nil || regions[o.Region]) &&
			(accels == nil || accels[o.Accelerator]) && o.GPUs >= minGPUs && memoryPerGPU(o) >= minMem
	}
	matched := matchOffers(cat, keep)
	objs := make([]attr.Value, 0, len(matched))
	for i, r := range matched {
		obj, diags := d.offerValue(cat, i, r)
		resp.Diagnostics.Append(diags...)
		objs = append(objs, obj)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	m.Offers = types.ListValueMust(types.ObjectType{AttrTypes: offerAttrTypes}, objs)
	m.Summary = types.StringValue(d.summary(matched))
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// offerRow is one row of gpu_offers: an instance offer, or a serverless
// offer (serverless set) as its instance view.
type offerRow struct {
	o          *catalog.Offer
	serverless *catalog.ServerlessOffer
}

// matchOffers lists the instance and serverless offers keep accepts,
// sorted by cloud, instance type and region.
func matchOffers(cat *catalog.Catalog, keep func(*catalog.Offer) bool) []offerRow {
	var matched []offerRow
	for _, o := range cat.Offers {
		if keep(o) {
			matched = append(matched, offerRow{o: o})
		}
	}
	for _, s := range cat.Serverless {
		if o := s.InstanceView(); keep(o) {
			matched = append(matched, offerRow{o: o, serverless: s})
		}
	}
	sort.SliceStable(matched, func(i, j int) bool {
		a, b := matched[i].o, matched[j].o
		if a.Cloud != b.Cloud {
			return a.Cloud < b.Cloud
		}
		if a.InstanceType != b.InstanceType {
			return a.InstanceType < b.InstanceType
		}
		return a.Region < b.Region
	})
	return matched
}

// offerValue is the Terraform value of row i, prices after the provider's
// discount; every number through the guarded conversion.
func (d *offersDataSource) offerValue(cat *catalog.Catalog, i int, r offerRow) (types.Object, diag.Diagnostics) {
	var diags diag.Diagnostics
	o := r.o
	num := func(name string, v float64) types.Float64 {
		return float64Value(&diags, fmt.Sprintf("offers[%d].%s", i, name), v)
	}
	prices := d.prices(r)
	price := func(pm catalog.PricingModel) attr.Value {
		p, ok := prices[pm]
		if !ok {
			return types.Float64Null()
		}
		return num(string(pm)+"_usd", p)
	}
	infos := map[catalog.PricingModel]catalog.PriceInfo{}
	if r.serverless != nil {
		infos[catalog.Serverless] = r.serverless.PriceInfo
	} else {
		for _, pm := range catalog.OfferPricingModels {
			if _, info, ok := o.PriceInfo(pm); ok {
				infos[pm] = info
			}
		}
	}
	basis, asOf := priceInfoMaps(infos)
	obj, dd := types.ObjectValue(offerAttrTypes, map[string]attr.Value{
		"price_basis":        basis,
		"price_as_of":        asOf,
		"cloud":              types.StringValue(o.Cloud),
		"region":             types.StringValue(o.Region),
		"country":            regionCountry(cat, o),
		"instance_type":      types.StringValue(o.InstanceType),
		"accelerator":        types.StringValue(o.Accelerator),
		"gpus":               types.Int64Value(int64(o.GPUs)),
		"gpu_memory_gb":      num("gpu_memory_gb", o.GPUMemoryGB),
		"vcpus":              types.Int64Value(int64(o.VCPUs)),
		"memory_gb":          num("memory_gb", o.MemoryGB),
		"network_gbps":       num("network_gbps", o.NetworkGbps),
		"on_demand_usd":      price(catalog.OnDemand),
		"spot_usd":           price(catalog.Spot),
		"reserved_1y_usd":    price(catalog.Reserved1Y),
		"reserved_3y_usd":    price(catalog.Reserved3Y),
		"capacity_block_usd": price(catalog.CapacityBlock),
		"serverless_usd":     price(catalog.Serverless),
		"gpu_fraction":       gpuFraction(o.GPUFraction, fmt.Sprintf("offers[%d].gpu_fraction", i), &diags),
		"price_source":       types.StringValue(o.Source),
	})
	diags.Append(dd...)
	return obj, diags
}

// prices are a row's hourly prices by pricing model, after the provider's
// discount and rounded as gpu_offers shows them; a model the row is not
// sold under is absent.
func (d *offersDataSource) prices(r offerRow) map[catalog.PricingModel]float64 {
	disc := 1 - d.data.Discount(r.o.Cloud)
	out := map[catalog.PricingModel]float64{}
	for _, pm := range catalog.AllPricingModels {
		p, ok := r.o.Price(pm)
		if pm == catalog.Serverless && r.serverless != nil {
			p, ok = cost.ServerlessWorkerUSDPerHour(r.serverless), true
		}
		if ok {
			out[pm] = numfmt.Price(p * disc)
		}
	}
	return out
}

// summary is the offers summary of the matched rows (browse.OffersSummary).
func (d *offersDataSource) summary(rows []offerRow) string {
	offers := make([]browse.Offer, len(rows))
	for i, r := range rows {
		offers[i] = browse.Offer{Cloud: r.o.Cloud, Region: r.o.Region, InstanceType: r.o.InstanceType, Accelerator: r.o.Accelerator,
			GPUs: r.o.GPUCount(), GPUMemoryGB: r.o.GPUMemoryGB, Prices: d.prices(r)}
	}
	return browse.OffersSummary(offers)
}

type offersModel struct {
	Clouds         types.List    `tfsdk:"clouds"`
	Regions        types.List    `tfsdk:"regions"`
	Accelerators   types.List    `tfsdk:"accelerators"`
	MinGPUs        types.Int64   `tfsdk:"min_gpus"`
	MinGPUMemoryGB types.Float64 `tfsdk:"min_gpu_memory_gb"`
	Offers         types.List    `tfsdk:"offers"`
	Summary        types.String  `tfsdk:"summary"`
}

// regionCountry is the country of an offer's region, null without region
// metadata.
func regionCountry(cat *catalog.Catalog, o *catalog.Offer) types.String {
	if r, ok := cat.Region(o.Cloud, o.Region); ok && r.Country != "" {
		return types.StringValue(r.Country)
	}
	return types.StringNull()
}

// memoryPerGPU is the accelerator memory an instance gives each GPU, GB:
// a fractional instance's share of one GPU.
func memoryPerGPU(o *catalog.Offer) float64 {
	if o.Fractional() || o.GPUs == 0 {
		return o.GPUMemoryGB
	}
	return o.GPUMemoryGB / float64(o.GPUs)
}
