// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package perf

import (
	"math"
	"testing"
)

// TestRooflineBlend: with exponent 0 a kernel takes the larger of its
// memory and compute times; with n > 0 the n-norm of the two, which is
// the larger times 2^(1/n) at the ridge, never below the larger nor above
// their sum for n ≥ 1, and within 1 % of the larger once the smaller is
// a fiftieth of it at the fitted exponent (single-stream decode stays
// bandwidth-bound).
func TestRooflineBlend(t *testing.T) {
	if got := blend(3, 4, 0); got != 4 {
		t.Errorf("blend(3, 4, 0) = %g, want the max 4", got)
	}
	if got := blend(3, 4, 2); math.Abs(got-5) > 1e-12 {
		t.Errorf("blend(3, 4, 2) = %g, want 5", got)
	}
	if got := blend(0, 4, 2); got != 4 {
		t.Errorf("blend(0, 4, 2) = %g, want 4 (nothing to blend)", got)
	}
	m, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	n := m.p.Inference.RooflineExponent
	if !(n >= 1) {
		t.Fatalf("inference.roofline_exponent = %g, want ≥ 1 (a smooth maximum below the sum)", n)
	}
	if got, want := blend(2, 2, n), 2*math.Pow(2, 1/n); math.Abs(got-want) > 1e-12 {
		t.Errorf("at the ridge: %g, want %g", got, want)
	}
	for _, r := range []float64{0.01, 0.1, 0.5, 0.9, 1, 2, 10} {
		got := blend(1, r, n)
		if got < math.Max(1, r) || got > 1+r {
			t.Errorf("blend(1, %g, %g) = %g, outside [max, sum]", r, n, got)
		}
	}
	if got := blend(1, 0.02, n); got > 1.01 {
		t.Errorf("blend(1, 0.02, %g) = %g, want within 1 %% of the memory time", n, got)
	}
}
