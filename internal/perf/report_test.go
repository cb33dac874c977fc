// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package perf_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/inputerr"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
)

// report is gpu_estimate's answer for a workload on the built-in catalog.
func report(t *testing.T, w perf.Workload, hr perf.HardwareRequest) perf.Report {
	t.Helper()
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	prep, err := model(t).Prepare(w, perf.ValidateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := prep.Report(cat, hr)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestReportNotFit: the warning of a workload that does not fit names the
// shortfall per GPU, the GPU count that fits in whole default-size nodes
// (perf_model.json search.default_gpus_per_node) and the larger
// accelerators that fit.
func TestReportNotFit(t *testing.T) {
	m := model(t)
	w := perf.Workload{Kind: "training", ModelParametersB: 70, TrainingTokensB: 100}
	r := report(t, w, perf.HardwareRequest{Accelerator: "A100-80GB", GPUs: 4})
	if r.Estimate.Fits || len(r.Warnings) != 1 || r.Warnings[0].Summary != "Workload Does Not Fit" || r.Curve != nil {
		t.Fatalf("report = %+v", r)
	}
	prep, _ := m.Prepare(w, perf.ValidateOptions{})
	cat, _ := catalog.Builtin()
	a100, _ := cat.Accelerator("A100-80GB")
	need := prep.MinGPUsToFit(a100, m.Params().Search.DefaultGPUsPerNode)
	if need <= 4 {
		t.Fatalf("MinGPUsToFit = %d", need)
	}
	got := r.Warnings[0].Detail
	for _, want := range []string{
		fmt.Sprintf("%.2f GB short per GPU", r.Estimate.MemoryShortfallGB),
		fmt.Sprintf("It fits on %d× A100-80GB (gpu_count = %d)", need, need),
	} {
		if !strings.Contains(got, want) {
			t.Errorf("detail lacks %q:\n%s", want, got)
		}
	}
	// 70B on 4 GPUs needs ≈ 280 GB each: nothing in the catalog fits, so no
	// larger-memory suggestion. A 13B LoRA on one 24 GB card does fit larger ones.
	if strings.Contains(got, "larger-memory") {
		t.Errorf("suggested a larger accelerator for 280 GB per GPU:\n%s", got)
	}
	r2 := report(t, perf.Workload{Kind: "fine_tuning", ModelParametersB: 13, TrainingTokensB: 1},
		perf.HardwareRequest{Accelerator: "L4", GPUs: 1})
	if r2.Estimate.Fits {
		t.Fatal("13B LoRA must not fit one L4")
	}
	if got := r2.Warnings[0].Detail; !strings.Contains(got, "larger-memory accelerator: ") || !strings.Contains(got, `"qlora"`) {
		t.Errorf("want a larger accelerator and qlora suggested:\n%s", got)
	}
}

// TestReportInference: an inference workload that fits gets its
// throughput curve, and a warning on workload.tokens_per_second when the
// GPUs miss the target.
func TestReportInference(t *testing.T) {
	r := report(t, perf.Workload{Kind: "inference", ModelParametersB: 8, TokensPerSecond: 1e6},
		perf.HardwareRequest{Accelerator: "H100", GPUs: 1})
	if !r.Estimate.Fits || len(r.Curve) == 0 || len(r.Warnings) != 1 ||
		r.Warnings[0].Path.String() != "workload.tokens_per_second" || r.Warnings[0].Summary != "Throughput Target Not Met" {
		t.Fatalf("report = %+v", r)
	}
}

// TestReportErrors: an unknown accelerator and a precision it cannot run
// are input errors on their attributes.
func TestReportErrors(t *testing.T) {
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		w        perf.Workload
		acc      string
		at, want string
	}{
		{perf.Workload{Kind: "inference", ModelParametersB: 8}, "H1000", "accelerator", `Closest: "H100"`},
		{perf.Workload{Kind: "inference", ModelParametersB: 70, Precision: "fp8"}, "A100-40GB",
			"workload.precision", `workload.precision = "fp8" cannot run on A100-40GB`},
	} {
		prep, err := model(t).Prepare(tc.w, perf.ValidateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = prep.Report(cat, perf.HardwareRequest{Accelerator: tc.acc, GPUs: 8})
		errs := inputerr.From(err)
		if len(errs) != 1 || errs[0].Path.String() != tc.at || !strings.Contains(errs[0].Detail, tc.want) {
			t.Errorf("%s: %v, want an error on %s containing %q", tc.acc, err, tc.at, tc.want)
		}
	}
}
