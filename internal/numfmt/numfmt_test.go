// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package numfmt_test

import (
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/numfmt"
)

func TestPercent(t *testing.T) {
	for _, tt := range []struct {
		ratio        float64
		plain, signd string
	}{
		{0.9712, "97.1%", "+97.1%"},
		{1, "100.0%", "+100.0%"},
		{0, "0.0%", "±0.0%"},
		{0.00049, "0.0%", "±0.0%"},
		{-0.5, "-50.0%", "−50.0%"},
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
	if got := numfmt.Percent(-0.00001); got != "0.0%" {
		t.Errorf("Percent(-0.00001) = %q", got)
	}
}
