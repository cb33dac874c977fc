// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package cost

import (
	"errors"
	"fmt"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// ComparisonRow is one row of gpu_tco's pricing_model_comparison: the
// fleet's whole TCO with all compute bought one way, or why it cannot be
// bought that way. A comparison has a row for every pricing model of the
// offer's kind, so a gap (Azure sells no spot for an instance) is a row
// that says so, not an error that fails the plan.
type ComparisonRow struct {
	PricingModel catalog.PricingModel
	// Reason says why the fleet cannot be bought this way; "" when it can.
	Reason string
	// Input is the fleet as priced this way (its offer and region) and
	// Result its TCO; zero when Reason is set.
	Input  Input
	Result Result
}

// Available reports whether the fleet can be bought this way.
func (c *ComparisonRow) Available() bool { return c.Reason == "" }

// Region is the region the row is priced in ("" for workers the platform
// places, or an unavailable row).
func (c *ComparisonRow) Region() string {
	switch {
	case c.Input.Serverless != nil:
		return c.Input.Serverless.Region
	case c.Input.Offer != nil:
		return c.Input.Offer.Region
	}
	return ""
}

// comparisonModels are the pricing models a comparison has a row for: a
// serverless offer's one, or every instance pricing model.
func comparisonModels(in *Input) []catalog.PricingModel {
	if in.Serverless != nil {
		return []catalog.PricingModel{catalog.Serverless}
	}
	return catalog.InstancePricingModels
}

// Compare prices the fleet of in, in its region, with all compute bought
// each way: one row per pricing model of its kind, canonical order.
func (m *Model) Compare(in Input) ([]ComparisonRow, error) {
	var rows []ComparisonRow
	for _, pm := range comparisonModels(&in) {
		one := in
		one.PricingMix = map[catalog.PricingModel]float64{pm: 1}
		res, err := m.TCO(one)
		row, err := comparisonRow(pm, one, res, err)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// compareCheapest is Compare for a fleet whose region was not given: each
// row priced in the cheapest of offers (the instance type's commercial
// regions) that sells it that way.
func (m *Model) compareCheapest(in Input, offers []*catalog.Offer, lookup func(string) *catalog.Region) ([]ComparisonRow, error) {
	var rows []ComparisonRow
	for _, pm := range comparisonModels(&in) {
		one := in
		one.PricingMix = map[catalog.PricingModel]float64{pm: 1}
		if regionsSelling(offers, pm) == 0 {
			rows = append(rows, ComparisonRow{PricingModel: pm, Reason: notSoldReason(offers, pm)})
			continue
		}
		all, err := m.ByRegion(one, offers, lookup)
		var res Result
		if err == nil {
			one.Offer, one.Region, res = all[0].Offer, all[0].Region, all[0].Result
		}
		row, err := comparisonRow(pm, one, res, err)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// comparisonRow is the row of one pricing model from its TCO: an input
// error (not sold so, spot that never finishes) is the row's reason; any
// other error is returned.
func comparisonRow(pm catalog.PricingModel, in Input, res Result, err error) (ComparisonRow, error) {
	var ie *InputError
	switch {
	case errors.As(err, &ie):
		return ComparisonRow{PricingModel: pm, Reason: ie.Detail}, nil
	case err != nil:
		return ComparisonRow{}, err
	}
	return ComparisonRow{PricingModel: pm, Input: in, Result: res}, nil
}

// notSoldReason says that no region of offers sells the instance as pm.
func notSoldReason(offers []*catalog.Offer, pm catalog.PricingModel) string {
	var soldAs []catalog.PricingModel
	for _, other := range catalog.InstancePricingModels {
		if regionsSelling(offers, other) > 0 {
			soldAs = append(soldAs, other)
		}
	}
	return fmt.Sprintf("%s %s has no %q price in any of its %s in the catalog; it is sold as: %s.",
		offers[0].Cloud, offers[0].InstanceType, pm, regionCount(len(offers)), joinModels(soldAs))
}
