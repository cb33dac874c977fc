// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package inputerr_test

import (
	"fmt"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/inputerr"
)

func TestAddLazy(t *testing.T) {
	regions := inputerr.Root("constraints").Name("regions")
	other := inputerr.Root("constraints").Name("clouds").Index(0)
	var errs inputerr.List
	computed := 0
	detail := func(i int) func() string {
		return func() string { computed++; return fmt.Sprintf("region %d with a suggestion", i) }
	}
	for i := range 100 {
		errs.AddLazy(regions.Index(i), "Unknown Region", detail(i))
	}
	// Another attribute's error: its detail is computed, and the next
	// region error follows another attribute, so it is shown in full too.
	errs.AddLazy(other, "Unknown Cloud", detail(-1))
	errs.AddLazy(regions.Index(100), "Unknown Region", detail(100))

	if want := inputerr.MaxShown + 2; computed != want {
		t.Errorf("details computed: %d, want %d (the first %d of constraints.regions, then two after another attribute)", computed, want, inputerr.MaxShown)
	}
	if len(errs) != 102 {
		t.Fatalf("errors: %d, want 102: every error is kept, only its detail is cut short", len(errs))
	}
	if got, want := errs[inputerr.MaxShown].Detail, "constraints.regions[5]: unknown region."; got != want {
		t.Errorf("detail past the first %d: %q, want %q", inputerr.MaxShown, got, want)
	}
	if got := errs[101].Detail; got != "region 100 with a suggestion" {
		t.Errorf("detail after another attribute: %q", got)
	}
}

func TestPathAttribute(t *testing.T) {
	for _, tc := range []struct {
		p    inputerr.Path
		want string
	}{
		{inputerr.Root("constraints").Name("regions").Index(2), "constraints.regions"},
		{inputerr.Root("extra_monthly_usd").Key("support"), "extra_monthly_usd"},
		{inputerr.Root("gpu_count"), "gpu_count"},
		{inputerr.Path{}, ""},
	} {
		if got := tc.p.Attribute(); got != tc.want {
			t.Errorf("%s: Attribute() = %q, want %q", tc.p, got, tc.want)
		}
	}
}
