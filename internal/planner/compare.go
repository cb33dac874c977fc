// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/inputerr"
)

// PairResult is one row of a comparison over clouds and pricing models:
// the best candidate of one (cloud, pricing model) pair, or why the pair
// has none. A gap (a cloud that does not sell what fits as spot) is a
// row that says so, not an error that fails the plan.
type PairResult struct {
	Cloud        string
	PricingModel catalog.PricingModel
	Best         *Candidate // nil when the pair has none
	Reason       string     // why the pair has none; "" when Best is set
}

// Compare returns the best candidate of every (cloud, pricing model) pair
// a request allows: the clouds of its constraints (else the provider's
// allow-list, else every cloud of the catalog) × its pricing models (else
// every one), clouds in that order, pricing models in canonical order.
// Each pair is the request narrowed to that cloud and pricing model (its
// regions to the cloud's), ranked by the same objective; a pair with no
// candidate carries the reason the narrowed request has none. Only an
// error that is not about the pair (a provider bug) is returned.
func (p *Planner) Compare(req Request) ([]PairResult, error) {
	clouds := req.Constraints.Clouds
	if len(clouds) == 0 {
		clouds = req.AllowedClouds
	}
	if len(clouds) == 0 {
		clouds = p.cat.CloudIDs()
	}
	pms := catalog.AllPricingModels
	if len(req.Constraints.PricingModels) > 0 {
		pms = nil
		for _, pm := range catalog.AllPricingModels {
			if slices.Contains(req.Constraints.PricingModels, pm) {
				pms = append(pms, pm)
			}
		}
	}
	out := make([]PairResult, 0, len(clouds)*len(pms))
	for _, cl := range clouds {
		for _, pm := range pms {
			pr, err := p.comparePair(req, strings.ToLower(cl), pm)
			if err != nil {
				return nil, err
			}
			out = append(out, pr)
		}
	}
	return out, nil
}

// comparePair is one pair of Compare.
func (p *Planner) comparePair(req Request, cloud string, pm catalog.PricingModel) (PairResult, error) {
	out := PairResult{Cloud: cloud, PricingModel: pm}
	req.TradeOffs, req.Relimit = false, nil // a pair's ranking only
	if !p.sells(cloud, pm) {
		out.Reason = fmt.Sprintf("%s sells no offer as %s in the catalog.", cloud, pm)
		return out, nil
	}
	c := req.Constraints
	c.Clouds, c.PricingModels = []string{cloud}, []catalog.PricingModel{pm}
	c.Regions = nil
	for _, rg := range req.Constraints.Regions {
		if slices.Contains(p.regionClouds[rg], cloud) {
			c.Regions = append(c.Regions, rg)
		}
	}
	if len(req.Constraints.Regions) > 0 && len(c.Regions) == 0 {
		out.Reason = fmt.Sprintf("constraints.regions names no region of %s.", cloud)
		return out, nil
	}
	c.Geographies, c.Countries = slices.Clone(c.Geographies), slices.Clone(c.Countries)
	c.Accelerators, c.Compliance = slices.Clone(c.Accelerators), slices.Clone(c.Compliance)
	one := req
	one.Constraints, one.Top, one.DistinctBy = c, 1, DistinctInstanceType
	res, err := p.Recommend(one)
	var nc *NoCandidateError
	switch errs := inputerr.From(err); {
	case errors.As(err, &nc):
		out.Reason = nc.Detail
	case len(errs) > 0:
		out.Reason = errs[0].Detail
	case err != nil:
		return out, err
	default:
		out.Best = &res.Best
	}
	return out, nil
}

// sells reports whether some offer of cloud is sold under pm.
func (p *Planner) sells(cloud string, pm catalog.PricingModel) bool {
	slot := pm.Index()
	for i := range p.offers {
		oi := &p.offers[i]
		if oi.o.Cloud == cloud && slices.Contains(oi.soldSlot, slot) {
			return true
		}
	}
	return false
}
