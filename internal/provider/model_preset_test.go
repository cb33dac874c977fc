// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/catalog/overlay"
	"github.com/gpuplan/terraform-provider-gpu/internal/numfmt"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
)

// presetCatalogFile adds MI355X (with an 8-GPU offer on a test cloud) and
// the GB200 NVL72 domain to the built-in catalog, with the figures the
// catalog's own entries carry (datasheet sources in the file), for the
// model-preset tests on B200, GB200 and MI355X.
func presetCatalogFile(t *testing.T) (string, *catalog.Catalog) {
	t.Helper()
	file, err := filepath.Abs(filepath.Join("testdata", "TestAccModelPreset", "catalog.json"))
	if err != nil {
		t.Fatal(err)
	}
	_, cat := estModel(t)
	res, err := overlay.Apply(cat, file, overlay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return file, res.Catalog
}

func presetEstimateConfig(file, workload, accel string, gpus, perNode int) string {
	return fmt.Sprintf(`
provider "gpu" {
  catalog_file = %q
}
data "gpu_estimate" "e" {
  workload = {
%s
  }
  accelerator   = %q
  gpu_count     = %d
  gpus_per_node = %d
}`, file, workload, accel, gpus, perNode)
}

// TestAccEstimate_modelPreset: gpu_estimate with model = "deepseek-r1" on
// B200, GB200 NVL72 and MI355X gives the benchmark model's answer for the
// preset (native FP8, MLA cache, 256 routed experts), says how it serves
// (serving_layout) and returns the throughput curve.
func TestAccEstimate_modelPreset(t *testing.T) {
	t.Parallel()
	file, cat := presetCatalogFile(t)
	m, _ := estModel(t)
	const workload = `    kind                         = "inference"
    model                        = "deepseek-r1"
    input_tokens                 = 1024
    output_tokens                = 1024
    max_time_per_output_token_ms = 50`
	w := perf.Workload{Kind: "inference", Model: "deepseek-r1", InputTokens: 1024, OutputTokens: 1024, MaxTimePerOutputTokenMs: 50}
	var steps []resource.TestStep
	for _, c := range []struct {
		accel         string
		gpus, perNode int
	}{{"B200", 8, 8}, {"GB200", 72, 4}, {"MI355X", 8, 8}} {
		e := estRun(t, m, cat, w, c.accel, c.gpus, c.perNode, 0)
		if !e.Fits || e.TokensPerSecond <= 0 {
			t.Fatalf("deepseek-r1 on %d× %s must fit and serve: %s", c.gpus, c.accel, e.Explanation)
		}
		p, err := m.Prepare(w, perf.ValidateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		a, _ := cat.Accelerator(c.accel)
		curve, err := p.ThroughputCurve(perf.Hardware{Accelerator: a, GPUs: c.gpus, GPUsPerNode: c.perNode})
		if err != nil || len(curve) == 0 {
			t.Fatalf("curve on %s: %v %v", c.accel, curve, err)
		}
		steps = append(steps, resource.TestStep{
			Config: presetEstimateConfig(file, workload, c.accel, c.gpus, c.perNode),
			ConfigStateChecks: []statecheck.StateCheck{
				estCheck("e", "fits", knownvalue.Bool(true)),
				estCheck("e", "tokens_per_second", knownvalue.Float64Exact(numfmt.Measure(e.TokensPerSecond))),
				estCheck("e", "time_per_output_token_ms", estBetween(0, 50)),
				estCheck("e", "serving_layout", knownvalue.ObjectExact(map[string]knownvalue.Check{
					"mode":            knownvalue.StringExact(e.ServingLayout),
					"prefill_gpus":    knownvalue.Int64Exact(int64(e.PrefillGPUs)),
					"decode_gpus":     knownvalue.Int64Exact(int64(e.DecodeGPUs)),
					"prefill_workers": knownvalue.Int64Exact(int64(e.Serving.PrefillWorkers)),
					"decode_workers":  knownvalue.Int64Exact(int64(e.Replicas)),
					"expert_parallel": knownvalue.Int64Exact(int64(e.Serving.ExpertParallel)),
				})),
				estCheck("e", "throughput_curve", knownvalue.ListSizeExact(len(curve))),
				statecheck.ExpectKnownValue("data.gpu_estimate.e", tfjsonpath.New("throughput_curve").AtSliceIndex(0),
					knownvalue.ObjectPartial(map[string]knownvalue.Check{
						"interactivity":             knownvalue.Float64Exact(numfmt.Measure(curve[0].Interactivity)),
						"tokens_per_second_per_gpu": knownvalue.Float64Exact(numfmt.Measure(curve[0].TokensPerSecondPerGPU)),
					})),
				estCheck("e", "explanation", knownvalue.StringRegexp(regexp.MustCompile(`routed experts hold [\d.]+ GB per GPU`))),
			},
		})
	}
	resource.UnitTest(t, resource.TestCase{ProtoV6ProviderFactories: testAccProtoV6ProviderFactories, Steps: steps})
}

// TestAccEstimate_modelErrors: an unknown model names the closest presets;
// neither model nor model_parameters_b is an error that says to set one; a
// preset that does not fit warns by how many GB.
func TestAccEstimate_modelErrors(t *testing.T) {
	t.Parallel()
	m, cat := estModel(t)
	e := estRun(t, m, cat, perf.Workload{Kind: "inference", Model: "kimi-k2"}, "H100", 8, 8, 0)
	if e.Fits {
		t.Fatal("Kimi K2 (1T parameters, FP8) must not fit 8× H100")
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      estConfig(`    kind = "inference"`+"\n"+`    model = "deepseek-r2"`, `  accelerator = "B200"`+"\n"+`  gpu_count = 8`),
				ExpectError: errRe(`workload.model = "deepseek-r2": is not a model preset ID or alias; closest: "deepseek-r1"`),
			},
			{
				Config:      estConfig(`    kind = "inference"`, `  accelerator = "B200"`+"\n"+`  gpu_count = 8`),
				ExpectError: errRe(`workload.model_parameters_b = 0: is required without model: set model`),
			},
			{
				Config: estConfig(`    kind = "inference"`+"\n"+`    model = "kimi-k2"`, `  accelerator = "H100"`+"\n"+`  gpu_count = 8`),
				ConfigStateChecks: []statecheck.StateCheck{
					estCheck("e", "fits", knownvalue.Bool(false)),
					estCheck("e", "memory_per_gpu_gb", knownvalue.Float64Exact(numfmt.Measure(e.MemoryPerGPUGB))),
					estCheck("e", "serving_layout", knownvalue.Null()),
					estCheck("e", "throughput_curve", knownvalue.Null()),
				},
			},
		},
	})
}

