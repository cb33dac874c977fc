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

// TestFastPathsMatchEstimate: the planner's cheap paths (EstimateBrief and
// a Prepared workload) give exactly Estimate's answer (EstimateBrief
// without the explanation), and Prepared.MinGPUsToFit Model.MinGPUsToFit's,
// over every built-in accelerator, varied workloads and hardware, errors
// included.
func TestFastPathsMatchEstimate(t *testing.T) {
	m := model(t)
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	ws := []perf.Workload{
		{Kind: "training", ModelParamsB: 8, TrainingTokensB: 100},
		{Kind: "training", ModelParamsB: 405, TrainingTokensB: 15000, Precision: "fp8"},
		{Kind: "training", ModelParamsB: 1.3, TrainingTokensB: 10, Precision: "fp32"},
		{Kind: "fine_tuning", ModelParamsB: 70, TrainingTokensB: 1},
		{Kind: "fine_tuning", ModelParamsB: 70, TrainingTokensB: 1, FineTuningMethod: "qlora"},
		{Kind: "fine_tuning", ModelParamsB: 13, TrainingTokensB: 5, FineTuningMethod: "full", SequenceLength: 8192},
		{Kind: "inference", ModelParamsB: 8, TokensPerSecond: 5000},
		{Kind: "inference", ModelParamsB: 70, TokensPerSecond: 20000, MaxTPOTMs: 50},
		{Kind: "inference", ModelParamsB: 671, ActiveParamsB: 37, Precision: "fp8", MaxTPOTMs: 5},
		{Kind: "bogus", ModelParamsB: 8},
	}
	hws := []perf.Hardware{
		{GPUs: 1, GPUsPerNode: 8}, {GPUs: 4, GPUsPerNode: 4}, {GPUs: 8, GPUsPerNode: 8, NetworkGbps: 400},
		{GPUs: 24, GPUsPerNode: 8, NetworkGbps: 100}, {GPUs: 64, GPUsPerNode: 8, NetworkGbps: 1600, Fabric: catalog.FabricRoCE},
		{GPUs: 1024, GPUsPerNode: 8, Fabric: catalog.FabricEFA}, {GPUs: 4096, GPUsPerNode: 8}, {GPUs: 0, GPUsPerNode: 8},
		{GPUs: 16, GPUsPerNode: 8, Fabric: "bogus"},
	}
	for _, w := range ws {
		p := m.Prepare(w)
		for _, id := range cat.AcceleratorIDs() {
			a, _ := cat.Accelerator(id)
			for _, gpn := range []int{0, 1, 4, 8} {
				if got, want := p.MinGPUsToFit(a, gpn), m.MinGPUsToFit(w, a, gpn); got != want {
					t.Errorf("%+v on %s/%d: Prepared.MinGPUsToFit = %d, want %d", w, id, gpn, got, want)
				}
			}
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
				got, err := m.EstimateBrief(w, h)
				check("EstimateBrief", got, err, brief)
				got, err = p.Estimate(h)
				check("Prepared.Estimate", got, err, want)
				got, err = p.EstimateBrief(h)
				check("Prepared.EstimateBrief", got, err, brief)
			}
		}
	}
}
