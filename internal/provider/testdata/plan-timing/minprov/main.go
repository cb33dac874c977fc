// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

// Command minprov is the smallest terraform-plugin-framework provider: one
// data source that echoes its input. plan_timing.sh times it as the floor
// that any framework provider pays in `terraform plan` (starting the plugin
// process three times, the schema and the RPCs), to put the gpu provider's
// plan time in context. A second data source, gpu_table, computes nothing
// but returns rows of the size and shape of a recommendation's candidates:
// the floor of a provider that carries the same outputs through the
// framework and Terraform. It is not part of the gpu provider.
package main

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

type echoProvider struct{}

func (echoProvider) Metadata(_ context.Context, _ provider.MetadataRequest, r *provider.MetadataResponse) {
	r.TypeName = "gpu"
}
func (echoProvider) Schema(context.Context, provider.SchemaRequest, *provider.SchemaResponse) {}
func (echoProvider) Configure(context.Context, provider.ConfigureRequest, *provider.ConfigureResponse) {
}
func (echoProvider) Resources(context.Context) []func() resource.Resource { return nil }
func (echoProvider) DataSources(context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{func() datasource.DataSource { return echo{} }, func() datasource.DataSource { return table{} }}
}

type echo struct{}

func (echo) Metadata(_ context.Context, _ datasource.MetadataRequest, r *datasource.MetadataResponse) {
	r.TypeName = "gpu_echo"
}

func (echo) Schema(_ context.Context, _ datasource.SchemaRequest, r *datasource.SchemaResponse) {
	r.Schema = dschema.Schema{Attributes: map[string]dschema.Attribute{
		"input":  dschema.StringAttribute{Required: true},
		"output": dschema.StringAttribute{Computed: true},
	}}
}

func (echo) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var in types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("input"), &in)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("input"), in)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("output"), in)...)
}

// table returns `rows` rows like a recommendation candidate: 20 strings,
// 10 numbers, a nested object of 6 values and a 400-byte explanation.
type table struct{}

const (
	tableStrings, tableNumbers, tableNested = 20, 10, 6
	explanationBytes                        = 400
)

func (table) Metadata(_ context.Context, _ datasource.MetadataRequest, r *datasource.MetadataResponse) {
	r.TypeName = "gpu_table"
}

func tableRowTypes() map[string]attr.Type {
	t := map[string]attr.Type{"text": types.StringType}
	nested := map[string]attr.Type{}
	for i := range tableStrings {
		t[fmt.Sprintf("s%02d", i)] = types.StringType
	}
	for i := range tableNumbers {
		t[fmt.Sprintf("n%02d", i)] = types.Float64Type
	}
	for i := range tableNested {
		nested[fmt.Sprintf("m%02d", i)] = types.Int64Type
	}
	t["nested"] = types.ObjectType{AttrTypes: nested}
	return t
}

func (table) Schema(_ context.Context, _ datasource.SchemaRequest, r *datasource.SchemaResponse) {
	r.Schema = dschema.Schema{Attributes: map[string]dschema.Attribute{
		"rows":  dschema.Int64Attribute{Required: true},
		"table": dschema.ListAttribute{Computed: true, ElementType: types.ObjectType{AttrTypes: tableRowTypes()}},
	}}
}

func (table) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var n types.Int64
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("rows"), &n)...)
	rowTypes := tableRowTypes()
	nestedTypes := rowTypes["nested"].(types.ObjectType).AttrTypes
	rows := make([]attr.Value, n.ValueInt64())
	for r := range rows {
		v := map[string]attr.Value{"text": types.StringValue(strings.Repeat("x", explanationBytes))}
		for i := range tableStrings {
			v[fmt.Sprintf("s%02d", i)] = types.StringValue(fmt.Sprintf("value-%d-%d", r, i))
		}
		for i := range tableNumbers {
			v[fmt.Sprintf("n%02d", i)] = types.Float64Value(float64(r*i) + 0.25)
		}
		nested := map[string]attr.Value{}
		for i := range tableNested {
			nested[fmt.Sprintf("m%02d", i)] = types.Int64Value(int64(i))
		}
		v["nested"] = types.ObjectValueMust(nestedTypes, nested)
		rows[r] = types.ObjectValueMust(rowTypes, v)
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("rows"), n)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("table"), types.ListValueMust(types.ObjectType{AttrTypes: rowTypes}, rows))...)
}

func main() {
	err := providerserver.Serve(context.Background(), func() provider.Provider { return echoProvider{} },
		providerserver.ServeOpts{Address: "registry.terraform.io/gpuplan/gpu"})
	if err != nil {
		log.Fatal(err)
	}
}
