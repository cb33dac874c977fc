// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package perf

import (
	"math"
	"testing"
)

// TestRooflineBlend: a kernel takes the larger of its memory and compute
// times plus the fitted non-overlapped share of the smaller: the larger
// alone at 0, the two in series at 1, 1 + fraction times the larger at the
// ridge, and within 1 % of the memory time when compute is a fiftieth of
// it (single-stream decode stays bandwidth-bound).
func TestRooflineBlend(t *testing.T) {
	for _, c := range []struct{ mem, cmp, f, want float64 }{
		{3, 4, 0, 4}, {3, 4, 1, 7}, {3, 4, 0.5, 5.5}, {4, 3, 0.5, 5.5}, {0, 4, 0.5, 4},
	} {
		if got := blend(c.mem, c.cmp, c.f); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("blend(%g, %g, %g) = %g, want %g", c.mem, c.cmp, c.f, got, c.want)
		}
	}
	m, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	f := m.p.Inference.RooflineSerialFraction
	if !(f > 0 && f < 1) {
		t.Fatalf("inference.roofline_serial_fraction = %g, want a partial overlap in (0, 1)", f)
	}
	if got := blend(1, 0.02, f); got > 1.01 {
		t.Errorf("blend(1, 0.02, %g) = %g, want within 1 %% of the memory time", f, got)
	}
}
