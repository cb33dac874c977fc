// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package catalog

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// sourcePrefix names the file in Offer.Source: "catalog_file prices.yaml".
func (r *overlayRun) sourcePrefix() string { return "catalog_file " + r.file }

// applyDiscounts takes the file's discounts (cloud -> fraction off) off the
// built-in prices of each cloud: its offers and, unless the file replaces
// the cloud, its storage, egress and inter-region prices. Prices the file
// states are used as given (applied later, by offers).
func (r *overlayRun) applyDiscounts(dn *node) {
	if dn == nil {
		return
	}
	n := r.out
	d := decoder{budget: r.budget, section: sectionDiscounts}
	var disc map[string]float64
	d.decode(dn, &disc)
	var p problems
	for _, id := range sortedKeys(disc) {
		if !p.bound(sectionDiscounts, id, disc[id]) {
			delete(disc, id)
			continue
		}
		if _, ok := n.cloudByID[id]; !ok {
			p.add(id, "unknown cloud %q%s", id, didYouMean(id, n.CloudIDs()))
			delete(disc, id)
		}
	}
	r.entryProblems(entry{section: sectionDiscounts, index: -1, node: dn}, d.errs, p.err())
	r.discounts = disc
	if len(disc) == 0 {
		return
	}
	discounted := map[string]int{}
	for i, o := range n.Offers {
		f, ok := disc[o.Cloud]
		if !ok || f == 0 {
			continue
		}
		c := *o
		k := 1 - f
		c.OnDemandUSD, c.SpotUSD, c.Reserved1YUSD, c.Reserved3YUSD = o.OnDemandUSD*k, o.SpotUSD*k, o.Reserved1YUSD*k, o.Reserved3YUSD*k
		c.NativeOnDemand, c.NativeSpot, c.NativeReserved1Y, c.NativeReserved3Y = o.NativeOnDemand*k, o.NativeSpot*k, o.NativeReserved1Y*k, o.NativeReserved3Y*k
		c.Source = fmt.Sprintf("%s: %s off the list price (discounts.%s); list price: %s", r.sourcePrefix(), percent(f), o.Cloud, o.Source)
		for _, pm := range []PricingModel{OnDemand, Spot, Reserved1Y, Reserved3Y} {
			if pi := c.PriceInfos.Of(pm); pi.Basis != "" {
				*pi = DerivedPriceInfo(*pi)
			}
		}
		c.ReservedDerived = c.reservedDerived()
		n.Offers[i] = &c
		n.offerByKey[c.Cloud+"/"+c.InstanceType+"/"+c.Region] = &c
		discounted[o.Cloud]++
	}
	for i, cl := range n.Clouds {
		f, ok := disc[cl.ID]
		if !ok || f == 0 {
			continue
		}
		// A cloud new in the file states every price; an override of a
		// built-in cloud keeps the built-in prices it does not give.
		given, overridden := r.cloudGiven[cl.ID]
		if _, fromFile := r.fileClouds[cl.ID]; fromFile && !overridden {
			if discounted[cl.ID] == 0 {
				r.warn(dn.lineOf(cl.ID), sectionDiscounts, cl.ID,
					"cloud %q and all its prices come from this file, so the discount changes nothing: it applies to built-in prices only; state the discounted prices instead", cl.ID)
			}
			continue
		}
		n.Clouds[i] = discountCloud(cl, 1-f, given)
	}
}

// discountCloud returns a copy of cl with its storage, egress and
// inter-region prices multiplied by k, except the fields in given (prices
// the overlay file states are used as given).
func discountCloud(cl *Cloud, k float64, given map[string]bool) *Cloud {
	c := *cl
	if !given["egress_tiers"] {
		c.EgressTiers = slices.Clone(cl.EgressTiers)
		for j := range c.EgressTiers {
			c.EgressTiers[j].USDPerGB *= k
		}
	}
	for _, p := range []struct {
		field string
		v     *float64
	}{
		{"inter_region_usd_per_gb", &c.InterRegionUSDPerGB},
		{"block_storage_usd_per_gb_month", &c.BlockStorageUSDPerGBMonth},
		{"object_storage_usd_per_gb_month", &c.ObjectStorageUSDPerGBMonth},
	} {
		if !given[p.field] {
			*p.v *= k
		}
	}
	return &c
}

func percent(f float64) string {
	return FormatNumber(float64(int64(f*10000+0.5))/100) + " %"
}

// priceField is one hourly price of an offer, by field name.
type priceField struct {
	name  string
	pm    PricingModel
	given *float64
	get   func(*Offer) *float64
}

