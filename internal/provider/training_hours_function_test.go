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
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
)

func TestAccTrainingHoursFunction(t *testing.T) {
	t.Parallel()
	m, cat := estModel(t)
	train := func(params, tokens float64) perf.Workload {
		return perf.Workload{Kind: "training", ModelParametersB: params, TrainingTokensB: tokens}
	}
	// The function's documented assumptions: bf16, nodes of min(gpu_count, 8),
	// the model's default network.
	llama := estRun(t, m, cat, train(70, 2000), "A100-80GB", 2048, 8, 0)
	small := estRun(t, m, cat, train(1, 20), "H100", 4, 4, 0)
	acc, _ := cat.Accelerator("A100-80GB")
	prep, err := m.Prepare(train(405, 100), perf.ValidateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	need := prep.MinGPUsToFit(acc, 8)
	if need <= 8 {
		t.Fatalf("405B must need more than 8 A100-80GB, got %d", need)
	}
	call := func(args string) string {
		return fmt.Sprintf(`
output "h" {
  value = provider::gpu::training_hours(%s)
}`, args)
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
		Steps: []resource.TestStep{
			{
				Config:      call(`0, 2000, "H100", 8`),
				ExpectError: errRe(`"model_parameters_b" parameter: Invalid Number: model_parameters_b must be from 0.0001 to 100,000 B parameters, got 0\.`),
			},
			{
				Config:      call(`70, -1, "H100", 8`),
				ExpectError: errRe(`"training_tokens_b" parameter: Invalid Number: training_tokens_b must be more than 0 and at most 10,000,000 B tokens, got -1\.`),
			},
			{
				Config:      call(`70, 2000, "H100", 0`),
				ExpectError: errRe(`"gpu_count" parameter: Invalid Number: gpu_count must be a whole number from 1 to 1,000,000 GPUs, got 0\.`),
			},
			{
				Config:      call(`70, 2000, "A100-80", 8`),
				ExpectError: errRe(`Unknown Accelerator: accelerator = "A100-80" is not an accelerator ID or alias in the catalog. Closest: "A100-80GB"`),
			},
			{
				Config:      call(`7, 100, "V100-16GB", 8`),
				ExpectError: errRe(`Precision Not Supported By Accelerator: training_hours assumes bf16 training, which V100-16GB cannot run \(it supports: "fp32", "fp16"\)`),
			},
			{
				Config: call(`405, 100, "A100-80GB", 8`),
				ExpectError: errRe(fmt.Sprintf(`Model Does Not Fit: training a 405B-parameter model in bf16 needs [0-9.]+ GB per GPU on gpu_count = 8 A100-80GB .*it needs at least %d× A100-80GB`,
					need)),
			},
			{
				Config: `
output "llama2_70b" {
  value = provider::gpu::training_hours(70, 2000, "A100-80GB", 2048)
}
output "small" {
  value = provider::gpu::training_hours(1, 20, "h100-sxm", 4)
}`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownOutputValue("llama2_70b", knownvalue.Float64Exact(numfmt.Hours(llama.Hours))),
					// Llama 2 70B: 1,720,320 A100-80GB GPU-hours (Touvron et al. 2023,
					// table 2), within the model's 25 % accuracy bound.
					statecheck.ExpectKnownOutputValue("llama2_70b", estWithin(1720320/2048.0, 0.25)),
					statecheck.ExpectKnownOutputValue("small", knownvalue.Float64Exact(numfmt.Hours(small.Hours))),
				},
			},
		},
	})
}
