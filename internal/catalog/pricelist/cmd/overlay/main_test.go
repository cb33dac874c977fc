// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/catalog/overlay"
)

// TestRun: the overlay is written whole and loads; a bad input writes
// nothing and leaves an existing output untouched.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "overlay.yaml")
	td := filepath.Join("..", "..", "testdata")
	aws, azure, gcp := filepath.Join(td, "aws_ec2_offer.json"), filepath.Join(td, "azure_retail_prices.json"), filepath.Join(td, "gcp_billing_skus.json")
	if err := run(aws, azure, gcp, out); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	cat, _ := catalog.Builtin()
	if _, err := overlay.Apply(cat, out, overlay.Options{}); err != nil {
		t.Fatalf("written overlay does not load: %v", err)
	}
	truncated := filepath.Join(dir, "truncated.json")
	b, _ := os.ReadFile(aws)
	if err := os.WriteFile(truncated, b[:len(b)/3], 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, aws, azure, gcp, out, want string
	}{
		{"truncated", truncated, azure, "", out, "truncated.json:"},
		{"wrong format", azure, "", "", out, "expected the format AWS Price List"},
		{"missing file", filepath.Join(dir, "nope.json"), "", "", out, "nope.json"},
		{"no input", "", "", "", out, "give at least one of"},
		{"json output", aws, "", "", filepath.Join(dir, "o.json"), "must name a .yaml or .yml file"},
	} {
		err := run(tc.aws, tc.azure, tc.gcp, tc.out)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want containing %q", tc.name, err, tc.want)
		}
		if got, _ := os.ReadFile(out); string(got) != string(data) {
			t.Errorf("%s: the earlier output was changed", tc.name)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}
