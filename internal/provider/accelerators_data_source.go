// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

var _ datasource.DataSourceWithConfigure = (*acceleratorsDataSource)(nil)

// NewAcceleratorsDataSource returns the gpu_accelerators data source.
func NewAcceleratorsDataSource() datasource.DataSource {
	return &acceleratorsDataSource{}
}

type acceleratorsDataSource struct {
	data *providerData
}

func (d *acceleratorsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_accelerators"
}

var acceleratorAttrTypes = map[string]attr.Type{
	"id":                    types.StringType,
	"vendor":                types.StringType,
	"memory_gb":             types.Float64Type,
	"memory_bandwidth_tbps": types.Float64Type,
	"peak_tflops":           types.MapType{ElemType: types.Float64Type},
	"tdp_watts":             types.Float64Type,
	"interconnect":          types.StringType,
	"interconnect_gbps":     types.Float64Type,
	"aliases":               types.ListType{ElemType: types.StringType},
}

func (d *acceleratorsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Lists the accelerators (GPUs, TPUs, Trainium, Gaudi, ...) of the catalog with the specifications " +
			"that decide real-world speed: memory, memory bandwidth, dense peak throughput per precision, power and interconnect. " +
			"Use it to look past headline TFLOPS, or to feed accelerator IDs into `gpu_recommendation` constraints.",
		Attributes: map[string]schema.Attribute{
			"ids": schema.ListAttribute{
				Optional:    true,
				ElementType: types.StringType,
				MarkdownDescription: "Only these accelerators, by canonical ID or alias, case-insensitive (for example `[\"H100\", \"mi300x\"]`). " +
					"Default: every accelerator, sorted by ID.",
				Validators: []validator.List{nameList{empty: "an empty list lists no accelerator. Omit ids for every accelerator, or list at least one."}},
			},
			"accelerators": schema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: "The accelerators, in the order of `ids` when given, otherwise sorted by `id`.",
				NestedObject: schema.NestedAttributeObject{
					Attributes: map[string]schema.Attribute{
						"id":                    schema.StringAttribute{Computed: true, MarkdownDescription: "Canonical ID, for example `H100`."},
						"vendor":                schema.StringAttribute{Computed: true, MarkdownDescription: "Vendor: `NVIDIA`, `AMD`, `Google`, `AWS` or `Intel`."},
						"memory_gb":             schema.Float64Attribute{Computed: true, MarkdownDescription: "On-device memory per accelerator, GB."},
						"memory_bandwidth_tbps": schema.Float64Attribute{Computed: true, MarkdownDescription: "Memory bandwidth per accelerator, TB/s."},
						"peak_tflops": schema.MapAttribute{Computed: true, ElementType: types.Float64Type,
							MarkdownDescription: "Dense (no sparsity) peak TFLOPS per precision (`fp32`, `tf32`, `bf16`, `fp16`, `fp8`, `fp4`; TOPS for `int8`, `int4`). A precision that is absent is not supported by the hardware."},
						"tdp_watts":         schema.Float64Attribute{Computed: true, MarkdownDescription: "Thermal design power, watts (null where the vendor publishes none)."},
						"interconnect":      schema.StringAttribute{Computed: true, MarkdownDescription: "Scale-up interconnect, for example `NVLink 4`."},
						"interconnect_gbps": schema.Float64Attribute{Computed: true, MarkdownDescription: "Scale-up interconnect bandwidth per device, GB/s as the vendor quotes it (null when unknown)."},
						"aliases":           schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Other accepted names, lower case."},
					},
				},
			},
		},
	}
}

func (d *acceleratorsDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = configuredData(req.ProviderData, &resp.Diagnostics)
}

func (d *acceleratorsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m acceleratorsModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() || d.data == nil {
		return
	}
	if !d.data.catalogKnown(&resp.Diagnostics) {
		return
	}
	cat := d.data.Catalog

	var list []*catalog.Accelerator
	if m.IDs.IsNull() {
		for _, id := range cat.AcceleratorIDs() {
			a, _ := cat.Accelerator(id)
			list = append(list, a)
		}
	} else {
		var ids []string
		resp.Diagnostics.Append(m.IDs.ElementsAs(ctx, &ids, false)...)
		unknowns := 0
		for i, id := range ids {
			a, ok := cat.Accelerator(id)
			if !ok {
				at := fmt.Sprintf("ids[%d]", i)
				resp.Diagnostics.AddAttributeError(path.Root("ids").AtListIndex(i), "Unknown Accelerator",
					lazyDetail(&unknowns, at, func() string { return cat.UnknownAccelerator(at, id) }))
				continue
			}
			warnAmbiguousAccelerator(&resp.Diagnostics, cat, path.Root("ids").AtListIndex(i), fmt.Sprintf("ids[%d]", i), id)
			list = append(list, a)
		}
		if resp.Diagnostics.HasError() {
			return
		}
	}

	objs := make([]attr.Value, 0, len(list))
	for i, a := range list {
		at := func(name string) string { return fmt.Sprintf("accelerators[%d].%s", i, name) }
		peaks := make(map[string]attr.Value, len(a.PeakTFLOPS))
		for k, v := range a.PeakTFLOPS {
			peaks[k] = float64Value(&resp.Diagnostics, at("peak_tflops")+fmt.Sprintf("[%q]", k), v)
		}
		aliases := make([]attr.Value, 0, len(a.Aliases))
		for _, al := range a.Aliases {
			aliases = append(aliases, types.StringValue(al))
		}
		obj, diags := types.ObjectValue(acceleratorAttrTypes, map[string]attr.Value{
			"id":                    types.StringValue(a.ID),
			"vendor":                types.StringValue(a.Vendor),
			"memory_gb":             float64Value(&resp.Diagnostics, at("memory_gb"), a.MemoryGB),
			"memory_bandwidth_tbps": float64Value(&resp.Diagnostics, at("memory_bandwidth_tbps"), a.MemoryBandwidthTBps),
			"peak_tflops":           types.MapValueMust(types.Float64Type, peaks),
			"tdp_watts":             optionalFloat(&resp.Diagnostics, at("tdp_watts"), a.TDPWatts),
			"interconnect":          types.StringValue(a.Interconnect),
			"interconnect_gbps":     optionalFloat(&resp.Diagnostics, at("interconnect_gbps"), a.InterconnectGBps),
			"aliases":               types.ListValueMust(types.StringType, aliases),
		})
		resp.Diagnostics.Append(diags...)
		objs = append(objs, obj)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	m.Accelerators = types.ListValueMust(types.ObjectType{AttrTypes: acceleratorAttrTypes}, objs)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// optionalFloat maps the catalog's "0 = unknown / not sold" to null.
func optionalFloat(diags *diag.Diagnostics, attribute string, v float64) types.Float64 {
	if v <= 0 {
		return types.Float64Null()
	}
	return float64Value(diags, attribute, v)
}

type acceleratorsModel struct {
	IDs          types.List `tfsdk:"ids"`
	Accelerators types.List `tfsdk:"accelerators"`
}
