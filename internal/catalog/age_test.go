// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package catalog_test

import (
	"testing"
	"time"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

func TestPriceAge(t *testing.T) {
	days, err := catalog.PriceAgeWarningDays()
	if err != nil || days != 90 {
		t.Fatalf("warn_after_days = %d, %v; the issue asks for a warning after 90 days", days, err)
	}
	d := time.Date(2026, 7, 30, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		now  time.Time
		want int
	}{
		{d, 0}, {d.AddDate(0, 0, 90), 90}, {d.AddDate(0, 0, 91).Add(-time.Hour), 90}, {d.AddDate(0, 0, 126), 126},
	} {
		if got := catalog.AgeDays(d, tc.now); got != tc.want {
			t.Errorf("AgeDays(%v) = %d, want %d", tc.now, got, tc.want)
		}
	}
	if catalog.AgeDays(time.Time{}, d) != 0 {
		t.Error("a price without a date is aged")
	}
}
