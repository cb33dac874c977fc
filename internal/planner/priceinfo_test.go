// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner_test

import (
	"strings"
	"testing"
	"time"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/planner"
)

// TestCandidatePriceInfo: a candidate carries the basis and date of the
// price it is ranked by, and its explanation says so when that price is
// derived rather than published; a published price adds nothing.
func TestCandidatePriceInfo(t *testing.T) {
	cat := fixtureCatalog(t)
	o, ok := cat.Offer("alpha", "a.x8", "us-1")
	if !ok {
		t.Fatal("fixture offer missing")
	}
	asOf := time.Date(2025, 11, 30, 0, 0, 0, 0, time.UTC)
	o.PriceInfos.Reserved1Y = catalog.PriceInfo{Basis: catalog.PriceDerived, AsOf: asOf}
	p, err := planner.New(cat, nil)
	if err != nil {
		t.Fatal(err)
	}
	reserved := planner.Constraints{PricingModels: []catalog.PricingModel{catalog.Reserved1Y}, Clouds: []string{"alpha"}}
	res, err := p.Recommend(fixtureRequest(train8B, reserved, planner.ObjectiveCost))
	if err != nil {
		t.Fatal(err)
	}
	b := res.Best
	if b.InstanceType != "a.x8" || b.Region != "us-1" || b.PriceInfo().Basis != catalog.PriceDerived || !b.PriceInfo().AsOf.Equal(asOf) {
		t.Fatalf("best %s/%s %s: price info %+v", b.InstanceType, b.Region, b.PricingModel, b.PriceInfo())
	}
	want := ", priced at a reserved_1y rate derived from published prices (price_source says how), not one the cloud publishes for a.x8, as of 2025-11-30"
	if !strings.Contains(b.Explanation, want) || b.PriceSource() != "t" {
		t.Errorf("explanation %q lacks %q (source %q)", b.Explanation, want, b.PriceSource())
	}
	onDemand := planner.Constraints{PricingModels: []catalog.PricingModel{catalog.OnDemand}, Clouds: []string{"alpha"}}
	res, err = p.Recommend(fixtureRequest(train8B, onDemand, planner.ObjectiveCost))
	if err != nil {
		t.Fatal(err)
	}
	if info := res.Best.PriceInfo(); info.Basis != catalog.PricePublished || strings.Contains(res.Best.Explanation, "derived") {
		t.Errorf("on-demand best: %+v, %q", info, res.Best.Explanation)
	}
}