// TestAccRecommendation_modelPreset: gpu_recommendation serves DeepSeek-R1
// from its preset on B200, GB200 and MI355X offers, and a preset that fits
// no allowed deployment says how large the smallest one is.
func TestAccRecommendation_modelPreset(t *testing.T) {
	t.Parallel()
	file, _ := presetCatalogFile(t)
	provider := fmt.Sprintf("catalog_file = %q", file)
	const workload = `{
    kind                         = "inference"
    model                        = "deepseek-r1"
    tokens_per_second            = 20000
    max_time_per_output_token_ms = 60
  }`
	var steps []resource.TestStep
	for _, accel := range []string{"B200", "GB200", "MI355X"} {
		steps = append(steps, resource.TestStep{
			Config: recConfig(provider, workload, fmt.Sprintf(`accelerators = [%q]`, accel), ""),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(recAddr, tfjsonpath.New("best"), knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"accelerator":       knownvalue.StringExact(accel),
					"tokens_per_second": estBetween(20000, 1e7),
					"memory_per_gpu_gb": estBetween(1, 288),
				})),
				// The serving layout covers the whole deployment: an aggregated
				// one has no prefill workers; a disaggregated one splits every GPU.
				statecheck.ExpectKnownValue(recAddr, tfjsonpath.New("best"), servingLayoutCovers()),
			},
		})
	}
	steps = append(steps, resource.TestStep{
		Config:      recConfig("", workload, `accelerators = ["H100"]`+"\n"+`max_gpus = 8`, ""),
		ExpectError: regexp.MustCompile(`max_gpus = 8: the smallest deployment\s+that\s+holds\s+the\s+workload,\s+\d+×\s+H100\s+\(\d+\s+nodes\s+of\s+8\),\s+is\s+larger`),
	})
	resource.UnitTest(t, resource.TestCase{ProtoV6ProviderFactories: testAccProtoV6ProviderFactories, Steps: steps})
}

