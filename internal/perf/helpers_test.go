// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package perf_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
)

// fixtureAccelerators are datasheet values copied from the datasheet
// table the catalog is built from (internal/catalog/testdata/sources/
// accelerators.csv) into testdata/accelerators.json, so the unit tests do
// not move when the catalog is revised.
func fixtureAccelerators(t testing.TB) map[string]*catalog.Accelerator {
	t.Helper()
	raw, err := os.ReadFile("testdata/accelerators.json")
	if err != nil {
		t.Fatal(err)
	}
	var list []*catalog.Accelerator
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatal(err)
	}
	out := map[string]*catalog.Accelerator{}
	for _, a := range list {
		out[strings.ToUpper(a.ID)] = a
	}
	return out
}

func acc(t testing.TB, id string) *catalog.Accelerator {
	t.Helper()
	a, ok := fixtureAccelerators(t)[id]
	if !ok {
		t.Fatalf("fixture has no accelerator %s", id)
	}
	return a
}

func model(t testing.TB) *perf.Model {
	t.Helper()
	m, err := perf.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// minGPUs is the prepared workload's MinGPUsToFit on nodes of 8.
func minGPUs(tb testing.TB, m *perf.Model, w perf.Workload, a *catalog.Accelerator) int {
	tb.Helper()
	p, err := m.Prepare(w, perf.ValidateOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	return p.MinGPUsToFit(a, 8)
}
