// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/numfmt"
	"github.com/gpuplan/terraform-provider-gpu/internal/spec"
)

// csPlan runs the resource's ModifyPlan as Terraform's plan does: the
// configuration of cloud, accelerator and nodes (8 GPUs per node, 2 TB of
// block storage, every other input at its default, computed attributes
// unknown), the prior
// state when updating (nil when creating). It returns the planned values
// and the diagnostics.
func csPlan(t *testing.T, prior *clusterSpecModel, cloud, accelerator string, nodes int64) (clusterSpecModel, diag.Diagnostics) {
	t.Helper()
	ctx := context.Background()
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	r := &clusterSpecResource{data: &providerData{Catalog: cat, Discounts: map[string]float64{}}}
	var sresp resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &sresp)
	typ := sresp.Schema.Type().TerraformType(ctx)
	cfg := clusterSpecModel{
		Name: types.StringValue("llm-train"), Cloud: types.StringValue(cloud), Region: types.StringNull(),
		Accelerator: types.StringValue(accelerator), GPUsPerNode: types.Int64Value(8), Nodes: types.Int64Value(nodes),
		PricingModel: types.StringValue(string(catalog.OnDemand)),
		Storage:      storageValue(spec.Storage{BlockGB: 2000}),
		Labels:       types.MapValueMust(types.StringType, map[string]attr.Value{}),
	}
	cfg.setUnknown()
	cfg.Region = types.StringNull()
	plan := tfsdk.Plan{Schema: sresp.Schema, Raw: tftypes.NewValue(typ, nil)}
	if d := plan.Set(ctx, &cfg); d.HasError() {
		t.Fatal(d)
	}
	req := resource.ModifyPlanRequest{
		Config: tfsdk.Config{Schema: sresp.Schema, Raw: plan.Raw.Copy()},
		Plan:   plan,
		State:  tfsdk.State{Schema: sresp.Schema, Raw: tftypes.NewValue(typ, nil)},
	}
	if prior != nil {
		if d := req.State.Set(ctx, prior); d.HasError() {
			t.Fatal(d)
		}
	}
	resp := resource.ModifyPlanResponse{Plan: plan}
	r.ModifyPlan(ctx, req, &resp)
	var out clusterSpecModel
	if d := resp.Plan.Get(ctx, &out); d.HasError() {
		t.Fatal(d)
	}
	return out, resp.Diagnostics
}

func warningsOf(diags diag.Diagnostics) map[string]string {
	out := map[string]string{}
	for _, d := range diags.Warnings() {
		out[d.Summary()] = d.Detail()
	}
	return out
}

// TestClusterSpecSwitchWarnings runs ModifyPlan as Terraform does on a
// cloud switch of a 4-node H100 cluster (terraform-plugin-testing cannot
// read warnings: TestCLIWarnings in internal/release/install_local_test.go
// checks the same warning in `terraform plan -json` of the installed
// provider). The expected figures come from the catalog's
// offers, not from the provider's answer.
func TestClusterSpecSwitchWarnings(t *testing.T) {
	t.Parallel()
	created, diags := csPlan(t, nil, "aws", "H100", 4)
	if diags.HasError() || len(diags.Warnings()) != 0 {
		t.Fatalf("create: %v", diags)
	}
	same, diags := csPlan(t, &created, "aws", "h100-sxm", 4)
	if diags.HasError() || len(diags.Warnings()) != 0 || same.InstanceType != created.InstanceType {
		t.Fatalf("an unchanged cluster (the accelerator by alias) warns nothing: %v", diags)
	}

	moved, diags := csPlan(t, &created, "gcp", "H100", 4)
	if diags.HasError() {
		t.Fatal(diags)
	}
	cat, _ := catalog.Builtin()
	awsOffer, _ := cat.Offer("aws", created.InstanceType.ValueString(), created.Region.ValueString())
	gcpOffer, _ := cat.Offer("gcp", moved.InstanceType.ValueString(), moved.Region.ValueString())
	before, after := created.MonthlyCostUSD.ValueFloat64(), moved.MonthlyCostUSD.ValueFloat64()
	w := warningsOf(diags)
	cost := w["Cluster Monthly Cost Changes"]
	for _, want := range []string{
		fmt.Sprintf("4× %s (32× H100) on aws %s, on_demand → 4× %s (32× H100) on gcp %s, on_demand",
			awsOffer.InstanceType, awsOffer.Region, gcpOffer.InstanceType, gcpOffer.Region),
		fmt.Sprintf("from $%s to $%s (%s,", numfmt.Thousands(before, 2), numfmt.Thousands(after, 2),
			numfmt.SignedPercent((after-before)/before)),
	} {
		if !strings.Contains(cost, want) {
			t.Errorf("cost warning lacks %q:\n%s", want, cost)
		}
	}
	if !strings.Contains(cost, "%") {
		t.Errorf("cost warning without a percentage: %q", cost)
	}
	down := w["Cluster Hardware Downgrade"]
	if gcpOffer.NetworkGbps < awsOffer.NetworkGbps {
		want := fmt.Sprintf("scale-out network per node: %s → %s Gbit/s", numfmt.Int(awsOffer.NetworkGbps), numfmt.Int(gcpOffer.NetworkGbps))
		if !strings.Contains(down, want) {
			t.Errorf("downgrade warning lacks %q:\n%s", want, down)
		}
	} else if down != "" {
		t.Errorf("no downgrade, but a warning:\n%s", down)
	}

	// A smaller accelerator loses GPU memory; one node has no fabric to lose.
	small, diags := csPlan(t, &created, "aws", "A100-40GB", 1)
	if diags.HasError() {
		t.Fatal(diags)
	}
	down = warningsOf(diags)["Cluster Hardware Downgrade"]
	if !strings.Contains(down, "GPU memory: 80 → 40 GB per GPU (−50%)") || strings.Contains(down, "scale-out") {
		t.Errorf("downgrade to %s: %q", small.InstanceType, down)
	}
}
