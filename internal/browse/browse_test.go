// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package browse_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/browse"
	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

func presets(t *testing.T) *catalog.ModelPresets {
	t.Helper()
	p, err := catalog.BuiltinModelPresets()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func builtin(t *testing.T) *catalog.Catalog {
	t.Helper()
	c, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func ids(ms []*catalog.ModelPreset) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

func TestModels(t *testing.T) {
	p := presets(t)
	yes, no := true, false
	for _, tc := range []struct {
		name  string
		f     browse.ModelFilter
		check func([]*catalog.ModelPreset) bool
	}{
		{"every preset, sorted", browse.ModelFilter{}, func(ms []*catalog.ModelPreset) bool {
			return len(ms) == len(p.IDs()) && slices.IsSorted(ids(ms))
		}},
		{"ids in their order, any spelling", browse.ModelFilter{IDs: []string{"Qwen/Qwen3-32B", "Llama-3.1-8B-Instruct", "llama-3.1-8b"}},
			func(ms []*catalog.ModelPreset) bool {
				return slices.Equal(ids(ms), []string{"qwen3-32b", "llama-3.1-8b"})
			}},
		{"mixture of experts only", browse.ModelFilter{MixtureOfExperts: &yes}, func(ms []*catalog.ModelPreset) bool {
			return len(ms) > 0 && !slices.ContainsFunc(ms, func(m *catalog.ModelPreset) bool { return !m.IsMoE() })
		}},
		{"dense only, at most 10B", browse.ModelFilter{MixtureOfExperts: &no, MaxParametersB: 10}, func(ms []*catalog.ModelPreset) bool {
			return len(ms) > 0 && !slices.ContainsFunc(ms, func(m *catalog.ModelPreset) bool { return m.IsMoE() || m.TotalParametersB > 10 })
		}},
		{"context of 1M tokens", browse.ModelFilter{MinContextTokens: 1 << 20}, func(ms []*catalog.ModelPreset) bool {
			return len(ms) > 0 && !slices.ContainsFunc(ms, func(m *catalog.ModelPreset) bool { return m.MaxContextTokens < 1<<20 })
		}},
		{"licence, any case", browse.ModelFilter{Licenses: []string{"Apache-2.0"}}, func(ms []*catalog.ModelPreset) bool {
			return slices.Contains(ids(ms), "gpt-oss-120b") && !slices.Contains(ids(ms), "llama-3.1-8b")
		}},
	} {
		ms, errs := browse.Models(p, tc.f)
		if len(errs) > 0 || !tc.check(ms) {
			t.Errorf("%s: %v, %v", tc.name, ids(ms), errs)
		}
	}
}

func TestModelsUnknownNames(t *testing.T) {
	_, errs := browse.Models(presets(t), browse.ModelFilter{IDs: []string{"llama-3.1-8b", "llama3-70b"}, Licenses: []string{"apache"}})
	if len(errs) != 2 || errs[0].Path.String() != "ids[1]" || errs[1].Path.String() != "licenses[0]" {
		t.Fatalf("errors = %v, want ids[1] and licenses[0]", errs)
	}
	if want := `ids[1] = "llama3-70b" is not a model preset ID or alias; closest: "llama-3.1-70b", "llama-3.3-70b"`; !strings.HasPrefix(errs[0].Detail, want) {
		t.Errorf("ids[1]: %s\nwant %s", errs[0].Detail, want)
	}
	if want := `Closest: "apache-2.0"`; !strings.Contains(errs[1].Detail, want) {
		t.Errorf("licenses[0]: %s\nwant %s", errs[1].Detail, want)
	}
}

func TestRegions(t *testing.T) {
	cat := builtin(t)
	all, errs := browse.Regions(cat, browse.RegionFilter{})
	if len(errs) > 0 || len(all) != len(cat.Regions) {
		t.Fatalf("no filter: %d regions, %v; want %d", len(all), errs, len(cat.Regions))
	}
	for _, tc := range []struct {
		name string
		f    browse.RegionFilter
		keep func(browse.Region) bool
	}{
		{"a country by name", browse.RegionFilter{Countries: []string{"Germany"}}, func(r browse.Region) bool { return r.Country == "DE" }},
		{"UK and a code in lower case", browse.RegionFilter{Countries: []string{"UK", "fr"}},
			func(r browse.Region) bool { return r.Country == "GB" || r.Country == "FR" }},
		{"geography and cloud, any case", browse.RegionFilter{Geographies: []string{"EU"}, Clouds: []string{"AWS"}},
			func(r browse.Region) bool { return r.Geography == "eu" && r.Cloud == "aws" }},
		{"every compliance regime listed", browse.RegionFilter{Compliance: []string{"gdpr", "hipaa"}},
			func(r browse.Region) bool {
				return slices.Contains(r.Compliance, "gdpr") && slices.Contains(r.Compliance, "hipaa")
			}},
		{"gov partition", browse.RegionFilter{Partitions: []string{"gov"}}, func(r browse.Region) bool { return r.Partition == catalog.PartitionGov }},
		{"provider allow-list", browse.RegionFilter{AllowedClouds: []string{"gcp"}}, func(r browse.Region) bool { return r.Cloud == "gcp" }},
	} {
		rs, errs := browse.Regions(cat, tc.f)
		if len(errs) > 0 || len(rs) == 0 {
			t.Errorf("%s: %d regions, %v", tc.name, len(rs), errs)
			continue
		}
		want := 0
		for _, r := range all {
			if tc.keep(r) {
				want++
			}
		}
		for _, r := range rs {
			if !tc.keep(r) {
				t.Errorf("%s: kept %s/%s", tc.name, r.Cloud, r.ID)
			}
		}
		if len(rs) != want {
			t.Errorf("%s: %d regions, want %d", tc.name, len(rs), want)
		}
	}
}

func TestRegionsFields(t *testing.T) {
	rs, _ := browse.Regions(builtin(t), browse.RegionFilter{Clouds: []string{"aws"}, Countries: []string{"DE"}})
	if len(rs) == 0 {
		t.Fatal("no AWS region in Germany")
	}
	r := rs[0]
	if r.CountryName != "Germany" || r.PUE <= 0 || r.Offers <= 0 {
		t.Errorf("%s: country name %q, PUE %v, offers %d", r.ID, r.CountryName, r.PUE, r.Offers)
	}
	sum := browse.RegionsSummary(rs)
	if !strings.HasPrefix(sum, fmt.Sprintf("%d region", len(rs))) || !strings.Contains(sum, r.ID) || !strings.Contains(sum, "gdpr") {
		t.Errorf("summary:\n%s", sum)
	}
}

func TestRegionsUnknownNames(t *testing.T) {
	_, errs := browse.Regions(builtin(t), browse.RegionFilter{
		Clouds: []string{"awz"}, Countries: []string{"Germny", "Portugal"}, Geographies: []string{"europe"},
		Partitions: []string{"govcloud"}, Compliance: []string{"gdpr2"},
	})
	want := map[string]string{
		"clouds[0]":      `clouds[0] = "awz" is not a cloud in the catalog. Closest: "aws"`,
		"countries[0]":   `countries[0] = "Germny" is not a country code or name. Closest: "DE" (Germany)`,
		"countries[1]":   `countries[1] = "Portugal" is Portugal (PT), which has no region in the catalog`,
		"geographies[0]": `geographies[0] = "europe" is not a geography. Closest: "eu"`,
		"partitions[0]":  `partitions[0] = "govcloud" is not a partition. Closest: "gov"`,
		"compliance[0]":  `compliance[0] = "gdpr2" is not a compliance regime. Closest: "gdpr"`,
	}
	if len(errs) != len(want) {
		t.Fatalf("errors: %v, want %d", errs, len(want))
	}
	for _, e := range errs {
		if w := want[e.Path.String()]; w == "" || !strings.HasPrefix(e.Detail, w) {
			t.Errorf("%s: %s\nwant %s", e.Path, e.Detail, w)
		}
	}
}

func TestOffersSummary(t *testing.T) {
	od, spot := catalog.OnDemand, catalog.Spot
	offers := []browse.Offer{
		{Cloud: "aws", Region: "us-west-2", InstanceType: "p5.48xlarge", Accelerator: "H100", GPUs: 8, GPUMemoryGB: 640,
			Prices: map[catalog.PricingModel]float64{od: 98.32, spot: 40}},
		{Cloud: "aws", Region: "us-east-1", InstanceType: "p5.48xlarge", Accelerator: "H100", GPUs: 8, GPUMemoryGB: 640,
			Prices: map[catalog.PricingModel]float64{od: 55.04, spot: 30}},
		{Cloud: "aws", Region: "us-east-1", InstanceType: "g6.xlarge", Accelerator: "L4", GPUs: 1, GPUMemoryGB: 24,
			Prices: map[catalog.PricingModel]float64{od: 0.8048}},
		{Cloud: "modal", Region: "", InstanceType: "functions-h100", Accelerator: "H100", GPUs: 1, GPUMemoryGB: 80,
			Prices: map[catalog.PricingModel]float64{catalog.Serverless: 3.95}},
	}
	got := browse.OffersSummary(offers)
	want := `4 offers of 3 instance types in 2 regions on 2 clouds; hourly USD per instance in the cheapest region

aws: 2 instance types
INSTANCE TYPE  ACCELERATOR  GPUS  GPU MEM GB  CHEAPEST REGION  REGIONS  ON-DEMAND   SPOT
----------------------------------------------------------------------------------------
p5.48xlarge    H100            8         640  us-east-1              2      55.04  30.00
g6.xlarge      L4              1          24  us-east-1              1       0.80      -

modal: 1 instance type
INSTANCE TYPE   ACCELERATOR  GPUS  GPU MEM GB  CHEAPEST REGION  REGIONS  SERVERLESS
-----------------------------------------------------------------------------------
functions-h100  H100            1          80  (platform)             1        3.95
`
	if got != want {
		t.Errorf("summary:\n%s\nwant:\n%s", got, want)
	}
}

func TestModelsSummary(t *testing.T) {
	ms, _ := browse.Models(presets(t), browse.ModelFilter{IDs: []string{"llama-3.1-70b", "deepseek-r1"}})
	got := browse.ModelsSummary(ms)
	for _, want := range []string{"2 model presets\n", "MODEL", "llama-3.1-70b  ", "128K", "deepseek-r1", "671", "37", "mit", "llama3.1"} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
}
