// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
)

// TestAccExamples plans every single-file example that the registry docs
// show, plus the quickstart, against the real Terraform binary: an example
// that no longer works fails here, not in a user's first plan. Examples
// using provider functions need Terraform 1.8.
func TestAccExamples(t *testing.T) {
	// The quickstart declares source = "gpuplan/gpu". The harness serves
	// the provider under one namespace per process, so this test sets it
	// and stays serial (t.Setenv); its subtests run in parallel.
	t.Setenv("TF_ACC_PROVIDER_NAMESPACE", "gpuplan")
	files := map[string]bool{} // path -> needs Terraform 1.8 (functions)
	for _, pattern := range []string{
		"../../examples/data-sources/*/data-source.tf",
		"../../examples/resources/*/resource.tf",
		"../../examples/quickstart/main.tf",
		"../../examples/guides/*/main.tf",
	} {
		matches, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range matches {
			files[m] = false
		}
	}
	fns, err := filepath.Glob("../../examples/functions/*/function.tf")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range fns {
		files[m] = true
	}
	if len(files) < 10 {
		t.Fatalf("found only %d example files; the globs are wrong", len(files))
	}
	for path, needsFunctions := range files {
		t.Run(filepath.Base(filepath.Dir(path)), func(t *testing.T) {
			// In parallel with each other: the parent's environment (it
			// sets the namespace) holds until they all end, and top-level
			// parallel tests wait for this serial test.
			t.Parallel()
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			tc := resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config:             string(src),
					PlanOnly:           true,
					ExpectNonEmptyPlan: true,
				}},
			}
			if needsFunctions {
				tc.TerraformVersionChecks = []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)}
			}
			resource.UnitTest(t, tc)
		})
	}
}