// TestAccEstimate_speculative: speculative_decoding reaches the model
// (defaults from the model constants) and its rules report on the nested
// attribute.
func TestAccEstimate_speculative(t *testing.T) {
	t.Parallel()
	m, cat := estModel(t)
	w := perf.Workload{Kind: "inference", Model: "deepseek-r1", MaxTimePerOutputTokenMs: 20,
		SpeculativeDecoding: perf.SpeculativeDecoding{Method: "mtp"}}
	e := estRun(t, m, cat, w, "B200", 8, 8, 0)
	w.SpeculativeDecoding = perf.SpeculativeDecoding{}
	plain := estRun(t, m, cat, w, "B200", 8, 8, 0)
	if e.TokensPerSecond <= plain.TokensPerSecond {
		t.Fatalf("MTP under a 20 ms limit must beat plain decoding: %.0f vs %.0f", e.TokensPerSecond, plain.TokensPerSecond)
	}
	const base = `    kind                         = "inference"
    model                        = "deepseek-r1"
    max_time_per_output_token_ms = 20
`
	hw := `  accelerator = "B200"` + "\n" + `  gpu_count = 8`
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      estConfig(base+`    speculative_decoding = { method = "mtp", acceptance_rate = 1.5 }`, hw),
				ExpectError: errRe(`workload.speculative_decoding.acceptance_rate must be more than 0 and less than 1, got 1.5\.`),
			},
			{
				Config:      estConfig(base+`    speculative_decoding = { method = "draft_model" }`, hw),
				ExpectError: errRe(`workload.speculative_decoding.draft_model_parameters_b = 0: is required for method = "draft_model"`),
			},
			{
				Config: estConfig(base+`    speculative_decoding = { method = "mtp" }`, hw),
				ConfigStateChecks: []statecheck.StateCheck{
					estCheck("e", "tokens_per_second", knownvalue.Float64Exact(numfmt.Measure(e.TokensPerSecond))),
					estCheck("e", "explanation", knownvalue.StringRegexp(regexp.MustCompile(`mtp speculative decoding emits [\d.]+ tokens per step`))),
				},
			},
		},
	})
}

// servingLayoutCovers checks a candidate's serving_layout against its GPUs:
// aggregated layouts have decode workers and no prefill workers; a
// disaggregated layout's prefill and decode GPUs add up to the candidate's.
func servingLayoutCovers() knownvalue.Check { return layoutCheck{} }

type layoutCheck struct{}

func (layoutCheck) String() string { return "serving_layout consistent with total_gpus" }

func (layoutCheck) CheckValue(v any) error {
	c, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("candidate is %T", v)
	}
	l, ok := c["serving_layout"].(map[string]any)
	if !ok {
		return fmt.Errorf("serving_layout is %T, want an object", c["serving_layout"])
	}
	n := func(m map[string]any, k string) int64 {
		x, _ := m[k].(json.Number)
		i, _ := x.Int64()
		return i
	}
	total := n(c, "total_gpus")
	switch l["mode"] {
	case "aggregated":
		if n(l, "prefill_gpus") != 0 || n(l, "prefill_workers") != 0 || n(l, "decode_workers") < 1 {
			return fmt.Errorf("aggregated layout %v", l)
		}
	case "disaggregated":
		if n(l, "prefill_gpus")+n(l, "decode_gpus") != total || n(l, "prefill_workers") < 1 || n(l, "decode_workers") < 1 {
			return fmt.Errorf("disaggregated layout %v does not split the %d GPUs", l, total)
		}
	default:
		return fmt.Errorf("mode %v", l["mode"])
	}
	return nil
}
