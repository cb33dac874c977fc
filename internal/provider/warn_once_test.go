// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

func TestWarnOnce(t *testing.T) {
	t.Parallel()
	var w warnOnce
	var wg sync.WaitGroup
	diags := make([]diag.Diagnostics, 8)
	for i := range diags {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.add(&diags[i], "TCO Rests On An Assumption", "TPU-V5E has no power figure")
			w.add(&diags[i], "TCO Rests On An Assumption", "TPU-V5P has no power figure")
		}()
	}
	wg.Wait()
	count := map[string]int{}
	for _, d := range diags {
		for _, x := range d.Warnings() {
			count[x.Detail()]++
		}
	}
	if count["TPU-V5E has no power figure"] != 1 || count["TPU-V5P has no power figure"] != 1 || len(count) != 2 {
		t.Fatalf("warnings shown %v times, want each once", count)
	}
}
