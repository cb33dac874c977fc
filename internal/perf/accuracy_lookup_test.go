// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package perf_test

import (
	"strings"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// accuracyLookup resolves accelerators for the accuracy report.
func accuracyLookup(t *testing.T) accLookup {
	fx := fixtureAccelerators(t)
	return func(id string) (*catalog.Accelerator, bool) {
		a, ok := fx[strings.ToUpper(id)]
		return a, ok
	}
}

const reportHeader = "# Benchmark model accuracy\n\n"
