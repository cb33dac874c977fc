// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package perf_test

import (
	"sort"
	"strings"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
)

// TestValidateModelAndSpeculative: the model preset and speculative
// decoding rules, each error on its attribute with the value and what is
// allowed.
func TestValidateModelAndSpeculative(t *testing.T) {
	mtp := func(sd perf.SpeculativeDecoding) perf.Workload {
		return perf.Workload{Kind: "inference", Model: "deepseek-r1", SpeculativeDecoding: sd}
	}
	cases := []struct {
		name   string
		w      perf.Workload
		path   string // "" = valid
		detail []string
	}{
		{"preset alone", perf.Workload{Kind: "inference", Model: "deepseek-r1"}, "", nil},
		{"preset by alias, any case", perf.Workload{Kind: "inference", Model: "DeepSeek-AI/DeepSeek-R1-0528"}, "", nil},
		{"preset with overrides", perf.Workload{Kind: "inference", Model: "llama-3.1-70b", ModelParametersB: 72, Layers: 81}, "", nil},
		{"unknown model names the closest", perf.Workload{Kind: "inference", Model: "deepseek-r2"}, "workload.model",
			[]string{`workload.model = "deepseek-r2"`, "closest", `"deepseek-r1"`, "model_parameters_b"}},
		{"neither model nor size", perf.Workload{Kind: "inference"}, "workload.model_parameters_b",
			[]string{"set model", "or model_parameters_b"}},
		{"override below the preset's active", perf.Workload{Kind: "inference", Model: "deepseek-r1", ModelParametersB: 30}, "workload.model_parameters_b",
			[]string{"37 B active", "active_parameters_b"}},
		{"mtp defaults", mtp(perf.SpeculativeDecoding{Method: "mtp"}), "", nil},
		{"unknown method", mtp(perf.SpeculativeDecoding{Method: "medusa"}), "workload.speculative_decoding.method", []string{`"mtp"`, `"draft_model"`}},
		{"acceptance of 1", mtp(perf.SpeculativeDecoding{Method: "mtp", AcceptanceRate: 1}), "workload.speculative_decoding.acceptance_rate", []string{"between 0 and 1"}},
		{"too many draft tokens", mtp(perf.SpeculativeDecoding{Method: "mtp", DraftTokens: 40}), "workload.speculative_decoding.draft_tokens", []string{"between 1 and 16"}},
		{"draft model without its size", mtp(perf.SpeculativeDecoding{Method: "draft_model"}), "workload.speculative_decoding.draft_model_parameters_b", []string{"required"}},
		{"draft model as big as the model", mtp(perf.SpeculativeDecoding{Method: "draft_model", DraftModelParametersB: 700}), "workload.speculative_decoding.draft_model_parameters_b", []string{"below the model's 671 B"}},
		{"mtp with a draft size", mtp(perf.SpeculativeDecoding{Method: "mtp", DraftModelParametersB: 1}), "workload.speculative_decoding.draft_model_parameters_b", []string{`method = "draft_model" only`}},
		{"settings without a method", mtp(perf.SpeculativeDecoding{AcceptanceRate: 0.5}), "workload.speculative_decoding.method", []string{"required"}},
		{"speculation for training", perf.Workload{Kind: "training", Model: "deepseek-r1", TrainingTokensB: 1, SpeculativeDecoding: perf.SpeculativeDecoding{Method: "mtp"}},
			"workload.speculative_decoding.method", []string{`kind = "inference" only`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			errs := c.w.Validate(perf.ValidateOptions{})
			if c.path == "" {
				if len(errs) > 0 {
					t.Fatalf("want valid, got %v", errs)
				}
				return
			}
			if len(errs) == 0 || errs[0].Path.String() != c.path {
				t.Fatalf("want the first error on %s, got %v", c.path, errs)
			}
			for _, s := range c.detail {
				if !strings.Contains(errs[0].Detail, s) {
					t.Errorf("detail %q lacks %q", errs[0].Detail, s)
				}
			}
		})
	}
}

// TestPresetDefaults: a preset fills the sizes, the architecture and the
// native precision once; explicit values win.
func TestPresetDefaults(t *testing.T) {
	m := model(t)
	w := m.WithDefaults(perf.Workload{Kind: "inference", Model: "dsr1"}, perf.ValidateOptions{})
	if w.Model != "deepseek-r1" || w.ModelParametersB != 671 || w.ActiveParametersB != 37 || w.Precision != "fp8" || w.Layers != 61 || w.HiddenSize != 7168 {
		t.Errorf("deepseek-r1 defaults: %+v", w)
	}
	w = m.WithDefaults(perf.Workload{Kind: "inference", Model: "gpt-j-6b"}, perf.ValidateOptions{})
	if w.Precision != "bf16" {
		t.Errorf("an fp32 release serves in bf16, got %q", w.Precision)
	}
	w = m.WithDefaults(perf.Workload{Kind: "inference", Model: "llama-3.1-70b", Precision: "fp8", Layers: 40}, perf.ValidateOptions{})
	if w.Precision != "fp8" || w.Layers != 40 || w.KVHeads != 8 {
		t.Errorf("overrides: %+v", w)
	}
	p := prepare(t, perf.Workload{Kind: "inference", Model: "deepseek-r1", SpeculativeDecoding: perf.SpeculativeDecoding{Method: "mtp"}})
	sd := p.Workload().SpeculativeDecoding
	d := model(t).Params().Inference.Speculative["mtp"]
	if sd.AcceptanceRate != d.AcceptanceRate || sd.DraftTokens != d.DraftTokens {
		t.Errorf("mtp defaults not applied: %+v", sd)
	}
}

// TestLatencyRatiosFromData: the p99/mean ratios of perf_model.json are
// the medians over the InferenceX rows that report both (every row with
// mean metrics): time per output token without and with MTP, and time to
// first token.
func TestLatencyRatiosFromData(t *testing.T) {
	var tpot, tpotMTP, ttft []float64
	for _, r := range readCSV(t, "testdata/calibration/inferencex_calibration.csv") {
		if p, m := num(r["p99_tpot_s"]), num(r["mean_tpot_s"]); p > 0 && m > 0 {
			if r["spec_method"] == "mtp" {
				tpotMTP = append(tpotMTP, p/m)
			} else {
				tpot = append(tpot, p/m)
			}
		}
		if p, m := num(r["p99_ttft_s"]), num(r["mean_ttft_s"]); p > 0 && m > 0 {
			ttft = append(ttft, p/m)
		}
	}
	median := func(v []float64) float64 {
		sort.Float64s(v)
		if n := len(v); n%2 == 0 {
			return (v[n/2-1] + v[n/2]) / 2
		}
		return v[len(v)/2]
	}
	l := model(t).Params().Inference.Latency
	for _, c := range []struct {
		name      string
		data      []float64
		constant  float64
		tolerance float64
	}{
		{"tpot_p99_over_mean", tpot, l.TPOTP99OverMean, 0.01},
		{"tpot_p99_over_mean_speculative", tpotMTP, l.TPOTP99OverMeanSpeculative, 0.01},
		{"ttft_p99_over_mean", ttft, l.TTFTP99OverMean, 0.02},
	} {
		got := median(c.data)
		t.Logf("%s: median %.3f over %d rows (constant %v)", c.name, got, len(c.data), c.constant)
		if len(c.data) < 100 || abs(got-c.constant) > c.tolerance*c.constant {
			t.Errorf("%s = %v, the data's median is %.3f over %d rows", c.name, c.constant, got, len(c.data))
		}
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
