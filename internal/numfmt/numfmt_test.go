// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package numfmt_test

import (
	"math"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/numfmt"
)

func TestPercent(t *testing.T) {
	for _, tt := range []struct {
		ratio        float64
		plain, signd string
	}{
		{0.9712, "97.1%", "+97.1%"},
		{1, "100%", "+100%"},
		{0.02, "2%", "+2%"},
		{0.005, "0.5%", "+0.5%"},
		{0, "0%", "±0%"},
		{0.00049, "0.049%", "+0.049%"},
		{0.0000123, "0.0012%", "+0.0012%"},
		{1e-300, "0%", "±0%"},
		{-0.5, "-50%", "−50%"},
		{-0.1234, "-12.3%", "−12.3%"},
	} {
		if got := numfmt.Percent(tt.ratio); got != tt.plain {
			t.Errorf("Percent(%v) = %q, want %q", tt.ratio, got, tt.plain)
		}
		if got := numfmt.SignedPercent(tt.ratio); got != tt.signd {
			t.Errorf("SignedPercent(%v) = %q, want %q", tt.ratio, got, tt.signd)
		}
	}
}

func TestPercentNegativeZero(t *testing.T) {
	if got := numfmt.Percent(-1e-300); got != "0%" {
		t.Errorf("Percent(-1e-300) = %q", got)
	}
	if got := numfmt.Percent(math.Copysign(0, -1)); got != "0%" {
		t.Errorf("Percent(-0.00001) = %q", got)
	}
}

func TestNonzero(t *testing.T) {
	for _, tc := range []struct {
		v        float64
		decimals int
		want     string
	}{
		{162.23, 1, "162.2"},
		{1234.5, 2, "1,234.50"},
		{0, 1, "0.0"},
		{0.05, 1, "0.1"},
		{0.000123, 1, "0.00013"},
		{0.0012, 2, "0.0012"},
		{-0.000123, 1, "-0.00013"},
		{1.5e-9, 2, "1.5 × 10^-9"},
	} {
		if got := numfmt.Nonzero(tc.v, tc.decimals); got != tc.want {
			t.Errorf("Nonzero(%v, %d) = %q, want %q", tc.v, tc.decimals, got, tc.want)
		}
	}
}
