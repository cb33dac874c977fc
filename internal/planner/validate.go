// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// complianceMeaning describes each regime for messages.
var complianceMeaning = map[string]string{
	catalog.ComplianceGDPR:        "an EU/EEA region",
	catalog.ComplianceUKGDPR:      "a UK region",
	catalog.ComplianceSwissFADP:   "a Swiss region",
	catalog.ComplianceMLPS2:       "a mainland-China region",
	catalog.ComplianceFedRAMPHigh: "a US government partition",
	catalog.ComplianceHIPAA:       "a cloud that signs a HIPAA BAA",
}

// Validate checks the request against the catalog: unknown names (with the
// closest valid ones), contradictory constraints and out-of-range numbers.
// It normalises accelerator names to canonical IDs and lower-cases the
// other names in place.
func (p *Planner) Validate(req *Request) InputErrors {
	var errs InputErrors
	add := func(field, summary, format string, args ...any) {
		errs = append(errs, &InputError{Field: field, Summary: summary, Detail: fmt.Sprintf(format, args...)})
	}
	switch req.Objective {
	case "", ObjectiveCost, ObjectiveTime, ObjectiveCarbon, ObjectiveBalanced:
	default:
		objs := make([]string, len(Objectives))
		for i, o := range Objectives {
			objs[i] = string(o)
		}
		add("objective", "Invalid Objective", "objective = %q; allowed: %s.", req.Objective, catalog.QuoteList(objs))
	}
	if maxTop := p.policy.MaxTop; req.Top < 0 || req.Top > maxTop {
		add("top", "Invalid Top", "top = %d: must be between 1 and %d.", req.Top, maxTop)
	}
	switch req.Workload.Kind {
	case KindTraining, KindFineTuning:
	case KindInference:
		if !(req.Workload.TokensPerSecond > 0) || math.IsInf(req.Workload.TokensPerSecond, 0) {
			add("workload.tokens_per_second", "Invalid Workload",
				"tokens_per_second = %v: a recommendation for kind = \"inference\" needs the aggregate output tokens/s to serve, for example 5000.",
				req.Workload.TokensPerSecond)
		}
	default:
		add("workload.kind", "Invalid Workload", "kind = %q; allowed: \"training\", \"fine_tuning\", \"inference\".", req.Workload.Kind)
	}

	c := &req.Constraints
	lower := func(ss []string) {
		for i := range ss {
			ss[i] = strings.ToLower(strings.TrimSpace(ss[i]))
		}
	}
	lower(c.Clouds)
	lower(c.Geographies)
	lower(c.Compliance)

	prov := setOf(req.AllowedClouds)
	for i, cl := range c.Clouds {
		field := fmt.Sprintf("constraints.clouds[%d]", i)
		if _, ok := p.cat.Cloud(cl); !ok {
			add(field, "Unknown Cloud", "constraints.clouds[%d] = %q is not a cloud in the catalog. Closest: %s.", i, cl, catalog.QuoteList(catalog.Closest(cl, p.cloudIDs, 3)))
		} else if prov != nil && !prov[cl] {
			add(field, "Contradictory Constraints", "constraints.clouds[%d] = %q is excluded by the provider's clouds allow-list (%s); add it there or remove it here.",
				i, cl, catalog.QuoteList(req.AllowedClouds))
		}
	}
	for i, rg := range c.Regions {
		field := fmt.Sprintf("constraints.regions[%d]", i)
		owners := p.regionClouds[rg]
		if len(owners) == 0 {
			add(field, "Unknown Region", "constraints.regions[%d] = %q is not a region in the catalog. Closest: %s.", i, rg, catalog.QuoteList(catalog.Closest(rg, p.regionIDs, 3)))
			continue
		}
		if len(c.Clouds) > 0 {
			in := false
			for _, o := range owners {
				for _, cl := range c.Clouds {
					in = in || o == cl
				}
			}
			if !in {
				add(field, "Contradictory Constraints", "constraints.regions[%d] = %q is a region of %s, which is not in clouds (%s); add the cloud or choose a region of %s.",
					i, rg, catalog.QuoteList(owners), catalog.QuoteList(c.Clouds), catalog.QuoteList(c.Clouds))
			}
		}
	}
	for i, g := range c.Geographies {
		if !p.geos[g] {
			add(fmt.Sprintf("constraints.geographies[%d]", i), "Unknown Geography",
				"constraints.geographies[%d] = %q is not a geography in the catalog. Closest: %s. Allowed: %s.", i, g, catalog.QuoteList(catalog.Closest(g, p.geoIDs, 3)), catalog.QuoteList(p.geoIDs))
		}
	}
	for i, a := range c.Accelerators {
		acc, ok := p.cat.Accelerator(a)
		if !ok {
			add(fmt.Sprintf("constraints.accelerators[%d]", i), "Unknown Accelerator",
				"constraints.accelerators[%d] = %q is not an accelerator ID or alias in the catalog. Closest: %s.", i, a, catalog.QuoteList(catalog.Closest(a, p.accelIDs, 3)))
			continue
		}
		c.Accelerators[i] = acc.ID
	}
	pmNames := make([]string, len(catalog.PricingModels))
	for i, pm := range catalog.PricingModels {
		pmNames[i] = string(pm)
	}
	for i, pm := range c.PricingModels {
		if pmIndex(pm) < 0 {
			add(fmt.Sprintf("constraints.pricing_models[%d]", i), "Unknown Pricing Model",
				"constraints.pricing_models[%d] = %q; allowed: %s. Closest: %s.", i, pm, catalog.QuoteList(pmNames), catalog.QuoteList(catalog.Closest(string(pm), pmNames, 1)))
		}
	}
	compOK := true
	for i, x := range c.Compliance {
		if _, ok := complianceBits[x]; !ok {
			compOK = false
			add(fmt.Sprintf("constraints.compliance[%d]", i), "Unknown Compliance Regime",
				"constraints.compliance[%d] = %q; allowed: %s. Closest: %s.", i, x, catalog.QuoteList(ComplianceRegimes), catalog.QuoteList(catalog.Closest(x, ComplianceRegimes, 2)))
		}
	}
	nums := []struct {
		name string
		v    float64
	}{
		{"max_hourly_cost_usd", c.MaxHourlyCostUSD}, {"max_total_cost_usd", c.MaxTotalCostUSD},
		{"deadline_hours", c.DeadlineHours}, {"min_gpu_memory_gb", c.MinGPUMemoryGB},
		{"min_network_gbps", c.MinNetworkGbps}, {"max_co2e_kg", c.MaxCO2eKg},
	}
	for _, n := range nums {
		if n.v < 0 || math.IsNaN(n.v) || math.IsInf(n.v, 0) {
			add("constraints."+n.name, "Invalid Constraint", "%s = %v: must be a positive number (omit it for no limit).", n.name, n.v)
		}
	}
	if c.MaxGPUs < 0 {
		add("constraints.max_gpus", "Invalid Constraint", "max_gpus = %d: must be at least 1 (omit it for no limit).", c.MaxGPUs)
	}
	if c.MaxNodes < 0 {
		add("constraints.max_nodes", "Invalid Constraint", "max_nodes = %d: must be at least 1 (omit it for no limit).", c.MaxNodes)
	}
	if len(errs) == 0 && compOK && len(c.Compliance) > 0 {
		if e := p.complianceContradiction(req); e != nil {
			errs = append(errs, e)
		}
	}
	return errs
}

