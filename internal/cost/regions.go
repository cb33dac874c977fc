// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package cost

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/numfmt"
)

// RegionTCO is the TCO of a fleet in one region of its cloud.
type RegionTCO struct {
	Offer  *catalog.Offer
	Region *catalog.Region // nil when the catalog has no metadata for the region
	Result Result
	// TotalUSD is the total as gpu_tco shows it (Result.ShownTotalUSD).
	TotalUSD float64
}

// ShownTotalUSD is the total as gpu_tco shows it: each breakdown line
// rounded to cents, then summed and rounded, so the lines add up to it.
func (r *Result) ShownTotalUSD() float64 {
	var total float64
	for _, l := range r.Breakdown {
		total += numfmt.USD(l.USD)
	}
	return numfmt.USD(total)
}

// notOfferedSummary is the summary of notSoldErr: the offer is not sold
// under a pricing model of the mix.
const notOfferedSummary = "Pricing Model Not Offered"

// ByRegion prices base (its Offer and Region are replaced) on each of
// offers, the offers of one instance type of base.Cloud in its regions,
// and returns the regions that sell it under base's pricing mix, cheapest
// first by shown total, ties by region code. region looks up a region's
// metadata (nil when unknown). An error that is not about the mix (a bad
// input, spot that never finishes) is returned as is; when no region sells
// the instance under the mix, the error names, per pricing model of the
// mix, how many regions sell it so.
func (m *Model) ByRegion(base Input, offers []*catalog.Offer, region func(id string) *catalog.Region) ([]RegionTCO, error) {
	var out []RegionTCO
	for _, o := range offers {
		in := base
		in.Offer, in.Region = o, region(o.Region)
		res, err := m.TCO(in)
		var ie *InputError
		switch {
		case errors.As(err, &ie) && ie.Summary == notOfferedSummary:
			continue
		case err != nil:
			return nil, err
		}
		out = append(out, RegionTCO{Offer: o, Region: in.Region, Result: res, TotalUSD: res.ShownTotalUSD()})
	}
	if len(out) == 0 && len(offers) > 0 {
		return nil, notSoldAnywhere(base, offers)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].TotalUSD != out[j].TotalUSD {
			return out[i].TotalUSD < out[j].TotalUSD
		}
		return out[i].Offer.Region < out[j].Offer.Region
	})
	return out, nil
}

// notSoldAnywhere is the error of a pricing mix no region sells the
// instance under, on the first model of the mix sold nowhere (or on the
// whole mix when each model is sold somewhere, but never all in one region).
func notSoldAnywhere(base Input, offers []*catalog.Offer) error {
	mix := base.PricingMix
	if len(mix) == 0 {
		mix = map[catalog.PricingModel]float64{catalog.OnDemand: 1}
	}
	var soldAs []string
	for _, pm := range catalog.InstancePricingModels {
		if n := regionsSelling(offers, pm); n > 0 {
			soldAs = append(soldAs, fmt.Sprintf("%s (%s)", pm, regionCount(n)))
		}
	}
	sold := strings.Join(soldAs, ", ")
	if sold == "" {
		sold = "none"
	}
	it := offers[0].Cloud + " " + offers[0].InstanceType
	for _, pm := range catalog.InstancePricingModels {
		if mix[pm] > 0 && regionsSelling(offers, pm) == 0 {
			key := "" // the default mix: the error is on the unset pricing_mix
			if len(base.PricingMix) > 0 {
				key = string(pm)
			}
			return keyErr("pricing_mix", key, "Pricing Model Not Offered In Any Region",
				"%s is not sold as %q in any of its %s in the catalog; it is sold as: %s. Change pricing_mix, or pick another instance type.",
				it, pm, regionCount(len(offers)), sold)
		}
	}
	return inputErr("pricing_mix", "Pricing Mix Not Offered In Any Region",
		"no region sells %s under every pricing model of pricing_mix together; it is sold as: %s. Set region to one that sells the "+
			"models you need, or change pricing_mix.", it, sold)
}

func regionsSelling(offers []*catalog.Offer, pm catalog.PricingModel) int {
	n := 0
	for _, o := range offers {
		if _, ok := o.Price(pm); ok {
			n++
		}
	}
	return n
}

func regionCount(n int) string {
	if n == 1 {
		return "1 region"
	}
	return fmt.Sprintf("%d regions", n)
}
