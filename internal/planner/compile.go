// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/inputerr"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
)

// Validate checks the request against the catalog: unknown names (with the
// closest valid ones), contradictory constraints and out-of-range numbers,
// each error on the attribute that carries it. It normalises accelerator
// names to canonical IDs and lower-cases the other names, the objective,
// distinct_by and the pricing models in place: every enumerated value is
// accepted in any case. The
// workload itself was validated when it was prepared; Validate only checks
// what a recommendation adds (an inference target).
func (p *Planner) Validate(req *Request) inputerr.List {
	var errs inputerr.List
	req.Objective = Objective(strings.ToLower(strings.TrimSpace(string(req.Objective))))
	req.DistinctBy = DistinctBy(strings.ToLower(strings.TrimSpace(string(req.DistinctBy))))
	p.validateRequest(req, &errs)
	c := &req.Constraints
	for i, pm := range c.PricingModels {
		c.PricingModels[i] = catalog.PricingModelOf(string(pm))
	}
	lower(c.Clouds)
	lower(c.Geographies)
	lower(c.Compliance)
	written := slices.Clone(c.Countries)
	for i := range c.Countries {
		c.Countries[i] = catalog.CountryCode(c.Countries[i])
	}
	p.validateClouds(req, &errs)
	p.validateCountries(req, written, &errs)
	p.validateRegions(c, &errs)
	p.validateNames(c, &errs)
	compOK := validateCompliance(c, &errs)
	if compOK {
		errs = append(errs, JurisdictionConflicts(c.Compliance)...)
	}
	validateLimits(c, &errs)
	if len(errs) == 0 && compOK && len(c.Compliance) > 0 {
		if e := p.complianceContradiction(req); e != nil {
			errs = append(errs, e)
		}
	}
	return errs
}

func lower(ss []string) {
	for i := range ss {
		ss[i] = strings.ToLower(strings.TrimSpace(ss[i]))
	}
}

func setOf(ss []string) map[string]bool {
	if ss == nil {
		return nil
	}
	m := make(map[string]bool, len(ss))
	for _, s := range ss {
		m[s] = true
	}
	return m
}

// validateRequest checks the objective, top and the inference target.
func (p *Planner) validateRequest(req *Request, errs *inputerr.List) {
	switch req.Objective {
	case "", ObjectiveCost, ObjectiveTime, ObjectiveCarbon, ObjectiveBalanced:
	default:
		errs.Add(inputerr.Root("objective"), "Invalid Objective", "objective = %s; allowed: %s.",
			catalog.QuoteName(string(req.Objective)), catalog.QuoteList(ObjectiveNames()))
	}
	switch req.DistinctBy {
	case "", DistinctInstanceType, DistinctRegion, DistinctDeployment:
	default:
		errs.Add(inputerr.Root("distinct_by"), "Invalid Distinct By", "distinct_by = %s; allowed: %s.",
			catalog.QuoteName(string(req.DistinctBy)), catalog.QuoteList(DistinctByValues))
	}
	if maxTop := p.policy.MaxTop; req.Top < 0 || req.Top > maxTop {
		errs.Add(inputerr.Root("top"), "Invalid Top", "top = %d: must be between 1 and %d.", req.Top, maxTop)
	}
	if req.Estimator == nil {
		return
	}
	w := req.Estimator.Workload()
	if w.Kind == perf.KindInference && (!(w.TokensPerSecond > 0) || math.IsInf(w.TokensPerSecond, 0)) {
		errs.Add(inputerr.Root("workload").Name("tokens_per_second"), "Invalid Workload",
			"tokens_per_second = %s: a recommendation for kind = \"inference\" needs the aggregate output tokens/s to serve, for example 5000.",
			catalog.FormatNumber(w.TokensPerSecond))
	}
	if d := w.DutyCycle; !(d > 0 && d <= 1) {
		errs.Add(inputerr.Root("workload").Name("duty_cycle"), "Invalid Workload",
			"duty_cycle = %s: must be more than 0 and at most 1, the share of the time the load is there.", catalog.FormatNumber(d))
	}
}

