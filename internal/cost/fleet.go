// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package cost

import (
	"strings"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// Fleet is gpu_tco's question in the catalog's names: an instance type (or
// a serverless offer) of a cloud, in a region or in the cheapest one.
type Fleet struct {
	Cloud, InstanceType string
	// Region is the region code. With RegionUnset, an instance type is
	// priced in every commercial region (not a partition that needs an
	// account of its own) selling it under the mix and the cheapest is
	// used; a serverless offer is priced where its platform places its
	// workers ("").
	Region      string
	RegionUnset bool
	// Input is the rest of the question (instance count, horizon,
	// utilization, mix, storage, network, extras, discount, carbon price);
	// FleetTCO sets its Offer, Serverless, Cloud, Region and Accelerator.
	Input Input
}

// FleetResult is the TCO of a Fleet.
type FleetResult struct {
	Input  Input // as priced: the chosen region's offer, or the serverless offer
	Result Result
	// Region is the region priced ("" for workers the platform places).
	Region string
	// Others are the other regions of the priced region's partition that
	// sell the instance type under the mix, cheapest first (none for a
	// serverless offer).
	Others []RegionTCO
	// Comparison is the fleet with all compute bought each way, one row
	// per pricing model of its kind (Compare): in the fleet's region when
	// it was given, else each in the cheapest commercial region selling
	// the instance that way.
	Comparison []ComparisonRow
	Summary    string // the TCO as fixed-width text (Summary)
}

// FleetTCO resolves a Fleet's names in the catalog and prices it with this
// model: a serverless offer where its platform runs it, an instance in its
// region, or, with the region unset, in the cheapest commercial region
// selling it under the mix (ties by region code). Unknown names are
// *InputErrors on cloud, instance_type or region with the closest valid
// names.
func (m *Model) FleetTCO(cat *catalog.Catalog, f Fleet) (FleetResult, error) {
	in := f.Input
	if err := resolveFleet(cat, &f, &in); err != nil {
		return FleetResult{}, err
	}
	if in.Serverless != nil {
		res, err := m.TCO(in)
		if err != nil {
			return FleetResult{}, err
		}
		rows, err := m.Compare(in)
		if err != nil {
			return FleetResult{}, err
		}
		shown := in
		shown.Offer = in.Serverless.InstanceView()
		return FleetResult{Input: in, Result: res, Region: in.Serverless.Region, Comparison: rows,
			Summary: Summary(&shown, &res, SummaryRegions{Comparison: rows})}, nil
	}
	res, others, err := m.inRegions(cat, &in, !f.RegionUnset)
	if err != nil {
		return FleetResult{}, err
	}
	rows, err := m.fleetComparison(cat, in, f.RegionUnset)
	if err != nil {
		return FleetResult{}, err
	}
	return FleetResult{Input: in, Result: res, Region: in.Offer.Region, Others: others, Comparison: rows,
		Summary: Summary(&in, &res, SummaryRegions{Cheapest: f.RegionUnset, Others: others, Comparison: rows})}, nil
}

// fleetComparison is the comparison of a priced instance fleet: in its
// region, or with the region unset in each pricing model's cheapest
// commercial region.
func (m *Model) fleetComparison(cat *catalog.Catalog, in Input, regionUnset bool) ([]ComparisonRow, error) {
	if !regionUnset {
		return m.Compare(in)
	}
	lookup := regionLookup(cat, in.Offer.Cloud)
	offers := offersIn(cat.OffersOf(in.Offer.Cloud, in.Offer.InstanceType), catalog.PartitionCommercial, lookup)
	return m.compareCheapest(in, offers, lookup)
}

// regionLookup finds a region of cloud in cat (nil without metadata).
func regionLookup(cat *catalog.Catalog, cloud string) func(string) *catalog.Region {
	return func(id string) *catalog.Region {
		r, _ := cat.Region(cloud, id)
		return r
	}
}

// resolveFleet sets in's offer (or serverless offer), cloud, region and
// accelerator from the fleet's names. Without a region, an instance type
// resolves in any region offering it (the cheapest is found later), so
// unknown clouds and instance types are reported as with a region.
func resolveFleet(cat *catalog.Catalog, f *Fleet, in *Input) error {
	regionID := f.Region
	if f.RegionUnset {
		regionID = ""
		if offers := cat.OffersOf(f.Cloud, f.InstanceType); len(offers) > 0 {
			regionID = offers[0].Region
		}
	}
	if sls := cat.ServerlessOffersOf(f.Cloud, f.InstanceType); len(sls) > 0 {
		s, ok := cat.ServerlessOffer(f.Cloud, f.InstanceType, regionID)
		if !ok {
			where := make([]string, len(sls))
			for i, x := range sls {
				where[i] = x.Region
			}
			return inputErr("region", "Serverless Offer Not In Region", "%s %s is a serverless offer that runs in: %s (\"\" = workers "+
				"placed by the platform); region = %q is not one of them.", f.Cloud, f.InstanceType, catalog.QuoteList(where), regionID)
		}
		in.Serverless = s
		in.Cloud, _ = cat.Cloud(f.Cloud)
		in.Region, _ = cat.Region(f.Cloud, regionID)
		in.Accelerator, _ = cat.Accelerator(s.Accelerator)
		return nil
	}
	o, cl, region, err := ResolveOffer(cat, f.Cloud, f.InstanceType, regionID)
	if err != nil {
		return err
	}
	in.Offer, in.Cloud, in.Region = o, cl, region
	in.Accelerator, _ = cat.Accelerator(o.Accelerator)
	return nil
}

// ResolveOffer finds the offer, cloud and region (nil without region
// metadata) of (cloud, instance type, region). Each unknown name is an
// *InputError on cloud, instance_type or region with the closest valid
// names.
func ResolveOffer(cat *catalog.Catalog, cloudID, it, regionID string) (*catalog.Offer, *catalog.Cloud, *catalog.Region, error) {
	cl, ok := cat.Cloud(cloudID)
	if !ok {
		return nil, nil, nil, inputErr("cloud", "Unknown Cloud", "%s", cat.UnknownCloud("cloud", cloudID))
	}
	offers := cat.OffersOf(cloudID, it)
	if len(offers) == 0 {
		names := append(cat.InstanceTypes(cloudID), cat.ServerlessNames(cloudID)...)
		return nil, nil, nil, inputErr("instance_type", "Unknown Instance Type",
			"instance_type = %s is not a %s instance type or serverless offer in the catalog. Closest: %s.",
			catalog.QuoteName(it), cloudID, catalog.QuoteList(catalog.Closest(it, names, 3)))
	}
	if strings.TrimSpace(regionID) == "" && len(offers) > 0 {
		where := make([]string, len(offers))
		for i, o := range offers {
			where[i] = o.Region
		}
		return nil, nil, nil, inputErr("region", "Empty Region", "region = %q is empty: give one of the regions where %s is offered: %s.",
			regionID, offers[0].InstanceType, catalog.QuoteList(where))
	}
	region, regionKnown := cat.Region(cloudID, regionID)
	offer, ok := cat.Offer(cloudID, it, regionID)
	if !ok {
		where := make([]string, len(offers))
		for i, o := range offers {
			where[i] = o.Region
		}
		if !regionKnown {
			return nil, nil, nil, inputErr("region", "Unknown Region",
				"region = %s is not a region of %s in the catalog. Closest: %s. %s is offered in: %s.", catalog.QuoteName(regionID), cloudID,
				catalog.QuoteList(catalog.Closest(regionID, cat.RegionIDs(cloudID), 3)), it, catalog.QuoteList(where))
		}
		return nil, nil, nil, inputErr("region", "Instance Type Not Offered In Region",
			"%s %s is not offered in %s. It is offered in: %s (closest: %s).",
			cloudID, it, regionID, catalog.QuoteList(where), catalog.QuoteList(catalog.Closest(regionID, where, 3)))
	}
	if !regionKnown {
		region = nil
	}
	return offer, cl, region, nil
}

// inRegions prices in: in its own region when pinned, with the other
// regions of its partition selling the instance under the mix; else in
// the cheapest commercial region selling it so, which it sets in in.Offer
// and in.Region. It returns the priced region's result and the other
// regions, cheapest first.
func (m *Model) inRegions(cat *catalog.Catalog, in *Input, pinned bool) (Result, []RegionTCO, error) {
	lookup := regionLookup(cat, in.Offer.Cloud)
	everywhere := cat.OffersOf(in.Offer.Cloud, in.Offer.InstanceType)
	partition := catalog.PartitionCommercial
	if pinned && in.Region != nil {
		partition = in.Region.Partition
	}
	offers := offersIn(everywhere, partition, lookup)
	if !pinned {
		if len(offers) == 0 {
			return Result{}, nil, onlySeparateAccounts(everywhere, lookup)
		}
		all, err := m.ByRegion(*in, offers, lookup)
		if err != nil {
			return Result{}, nil, err
		}
		in.Offer, in.Region = all[0].Offer, all[0].Region
		return all[0].Result, all[1:], nil
	}
	res, err := m.TCO(*in)
	if err != nil {
		return Result{}, nil, err
	}
	all, err := m.ByRegion(*in, offers, lookup)
	if err != nil {
		all = nil // no region sells the mix; the pinned one answered for itself
	}
	var others []RegionTCO
	for _, r := range all {
		if r.Offer.Region != in.Offer.Region {
			others = append(others, r)
		}
	}
	return res, others, nil
}

// offersIn keeps the offers in regions of a partition; a region without
// metadata counts as commercial.
func offersIn(offers []*catalog.Offer, p catalog.Partition, lookup func(string) *catalog.Region) []*catalog.Offer {
	var out []*catalog.Offer
	for _, o := range offers {
		part := catalog.PartitionCommercial
		if r := lookup(o.Region); r != nil {
			part = r.Partition
		}
		if part == p {
			out = append(out, o)
		}
	}
	return out
}

// onlySeparateAccounts is the error of an instance type offered only in
// partitions that need an account of their own, so no region is chosen
// for the user.
func onlySeparateAccounts(offers []*catalog.Offer, lookup func(string) *catalog.Region) error {
	where := make([]string, len(offers))
	for i, o := range offers {
		where[i] = o.Region
		if r := lookup(o.Region); r != nil {
			where[i] += " (" + string(r.Partition) + ")"
		}
	}
	return inputErr("region", "No Commercial Region Offers The Instance Type",
		"%s %s is offered only in regions that need an account of their own: %s. Set region to one of them to price it there.",
		offers[0].Cloud, offers[0].InstanceType, strings.Join(where, ", "))
}

// HourlyListPrice is the list price of one instance of (cloud, instance
// type, region) for an hour under a pricing model (an instance model:
// catalog.InstancePricingModels), before any discount: the
// hourly_price_usd function. Unknown names and a pricing model the
// offer is not sold under are *InputErrors on cloud, instance_type,
// region or pricing_model.
func HourlyListPrice(cat *catalog.Catalog, cloudID, it, regionID string, pm catalog.PricingModel) (float64, error) {
	offer, _, _, err := ResolveOffer(cat, cloudID, it, regionID)
	if err != nil {
		return 0, err
	}
	pm = catalog.PricingModelOf(string(pm)) // enumerated values match in any case
	if !knownModel(pm) {
		names := catalog.PricingModelNames(catalog.InstancePricingModels)
		return 0, inputErr("pricing_model", "Unknown Pricing Model", "pricing_model = %q; allowed: %s. Closest: %s.",
			pm, catalog.QuoteList(names), catalog.QuoteList(catalog.Closest(string(pm), names, 1)))
	}
	price, ok := offer.Price(pm)
	if !ok {
		return 0, notSoldErr("pricing_model", "", offer, pm)
	}
	return price, nil
}
