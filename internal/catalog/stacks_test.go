// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package catalog_test

import (
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// TestEveryBuiltinPartHasAStackAndPurpose: every built-in accelerator
// runs a known stack, its vendor's, and has a purpose; Inferentia2 serves
// only.
func TestEveryBuiltinPartHasAStackAndPurpose(t *testing.T) {
	c := builtin(t)
	st, err := catalog.BuiltinSoftwareStacks()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range c.Accelerators {
		if !st.Known(a.SoftwareStack) || a.SoftwareStack != st.OfVendor(a.Vendor) {
			t.Errorf("%s (%s): software_stack %q, want its vendor's %q", a.ID, a.Vendor, a.SoftwareStack, st.OfVendor(a.Vendor))
		}
		if !slices.Contains(catalog.Purposes, a.Purpose) {
			t.Errorf("%s: purpose %q, want one of %v", a.ID, a.Purpose, catalog.Purposes)
		}
		wantTrains := a.ID != "INFERENTIA2" && a.ID != "INFERENTIA"
		if a.Trains() != wantTrains || !a.Serves() {
			t.Errorf("%s: Trains() = %v, Serves() = %v; want %v, true", a.ID, a.Trains(), a.Serves(), wantTrains)
		}
	}
}

// TestEveryBuiltinPartHasPower: no built-in accelerator lacks a power
// figure, so no built-in part's CO2e is unknown for want of one; an
// estimate says so in its source.
func TestEveryBuiltinPartHasPower(t *testing.T) {
	c := builtin(t)
	for _, a := range c.Accelerators {
		if !(a.TDPWatts > 0) {
			t.Errorf("%s: no power figure (tdp_watts %v)", a.ID, a.TDPWatts)
		}
	}
	for _, id := range []string{"TPU-V5E", "TPU-V5P", "TPU-V6E", "TRAINIUM", "TRAINIUM2", "INFERENTIA2", "INFERENTIA"} {
		a, ok := c.Accelerator(id)
		if !ok || !strings.Contains(a.Source, "power: estimate") {
			t.Errorf("%s: the source does not say its power is an estimate", id)
		}
	}
}

// TestStackRules: the rules of software_stacks.json as the planner reads
// them.
func TestStackRules(t *testing.T) {
	st, err := catalog.BuiltinSoftwareStacks()
	if err != nil {
		t.Fatal(err)
	}
	if got := st.IDs(); !slices.Equal(got, []string{"cuda", "rocm", "xla", "neuron", "gaudi"}) {
		t.Errorf("IDs() = %v", got)
	}
	if !slices.Equal(st.Default, []string{"cuda"}) {
		t.Errorf("Default = %v, want [cuda]", st.Default)
	}
	for _, tc := range []struct {
		stack, method, precision  string
		wantMethod, wantPrecision bool
	}{
		{"cuda", "qlora", "fp4", true, true},
		{"rocm", "qlora", "fp8", true, true},
		{"xla", "qlora", "fp8", false, false},
		{"neuron", "qlora", "fp8", false, false},
		{"neuron", "lora", "bf16", true, true},
		{"xla", "full", "bf16", true, true},
		{"gaudi", "qlora", "fp4", true, false},
	} {
		if got := st.RunsMethod(tc.stack, tc.method); got != tc.wantMethod {
			t.Errorf("RunsMethod(%s, %s) = %v", tc.stack, tc.method, got)
		}
		if got := st.TrainsAt(tc.stack, tc.precision); got != tc.wantPrecision {
			t.Errorf("TrainsAt(%s, %s) = %v", tc.stack, tc.precision, got)
		}
	}
	if got := st.OfVendor(" nvidia "); got != "cuda" {
		t.Errorf("OfVendor(nvidia) = %q", got)
	}
	if got := st.Of(&catalog.Accelerator{Vendor: "Acme"}); got != "" {
		t.Errorf("an unknown vendor's stack = %q, want none", got)
	}
	if got := st.Of(&catalog.Accelerator{Vendor: "Acme", SoftwareStack: "rocm"}); got != "rocm" {
		t.Errorf("a part's own stack = %q, want rocm", got)
	}
}

// TestLoadSoftwareStacksRejects: a stack without a source, a rule naming
// an unknown stack and a vendor in two stacks are load errors naming them.
func TestLoadSoftwareStacksRejects(t *testing.T) {
	for name, tc := range map[string]struct{ file, want string }{
		"no source": {`{"stacks":[{"id":"cuda","vendors":["NVIDIA"]}],"default_stacks":{"value":["cuda"],"source":"s"}}`,
			`stack "cuda": a lower-case id, vendors and a source are required`},
		"unknown stack": {`{"stacks":[{"id":"cuda","vendors":["NVIDIA"],"source":"s"}],"default_stacks":{"value":["cuda"],"source":"s"},
			"fine_tuning_methods":{"qlora":{"stacks":["cuda","tpu"],"source":"s"}}}`, `fine_tuning_methods.qlora: unknown stack "tpu"`},
		"vendor twice": {`{"stacks":[{"id":"cuda","vendors":["NVIDIA"],"source":"s"},{"id":"x","vendors":["nvidia"],"source":"s"}],
			"default_stacks":{"value":["cuda"],"source":"s"}}`, `vendor "nvidia" is in stacks "cuda" and "x"`},
	} {
		_, err := catalog.LoadSoftwareStacks(fstest.MapFS{catalog.FileSoftwareStacks: {Data: []byte(tc.file)}})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", name, err, tc.want)
		}
	}
}