func (p *Planner) validateClouds(req *Request, errs *inputerr.List) {
	c := &req.Constraints
	prov := setOf(req.AllowedClouds)
	for i, cl := range c.Clouds {
		at := inputerr.Root("constraints").Name("clouds").Index(i)
		if _, ok := p.cat.Cloud(cl); !ok {
			errs.AddLazy(at, "Unknown Cloud", func() string { return p.cat.UnknownCloud(at.String(), cl) })
		} else if prov != nil && !prov[cl] {
			errs.Add(at, "Contradictory Constraints", "%s = %q is excluded by the provider's clouds allow-list (%s); add it there or remove it here.",
				at, cl, catalog.QuoteList(req.AllowedClouds))
		}
	}
}

func (p *Planner) validateRegions(c *Constraints, errs *inputerr.List) {
	for i, rg := range c.Regions {
		at := inputerr.Root("constraints").Name("regions").Index(i)
		owners := p.regionClouds[catalog.NameKey(rg)]
		if len(owners) == 0 {
			errs.AddLazy(at, "Unknown Region", func() string { return catalog.UnknownRegion(at.String(), rg, p.regionIDs) })
			continue
		}
		c.Regions[i] = p.regionSpelling[catalog.NameKey(rg)] // names match in any case
		if len(c.Clouds) > 0 && !anyIn(owners, c.Clouds) {
			errs.Add(at, "Contradictory Constraints", "%s = %q is a region of %s, which is not in clouds (%s); add the cloud or choose a region of %s.",
				at, rg, catalog.QuoteList(owners), catalog.QuoteList(c.Clouds), catalog.QuoteList(c.Clouds))
		}
	}
}

// validateCountries checks that each country (an ISO code by now; written
// holds them as the user wrote them, for messages) has a region of a cloud
// the request allows.
func (p *Planner) validateCountries(req *Request, written []string, errs *inputerr.List) {
	c := &req.Constraints
	for i, x := range c.Countries {
		at := inputerr.Root("constraints").Name("countries").Index(i)
		owners := p.countryClouds[x]
		if len(owners) == 0 {
			errs.AddLazy(at, "Unknown Country", func() string { return catalog.UnknownCountry(at.String(), written[i], p.countryIDs) })
			continue
		}
		allowed := owners
		if c.Clouds != nil {
			allowed = slices.DeleteFunc(slices.Clone(owners), func(cl string) bool { return !slices.Contains(c.Clouds, cl) })
		}
		if len(allowed) == 0 {
			errs.Add(at, "Contradictory Constraints", "%s = %q has regions only on %s, which is not in clouds (%s); add the cloud or choose another country.",
				at, x, catalog.QuoteList(owners), catalog.QuoteList(c.Clouds))
		}
	}
}

// anyIn reports whether some element of a is in b.
func anyIn(a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}

// validateNames checks geographies, accelerators (rewritten to canonical
// IDs) and pricing models.
func (p *Planner) validateNames(c *Constraints, errs *inputerr.List) {
	constraints := inputerr.Root("constraints")
	for i, g := range c.Geographies {
		if !p.geos[g] {
			at := constraints.Name("geographies").Index(i)
			errs.AddLazy(at, "Unknown Geography", func() string {
				return fmt.Sprintf("%s = %s is not a geography in the catalog. Closest: %s. Allowed: %s.",
					at, catalog.QuoteName(g), catalog.QuoteList(catalog.Closest(g, p.geoIDs, 3)), catalog.QuoteList(p.geoIDs))
			})
		}
	}
	for i, a := range c.Accelerators {
		acc, ok := p.cat.Accelerator(a)
		if !ok {
			at := constraints.Name("accelerators").Index(i)
			errs.AddLazy(at, "Unknown Accelerator", func() string { return p.cat.UnknownAccelerator(at.String(), a) })
			continue
		}
		c.Accelerators[i] = acc.ID
	}
	names := catalog.PricingModelNames(catalog.AllPricingModels)
	for i, pm := range c.PricingModels {
		if pm.Index() < 0 {
			at := constraints.Name("pricing_models").Index(i)
			errs.Add(at, "Unknown Pricing Model", "%s = %s; allowed: %s. Closest: %s.",
				at, catalog.QuoteName(string(pm)), catalog.QuoteList(names), catalog.QuoteList(catalog.Closest(string(pm), names, 1)))
		}
	}
}

