// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package release_test

import (
	"os"
	"strings"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
	"github.com/gpuplan/terraform-provider-gpu/internal/planner"
)

// TestIndexListsEveryValue: the docs index's "Names and values" table
// names every value the code accepts for each enumerated attribute, in
// code order, and the clouds of the built-in catalog.
func TestIndexListsEveryValue(t *testing.T) {
	raw, err := os.ReadFile("../../docs/index.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(string(raw), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) >= 4 {
			rows[strings.TrimSpace(cells[1])] = strings.TrimSpace(cells[2])
		}
	}
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	partitions := make([]string, len(catalog.Partitions))
	for i, p := range catalog.Partitions {
		partitions[i] = string(p)
	}
	for row, values := range map[string][]string{
		"clouds":                                 cat.CloudIDs(),
		"`geographies`":                          catalog.GeographyIDs(),
		"partitions":                             partitions,
		"`compliance`":                           catalog.ComplianceRegimes,
		"`pricing_models`":                       catalog.PricingModelNames(catalog.AllPricingModels),
		"`workload.kind`":                        perf.Kinds,
		"`workload.precision`":                   catalog.Precisions,
		"`workload.fine_tuning_method`":          perf.Methods,
		"`workload.speculative_decoding.method`": perf.SpeculativeMethods,
		"`objective`":                            planner.ObjectiveNames(),
		"`distinct_by`":                          planner.DistinctByValues,
	} {
		cell, ok := rows[row]
		if !ok {
			t.Errorf("docs/index.md has no row %s in its Names and values table", row)
			continue
		}
		at := 0
		for _, v := range values {
			i := strings.Index(cell[at:], "`"+v+"`")
			if i < 0 && row != "clouds" {
				t.Errorf("docs/index.md row %s lacks `%s` (or lists it out of order): %s", row, v, cell)
				continue
			}
			if i < 0 {
				if !strings.Contains(cell, "`"+v+"`") {
					t.Errorf("docs/index.md row clouds lacks `%s`: %s", v, cell)
				}
				continue
			}
			at += i
		}
	}
}
