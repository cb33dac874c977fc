// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package perf_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
)

// TestFastPathsMatchEstimate: the planner's cheap path (a Prepared
// workload's EstimateBrief) gives exactly Estimate's answer without the
// explanation, and a Prepared workload the shorthand Model.Estimate's, over
// every built-in accelerator, varied workloads and hardware, errors
// included.
func TestFastPathsMatchEstimate(t *testing.T) {
	m := model(t)
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	ws := []perf.Workload{
		{Kind: "training", ModelParametersB: 8, TrainingTokensB: 100},
		{Kind: "training", ModelParametersB: 405, TrainingTokensB: 15000, Precision: "fp8"},
		{Kind: "training", ModelParametersB: 1.3, TrainingTokensB: 10, Precision: "fp32"},
		{Kind: "fine_tuning", ModelParametersB: 70, TrainingTokensB: 1},
		{Kind: "fine_tuning", ModelParametersB: 70, TrainingTokensB: 1, FineTuningMethod: "qlora"},
		{Kind: "fine_tuning", ModelParametersB: 13, TrainingTokensB: 5, FineTuningMethod: "full", SequenceLength: 8192},
		{Kind: "inference", ModelParametersB: 8, TokensPerSecond: 5000},
		{Kind: "inference", ModelParametersB: 70, TokensPerSecond: 20000, MaxTimePerOutputTokenMs: 50},
		{Kind: "inference", ModelParametersB: 671, ActiveParametersB: 37, Precision: "fp8", MaxTimePerOutputTokenMs: 5},
		{Kind: "bogus", ModelParametersB: 8},
	}
	hws := []perf.Hardware{
		{GPUs: 1, GPUsPerNode: 8}, {GPUs: 4, GPUsPerNode: 4}, {GPUs: 8, GPUsPerNode: 8, NetworkGbps: 400},
		{GPUs: 24, GPUsPerNode: 8, NetworkGbps: 100}, {GPUs: 64, GPUsPerNode: 8, NetworkGbps: 1600, Fabric: catalog.FabricRoCE},
		{GPUs: 1024, GPUsPerNode: 8, Fabric: catalog.FabricEFA}, {GPUs: 4096, GPUsPerNode: 8}, {GPUs: 0, GPUsPerNode: 8},
		{GPUs: 16, GPUsPerNode: 8, Fabric: "bogus"},
	}
	for _, w := range ws {
		p, prepErr := m.Prepare(w, perf.ValidateOptions{})
		if (prepErr != nil) != (w.Kind == "bogus") {
			t.Fatalf("%+v: Prepare error %v", w, prepErr)
		}
		for _, id := range cat.AcceleratorIDs() {
			a, _ := cat.Accelerator(id)
			for _, h := range hws {
				h.Accelerator = a
				want, wantErr := m.Estimate(w, h)
				brief := want
				brief.Explanation = ""
				check := func(name string, got perf.Estimate, err error, want perf.Estimate) {
					t.Helper()
					if fmt.Sprint(err) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
						t.Errorf("%+v on %s %+v: %s = %+v, %v; want %+v, %v", w, id, h, name, got, err, want, wantErr)
					}
				}
				if prepErr != nil {
					if fmt.Sprint(wantErr) != fmt.Sprint(prepErr) {
						t.Errorf("%+v: Estimate error %v, Prepare error %v", w, wantErr, prepErr)
					}
					continue
				}
				got, err := p.Estimate(h)
				check("Prepared.Estimate", got, err, want)
				got, err = p.EstimateBrief(h)
				check("Prepared.EstimateBrief", got, err, brief)
			}
		}
	}
}
