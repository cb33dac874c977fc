// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package cost_test

import (
	"math"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// The fixed in-test catalog. Prices are round numbers shaped like the real
// AWS list (pricing_notes.md section 4) so every expectation can be derived
// by hand.
//
//	cloud acme: PUE 1.2; egress tiers 0-100 GB free, to 10,240 GB $0.09,
//	  to 51,200 GB $0.085, then $0.07; inter-region $0.02/GB; block
//	  $0.08/GB-month; object $0.023/GB-month; spot 0.48 interruptions/day.
//	  λ = 0.02/h: one node's spot risk factor R = (1/λ + 0.25 h)(e^{λ·1 h} − 1)
//	  = 1.015117, N nodes of one synchronous job (1/(Nλ) + 0.25)(e^{Nλ} − 1).
//	region acme/us-test-1: PUE 1.1, grid 400 gCO2e/kWh.
//	offer gpu.8x: 8 × ACC700 (TDP 700 W); $/h on_demand 40, spot 12,
//	  reserved_1y 28, reserved_3y 18.
//	offer gpu.od: on-demand only, 1 GPU, $2/h.
func fixtures() (*catalog.Cloud, *catalog.Region, *catalog.Accelerator, *catalog.Offer) {
	cl := &catalog.Cloud{
		ID: "acme", PUE: 1.2,
		EgressTiers: []catalog.EgressTier{
			{UpToGB: 100, USDPerGB: 0}, {UpToGB: 10240, USDPerGB: 0.09},
			{UpToGB: 51200, USDPerGB: 0.085}, {UpToGB: 0, USDPerGB: 0.07},
		},
		InterRegionUSDPerGB:        0.02,
		BlockStorageUSDPerGBMonth:  0.08,
		ObjectStorageUSDPerGBMonth: 0.023,
		Spot:                       catalog.SpotInfo{Available: true, InterruptionsPerDay: 0.48},
	}
	rg := &catalog.Region{Cloud: "acme", ID: "us-test-1", PUE: 1.1, GridGCO2ePerKWh: 400}
	acc := &catalog.Accelerator{ID: "ACC700", TDPWatts: 700}
	of := &catalog.Offer{
		Cloud: "acme", Region: "us-test-1", InstanceType: "gpu.8x", Accelerator: "ACC700", GPUs: 8,
		OnDemandUSD: 40, SpotUSD: 12, Reserved1YUSD: 28, Reserved3YUSD: 18,
	}
	return cl, rg, acc, of
}

func odOnlyOffer() *catalog.Offer {
	return &catalog.Offer{Cloud: "acme", Region: "us-test-1", InstanceType: "gpu.od", Accelerator: "ACC700", GPUs: 1, OnDemandUSD: 2}
}

// approx compares with a relative tolerance for float noise.
func approx(t *testing.T, name string, got, want float64) {
	t.Helper()
	if math.IsInf(want, 1) && math.IsInf(got, 1) {
		return
	}
	if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
		t.Errorf("%s = %.10g, want %.10g", name, got, want)
	}
}

// approx6 compares hand-derived figures written to about 9 significant
// digits (relative tolerance 1e-8).
func approx6(t *testing.T, name string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-8*math.Max(1, math.Abs(want)) {
		t.Errorf("%s = %.10g, want %.10g", name, got, want)
	}
}
