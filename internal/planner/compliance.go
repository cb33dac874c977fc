// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/inputerr"
)

// complianceSet is a set of compliance regimes, one bit per entry of
// catalog.ComplianceRegimes.
type complianceSet uint8

// complianceBit returns the bit of a regime, and whether it is known.
func complianceBit(regime string) (complianceSet, bool) {
	for i, x := range catalog.ComplianceRegimes {
		if x == regime {
			return 1 << i, true
		}
	}
	return 0, false
}

func complianceOf(regimes []string) complianceSet {
	var s complianceSet
	for _, x := range regimes {
		b, _ := complianceBit(x)
		s |= b
	}
	return s
}

// offerCompliance is the set of regimes an offer in a region of a cloud
// meets: the region's (the data gives every gov-partition region
// fedramp_high and every China-partition region mlps2), and hipaa when the
// cloud signs a BAA.
func offerCompliance(cl *catalog.Cloud, r *catalog.Region) complianceSet {
	var s complianceSet
	if r != nil {
		s = complianceOf(r.Compliance)
	}
	if cl.HIPAA {
		s |= complianceOf([]string{catalog.ComplianceHIPAA})
	}
	return s
}

// JurisdictionConflicts reports each compliance regime that ties compute
// to another jurisdiction than an earlier one of the list
// (catalog.IsJurisdiction: every regime but hipaa): no region is in both.
// Regimes are read in any case; entries that are no jurisdiction (an
// unknown regime, or "" for a value not known yet) are skipped. It needs
// no catalog, so the provider runs it at terraform validate too.
func JurisdictionConflicts(regimes []string) inputerr.List {
	var errs inputerr.List
	var seen []string
	at := inputerr.Root("constraints").Name("compliance")
	for i, s := range regimes {
		x := strings.ToLower(strings.TrimSpace(s))
		if !catalog.IsJurisdiction(x) || slices.Contains(seen, x) {
			continue // a regime listed twice is a duplicate, reported as such
		}
		for _, prev := range seen {
			errs.Add(at.Index(i), "Contradictory Constraints",
				"compliance lists both %q and %q: a region cannot be in both jurisdictions (%s needs %s; %s needs %s). Keep one.",
				prev, x, prev, catalog.ComplianceNeeds(prev), x, catalog.ComplianceNeeds(x))
		}
		seen = append(seen, x)
	}
	return errs
}

// complianceContradiction reports compliance regimes no region can meet
// together, or together with the clouds, regions and geographies asked for.
func (p *Planner) complianceContradiction(req *Request) *inputerr.Error {
	c := &req.Constraints
	want := complianceOf(c.Compliance)
	clouds, regions, geos := setOf(c.Clouds), setOf(c.Regions), setOf(c.Geographies)
	prov := setOf(req.AllowedClouds)
	// Where the regimes can be met: within the clouds asked for when some
	// qualify there (the regions or geographies exclude them), else on
	// every cloud (the clouds exclude them).
	var inClouds, anywhere []string
	seen := map[string]bool{}
	for i := range p.offers {
		oi := &p.offers[i]
		if oi.comp&want != want {
			continue
		}
		if (prov == nil || prov[oi.o.Cloud]) && (clouds == nil || clouds[oi.o.Cloud]) && (regions == nil || regions[oi.o.Region]) && (geos == nil || geos[oi.geo]) {
			return nil
		}
		if k := oi.o.Cloud + " " + oi.o.Region; !seen[k] {
			seen[k] = true
			anywhere = append(anywhere, k)
			if clouds == nil || clouds[oi.o.Cloud] {
				inClouds = append(inClouds, k)
			}
		}
	}
	found := len(anywhere) > 0
	scoped := inClouds
	if len(scoped) == 0 {
		scoped = anywhere
	}
	var meaning []string
	for _, x := range c.Compliance {
		meaning = append(meaning, fmt.Sprintf("%s needs %s", x, catalog.ComplianceNeeds(x)))
	}
	constraints := inputerr.Root("constraints")
	if !found {
		return inputerr.New(constraints.Name("compliance"), "Contradictory Constraints",
			"compliance = [%s] cannot be met together: %s, and no region in the catalog is all of these.",
			catalog.QuoteList(c.Compliance), strings.Join(meaning, "; "))
	}
	at, what := constraints.Name("clouds"), "clouds"
	switch {
	case len(c.Regions) > 0:
		at, what = constraints.Name("regions"), "regions"
	case len(c.Geographies) > 0:
		at, what = constraints.Name("geographies"), "geographies"
	case len(c.Clouds) == 0:
		at, what = constraints.Name("compliance"), "the provider's clouds allow-list"
	}
	sort.Strings(scoped)
	if len(scoped) > 5 {
		scoped = append(scoped[:5], "…")
	}
	return inputerr.New(at, "Contradictory Constraints",
		"compliance = [%s] (%s) cannot be met within %s: no offer there qualifies. Offers that do: %s.",
		catalog.QuoteList(c.Compliance), strings.Join(meaning, "; "), what, strings.Join(scoped, ", "))
}

// partitionInfo says which constraints ask for a separate-account
// partition: the jurisdiction regimes some of its regions carry, and the
// geographies and countries that only it has.
type partitionInfo struct {
	regimes   complianceSet
	geos      map[string]bool
	countries map[string]bool
}

// partitionsOf describes every separate-account partition of the regions.
func partitionsOf(regions []*catalog.Region) map[catalog.Partition]*partitionInfo {
	out := map[catalog.Partition]*partitionInfo{}
	geoParts, countryParts := map[string]map[catalog.Partition]bool{}, map[string]map[catalog.Partition]bool{}
	for _, r := range regions {
		note := func(m map[string]map[catalog.Partition]bool, k string) {
			if m[k] == nil {
				m[k] = map[catalog.Partition]bool{}
			}
			m[k][r.Partition] = true
		}
		note(geoParts, r.Geography)
		note(countryParts, r.Country)
		if !catalog.SeparateAccount(r.Partition) {
			continue
		}
		pi := out[r.Partition]
		if pi == nil {
			pi = &partitionInfo{geos: map[string]bool{}, countries: map[string]bool{}}
			out[r.Partition] = pi
		}
		for _, x := range r.Compliance {
			if catalog.IsJurisdiction(x) {
				pi.regimes |= complianceOf([]string{x})
			}
		}
	}
	for name, pi := range out {
		for g, parts := range geoParts {
			if len(parts) == 1 && parts[name] {
				pi.geos[g] = true
			}
		}
		for c, parts := range countryParts {
			if len(parts) == 1 && parts[name] {
				pi.countries[c] = true
			}
		}
	}
	return out
}

// requestedPartitions returns the separate-account partitions the
// constraints ask for.
func (p *Planner) requestedPartitions(c *Constraints) map[catalog.Partition]bool {
	asked := map[catalog.Partition]bool{}
	want := complianceOf(c.Compliance)
	for name, pi := range p.partitions {
		switch {
		case pi.regimes&want != 0,
			slices.ContainsFunc(c.Geographies, func(g string) bool { return pi.geos[g] }),
			slices.ContainsFunc(c.Countries, func(x string) bool { return pi.countries[x] }):
			asked[name] = true
		}
	}
	for _, rg := range c.Regions {
		for _, cl := range p.regionClouds[catalog.NameKey(rg)] {
			if r, ok := p.cat.Region(cl, rg); ok && catalog.SeparateAccount(r.Partition) {
				asked[r.Partition] = true
			}
		}
	}
	return asked
}
