// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package spec_test

import (
	"errors"
	"math"
	"reflect"
	"regexp"
	"slices"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/inputerr"
	"github.com/gpuplan/terraform-provider-gpu/internal/spec"
)

func opts() spec.Options { return spec.Options{HoursPerMonth: hoursPerMonth} }

func base(mod func(*spec.Request)) spec.Request {
	r := spec.Request{Name: "train", Cloud: "alpha", Accelerator: "X100", GPUsPerNode: 8, Nodes: 1}
	if mod != nil {
		mod(&r)
	}
	return r
}

func TestRenderChoosesInstanceRegionAndPrice(t *testing.T) {
	t.Parallel()
	cat := fixture(t)
	tests := []struct {
		name         string
		req          spec.Request
		opts         spec.Options
		wantIT       string
		wantRegion   string
		wantHourly   float64
		wantMonthly  float64
		wantScaleOut string
		wantEq       []string // clouds in equivalents, in order
	}{
		{
			name: "cheapest region; price tie broken by instance type",
			req:  base(nil), opts: opts(),
			wantIT: "a1.8x", wantRegion: "r-west", wantHourly: 9, wantMonthly: 9 * 730,
			wantScaleOut: "rdma-3200g", wantEq: []string{"beta"},
		},
		{
			name: "region given: cheapest instance type there",
			req:  base(func(r *spec.Request) { r.Region = "r-east" }), opts: opts(),
			wantIT: "a2.8x", wantRegion: "r-east", wantHourly: 9, wantMonthly: 9 * 730,
			wantScaleOut: "ethernet-400g", wantEq: []string{"beta"},
		},
		{
			name: "several nodes prefer an RDMA fabric over a cheaper plain network",
			req:  base(func(r *spec.Request) { r.Region = "r-east"; r.Nodes = 2 }), opts: opts(),
			wantIT: "a1.8x", wantRegion: "r-east", wantHourly: 20, wantMonthly: 20 * 730,
			wantScaleOut: "rdma-3200g", wantEq: []string{"beta"},
		},
		{
			name: "spot priced where spot is sold; no other cloud sells spot",
			req:  base(func(r *spec.Request) { r.PricingModel = catalog.Spot }), opts: opts(),
			wantIT: "a1.8x", wantRegion: "r-east", wantHourly: 4, wantMonthly: 4 * 730,
			wantScaleOut: "rdma-3200g", wantEq: nil,
		},
		{
			name: "nodes, discount and storage",
			req: base(func(r *spec.Request) {
				r.Nodes = 3
				r.Storage = spec.Storage{BlockGB: 1000, ObjectGB: 5000}
			}),
			opts:   spec.Options{HoursPerMonth: hoursPerMonth, Discounts: map[string]float64{"alpha": 0.1}},
			wantIT: "a1.8x", wantRegion: "r-west", wantHourly: 9 * 3 * 0.9,
			wantMonthly:  9*3*0.9*730 + (1000*0.1+5000*0.02)*0.9,
			wantScaleOut: "rdma-3200g", wantEq: []string{"beta"},
		},
		{
			name: "alias and case are canonicalised; region tie broken by code",
			req: base(func(r *spec.Request) {
				r.Cloud = "beta"
				r.Accelerator = "X100-sxm"
			}),
			opts:   opts(),
			wantIT: "b.8", wantRegion: "b-1", wantHourly: 12, wantMonthly: 12 * 730,
			wantScaleOut: "rdma-1600g", wantEq: []string{"alpha"},
		},
		{
			name: "equivalents respect the allow-list",
			req:  base(nil), opts: spec.Options{HoursPerMonth: hoursPerMonth, Clouds: []string{"alpha", "gamma"}},
			wantIT: "a1.8x", wantRegion: "r-west", wantHourly: 9, wantMonthly: 9 * 730,
			wantScaleOut: "rdma-3200g", wantEq: nil,
		},
		{
			name: "reserved on beta; alpha sells no reservation",
			req: base(func(r *spec.Request) {
				r.Cloud = "beta"
				r.PricingModel = catalog.Reserved1Y
			}),
			opts:   opts(),
			wantIT: "b.8", wantRegion: "b-1", wantHourly: 8, wantMonthly: 8 * 730,
			wantScaleOut: "rdma-1600g", wantEq: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, err := spec.Render(cat, tt.req, tt.opts)
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			p := r.Placement
			if p.InstanceType != tt.wantIT || p.Region != tt.wantRegion {
				t.Errorf("placement = %s in %s, want %s in %s", p.InstanceType, p.Region, tt.wantIT, tt.wantRegion)
			}
			if !near(p.HourlyUSD, tt.wantHourly) || !near(p.MonthlyUSD, tt.wantMonthly) {
				t.Errorf("hourly, monthly = %v, %v, want %v, %v", p.HourlyUSD, p.MonthlyUSD, tt.wantHourly, tt.wantMonthly)
			}
			if got := r.Document.Spec.Interconnect.ScaleOut; got != tt.wantScaleOut {
				t.Errorf("scaleOut = %q, want %q", got, tt.wantScaleOut)
			}
			var eq []string
			for _, e := range r.Equivalents {
				eq = append(eq, e.Cloud)
			}
			if !slices.Equal(eq, tt.wantEq) {
				t.Errorf("equivalents = %v, want %v", eq, tt.wantEq)
			}
		})
	}
}

