// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package catalog_test

import (
	"strings"
	"testing"
)

// TestAmbiguousAccelerator: a bare alias of a part with memory variants
// ("a100") says which part it is read as and lists the others; a canonical
// ID or a name that picks the variant says nothing.
func TestAmbiguousAccelerator(t *testing.T) {
	cat := builtin(t)
	for _, tc := range []struct{ name, want string }{
		{"a100", `accelerator = "a100" is read as "A100-40GB" (40 GB); the catalog also has "A100-80GB" (80 GB), "A100-80GB-PCIE" (80 GB). Name the part (for example "A100-80GB") to choose another.`},
		{"NVIDIA A100", `is read as "A100-40GB" (40 GB)`},
		{"v100", `is read as "V100-16GB" (16 GB); the catalog also has "V100-32GB" (32 GB)`},
		{"A100-40GB", ""},
		{"a100-sxm4-40gb", ""},
		{"a100-80gb-sxm", ""},
		{"H100", ""},
		{"h100-sxm", ""},
		{"L4", ""},
		{"tpu v5e", ""},
		{"nonsense", ""},
	} {
		if got := cat.AmbiguousAccelerator("accelerator", tc.name); (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("AmbiguousAccelerator(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestUnknownAcceleratorListsVariants: a name that starts with a part that
// has variants lists them with their memory.
func TestUnknownAcceleratorListsVariants(t *testing.T) {
	cat := builtin(t)
	got := cat.UnknownAccelerator("accelerator", "a100-40g")
	if want := `A100 parts: "A100-40GB" (40 GB), "A100-80GB" (80 GB), "A100-80GB-PCIE" (80 GB).`; !strings.Contains(got, want) {
		t.Errorf("UnknownAccelerator(a100-40g) = %s\nwant it to contain %s", got, want)
	}
	if got := cat.UnknownAccelerator("accelerator", "Z9"); strings.Contains(got, "parts:") {
		t.Errorf("UnknownAccelerator(Z9) = %s, want no variants", got)
	}
}
