// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/gpuplan/terraform-provider-gpu/internal/numfmt"
)

func TestAccVRAMRequiredGBFunction(t *testing.T) {
	t.Parallel()
	m, _ := estModel(t)
	want := func(params float64, precision, kind string) float64 {
		gb, err := m.VRAMRequiredGB(params, precision, kind)
		if err != nil {
			t.Fatal(err)
		}
		return numfmt.Measure(gb)
	}
	call := func(params, precision, kind string) string {
		return fmt.Sprintf(`
output "v" {
  value = provider::gpu::vram_required_gb(%s, %q, %q)
}`, params, precision, kind)
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
		Steps: []resource.TestStep{
			{
				Config:      call("0", "bf16", "inference"),
				ExpectError: errRe(`Invalid Number: model_parameters_b must be from 0.0001 to 100,000 B parameters, got 0\.`),
			},
			{
				Config:      call("-70", "bf16", "inference"),
				ExpectError: errRe(`Invalid Number: model_parameters_b must be from 0.0001 .*, got -70\.`),
			},
			{
				Config:      call("70", "fp9", "inference"),
				ExpectError: errRe(`Invalid precision: precision = "fp9"; allowed: "fp32", "tf32", "bf16", "fp16", "fp8", "fp4", "int8", "int4"`),
			},
			{
				Config:      call("70", "bf16", "train"),
				ExpectError: errRe(`Invalid kind: kind = "train"; allowed: "training", "fine_tuning", "inference". Closest: "training"`),
			},
			{
				Config: `
output "infer_bf16" {
  value = provider::gpu::vram_required_gb(70, "bf16", "inference")
}
output "infer_fp8" {
  value = provider::gpu::vram_required_gb(70, "fp8", "inference")
}
output "infer_int4" {
  value = provider::gpu::vram_required_gb(70, "INT4", "inference")
}
output "lora" {
  value = provider::gpu::vram_required_gb(70, "bf16", "fine_tuning")
}
output "training" {
  value = provider::gpu::vram_required_gb(70, "bf16", "training")
}`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownOutputValue("infer_bf16", knownvalue.Float64Exact(want(70, "bf16", "inference"))),
					statecheck.ExpectKnownOutputValue("infer_fp8", knownvalue.Float64Exact(want(70, "fp8", "inference"))),
					statecheck.ExpectKnownOutputValue("infer_int4", knownvalue.Float64Exact(want(70, "int4", "inference"))),
					statecheck.ExpectKnownOutputValue("lora", knownvalue.Float64Exact(want(70, "bf16", "fine_tuning"))),
					statecheck.ExpectKnownOutputValue("training", knownvalue.Float64Exact(want(70, "bf16", "training"))),
					// Physics: weights are 2, 1 and 0.5 bytes per parameter, plus a
					// KV cache and a runtime reserve that stay well below the weights.
					statecheck.ExpectKnownOutputValue("infer_bf16", estBetween(140, 200)),
					statecheck.ExpectKnownOutputValue("infer_fp8", estBetween(70, 100)),
					statecheck.ExpectKnownOutputValue("infer_int4", estBetween(35, 50)),
					// LoRA: frozen bf16 weights plus small adapters.
					statecheck.ExpectKnownOutputValue("lora", estBetween(140, 250)),
					// Mixed-precision Adam: 16 bytes per parameter.
					statecheck.ExpectKnownOutputValue("training", estBetween(1120, 1600)),
				},
			},
		},
	})
}
