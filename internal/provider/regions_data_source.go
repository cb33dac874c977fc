// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuplan/terraform-provider-gpu/internal/browse"
	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

var _ datasource.DataSourceWithConfigure = (*regionsDataSource)(nil)

// NewRegionsDataSource returns the gpu_regions data source.
func NewRegionsDataSource() datasource.DataSource {
	return &regionsDataSource{}
}

type regionsDataSource struct {
	data *providerData
}

func (d *regionsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_regions"
}

var regionAttrTypes = map[string]attr.Type{
	"cloud":              types.StringType,
	"region":             types.StringType,
	"city":               types.StringType,
	"country":            types.StringType,
	"country_name":       types.StringType,
	"geography":          types.StringType,
	"partition":          types.StringType,
	"compliance":         types.ListType{ElemType: types.StringType},
	"grid_gco2e_per_kwh": types.Float64Type,
	"pue":                types.Float64Type,
	"offers":             types.Int64Type,
}

// geographyDoc lists every geography bucket and what it covers, for
// schema descriptions.
func geographyDoc() string {
	parts := make([]string, len(catalog.Geographies))
	for i, g := range catalog.Geographies {
		parts[i] = fmt.Sprintf("`%s` (%s)", g.ID, g.Covers)
	}
	return strings.Join(parts, ", ")
}

func partitionNames() []string {
	out := make([]string, len(catalog.Partitions))
	for i, p := range catalog.Partitions {
		out[i] = string(p)
	}
	return out
}

func (d *regionsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	filter := func(desc string) schema.ListAttribute {
		return schema.ListAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: desc,
			Validators: []validator.List{nameList{empty: "an empty list matches no region. Omit the attribute for no filter, or list at least one value."}}}
	}
	str := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Lists the regions of the catalog with where they are and what they carry: country, geography bucket, " +
			"partition, compliance regimes, grid carbon intensity, PUE and how many GPU offers are priced there. Use it to find the " +
			"values `gpu_recommendation`'s `regions`, `countries`, `geographies` and `compliance` constraints take. The provider-level " +
			"`clouds` allow-list applies.",
		Attributes: map[string]schema.Attribute{
			"clouds": filter("Only these clouds, any case, for example `[\"aws\", \"gcp\"]`."),
			"countries": filter("Only regions in these countries: ISO 3166-1 alpha-2 or alpha-3 codes or English names, any case " +
				"(`[\"DE\", \"France\", \"UK\"]`). A country without a region is an error listing the countries that have one."),
			"geographies": filter("Only regions in these geography buckets: " + geographyDoc() + "."),
			"partitions": filter("Only regions of these partitions: " + codeList(partitionNames()) + " (government and China " +
				"regions need an account of their own)."),
			"compliance": filter("Only regions that carry every one of these regimes: " + codeList(catalog.ComplianceRegimes) + "."),
			"regions": schema.ListNestedAttribute{Computed: true, MarkdownDescription: "Matching regions sorted by cloud and region.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"cloud":        str("Cloud ID, for example `aws`."),
					"region":       str("The cloud's region code, for example `eu-central-1`."),
					"city":         str("City or area of the region, as the cloud names it (empty when unknown)."),
					"country":      str("Country, ISO 3166-1 alpha-2, for example `DE`."),
					"country_name": str("The country's ISO short name, for example `Germany`."),
					"geography":    str("Geography bucket: one of " + codeList(catalog.GeographyIDs()) + "."),
					"partition":    str("Partition: " + codeList(partitionNames()) + "."),
					"compliance": schema.ListAttribute{Computed: true, ElementType: types.StringType,
						MarkdownDescription: "Compliance regimes the region carries (" + codeList(catalog.ComplianceRegimes) + ")."},
					"grid_gco2e_per_kwh": schema.Float64Attribute{Computed: true,
						MarkdownDescription: "Location-based grid carbon intensity, gCO2e per kWh; null when unknown."},
					"pue": schema.Float64Attribute{Computed: true,
						MarkdownDescription: "Power usage effectiveness: the region's published figure, else its cloud's."},
					"offers": schema.Int64Attribute{Computed: true,
						MarkdownDescription: "GPU instance offers priced in the region (rows of `gpu_offers` with this cloud and region)."},
				}},
			},
			"summary": schema.StringAttribute{Computed: true,
				MarkdownDescription: "The regions as a fixed-width text table (cloud, region, location, geography, partition, grid " +
					"carbon, PUE, offers, compliance), for an `output`."},
		},
	}
}

func (d *regionsDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = configuredData(req.ProviderData, &resp.Diagnostics)
}

func (d *regionsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m regionsModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() || d.data == nil || !d.data.catalogKnown(&resp.Diagnostics, argClouds) {
		return
	}
	f := browse.RegionFilter{AllowedClouds: d.data.Clouds}
	for _, l := range []struct {
		v   types.List
		out *[]string
	}{{m.Clouds, &f.Clouds}, {m.Countries, &f.Countries}, {m.Geographies, &f.Geographies}, {m.Partitions, &f.Partitions}, {m.Compliance, &f.Compliance}} {
		resp.Diagnostics.Append(optionalStrings(ctx, l.v, l.out)...)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	regions, errs := browse.Regions(d.data.Catalog, f)
	addError(&resp.Diagnostics, errs.Err())
	if resp.Diagnostics.HasError() {
		return
	}
	objs := make([]attr.Value, 0, len(regions))
	for i, r := range regions {
		at := func(name string) string { return fmt.Sprintf("regions[%d].%s", i, name) }
		obj, diags := types.ObjectValue(regionAttrTypes, map[string]attr.Value{
			"cloud":              types.StringValue(r.Cloud),
			"region":             types.StringValue(r.ID),
			"city":               types.StringValue(r.City),
			"country":            types.StringValue(r.Country),
			"country_name":       types.StringValue(r.CountryName),
			"geography":          types.StringValue(r.Geography),
			"partition":          types.StringValue(string(r.Partition)),
			"compliance":         stringList(r.Compliance),
			"grid_gco2e_per_kwh": optionalFloat(&resp.Diagnostics, at("grid_gco2e_per_kwh"), r.GridGCO2ePerKWh),
			"pue":                float64Value(&resp.Diagnostics, at("pue"), r.PUE),
			"offers":             types.Int64Value(int64(r.Offers)),
		})
		resp.Diagnostics.Append(diags...)
		objs = append(objs, obj)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	m.Regions = types.ListValueMust(types.ObjectType{AttrTypes: regionAttrTypes}, objs)
	m.Summary = types.StringValue(browse.RegionsSummary(regions))
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

type regionsModel struct {
	Clouds      types.List   `tfsdk:"clouds"`
	Countries   types.List   `tfsdk:"countries"`
	Geographies types.List   `tfsdk:"geographies"`
	Partitions  types.List   `tfsdk:"partitions"`
	Compliance  types.List   `tfsdk:"compliance"`
	Regions     types.List   `tfsdk:"regions"`
	Summary     types.String `tfsdk:"summary"`
}
