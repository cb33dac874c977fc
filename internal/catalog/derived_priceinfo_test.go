// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package catalog_test

import (
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

func TestDerivedPriceInfo(t *testing.T) {
	a, b := day("2026-09-27"), day("2026-11-09")
	for _, tc := range []struct {
		name string
		in   []catalog.PriceInfo
		want catalog.PriceInfo
	}{
		{"oldest input", []catalog.PriceInfo{{Basis: catalog.PricePublished, AsOf: b}, {Basis: catalog.PricePublished, AsOf: a}},
			catalog.PriceInfo{Basis: catalog.PriceDerived, AsOf: a}},
		{"one input", []catalog.PriceInfo{{Basis: catalog.PriceDerived, AsOf: b}}, catalog.PriceInfo{Basis: catalog.PriceDerived, AsOf: b}},
		{"an undated input", []catalog.PriceInfo{{Basis: catalog.PricePublished, AsOf: a}, {}}, catalog.PriceInfo{Basis: catalog.PriceDerived}},
	} {
		if got := catalog.DerivedPriceInfo(tc.in...); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
