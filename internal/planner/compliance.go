// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner

import (
	"fmt"
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

// partitionCompliance is the regime a separate-account partition implies.
var partitionCompliance = map[string]string{
	"gov":   catalog.ComplianceFedRAMPHigh,
	"china": catalog.ComplianceMLPS2,
}

// offerCompliance is the set of regimes an offer in a region of a cloud
// meets: the region's, its partition's, and hipaa when the cloud signs a
// BAA.
func offerCompliance(cl *catalog.Cloud, r *catalog.Region) complianceSet {
	var s complianceSet
	if r != nil {
		s = complianceOf(r.Compliance)
		if x, ok := partitionCompliance[r.Partition]; ok {
			s |= complianceOf([]string{x})
		}
	}
	if cl.HIPAA {
		s |= complianceOf([]string{catalog.ComplianceHIPAA})
	}
	return s
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
