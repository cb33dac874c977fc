// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

// Command minprov is the smallest terraform-plugin-framework provider: one
// data source that echoes its input. plan_timing.sh times it as the floor
// that any framework provider pays in `terraform plan` (starting the plugin
// process three times, the schema and the RPCs), to put the gpu provider's
// plan time in context. It is not part of the gpu provider.
package main

import (
	"context"
	"log"

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
	return []func() datasource.DataSource{func() datasource.DataSource { return echo{} }}
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

func main() {
	err := providerserver.Serve(context.Background(), func() provider.Provider { return echoProvider{} },
		providerserver.ServeOpts{Address: "registry.terraform.io/gpuplan/gpu"})
	if err != nil {
		log.Fatal(err)
	}
}
