// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package perf_test

import (
	"math"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"strings"
	"testing"
	"time"

	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
)

// TestVintageLaw: the stack of a date d years from the reference date runs
// (1 + g)^d as fast where software sets the speed (compute-bound prefill,
// training GEMMs), and no faster where the hardware's bandwidth does
// (single-stream decode, a training step's memory-bound kernels).
func TestVintageLaw(t *testing.T) {
	// The law with both gains on, whatever the committed values.
	p := model(t).Params()
	p.Vintage.ServingGainPerYear, p.Vintage.TrainingGainPerYear = 0.25, 0.2
	gs, gt := p.Vintage.ServingGainPerYear, p.Vintage.TrainingGainPerYear
	m, err := perf.WithParams(p)
	if err != nil {
		t.Fatal(err)
	}
	ref := m.ReferenceDate()
	if m.AtStackDate(ref) != m {
		t.Error("AtStackDate(reference date) must return the model unchanged")
	}
	h100 := perf.Hardware{Accelerator: acc(t, "H100"), GPUs: 8, GPUsPerNode: 8}
	train := perf.Workload{Kind: "training", ModelParametersB: 8, SequenceLength: 4096, TrainingTokensB: 10, Precision: "bf16"}
	// A long prompt and one output token at a large concurrency: prefill
	// (compute) bound.
	prefill := perf.Workload{Kind: "inference", ModelParametersB: 8, InputTokens: 8192, OutputTokens: 1, Precision: "fp8"}
	// One request at a time, long outputs: HBM bound.
	single := perf.Workload{Kind: "inference", ModelParametersB: 70, InputTokens: 128, OutputTokens: 2048, Precision: "fp8", MaxConcurrency: 1}
	for _, tc := range []struct {
		years float64
	}{{-2}, {-1}, {-0.5}} {
		d := ref.Add(time.Duration(tc.years * 365.25 * 24 * float64(time.Hour)))
		old := m.AtStackDate(d)
		fs, ft := m.VintageFactors(d)
		if want := math.Pow(1+gs, tc.years); math.Abs(fs/want-1) > 1e-9 {
			t.Errorf("%+.1f years: serving factor %.4f, want %.4f", tc.years, fs, want)
		}
		if want := math.Pow(1+gt, tc.years); math.Abs(ft/want-1) > 1e-9 {
			t.Errorf("%+.1f years: training factor %.4f, want %.4f", tc.years, ft, want)
		}
		ratio := func(w perf.Workload) float64 {
			now, err := m.Estimate(w, h100)
			if err != nil {
				t.Fatal(err)
			}
			then, err := old.Estimate(w, h100)
			if err != nil {
				t.Fatal(err)
			}
			return then.TokensPerSecond / now.TokensPerSecond
		}
		// The GEMMs follow the factor; the step's memory-bound kernels
		// (HBM) do not, so the step gains most of it, not all.
		if r := ratio(train); r < ft || math.Log(r) > 0.6*math.Log(ft) {
			t.Errorf("%+.1f years: training speed ratio %.3f, want between the training factor %.3f and %.3f", tc.years, r, ft, math.Pow(ft, 0.6))
		}
		if r := ratio(prefill); math.Abs(r/fs-1) > 0.05 {
			t.Errorf("%+.1f years: prefill-bound serving ratio %.3f, want about the serving factor %.3f", tc.years, r, fs)
		}
		if r := ratio(single); r < fs || r > 1 {
			t.Errorf("%+.1f years: bandwidth-bound serving ratio %.3f, want between the factor %.3f and 1 (HBM is the hardware's)", tc.years, r, fs)
		}
		op := old.Params()
		for name, f := range op.Families {
			if f.HBMEfficiency != p.Families[name].HBMEfficiency {
				t.Errorf("%s: HBM efficiency moved with the software vintage", name)
			}
		}
	}
}

// TestVintageCappedByPeak: a stack far in the future never computes above
// the datasheet peak.
func TestVintageCappedByPeak(t *testing.T) {
	m := model(t)
	future := m.AtStackDate(m.ReferenceDate().AddDate(30, 0, 0))
	for name, f := range future.Params().Families {
		for _, v := range []float64{f.TrainMFU, f.PrefillEfficiency, f.DecodeComputeEfficiency} {
			if v > 1 {
				t.Errorf("%s: an efficiency of %.3f of the peak 30 years on", name, v)
			}
		}
	}
}

// TestVintageValidation: a malformed reference date or gain is an error
// naming the field.
func TestVintageValidation(t *testing.T) {
	for _, tc := range []struct{ name, field, value string }{
		{"date", `"reference_date": "`, `"reference_date": "June `},
		{"gain", `"serving_gain_per_year": `, `"serving_gain_per_year": -1.5, "x": `},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw := perfModelJSON(t)
			bad := strings.Replace(raw, tc.field, tc.value, 1)
			if bad == raw {
				t.Fatalf("perf_model.json has no %s", tc.field)
			}
			if _, err := perf.Parse([]byte(bad)); err == nil || !strings.Contains(err.Error(), "software_vintage") {
				t.Errorf("got %v, want an error naming software_vintage", err)
			}
		})
	}
}

func perfModelJSON(t *testing.T) string {
	t.Helper()
	raw, err := catalog.ReadDataFile("perf_model.json")
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}
