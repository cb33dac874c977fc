// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package spec

import (
	"fmt"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/numfmt"
)

// Side is one placement of a cluster as a change compares it: where and
// how it runs, its monthly cost, and the hardware figures a move can lose
// (zero when the catalog no longer knows the offer or the accelerator).
type Side struct {
	Cloud, Region, InstanceType, Accelerator string
	PricingModel                             catalog.PricingModel
	Nodes, GPUsPerNode                       int
	MonthlyUSD                               float64

	NetworkGbps      float64 // scale-out bandwidth per node
	Fabric           catalog.Fabric
	GPUMemoryGB      float64 // per GPU
	Interconnect     string  // the vendor's name of the scale-up link
	InterconnectGBps float64 // scale-up bandwidth per GPU
}

// SideOf fills a placement's hardware figures from the catalog: the offer
// of (cloud, instance type, region) and the accelerator (ID or alias).
// What the catalog does not know stays zero and is not compared.
func SideOf(cat *catalog.Catalog, s Side) Side {
	s.PricingModel = catalog.PricingModelOf(string(s.PricingModel))
	if o, ok := cat.Offer(s.Cloud, s.InstanceType, s.Region); ok {
		s.NetworkGbps, s.Fabric = o.NetworkGbps, o.Fabric
	}
	if a, ok := cat.Accelerator(s.Accelerator); ok {
		s.Accelerator = a.ID
		s.GPUMemoryGB, s.Interconnect, s.InterconnectGBps = a.MemoryGB, a.Interconnect, a.InterconnectGBps
	}
	return s
}

// Moved reports whether the cluster runs elsewhere or differently: another
// cloud, region, instance type, accelerator, size or pricing model.
func Moved(old, cur Side) bool {
	return old.Cloud != cur.Cloud || old.Region != cur.Region || old.InstanceType != cur.InstanceType ||
		old.Accelerator != cur.Accelerator || old.Nodes != cur.Nodes || old.GPUsPerNode != cur.GPUsPerNode ||
		old.PricingModel != cur.PricingModel
}

// CostChange describes the monthly cost change of an update, old → new
// with the relative change, or "" when the cluster neither moves nor
// changes cost. Costs are compared in cents.
func CostChange(old, cur Side) string {
	before, after := numfmt.USD(old.MonthlyUSD), numfmt.USD(cur.MonthlyUSD)
	if before == after && !Moved(old, cur) {
		return ""
	}
	change := "n/a: the old cost is 0"
	if before > 0 {
		change = numfmt.SignedPercent((after - before) / before)
	}
	return fmt.Sprintf("%s → %s: the monthly cost goes from $%s to $%s (%s, %s$%s a month).",
		placement(old), placement(cur), numfmt.Thousands(before, 2), numfmt.Thousands(after, 2), change,
		sign(after-before), numfmt.Thousands(abs(after-before), 2))
}

// Downgrades lists what the new placement loses against the old: scale-out
// bandwidth per node or the RDMA fabric (a cluster of several nodes only,
// where the fabric joins them), GPU memory, and scale-up interconnect
// bandwidth. Figures the catalog does not know on either side are skipped.
func Downgrades(old, cur Side) []string {
	var out []string
	if cur.Nodes > 1 {
		if old.NetworkGbps > 0 && cur.NetworkGbps > 0 && cur.NetworkGbps < old.NetworkGbps {
			out = append(out, fmt.Sprintf("scale-out network per node: %s → %s Gbit/s (%s) between the %d nodes",
				numfmt.Int(old.NetworkGbps), numfmt.Int(cur.NetworkGbps),
				numfmt.SignedPercent((cur.NetworkGbps-old.NetworkGbps)/old.NetworkGbps), cur.Nodes))
		}
		if rdma(old.Fabric) && !rdma(cur.Fabric) && cur.Fabric != "" {
			out = append(out, fmt.Sprintf("fabric: %s → %s (no RDMA between the nodes: multi-node training slows down)", old.Fabric, cur.Fabric))
		}
	}
	if old.GPUMemoryGB > 0 && cur.GPUMemoryGB > 0 && cur.GPUMemoryGB < old.GPUMemoryGB {
		out = append(out, fmt.Sprintf("GPU memory: %s → %s GB per GPU (%s)", numfmt.Trim(old.GPUMemoryGB, 2),
			numfmt.Trim(cur.GPUMemoryGB, 2), numfmt.SignedPercent((cur.GPUMemoryGB-old.GPUMemoryGB)/old.GPUMemoryGB)))
	}
	if old.InterconnectGBps > 0 && cur.InterconnectGBps > 0 && cur.InterconnectGBps < old.InterconnectGBps {
		out = append(out, fmt.Sprintf("GPU interconnect: %s (%s GB/s) → %s (%s GB/s) per GPU", old.Interconnect,
			numfmt.Int(old.InterconnectGBps), cur.Interconnect, numfmt.Int(cur.InterconnectGBps)))
	}
	return out
}

// rdma reports whether a fabric gives the nodes RDMA (or, on TPUs, the
// chips' own inter-chip interconnect).
func rdma(f catalog.Fabric) bool { return f != "" && f != catalog.FabricNone }

func placement(s Side) string {
	return fmt.Sprintf("%d× %s (%d× %s) on %s %s, %s", s.Nodes, s.InstanceType, s.Nodes*s.GPUsPerNode, s.Accelerator,
		s.Cloud, s.Region, s.PricingModel)
}

func sign(v float64) string {
	if v < 0 {
		return "−"
	}
	return "+"
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}
