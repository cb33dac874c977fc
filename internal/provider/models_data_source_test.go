// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// TestAccModelsDataSource: every preset with its size, context and
// licence; presets found by the spellings users write; filters; a summary
// table; unknown names with the presets they may mean.
func TestAccModelsDataSource(t *testing.T) {
	presets, err := catalog.BuiltinModelPresets()
	if err != nil {
		t.Fatal(err)
	}
	r1, _ := presets.Lookup("deepseek-r1")
	moe := 0
	for _, m := range presets.All() {
		if m.IsMoE() {
			moe++
		}
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: `
data "gpu_models" "all" {}

data "gpu_models" "some" {
  ids = ["meta-llama/Llama-3.1-8B-Instruct", "DeepSeek-R1"]
}

data "gpu_models" "moe" {
  mixture_of_experts = true
}

data "gpu_models" "small_apache" {
  max_parameters_b   = 40
  min_context_tokens = 32768
  licenses           = ["Apache-2.0"]
}

output "summary" { value = data.gpu_models.some.summary }`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.gpu_models.all", tfjsonpath.New("models"), knownvalue.ListSizeExact(len(presets.IDs()))),
					statecheck.ExpectKnownValue("data.gpu_models.moe", tfjsonpath.New("models"), knownvalue.ListSizeExact(moe)),
					statecheck.ExpectKnownValue("data.gpu_models.some", tfjsonpath.New("models"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.ObjectPartial(map[string]knownvalue.Check{
							"id":                  knownvalue.StringExact("llama-3.1-8b"),
							"model_parameters_b":  knownvalue.Float64Exact(8),
							"active_parameters_b": knownvalue.Float64Exact(8),
							"mixture_of_experts":  knownvalue.Bool(false),
							"max_context_tokens":  knownvalue.Int64Exact(131072),
							"license":             knownvalue.StringExact("llama3.1"),
							"aliases":             knownvalue.ListPartial(map[int]knownvalue.Check{0: knownvalue.StringExact("llama3.1-8b")}),
						}),
						knownvalue.ObjectPartial(map[string]knownvalue.Check{
							"id":                  knownvalue.StringExact("deepseek-r1"),
							"model_parameters_b":  knownvalue.Float64Exact(r1.TotalParametersB),
							"active_parameters_b": knownvalue.Float64Exact(r1.ActiveParametersB),
							"mixture_of_experts":  knownvalue.Bool(true),
							"attention":           knownvalue.StringExact("mla"),
							"license":             knownvalue.StringExact("mit"),
						}),
					})),
					statecheck.ExpectKnownValue("data.gpu_models.small_apache", tfjsonpath.New("models"), knownvalue.ListPartial(map[int]knownvalue.Check{
						0: knownvalue.ObjectPartial(map[string]knownvalue.Check{"license": knownvalue.StringExact("apache-2.0")}),
					})),
					statecheck.ExpectKnownOutputValue("summary", knownvalue.StringFunc(func(s string) error {
						return wantLines(s, "2 model presets", "MODEL", "llama-3.1-8b", "deepseek-r1", "128K", "llama3.1")
					})),
				},
			},
			{
				Config:      `data "gpu_models" "typo" { ids = ["llama3-70b"] }`,
				ExpectError: errRe(`Unknown Model.*ids\[0\] = "llama3-70b" is not a model preset ID or alias; closest: "llama-3.1-70b", "llama-3.3-70b"`),
			},
			{
				Config:      `data "gpu_models" "typo" { licenses = ["apache"] }`,
				ExpectError: errRe(`Unknown License.*licenses\[0\] = "apache" is not the licence of a preset. Closest: "apache-2.0"`),
			},
		},
	})
}

// wantLines checks that a text output has every one of want in it.
func wantLines(s string, want ...string) error {
	var missing []string
	for _, w := range want {
		if !strings.Contains(s, w) {
			missing = append(missing, w)
		}
	}
	if len(missing) > 0 {
		return &missingText{missing: missing, text: s}
	}
	return nil
}

type missingText struct {
	missing []string
	text    string
}

func (e *missingText) Error() string {
	return "missing " + strings.Join(e.missing, ", ") + " in:\n" + e.text
}
