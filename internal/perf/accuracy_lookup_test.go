// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package perf_test

import (
	"strings"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// accuracyLookup resolves accelerators for the accuracy report from the
// built-in catalog, so the report measures what users get. Parts the
// calibration data uses that the built-in catalog does not hold yet
// (MI355X) come from the test fixture's datasheet values, and so does the
// scale-up domain of a built-in part that does not record one; the
// fixture copies the catalog's sourced figures, so the report does not
// move when the catalog gains them.
func accuracyLookup(t testing.TB) accLookup {
	t.Helper()
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	fixture := fixtureAccelerators(t)
	return func(name string) (*catalog.Accelerator, bool) {
		a, ok := cat.Accelerator(name)
		f, inFixture := fixture[strings.ToUpper(name)]
		switch {
		case !ok && inFixture:
			return f, true
		case ok && inFixture && a.NVLinkDomainGPUs == 0 && f.NVLinkDomainGPUs > 0:
			v := *a
			v.InterconnectKind, v.NVLinkDomainGPUs = f.InterconnectKind, f.NVLinkDomainGPUs
			return &v, true
		}
		return a, ok
	}
}
