// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package catalog_test

import (
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

func TestBuiltinDateMatchesCatalog(t *testing.T) {
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	date, err := catalog.BuiltinDate()
	if err != nil {
		t.Fatal(err)
	}
	if !date.Equal(cat.Date) || date.IsZero() {
		t.Fatalf("BuiltinDate() = %v, Builtin().Date = %v", date, cat.Date)
	}
}