func TestRenderEquivalentsArePlacementsOfTheSameCluster(t *testing.T) {
	t.Parallel()
	cat := fixture(t)
	r, err := spec.Render(cat, base(func(r *spec.Request) { r.Nodes = 2 }), spec.Options{HoursPerMonth: hoursPerMonth, Discounts: map[string]float64{"beta": 0.25}})
	if err != nil {
		t.Fatal(err)
	}
	want := []spec.Placement{{Cloud: "beta", Region: "b-1", InstanceType: "b.8", Fabric: catalog.FabricInfiniBand, NetworkGbps: 1600,
		NodeHourlyUSD: 9, HourlyUSD: 18, MonthlyUSD: 18 * 730}}
	if !reflect.DeepEqual(r.Equivalents, want) {
		t.Errorf("equivalents = %+v, want %+v", r.Equivalents, want)
	}
	// Rendering the equivalent directly gives the same placement.
	again, err := spec.Render(cat, base(func(r *spec.Request) { r.Nodes = 2; r.Cloud = "beta" }), spec.Options{HoursPerMonth: hoursPerMonth, Discounts: map[string]float64{"beta": 0.25}})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again.Placement, want[0]) {
		t.Errorf("beta placement = %+v, want %+v", again.Placement, want[0])
	}
}

func TestRenderErrorsNameWhatExists(t *testing.T) {
	t.Parallel()
	cat := fixture(t)
	tests := []struct {
		name      string
		req       spec.Request
		wantField string
		wantRE    string
	}{
		{"accelerator not on cloud", base(func(r *spec.Request) { r.Cloud = "gamma" }),
			spec.FieldAccelerator, `X100 is not offered on cloud "gamma"\. Clouds that offer it: "alpha", "beta"\.`},
		{"accelerator offered nowhere", base(func(r *spec.Request) { r.Accelerator = "z1" }),
			spec.FieldAccelerator, `Z1 is not offered on cloud "alpha", and no cloud in the catalog offers it`},
		{"unknown accelerator", base(func(r *spec.Request) { r.Accelerator = "X10" }),
			spec.FieldAccelerator, `accelerator = "X10" is not an accelerator ID or alias in the catalog\. Closest: "X100"`},
		{"unknown cloud", base(func(r *spec.Request) { r.Cloud = "alpah" }),
			spec.FieldCloud, `cloud = "alpah" is not a cloud in the catalog\. Closest: "alpha".*Allowed: "alpha", "beta", "gamma"`},
		{"gpus per node not sold", base(func(r *spec.Request) { r.GPUsPerNode = 4 }),
			spec.FieldGPUsPerNode, `does not sell X100 with 4 GPUs per node\. Sizes it sells: 1 \(a1\.1x\), 8 \(a1\.8x, a2\.8x\)\.`},
		{"unknown region", base(func(r *spec.Request) { r.Region = "r-weast" }),
			spec.FieldRegion, `"r-weast" is not a region of cloud "alpha"\. Closest: .*Regions where X100 with 8 GPUs per node is offered: "r-east", "r-west"`},
		{"hardware not in region", base(func(r *spec.Request) { r.Region = "r-north" }),
			spec.FieldRegion, `does not offer X100 with 8 GPUs per node in "r-north"\. Regions that have it: "r-east", "r-west"\.`},
		{"pricing model not sold", base(func(r *spec.Request) { r.PricingModel = catalog.Reserved3Y }),
			spec.FieldPricingModel, `as "reserved_3y" in any region\. Pricing models available: "on_demand", "spot"\.`},
		{"pricing model not sold in the region", base(func(r *spec.Request) { r.PricingModel = catalog.Spot; r.Region = "r-west" }),
			spec.FieldPricingModel, `as "spot" in "r-west"\. Pricing models available: "on_demand"\.`},
		{"unknown pricing model", base(func(r *spec.Request) { r.PricingModel = "hourly" }),
			spec.FieldPricingModel, `"hourly" is not a pricing model; allowed: "on_demand", "spot", "reserved_1y", "reserved_3y"`},
		{"zero gpus", base(func(r *spec.Request) { r.GPUsPerNode = 0 }), spec.FieldGPUsPerNode, `between 1 and 1024, got 0`},
		{"zero nodes", base(func(r *spec.Request) { r.Nodes = 0 }), spec.FieldNodes, `between 1 and 100000, got 0`},
		{"empty name", base(func(r *spec.Request) { r.Name = " " }), spec.FieldName, `name must not be empty`},
		{"negative storage", base(func(r *spec.Request) { r.Storage.BlockGB = -1 }), spec.FieldStorage, `got -1 and 0`},
		{"label key with space", base(func(r *spec.Request) { r.Labels = map[string]string{"a b": "c"} }), spec.FieldLabels, `must not contain spaces`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := spec.Render(cat, tt.req, opts())
			var se *inputerr.Error
			if !errors.As(err, &se) {
				t.Fatalf("error = %v, want an *inputerr.Error", err)
			}
			if se.Path.String() != tt.wantField {
				t.Errorf("path = %q, want %q (%v)", se.Path, tt.wantField, err)
			}
			if !regexp.MustCompile(tt.wantRE).MatchString(se.Detail) {
				t.Errorf("detail = %q, want match %q", se.Detail, tt.wantRE)
			}
			if se.Summary == "" {
				t.Error("empty summary")
			}
		})
	}
}

