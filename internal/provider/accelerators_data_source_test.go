// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

func TestAccAcceleratorsDataSource(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	h100, _ := cat.Accelerator("H100")
	mi300x, _ := cat.Accelerator("MI300X")

	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				// All accelerators, sorted by ID.
				Config: `data "gpu_accelerators" "all" {}`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.gpu_accelerators.all", tfjsonpath.New("accelerators"),
						knownvalue.ListSizeExact(len(cat.Accelerators))),
					statecheck.ExpectKnownValue("data.gpu_accelerators.all", tfjsonpath.New("accelerators").AtSliceIndex(0).AtMapKey("id"),
						knownvalue.StringExact(cat.AcceleratorIDs()[0])),
				},
			},
			{
				// Filter by alias, case-insensitively, in the order given.
				Config: `data "gpu_accelerators" "some" { ids = ["mi300x", "h100-sxm"] }`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.gpu_accelerators.some", tfjsonpath.New("accelerators"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.ObjectPartial(map[string]knownvalue.Check{
							"id":                    knownvalue.StringExact("MI300X"),
							"vendor":                knownvalue.StringExact("AMD"),
							"memory_gb":             knownvalue.Float64Exact(mi300x.MemoryGB),
							"memory_bandwidth_tbps": knownvalue.Float64Exact(mi300x.MemoryBandwidthTBps),
						}),
						knownvalue.ObjectPartial(map[string]knownvalue.Check{
							"id":                    knownvalue.StringExact("H100"),
							"vendor":                knownvalue.StringExact("NVIDIA"),
							"memory_gb":             knownvalue.Float64Exact(80),
							"memory_bandwidth_tbps": knownvalue.Float64Exact(3.35),
							"tdp_watts":             knownvalue.Float64Exact(700),
							"peak_tflops": knownvalue.MapPartial(map[string]knownvalue.Check{
								"bf16": knownvalue.Float64Exact(h100.PeakTFLOPS["bf16"]),
								"fp8":  knownvalue.Float64Exact(1979),
							}),
						}),
					})),
				},
			},
			{
				// A100 runs no FP8: the key is absent, not zero.
				Config: `data "gpu_accelerators" "a100" { ids = ["A100-80GB"] }`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.gpu_accelerators.a100", tfjsonpath.New("accelerators").AtSliceIndex(0).AtMapKey("peak_tflops"),
						knownvalue.MapPartial(map[string]knownvalue.Check{"bf16": knownvalue.Float64Exact(312)})),
				},
			},
			{
				Config:      `data "gpu_accelerators" "bad" { ids = ["H1OO"] }`,
				ExpectError: regexp.MustCompile(`(?s)Unknown Accelerator.*ids\[0\] = "H1OO".*Closest:\s+"H100"`),
			},
		},
	})
}