// complianceContradiction reports compliance regimes no region can meet
// together, or together with the clouds, regions and geographies asked for.
func (p *Planner) complianceContradiction(req *Request) *InputError {
	c := &req.Constraints
	var want uint8
	for _, x := range c.Compliance {
		want |= complianceBits[x]
	}
	meets := func(oi *offerInfo) bool { return oi.comp&want == want }
	clouds, regions, geos := setOf(c.Clouds), setOf(c.Regions), setOf(c.Geographies)
	prov := setOf(req.AllowedClouds)
	found, anyScoped := false, false
	var scoped []string
	seen := map[string]bool{}
	for i := range p.offers {
		oi := &p.offers[i]
		if !meets(oi) {
			continue
		}
		found = true
		if (prov == nil || prov[oi.o.Cloud]) && (clouds == nil || clouds[oi.o.Cloud]) && (regions == nil || regions[oi.o.Region]) && (geos == nil || geos[oi.geo]) {
			anyScoped = true
			break
		}
		if k := oi.o.Cloud + " " + oi.o.Region; !seen[k] && (clouds == nil || clouds[oi.o.Cloud]) {
			seen[k] = true
			scoped = append(scoped, k)
		}
	}
	if anyScoped {
		return nil
	}
	var meaning []string
	for _, x := range c.Compliance {
		meaning = append(meaning, fmt.Sprintf("%s needs %s", x, complianceMeaning[x]))
	}
	if !found {
		return &InputError{Field: "constraints.compliance", Summary: "Contradictory Constraints",
			Detail: fmt.Sprintf("compliance = [%s] cannot be met together: %s, and no region in the catalog is all of these.",
				catalog.QuoteList(c.Compliance), strings.Join(meaning, "; "))}
	}
	field, what := "constraints.clouds", "clouds"
	switch {
	case len(c.Regions) > 0:
		field, what = "constraints.regions", "regions"
	case len(c.Geographies) > 0:
		field, what = "constraints.geographies", "geographies"
	case len(c.Clouds) == 0:
		field, what = "constraints.compliance", "the provider's clouds allow-list"
	}
	sort.Strings(scoped)
	if len(scoped) > 5 {
		scoped = append(scoped[:5], "…")
	}
	return &InputError{Field: field, Summary: "Contradictory Constraints",
		Detail: fmt.Sprintf("compliance = [%s] (%s) cannot be met within %s: no offer there qualifies. Offers that do: %s.",
			catalog.QuoteList(c.Compliance), strings.Join(meaning, "; "), what, strings.Join(scoped, ", "))}
}
