// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package perf_test

import (
	"strings"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
)

// TestTPUHostsTalkOverICI: TPU hosts of one slice (the job within the
// accelerator's pod) are joined by ICI when no fabric is given; a job
// larger than the pod, and every other accelerator, gets the fabric its
// per-GPU bandwidth implies; a fabric given is kept.
func TestTPUHostsTalkOverICI(t *testing.T) {
	m := model(t)
	w := perf.Workload{Kind: "training", ModelParametersB: 70, TrainingTokensB: 100}
	for _, tc := range []struct {
		accel      string
		gpus, gpn  int
		fabric     catalog.Fabric
		wantFabric catalog.Fabric
	}{
		{"TPU-V5P", 512, 4, "", catalog.FabricICI},
		{"TPU-V5E", 256, 8, "", catalog.FabricICI},
		{"TPU-V5E", 512, 8, "", catalog.FabricInfiniBand}, // beyond the 256-chip pod: multislice
		{"TPU-V5P", 512, 4, catalog.FabricRoCE, catalog.FabricRoCE},
		{"H100", 512, 8, "", catalog.FabricInfiniBand},
	} {
		a := acc(t, tc.accel)
		e, err := m.Estimate(w, perf.Hardware{Accelerator: a, GPUs: tc.gpus, GPUsPerNode: tc.gpn, Fabric: tc.fabric})
		if err != nil {
			t.Fatal(err)
		}
		if want := "nodes over " + string(tc.wantFabric); !strings.Contains(e.Explanation, want) {
			t.Errorf("%d× %s (fabric %q): %q lacks %q", tc.gpus, tc.accel, tc.fabric, e.Explanation, want)
		}
	}
}