// validateCompliance checks the regimes; false when one is unknown.
func validateCompliance(c *Constraints, errs *inputerr.List) bool {
	ok := true
	for i, x := range c.Compliance {
		if _, known := complianceBit(x); !known {
			ok = false
			at := inputerr.Root("constraints").Name("compliance").Index(i)
			errs.Add(at, "Unknown Compliance Regime", "%s = %s; allowed: %s. Closest: %s.",
				at, catalog.QuoteName(x), catalog.QuoteList(catalog.ComplianceRegimes), catalog.QuoteList(catalog.Closest(x, catalog.ComplianceRegimes, 2)))
		}
	}
	return ok
}

// validateLimits checks the numeric limits: positive, finite.
func validateLimits(c *Constraints, errs *inputerr.List) {
	constraints := inputerr.Root("constraints")
	for _, n := range []struct {
		name string
		v    float64
	}{
		{"max_hourly_cost_usd", c.MaxHourlyCostUSD}, {"max_total_cost_usd", c.MaxTotalCostUSD},
		{"deadline_hours", c.DeadlineHours}, {"min_gpu_memory_gb", c.MinGPUMemoryGB},
		{"min_network_gbps", c.MinNetworkGbps}, {"max_co2e_kg", c.MaxCO2eKg},
	} {
		if n.v < 0 || math.IsNaN(n.v) || math.IsInf(n.v, 0) {
			errs.Add(constraints.Name(n.name), "Invalid Constraint", "%s = %s: must be a positive number (omit it for no limit).",
				n.name, catalog.FormatNumber(n.v))
		}
	}
	if c.MaxGPUs < 0 {
		errs.Add(constraints.Name("max_gpus"), "Invalid Constraint", "max_gpus = %d: must be at least 1 (omit it for no limit).", c.MaxGPUs)
	}
	if c.MaxNodes < 0 {
		errs.Add(constraints.Name("max_nodes"), "Invalid Constraint", "max_nodes = %d: must be at least 1 (omit it for no limit).", c.MaxNodes)
	}
}

// filters is a request compiled for the hot loop.
type filters struct {
	provClouds, clouds, regions, geos, countries, accels map[string]bool
	// partitions: the separate-account partitions asked for.
	partitions        map[catalog.Partition]bool
	pricingModels     [catalog.NumPricingModels]bool // by slot
	compliance        complianceSet
	maxNodes, maxGPUs int
	userMaxNodes      bool
	// limited: some numeric limit (hourly, deadline, total, CO2e) is set.
	limited bool
}

// compile turns the validated constraints into filters.
func (r *run) compile() {
	c := &r.req.Constraints
	f := &r.f
	f.provClouds = setOf(r.req.AllowedClouds)
	f.clouds = setOf(c.Clouds)
	f.regions = setOf(c.Regions)
	f.geos = setOf(c.Geographies)
	f.countries = setOf(c.Countries)
	f.partitions = r.p.requestedPartitions(c)
	if c.Accelerators != nil {
		f.accels = make(map[string]bool, len(c.Accelerators))
		for _, a := range c.Accelerators {
			if acc, ok := r.p.cat.Accelerator(a); ok {
				f.accels[acc.ID] = true
			}
		}
	}
	for s := range f.pricingModels {
		f.pricingModels[s] = c.PricingModels == nil
	}
	for _, pm := range c.PricingModels {
		if s := pm.Index(); s >= 0 {
			f.pricingModels[s] = true
		}
	}
	f.compliance = complianceOf(c.Compliance)
	f.maxNodes = r.p.policy.DefaultMaxNodes
	if c.MaxNodes > 0 {
		f.maxNodes = c.MaxNodes
		f.userMaxNodes = true
	}
	f.maxGPUs = c.MaxGPUs
	f.limited = c.MaxHourlyCostUSD > 0 || c.DeadlineHours > 0 || c.MaxTotalCostUSD > 0 || c.MaxCO2eKg > 0
}