func priceFields(ov *overlayOffer) []priceField {
	return []priceField{
		{"on_demand_usd", OnDemand, ov.OnDemandUSD, func(o *Offer) *float64 { return &o.OnDemandUSD }},
		{"spot_usd", Spot, ov.SpotUSD, func(o *Offer) *float64 { return &o.SpotUSD }},
		{"reserved_1y_usd", Reserved1Y, ov.Reserved1YUSD, func(o *Offer) *float64 { return &o.Reserved1YUSD }},
		{"reserved_3y_usd", Reserved3Y, ov.Reserved3YUSD, func(o *Offer) *float64 { return &o.Reserved3YUSD }},
		{"capacity_block_usd", CapacityBlock, ov.CapacityBlock, func(o *Offer) *float64 { return &o.CapacityBlockUSD }},
	}
}

// entryPriceInfo is the basis and date an offer entry states for the prices
// it gives (price_basis, price_as_of); the zero PriceInfo when it states
// none. Problems go to p.
func entryPriceInfo(ov *overlayOffer, p *problems) PriceInfo {
	var info PriceInfo
	if ov.PriceBasis == nil && ov.PriceAsOf == nil {
		return info
	}
	gives := false
	for _, pf := range priceFields(ov) {
		gives = gives || pf.given != nil
	}
	if !gives {
		field := "price_basis"
		if ov.PriceBasis == nil {
			field = "price_as_of"
		}
		p.add(field, "describes the prices this entry gives, and it gives none (%s)",
			QuoteList([]string{"on_demand_usd", "spot_usd", "reserved_1y_usd", "reserved_3y_usd", "capacity_block_usd"}))
		return info
	}
	if ov.PriceBasis != nil {
		if info.Basis = *ov.PriceBasis; !validPriceBasis(info.Basis) {
			p.add("price_basis", "must be one of %s, got %q", QuoteList(PriceBases), string(info.Basis))
		}
	}
	if ov.PriceAsOf != nil {
		t, err := time.Parse(dateLayout, *ov.PriceAsOf)
		if err != nil {
			p.add("price_as_of", "want the date of the prices as YYYY-MM-DD, got %q", *ov.PriceAsOf)
		}
		info.AsOf = t
	}
	return info
}

// setPrices sets the prices an entry gives on o, with the entry's basis
// and date (a price of 0 removes the price and its info).
func setPrices(o *Offer, ov *overlayOffer, info PriceInfo) {
	for _, pf := range priceFields(ov) {
		if pf.given == nil {
			continue
		}
		*pf.get(o) = *pf.given
		*o.PriceInfos.Of(pf.pm) = PriceInfo{}
		if *pf.given > 0 {
			*o.PriceInfos.Of(pf.pm) = info
		}
	}
	o.ReservedDerived = o.reservedDerived()
}

// mergeOffer builds the resulting offer of an overlay entry: a copy of the
// existing offer with the given fields overridden, or a new offer. When the
// entry lowers on_demand_usd below a built-in spot or reserved price it
// leaves out, that price is rescaled (keeping its discount off on-demand)
// with a warning, instead of rejecting the partial override.
func (r *overlayRun) mergeOffer(ov *overlayOffer, e entry) (*Offer, error) {
	c := r.out
	var p problems
	for _, f := range []struct{ name, v string }{{"cloud", ov.Cloud}, {"instance_type", ov.InstanceType}, {"region", ov.Region}} {
		if f.v == "" {
			p.add(f.name, "required: cloud, instance_type and region identify an offer")
		}
	}
	info := entryPriceInfo(ov, &p)
	if len(p) > 0 {
		return nil, p.err()
	}
	prev, exists := c.offerByKey[ov.Cloud+"/"+ov.InstanceType+"/"+ov.Region]
	var o Offer
	if exists {
		o = r.overriddenOffer(prev, ov)
	} else {
		var err error
		if o, err = r.newOffer(ov); err != nil {
			return nil, err
		}
	}
	if ov.Accelerator != nil {
		o.Accelerator = *ov.Accelerator
		if a, ok := c.Accelerator(o.Accelerator); ok {
			o.Accelerator = a.ID // accept aliases in user files
		}
	}
	setInt(&o.GPUs, ov.GPUs)
	setF(&o.GPUFraction, ov.GPUFraction)
	setInt(&o.VCPUs, ov.VCPUs)
	setF(&o.MemoryGB, ov.MemoryGB)
	setF(&o.NetworkGbps, ov.NetworkGbps)
	if ov.Fabric != nil {
		o.Fabric = *ov.Fabric
	}
	if exists && ov.OnDemandUSD != nil {
		r.rescale(&o, ov, e, info)
	}
	setPrices(&o, ov, info)
	if ov.Source != nil {
		o.Source = r.sourcePrefix() + ": " + *ov.Source
	}
	switch {
	case ov.GPUMemoryGB != nil:
		o.GPUMemoryGB = *ov.GPUMemoryGB
	case ov.Accelerator != nil || ov.GPUs != nil || ov.GPUFraction != nil:
		if a, ok := c.Accelerator(o.Accelerator); ok {
			o.GPUMemoryGB = o.GPUCount() * a.MemoryGB
		}
	}
	return &o, nil
}

