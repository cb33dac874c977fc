// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package cost_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/cost"
)

// TestFleetTCO: gpu_tco's question on the built-in catalog. Pinned, the
// fleet is priced in its region and the other commercial regions are
// listed, cheapest first; unpinned, the cheapest of them all is priced and
// it is no dearer than any other; a serverless offer is priced where its
// platform runs it.
func TestFleetTCO(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	m := builtinModel(t)
	fleet := cost.Fleet{Cloud: "aws", InstanceType: "p5.48xlarge", Region: "us-east-1",
		Input: cost.Input{InstanceCount: 2, Months: 12, Utilization: 0.5}}
	pinned, err := m.FleetTCO(cat, fleet)
	if err != nil {
		t.Fatal(err)
	}
	if pinned.Region != "us-east-1" || pinned.Input.Offer.Region != "us-east-1" || !pinned.HasOnDemand || len(pinned.Others) == 0 {
		t.Fatalf("pinned: region %q, offer %+v, on-demand %v, %d others", pinned.Region, pinned.Input.Offer, pinned.HasOnDemand, len(pinned.Others))
	}
	fleet.Region, fleet.RegionUnset = "", true
	cheapest, err := m.FleetTCO(cat, fleet)
	if err != nil {
		t.Fatal(err)
	}
	total := cheapest.Result.ShownTotalUSD()
	for i, o := range cheapest.Others {
		if o.TotalUSD < total || (i > 0 && o.TotalUSD < cheapest.Others[i-1].TotalUSD) || o.Offer.Region == cheapest.Region {
			t.Errorf("other region %d %s: %v, the chosen %s: %v", i, o.Offer.Region, o.TotalUSD, cheapest.Region, total)
		}
	}
	if len(cheapest.Others) != len(pinned.Others) || !strings.Contains(cheapest.Summary, "(the cheapest of ") {
		t.Errorf("unpinned: %d others (pinned: %d), summary:\n%s", len(cheapest.Others), len(pinned.Others), cheapest.Summary)
	}
	s := cat.Serverless[0]
	sl, err := m.FleetTCO(cat, cost.Fleet{Cloud: s.Cloud, InstanceType: s.Name, Region: s.Region,
		Input: cost.Input{InstanceCount: 1, Months: 1, Utilization: 0.1}})
	if err != nil {
		t.Fatal(err)
	}
	if sl.Input.Serverless != s || sl.Region != s.Region || sl.Others != nil || sl.Result.Compute[0].PricingModel != catalog.Serverless {
		t.Errorf("serverless %s/%s: %+v", s.Cloud, s.Name, sl)
	}
}

// TestFleetTCOUnknownNames: each unknown name is an input error on its
// attribute with the closest valid names.
func TestFleetTCOUnknownNames(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	m := builtinModel(t)
	for _, tc := range []struct {
		cloud, it, region, field, want string
	}{
		{"awz", "p5.48xlarge", "us-east-1", "cloud", `"aws"`},
		{"gcp", "a3-highgpu-8x", "us-central1", "instance_type", `Closest: "a3-highgpu-8g"`},
		{"aws", "p5.48xlarge", "us-east-9", "region", "is not a region of aws"},
		{"aws", "p5.48xlarge", "af-south-1", "region", "is not offered in af-south-1"},
	} {
		_, err := m.FleetTCO(cat, cost.Fleet{Cloud: tc.cloud, InstanceType: tc.it, Region: tc.region,
			Input: cost.Input{InstanceCount: 1, Months: 1, Utilization: 1}})
		var ie *cost.InputError
		if !errors.As(err, &ie) || ie.Field != tc.field || !strings.Contains(ie.Detail, tc.want) {
			t.Errorf("%s/%s/%s: %v, want an error on %s containing %q", tc.cloud, tc.it, tc.region, err, tc.field, tc.want)
		}
	}
	if _, err := cost.HourlyListPrice(cat, "aws", "p5.48xlarge", "us-east-1", "weekly"); err == nil ||
		!strings.Contains(err.Error(), "pricing_model") {
		t.Errorf("unknown pricing model: %v", err)
	}
}
