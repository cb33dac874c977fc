// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/spec"
)

// warnChange warns, when an update moves the cluster or changes its cost,
// with the monthly cost change (old → new, ±%) and with what the new
// placement loses: scale-out bandwidth or RDMA between nodes, GPU memory,
// GPU interconnect. The old placement is the prior state's; its hardware
// figures come from the catalog. Creates, destroys and unchanged plans
// warn nothing.
func (r *clusterSpecResource) warnChange(ctx context.Context, state tfsdk.State, plan *clusterSpecModel, diags *diag.Diagnostics) {
	if state.Raw.IsNull() {
		return
	}
	var prior clusterSpecModel
	if d := state.Get(ctx, &prior); d.HasError() || !prior.placed() || !plan.placed() {
		return
	}
	old, cur := spec.SideOf(r.data.Catalog, prior.side()), spec.SideOf(r.data.Catalog, plan.side())
	if msg := spec.CostChange(old, cur); msg != "" {
		diags.AddWarning("Cluster Monthly Cost Changes", msg)
	}
	if downs := spec.Downgrades(old, cur); len(downs) > 0 {
		diags.AddWarning("Cluster Hardware Downgrade", "The new placement has less than the old one:\n  - "+
			strings.Join(downs, "\n  - ")+"\nCheck that the workload still fits and runs fast enough, or keep the old placement.")
	}
}

// placed reports whether the model holds a known placement and cost.
func (m *clusterSpecModel) placed() bool {
	for _, v := range []interface {
		IsNull() bool
		IsUnknown() bool
	}{m.Cloud, m.Region, m.InstanceType, m.Accelerator, m.GPUsPerNode, m.Nodes, m.PricingModel, m.MonthlyCostUSD} {
		if v.IsNull() || v.IsUnknown() {
			return false
		}
	}
	return true
}

func (m *clusterSpecModel) side() spec.Side {
	return spec.Side{
		Cloud: m.Cloud.ValueString(), Region: m.Region.ValueString(), InstanceType: m.InstanceType.ValueString(),
		Accelerator: m.Accelerator.ValueString(), PricingModel: catalog.PricingModel(m.PricingModel.ValueString()),
		Nodes: int(m.Nodes.ValueInt64()), GPUsPerNode: int(m.GPUsPerNode.ValueInt64()), MonthlyUSD: m.MonthlyCostUSD.ValueFloat64(),
	}
}

// clusterSpecChangeDoc documents the warnings of warnChange.
const clusterSpecChangeDoc = "An update that moves the cluster (another cloud, region, instance type, accelerator, size or pricing " +
	"model) or changes its cost warns during plan with the monthly cost change, old → new with the relative change " +
	"(`Cluster Monthly Cost Changes`), and with anything the new placement loses (`Cluster Hardware Downgrade`): scale-out " +
	"bandwidth per node or the RDMA fabric of a multi-node cluster, GPU memory, GPU interconnect bandwidth."
