// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// itExpected is the instance type with the lowest on-demand price in any
// region for (cloud, accelerator, GPUs), ties by name, straight from the catalog.
func itExpected(t *testing.T, cat *catalog.Catalog, cloud, acc string, gpus int) string {
	t.Helper()
	best, bestP := "", math.Inf(1)
	for _, o := range cat.Offers {
		if o.Cloud == cloud && o.Accelerator == acc && o.GPUs == gpus {
			if p, _ := o.Price(catalog.OnDemand); p < bestP || (p == bestP && o.InstanceType < best) {
				best, bestP = o.InstanceType, p
			}
		}
	}
	if best == "" {
		t.Fatalf("catalog lacks %s %dx%s", cloud, gpus, acc)
	}
	return best
}

func TestAccInstanceTypeFunction(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	var a100Sizes []int
	seen := map[int]bool{}
	for _, o := range cat.Offers {
		if o.Cloud == "gcp" && o.Accelerator == "A100-80GB" && !seen[o.GPUs] {
			seen[o.GPUs] = true
			a100Sizes = append(a100Sizes, o.GPUs)
		}
	}
	sort.Ints(a100Sizes)
	sizesRE := ""
	for i, n := range a100Sizes {
		if i > 0 {
			sizesRE += `,\s+`
		}
		sizesRE += fmt.Sprintf(`%d\s+\([^)]*\)`, n)
	}

	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
		Steps: []resource.TestStep{
			{
				Config: `
output "aws"   { value = provider::gpu::instance_type("aws", "H100", 8) }
output "gcp"   { value = provider::gpu::instance_type("gcp", "h100-sxm", 8) }
output "azure" { value = provider::gpu::instance_type("azure", "H100", 8) }
output "a100"  { value = provider::gpu::instance_type("gcp", "A100-80GB", 4) }
`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownOutputValue("aws", knownvalue.StringExact("p5.48xlarge")),
					statecheck.ExpectKnownOutputValue("gcp", knownvalue.StringExact(itExpected(t, cat, "gcp", "H100", 8))),
					statecheck.ExpectKnownOutputValue("azure", knownvalue.StringExact(itExpected(t, cat, "azure", "H100", 8))),
					statecheck.ExpectKnownOutputValue("a100", knownvalue.StringExact(itExpected(t, cat, "gcp", "A100-80GB", 4))),
				},
			},
			{
				// The resource and the function agree for on_demand without a region.
				Config: `
resource "gpu_cluster_spec" "x" {
  name          = "x"
  cloud         = "azure"
  accelerator   = "H100"
  gpus_per_node = 8
}
output "same" { value = gpu_cluster_spec.x.instance_type == provider::gpu::instance_type("azure", "H100", 8) }
`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownOutputValue("same", knownvalue.Bool(true)),
				},
			},
			{
				Config:      `output "x" { value = provider::gpu::instance_type("awz", "H100", 8) }`,
				ExpectError: regexp.MustCompile(`(?s)Invalid value for "cloud" parameter.*"awz"\s+is\s+not\s+a\s+cloud.*Closest:\s+"aws"`),
			},
			{
				Config:      `output "x" { value = provider::gpu::instance_type("gcp", "MI300X", 8) }`,
				ExpectError: regexp.MustCompile(`(?s)Invalid value for "accelerator" parameter.*MI300X\s+is\s+not\s+offered\s+on\s+cloud\s+"gcp".*Clouds\s+that\s+offer\s+it:\s+"azure"`),
			},
			{
				Config:      `output "x" { value = provider::gpu::instance_type("gcp", "H200X", 8) }`,
				ExpectError: regexp.MustCompile(`(?s)Invalid value for "accelerator" parameter.*Unknown\s+Accelerator`),
			},
			{
				Config:      `output "x" { value = provider::gpu::instance_type("gcp", "A100-80GB", 3) }`,
				ExpectError: regexp.MustCompile(`(?s)Invalid value for "gpus_per_node" parameter.*Sizes\s+it\s+sells:\s+` + sizesRE),
			},
			{
				Config:      `output "x" { value = provider::gpu::instance_type("gcp", "H100", 0) }`,
				ExpectError: regexp.MustCompile(`(?s)Invalid value for "gpus_per_node" parameter.*gpus_per_node\s+must\s+be\s+a\s+whole\s+number\s+from\s+1\s+to\s+1024\s+GPUs`),
			},
			{
				// End on a valid configuration so the post-test destroy succeeds.
				Config: `output "ok" { value = provider::gpu::instance_type("aws", "H100", 1) }`,
			},
		},
	})
}
