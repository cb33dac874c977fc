// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package spec_test

import (
	"strings"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/spec"
)

func side(cloud string, nodes int, usd, gbps float64, fabric catalog.Fabric, memGB, linkGBps float64) spec.Side {
	return spec.Side{Cloud: cloud, Region: "r", InstanceType: cloud + ".8x", Accelerator: "X", PricingModel: catalog.OnDemand,
		Nodes: nodes, GPUsPerNode: 8, MonthlyUSD: usd, NetworkGbps: gbps, Fabric: fabric, GPUMemoryGB: memGB,
		Interconnect: "Link", InterconnectGBps: linkGBps}
}

func TestCostChange(t *testing.T) {
	a := side("a", 2, 1000, 3200, catalog.FabricEFA, 80, 900)
	tests := []struct {
		name     string
		old, cur spec.Side
		want     string
	}{
		{"unchanged", a, a, ""},
		{"the same cents", a, func() spec.Side { s := a; s.MonthlyUSD = 1000.004; return s }(), ""},
		{"cheaper elsewhere", a, side("b", 2, 750, 3200, catalog.FabricEFA, 80, 900),
			"2× a.8x (16× X) on a r, on_demand → 2× b.8x (16× X) on b r, on_demand: the monthly cost goes from $1,000.00 to $750.00 (−25%, −$250.00 a month)."},
		{"moved at the same cost", a, side("b", 2, 1000, 3200, catalog.FabricEFA, 80, 900), "(±0%, +$0.00 a month)"},
		{"more storage, same place", a, func() spec.Side { s := a; s.MonthlyUSD = 1100; return s }(), "(+10%, +$100.00 a month)"},
		{"from a zero cost", side("a", 2, 0, 0, "", 0, 0), a, "(n/a: the old cost is 0, +$1,000.00 a month)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := spec.CostChange(tt.old, tt.cur)
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Errorf("CostChange = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDowngrades(t *testing.T) {
	a := side("a", 4, 1000, 3200, catalog.FabricEFA, 80, 900)
	tests := []struct {
		name     string
		old, cur spec.Side
		want     []string
	}{
		{"none", a, a, nil},
		{"an upgrade is no downgrade", side("b", 4, 1, 800, catalog.FabricNone, 40, 64), a, nil},
		{"network, fabric, memory and link", a, side("b", 4, 900, 800, catalog.FabricNone, 40, 64), []string{
			"scale-out network per node: 3,200 → 800 Gbit/s (−75%) between the 4 nodes",
			"fabric: efa → none (no RDMA between the nodes: multi-node training slows down)",
			"GPU memory: 80 → 40 GB per GPU (−50%)",
			"GPU interconnect: Link (900 GB/s) → Link (64 GB/s) per GPU",
		}},
		{"one node: no fabric between nodes", a, side("b", 1, 900, 800, catalog.FabricNone, 80, 900), nil},
		{"figures unknown on one side are skipped", a, side("b", 4, 900, 0, "", 0, 0), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := spec.Downgrades(tt.old, tt.cur)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("Downgrades =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestSideOf(t *testing.T) {
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	o, ok := cat.Offer("aws", "p5.48xlarge", "us-east-1")
	acc, ok2 := cat.Accelerator("H100")
	if !ok || !ok2 {
		t.Fatal("catalog lacks aws p5.48xlarge in us-east-1 or H100")
	}
	s := spec.SideOf(cat, spec.Side{Cloud: "aws", Region: "us-east-1", InstanceType: "p5.48xlarge", Accelerator: "h100-sxm"})
	if s.Accelerator != "H100" || s.NetworkGbps != o.NetworkGbps || s.Fabric != o.Fabric || s.GPUMemoryGB != acc.MemoryGB ||
		s.InterconnectGBps != acc.InterconnectGBps {
		t.Errorf("SideOf = %+v", s)
	}
	gone := spec.SideOf(cat, spec.Side{Cloud: "aws", Region: "mars-1", InstanceType: "p9", Accelerator: "Z9"})
	if gone.NetworkGbps != 0 || gone.GPUMemoryGB != 0 || gone.Accelerator != "Z9" {
		t.Errorf("unknown offer and accelerator: %+v", gone)
	}
}