func TestInstanceType(t *testing.T) {
	t.Parallel()
	cat := fixture(t)
	tests := []struct {
		cloud, acc string
		gpus       int
		want       string
		wantField  string
	}{
		{"alpha", "X100", 8, "a1.8x", ""}, // 9 (r-west) ties a2.8x, name wins
		{"alpha", "x100-SXM", 1, "a1.1x", ""},
		{"beta", "X100", 8, "b.8", ""},
		{"gamma", "X100", 8, "", spec.FieldAccelerator},
		{"alpha", "X100", 2, "", spec.FieldGPUsPerNode},
		{"delta", "X100", 8, "", spec.FieldCloud},
		{"alpha", "nope", 8, "", spec.FieldAccelerator},
		{"alpha", "X100", 0, "", spec.FieldGPUsPerNode},
	}
	for _, tt := range tests {
		got, err := spec.InstanceType(cat, tt.cloud, tt.acc, tt.gpus)
		var se *inputerr.Error
		switch {
		case tt.wantField == "" && (err != nil || got != tt.want):
			t.Errorf("InstanceType(%s, %s, %d) = %q, %v; want %q", tt.cloud, tt.acc, tt.gpus, got, err, tt.want)
		case tt.wantField != "" && (!errors.As(err, &se) || se.Path.String() != tt.wantField):
			t.Errorf("InstanceType(%s, %s, %d) error = %v; want field %s", tt.cloud, tt.acc, tt.gpus, err, tt.wantField)
		}
	}
}

func TestInstanceTypeMatchesOnDemandRendering(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	type key struct {
		cloud, acc string
		gpus       int
	}
	seen := map[key]bool{}
	for _, o := range cat.Offers {
		k := key{o.Cloud, o.Accelerator, o.GPUs}
		if seen[k] || o.Fractional() || o.OnDemandUSD == 0 {
			continue // on-demand rendering needs an offer sold on demand
		}
		seen[k] = true
		it, err := spec.InstanceType(cat, k.cloud, k.acc, k.gpus)
		if err != nil {
			t.Fatalf("%v: %v", k, err)
		}
		r, err := spec.Render(cat, spec.Request{Name: "x", Cloud: k.cloud, Accelerator: k.acc, GPUsPerNode: k.gpus, Nodes: 1}, opts())
		if err != nil {
			t.Fatalf("%v: %v", k, err)
		}
		if r.Placement.InstanceType != it {
			t.Errorf("%v: InstanceType = %s, on-demand rendering = %s", k, it, r.Placement.InstanceType)
		}
	}
}

func TestScaleUpClassCoversTheBuiltinCatalog(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"T4": spec.ScaleUpPCIe, "H100": spec.ScaleUpNVLink, "H100-PCIE": spec.ScaleUpNVLinkBridge,
		"MI300X": spec.ScaleUpInfinityFabric, "TPU-V5E": spec.ScaleUpICI, "TRAINIUM2": spec.ScaleUpNeuronLink,
		"GAUDI2": spec.ScaleUpRoCE, "L4": spec.ScaleUpPCIe,
	}
	for _, a := range cat.Accelerators {
		got := spec.ScaleUpClass(a)
		if got == spec.ScaleUpOther {
			t.Errorf("%s (%q): no scale-up class", a.ID, a.Interconnect)
		}
		if w, ok := want[a.ID]; ok && got != w {
			t.Errorf("%s: scale-up class %q, want %q", a.ID, got, w)
		}
	}
}

func TestScaleOutClass(t *testing.T) {
	t.Parallel()
	tests := []struct {
		fabric catalog.Fabric
		gbps   float64
		want   string
	}{
		{catalog.FabricEFA, 3200, "rdma-3200g"},
		{catalog.FabricInfiniBand, 400, "rdma-400g"},
		{catalog.FabricRoCE, 0, "rdma"},
		{catalog.FabricNone, 25, "ethernet-25g"},
		{catalog.FabricNone, 12.5, "ethernet-13g"},
		{catalog.FabricNone, 0.2, "ethernet"},
	}
	for _, tt := range tests {
		if got := spec.ScaleOutClass(&catalog.Offer{Fabric: tt.fabric, NetworkGbps: tt.gbps}); got != tt.want {
			t.Errorf("ScaleOutClass(%s, %v) = %q, want %q", tt.fabric, tt.gbps, got, tt.want)
		}
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9*math.Max(1, math.Abs(b)) }