// overriddenOffer is the starting point of an entry that overrides the
// built-in offer prev: a copy, in USD once the entry gives any price, its
// source naming the file.
func (r *overlayRun) overriddenOffer(prev *Offer, ov *overlayOffer) Offer {
	o := *prev
	pricesGiven := false
	for _, pf := range priceFields(ov) {
		pricesGiven = pricesGiven || pf.given != nil
	}
	if pricesGiven {
		// Overlay prices are USD: drop the native-currency figures.
		o.Currency, o.NativeOnDemand, o.NativeSpot, o.NativeReserved1Y, o.NativeReserved3Y = "USD", 0, 0, 0, 0
	}
	o.Source = r.sourcePrefix() + " over: " + prev.Source
	return o
}

// newOffer is the starting point of an entry that adds an offer: it must
// give the accelerator, the GPUs (or a fraction) and a price.
func (r *overlayRun) newOffer(ov *overlayOffer) (Offer, error) {
	var missing []string
	if ov.Accelerator == nil {
		missing = append(missing, "accelerator")
	}
	if ov.GPUs == nil && ov.GPUFraction == nil {
		missing = append(missing, "gpus")
	}
	if ov.OnDemandUSD == nil && ov.CapacityBlock == nil {
		missing = append(missing, "on_demand_usd")
	}
	if len(missing) > 0 {
		var p problems
		p.add("", "new offer (no built-in offer has this cloud/instance_type/region): fields %s are required (gpu_fraction for a "+
			"share of one GPU; capacity_block_usd for a capacity-block-only offer), missing %s",
			QuoteList([]string{"accelerator", "gpus", "on_demand_usd"}), QuoteList(missing))
		return Offer{}, p.err()
	}
	return Offer{Cloud: ov.Cloud, Region: ov.Region, InstanceType: ov.InstanceType, Fabric: FabricNone, Currency: "USD",
		Source: r.sourcePrefix()}, nil
}

// rescale keeps a partial override consistent: a built-in spot or reserved
// price the entry leaves out that is not below the new on-demand price is
// scaled by new / old on-demand (it keeps its discount off on-demand) and
// becomes derived from both (info describes the new on-demand price).
// Called before the given prices are set on o.
func (r *overlayRun) rescale(o *Offer, ov *overlayOffer, e entry, info PriceInfo) {
	newOD, oldOD := *ov.OnDemandUSD, o.OnDemandUSD
	if checkField(sectionOffers, "on_demand_usd", newOD) != nil || oldOD <= 0 {
		return // the on-demand price itself is reported by validateOffer
	}
	for _, pf := range priceFields(ov)[1:] {
		v := pf.get(o)
		if pf.name == "capacity_block_usd" {
			continue // a different product, not held below on-demand
		}
		if pf.given != nil || *v <= 0 || *v < newOD {
			continue
		}
		scaled := *v * newOD / oldOD
		r.warn(e.node.lineOf("on_demand_usd"), e.String(), pf.name,
			"the built-in %s %s is not below the new on_demand_usd %s: rescaled to %s, keeping its %s discount off on-demand; state %s in the file to set it",
			pf.name, usd(*v), usd(newOD), usd(scaled), percent(1-*v/oldOD), pf.name)
		*v = scaled
		*o.PriceInfos.Of(pf.pm) = DerivedPriceInfo(*o.PriceInfos.Of(pf.pm), o.PriceInfos.OnDemand, info)
	}
}

func usd(v float64) string {
	return FormatNumber(math.Round(v*1e4) / 1e4)
}

func setF(dst *float64, v *float64) {
	if v != nil {
		*dst = *v
	}
}

func setInt(dst *int, v *int) {
	if v != nil {
		*dst = *v
	}
}
