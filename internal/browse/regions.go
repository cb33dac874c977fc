// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package browse

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/inputerr"
	"github.com/gpuplan/terraform-provider-gpu/internal/numfmt"
	"github.com/gpuplan/terraform-provider-gpu/internal/textable"
)

// RegionFilter selects regions; a nil list selects everything.
type RegionFilter struct {
	// AllowedClouds is the provider's clouds allow-list (nil: every cloud).
	AllowedClouds []string
	Clouds        []string // cloud IDs, any case
	Countries     []string // ISO codes or names, any case ("DE", "Germany")
	Geographies   []string // geography buckets (catalog.Geographies)
	Partitions    []string // commercial, gov, china
	// Compliance keeps regions that carry every one of these regimes.
	Compliance []string
}

// Region is one region as gpu_regions shows it.
type Region struct {
	*catalog.Region
	CountryName string
	// PUE is the region's published PUE, else its cloud's.
	PUE float64
	// Offers counts the GPU instance offers priced in the region.
	Offers int
}

// Regions returns the regions f selects, sorted by cloud and region ID.
// Unknown names are errors on the attribute's element with the closest
// valid names (countries: catalog.UnknownCountry).
func Regions(cat *catalog.Catalog, f RegionFilter) ([]Region, inputerr.List) {
	var errs inputerr.List
	codes := regionCountries(cat)
	f.Clouds = checkNames(&errs, "clouds", "Unknown Cloud", f.Clouds, cat.CloudIDs(), cat.UnknownCloud)
	f.Geographies = checkNames(&errs, "geographies", "Unknown Geography", f.Geographies, catalog.GeographyIDs(),
		closestIn("geography", catalog.GeographyIDs()))
	partitions := make([]string, len(catalog.Partitions))
	for i, p := range catalog.Partitions {
		partitions[i] = string(p)
	}
	f.Partitions = checkNames(&errs, "partitions", "Unknown Partition", f.Partitions, partitions, closestIn("partition", partitions))
	f.Compliance = checkNames(&errs, "compliance", "Unknown Compliance Regime", f.Compliance, catalog.ComplianceRegimes,
		closestIn("compliance regime", catalog.ComplianceRegimes))
	var countries []string
	for i, c := range f.Countries {
		code := catalog.CountryCode(c)
		if !slices.Contains(codes, code) {
			at := inputerr.Root("countries").Index(i)
			errs.AddLazy(at, "Unknown Country", func() string { return catalog.UnknownCountry(at.String(), c, codes) })
		}
		countries = append(countries, code)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	offers := map[string]int{}
	for _, o := range cat.Offers {
		offers[o.Cloud+"/"+o.Region]++
	}
	var out []Region
	for _, r := range cat.Regions {
		if !f.keeps(r, countries) {
			continue
		}
		pue := r.PUE
		if cl, ok := cat.Cloud(r.Cloud); ok && pue == 0 {
			pue = cl.PUE
		}
		out = append(out, Region{Region: r, CountryName: catalog.CountryName(r.Country), PUE: pue, Offers: offers[r.Cloud+"/"+r.ID]})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Cloud != out[j].Cloud {
			return out[i].Cloud < out[j].Cloud
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

func (f RegionFilter) keeps(r *catalog.Region, countries []string) bool {
	in := func(list []string, v string) bool { return list == nil || slices.Contains(list, v) }
	return in(f.AllowedClouds, r.Cloud) && in(f.Clouds, r.Cloud) && in(countries, r.Country) && in(f.Geographies, r.Geography) &&
		in(f.Partitions, string(r.Partition)) &&
		!slices.ContainsFunc(f.Compliance, func(c string) bool { return !slices.Contains(r.Compliance, c) })
}

// regionCountries lists the countries that have a region, sorted.
func regionCountries(cat *catalog.Catalog) []string {
	var out []string
	for _, r := range cat.Regions {
		if r.Country != "" && !slices.Contains(out, r.Country) {
			out = append(out, r.Country)
		}
	}
	slices.Sort(out)
	return out
}

// checkNames lower-cases names and reports each one not in valid with
// summary and unknown's detail; it returns the lower-cased names (nil
// stays nil).
func checkNames(errs *inputerr.List, attr, summary string, names, valid []string, unknown func(at, name string) string) []string {
	if names == nil {
		return nil
	}
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = strings.ToLower(strings.TrimSpace(n))
		if !slices.Contains(valid, out[i]) {
			at := inputerr.Root(attr).Index(i)
			errs.AddLazy(at, summary, func() string { return unknown(at.String(), n) })
		}
	}
	return out
}

// closestIn is the detail of an unknown name of a closed set.
func closestIn(what string, valid []string) func(at, name string) string {
	return func(at, name string) string {
		return fmt.Sprintf("%s = %s is not a %s. Closest: %s. Allowed: %s.", at, catalog.QuoteName(name), what,
			catalog.QuoteList(catalog.Closest(name, valid, 2)), catalog.QuoteList(valid))
	}
}

// RegionsSummary renders regions as a table: cloud, region, city,
// country, geography, partition, grid carbon, PUE, compliance, offers.
func RegionsSummary(rs []Region) string {
	t := textable.New(textable.Column{Header: "CLOUD"}, textable.Column{Header: "REGION"}, textable.Column{Header: "LOCATION"},
		textable.Column{Header: "GEO"}, textable.Column{Header: "PARTITION"}, textable.Column{Header: "GCO2E/KWH", Align: textable.Right},
		textable.Column{Header: "PUE", Align: textable.Right}, textable.Column{Header: "OFFERS", Align: textable.Right},
		textable.Column{Header: "COMPLIANCE"})
	for _, r := range rs {
		grid := "?"
		if r.GridGCO2ePerKWh > 0 {
			grid = numfmt.Int(r.GridGCO2ePerKWh)
		}
		where := r.Country
		if r.City != "" {
			where = r.City + ", " + r.Country
		}
		t.Row(r.Cloud, r.ID, where, r.Geography, string(r.Partition), grid, numfmt.Trim(r.PUE, 2),
			numfmt.Int(float64(r.Offers)), strings.Join(r.Compliance, " "))
	}
	return fmt.Sprintf("%s\n%s", countOf(len(rs), "region"), t.String())
}
