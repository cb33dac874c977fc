// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package perf_test

import (
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// accuracyLookup resolves accelerators for the accuracy report from the
// built-in catalog, so the report measures what users get.
func accuracyLookup(t *testing.T) accLookup {
	t.Helper()
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	return cat.Accelerator
}
