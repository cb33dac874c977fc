// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// writeCatalog writes a user catalog file for a test and returns its path.
func writeCatalog(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func offersWithCatalog(path string) string {
	return fmt.Sprintf(`
provider "gpu" {
  catalog_file = %q
}
data "gpu_offers" "mine" {
  clouds = ["onprem"]
}`, path)
}

func TestAccProviderCatalogFile(t *testing.T) {
	t.Parallel()
	onprem, err := filepath.Abs("../../examples/catalog/onprem.yaml")
	if err != nil {
		t.Fatal(err)
	}
	negotiated, err := filepath.Abs("../../examples/catalog/negotiated.yaml")
	if err != nil {
		t.Fatal(err)
	}
	malformed := writeCatalog(t, "malformed.json", `{"offers": [ {"cloud": "aws", `)
	unknownAccel := writeCatalog(t, "unknown.yaml", `
offers:
  - cloud: aws
    instance_type: p9.48xlarge
    region: us-east-1
    accelerator: H1000
    gpus: 8
    on_demand_usd: 10
`)
	negative := writeCatalog(t, "negative.yaml", `
offers:
  - cloud: aws
    instance_type: p5.48xlarge
    region: us-east-1
    on_demand_usd: -3
`)

	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      offersWithCatalog(filepath.Join(t.TempDir(), "missing.yaml")),
				ExpectError: regexp.MustCompile(`(?s)Invalid Catalog File.*missing\.yaml`),
			},
			{
				Config:      offersWithCatalog(malformed),
				ExpectError: regexp.MustCompile(`(?s)Invalid Catalog File.*malformed\.json`),
			},
			{
				Config:      offersWithCatalog(unknownAccel),
				ExpectError: regexp.MustCompile(`(?s)Invalid Catalog File.*offers\[0\].*aws/p9\.48xlarge/us-east-1.*accelerator.*H1000`),
			},
			{
				Config:      offersWithCatalog(negative),
				ExpectError: regexp.MustCompile(`(?s)Invalid Catalog File.*offers\[0\].*on_demand_usd.*-3`),
			},
			{
				Config:      `provider "gpu" { clouds = ["aws", "amazon"] }` + "\n" + `data "gpu_offers" "x" {}`,
				ExpectError: regexp.MustCompile(`(?s)Unknown Cloud.*clouds\[1\] = "amazon"`),
			},
			{
				Config:      `provider "gpu" { discounts = { aws = 1 } }` + "\n" + `data "gpu_offers" "x" {}`,
				ExpectError: regexp.MustCompile(`(?s)Invalid Number.*discounts\["aws"\] must be at least 0 and less than 1, got 1\.`),
			},
			{
				Config:      `provider "gpu" { discounts = { aws = -0.1 } }` + "\n" + `data "gpu_offers" "x" {}`,
				ExpectError: regexp.MustCompile(`(?s)Invalid Number.*discounts\["aws"\] must be at least 0 and less than 1, got -0\.1\.`),
			},
			{
				Config:      `provider "gpu" { discounts = { amazon = 0.1 } }` + "\n" + `data "gpu_offers" "x" {}`,
				ExpectError: regexp.MustCompile(`(?s)Unknown Cloud.*"amazon"`),
			},
			{
				// The documented negotiated-prices example overrides one price
				// and keeps the rest of the offer.
				Config: fmt.Sprintf(`
provider "gpu" {
  catalog_file = %q
}
data "gpu_offers" "p5" {
  clouds       = ["aws"]
  regions      = ["us-east-1"]
  accelerators = ["H100"]
  min_gpus     = 8
}`, negotiated),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.gpu_offers.p5", tfjsonpath.New("offers").AtSliceIndex(0), knownvalue.ObjectPartial(map[string]knownvalue.Check{
						"instance_type":   knownvalue.StringExact("p5.48xlarge"),
						"on_demand_usd":   knownvalue.Float64Exact(41.28),
						"reserved_1y_usd": knownvalue.Float64Exact(30),
						"gpus":            knownvalue.Int64Exact(8),
					})),
				},
			},
			{
				// The documented on-prem example adds a cloud, region and offer.
				Config: offersWithCatalog(onprem),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.gpu_offers.mine", tfjsonpath.New("offers"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.ObjectPartial(map[string]knownvalue.Check{
							"cloud":         knownvalue.StringExact("onprem"),
							"region":        knownvalue.StringExact("dc1"),
							"instance_type": knownvalue.StringExact("dgx-h100"),
							"accelerator":   knownvalue.StringExact("H100"),
							"gpus":          knownvalue.Int64Exact(8),
							"gpu_memory_gb": knownvalue.Float64Exact(640),
							"on_demand_usd": knownvalue.Float64Exact(28.5),
							"spot_usd":      knownvalue.Null(),
						}),
					})),
				},
			},
		},
	})
}
