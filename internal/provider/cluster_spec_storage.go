// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"math"
	"math/big"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/dynamicdefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/spec"
)

// gpu_cluster_spec's `storage` is an object input like the data sources'
// (object_input.go): a Dynamic attribute, so a misspelled key is an error.
// Its state holds the object as the configuration wrote it (a configured
// value must be planned unchanged), or the default when it is not set.
// Schema version 0 stored it as a static object of both keys;
// upgradeStorageV0 rewrites such a state.

// clusterSpecSchemaVersion is the version of gpu_cluster_spec's schema:
// 1 since `storage` became a Dynamic attribute.
const clusterSpecSchemaVersion = 1

// clusterStorageKeys is the key table of gpu_cluster_spec's `storage`.
var clusterStorageKeys = sync.OnceValue(func() *objectKeys[spec.Storage] {
	data := limitOf(catalog.LimitDataGB).atMost(math.MaxInt32)
	return &objectKeys[spec.Storage]{keys: []key[spec.Storage]{
		{name: "block_gb", doc: "Block storage (volumes attached to the nodes) in GB, in total.", def: "`0`",
			is: whole(data, func(s *spec.Storage) *int64 { return &s.BlockGB })},
		{name: "object_gb", doc: "Object storage (datasets, checkpoints) in GB.", def: "`0`",
			is: whole(data, func(s *spec.Storage) *int64 { return &s.ObjectGB })},
	}}
})

// storageAttribute is gpu_cluster_spec's `storage`.
func storageAttribute() schema.DynamicAttribute {
	keys := clusterStorageKeys()
	return schema.DynamicAttribute{
		Optional: true,
		Computed: true,
		Default:  dynamicdefault.StaticValue(storageValue(spec.Storage{})),
		MarkdownDescription: objectDoc("Storage the cluster keeps, priced into `monthly_cost_usd` at the cloud's block and "+
			"object list prices, for example `{ block_gb = 2000, object_gb = 50000 }`. Default: none (`{ block_gb = 0, "+
			"object_gb = 0 }`).", keys),
		Validators: []validator.Dynamic{objectValidator{keys}},
	}
}

// storageValue is the state of a storage the configuration did not write
// (the default, an import, an upgraded state): the keys with a non-zero
// size, as a configuration that sets only those writes them, or both keys
// at 0 for none, as the default. Either matches the most likely
// configuration, so the next plan shows no change.
func storageValue(s spec.Storage) types.Dynamic {
	attrTypes, attrs := map[string]attr.Type{}, map[string]attr.Value{}
	for name, gb := range map[string]int64{"block_gb": s.BlockGB, "object_gb": s.ObjectGB} {
		if gb != 0 || (s.BlockGB == 0 && s.ObjectGB == 0) {
			attrTypes[name], attrs[name] = types.NumberType, types.NumberValue(new(big.Float).SetInt64(gb))
		}
	}
	return types.DynamicValue(types.ObjectValueMust(attrTypes, attrs))
}

// UpgradeState rewrites a version-0 state, whose storage was a static
// object, for the Dynamic attribute.
func (r *clusterSpecResource) UpgradeState(ctx context.Context) map[int64]resource.StateUpgrader {
	var current resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &current)
	prior := current.Schema
	prior.Version = 0
	prior.Attributes = map[string]schema.Attribute{}
	for name, a := range current.Schema.Attributes {
		prior.Attributes[name] = a
	}
	prior.Attributes["storage"] = schema.SingleNestedAttribute{Optional: true, Computed: true, Attributes: map[string]schema.Attribute{
		"block_gb":  schema.Int64Attribute{Optional: true, Computed: true},
		"object_gb": schema.Int64Attribute{Optional: true, Computed: true},
	}}
	return map[int64]resource.StateUpgrader{0: {PriorSchema: &prior, StateUpgrader: upgradeStorageV0}}
}

// upgradeStorageV0 keeps every attribute of a version-0 state but storage,
// which becomes storageValue of its sizes.
func upgradeStorageV0(ctx context.Context, req resource.UpgradeStateRequest, resp *resource.UpgradeStateResponse) {
	var attrs map[string]tftypes.Value
	if err := req.State.Raw.As(&attrs); err != nil {
		addBug(&resp.Diagnostics, "reading a version-0 gpu_cluster_spec state", err)
		return
	}
	var old struct {
		BlockGB  types.Int64 `tfsdk:"block_gb"`
		ObjectGB types.Int64 `tfsdk:"object_gb"`
	}
	var st types.Object
	if resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("storage"), &st)...); resp.Diagnostics.HasError() {
		return
	}
	var s spec.Storage
	if !st.IsNull() && !st.IsUnknown() {
		resp.Diagnostics.Append(st.As(ctx, &old, basetypes.ObjectAsOptions{})...)
		s = spec.Storage{BlockGB: old.BlockGB.ValueInt64(), ObjectGB: old.ObjectGB.ValueInt64()}
	}
	v, err := storageValue(s).ToTerraformValue(ctx)
	if err != nil {
		addBug(&resp.Diagnostics, "upgrading a gpu_cluster_spec state", err)
		return
	}
	attrs["storage"] = v
	typ := resp.State.Schema.Type().TerraformType(ctx)
	if err := tftypes.ValidateValue(typ, attrs); err != nil {
		addBug(&resp.Diagnostics, "upgrading a gpu_cluster_spec state", err)
		return
	}
	resp.State.Raw = tftypes.NewValue(typ, attrs)
}
