// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package overlay

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/numfmt"
)

// sourcePrefix names the file in Offer.Source: "catalog_file prices.yaml".
func (r *run) sourcePrefix() string { return "catalog_file " + r.file }

// applyDiscounts takes the file's discounts (cloud -> fraction off) off the
// built-in prices of each cloud: its offers and, unless the file replaces
// the cloud, its storage, egress and inter-region prices. Prices the file
// states are used as given (applied later, by offers).
func (r *run) applyDiscounts(_ *catalog.Catalog, s *section) {
	disc, dn := r.readDiscounts(s)
	if len(disc) == 0 {
		return
	}
	discounted := map[string]int{}
	for i, o := range r.offers {
		f, ok := disc[o.Cloud]
		if !ok || f == 0 {
			continue
		}
		c := *o
		k := 1 - f
		c.OnDemandUSD, c.SpotUSD, c.Reserved1YUSD, c.Reserved3YUSD = o.OnDemandUSD*k, o.SpotUSD*k, o.Reserved1YUSD*k, o.Reserved3YUSD*k
		c.NativeOnDemand, c.NativeSpot, c.NativeReserved1Y, c.NativeReserved3Y = o.NativeOnDemand*k, o.NativeSpot*k, o.NativeReserved1Y*k, o.NativeReserved3Y*k
		c.Source = fmt.Sprintf("%s: %s off the list price (discounts.%s); list price: %s", r.sourcePrefix(), numfmt.Percent(f), o.Cloud, o.Source)
		// A discounted price is derived from the list price, of its date.
		for _, pm := range []catalog.PricingModel{catalog.OnDemand, catalog.Spot, catalog.Reserved1Y, catalog.Reserved3Y} {
			if pi := c.PriceInfos.Of(pm); pi.Basis != "" {
				*pi = catalog.DerivedPriceInfo(*pi)
			}
		}
		syncReservedDerived(&c)
		r.offers[i] = &c
		discounted[o.Cloud]++
	}
	for i, cl := range r.clouds {
		f, ok := disc[cl.ID]
		if !ok || f == 0 {
			continue
		}
		// A cloud new in the file states every price; an override of a
		// built-in cloud keeps the built-in prices it does not give.
		given, overridden := r.cloudGiven[cl.ID]
		if _, fromFile := r.fileClouds[cl.ID]; fromFile && !overridden {
			if discounted[cl.ID] == 0 {
				r.warn(lineOf(dn, cl.ID), secDiscounts, cl.ID,
					"cloud %q and all its prices come from this file, so the discount changes nothing: it applies to built-in prices only; state the discounted prices instead", cl.ID)
			}
			continue
		}
		r.clouds[i] = discountCloud(cl, 1-f, given)
	}
}

// readDiscounts decodes and checks the discounts mapping: each a fraction
// of a known cloud. Problems are reported; the valid discounts returned,
// with the mapping's node.
func (r *run) readDiscounts(s *section) (map[string]float64, *yaml.Node) {
	disc := map[string]float64{}
	dn := &yaml.Node{Kind: yaml.MappingNode, Line: s.line}
	for it := range s.items {
		n := resolve(it.node)
		if it.unread != "" || n == nil {
			r.problem(it.line, secDiscounts, "", "%s", it.unread)
			continue
		}
		dn = n
		d := decoder{budget: r.budget, section: secDiscounts}
		var m map[string]float64
		d.decode(n, &m)
		var errs catalog.FieldErrors
		for _, id := range slices.Sorted(maps.Keys(m)) {
			if err := catalog.CheckField(secDiscounts, id, m[id]); err != nil {
				errs = append(errs, &catalog.FieldError{Field: id, Msg: err.Error()})
			} else if _, ok := r.cur.Cloud(id); !ok {
				errs = append(errs, &catalog.FieldError{Field: id,
					Msg: fmt.Sprintf("unknown cloud %q%s", id, catalog.DidYouMean(id, r.cur.CloudIDs(), 3))})
			} else {
				disc[id] = m[id]
			}
		}
		r.entryProblems(entry{section: secDiscounts, index: -1, node: n}, d.errs, errsOrNil(errs))
	}
	return disc, dn
}

// errsOrNil is the error of a list of field errors; nil when empty.
func errsOrNil(errs catalog.FieldErrors) error {
	if len(errs) == 0 {
		return nil
	}
	return errs
}

// discountCloud returns a copy of cl with its storage, egress and
// inter-region prices multiplied by k, except the fields in given (prices
// the overlay file states are used as given).
func discountCloud(cl *catalog.Cloud, k float64, given map[string]bool) *catalog.Cloud {
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

// priceField is one hourly price of an offer, by field name.
type priceField struct {
	name  string
	pm    catalog.PricingModel
	given *float64
	get   func(*catalog.Offer) *float64
}

func priceFields(ov *overlayOffer) []priceField {
	return []priceField{
		{"on_demand_usd", catalog.OnDemand, ov.OnDemandUSD, func(o *catalog.Offer) *float64 { return &o.OnDemandUSD }},
		{"spot_usd", catalog.Spot, ov.SpotUSD, func(o *catalog.Offer) *float64 { return &o.SpotUSD }},
		{"reserved_1y_usd", catalog.Reserved1Y, ov.Reserved1YUSD, func(o *catalog.Offer) *float64 { return &o.Reserved1YUSD }},
		{"reserved_3y_usd", catalog.Reserved3Y, ov.Reserved3YUSD, func(o *catalog.Offer) *float64 { return &o.Reserved3YUSD }},
		{"capacity_block_usd", catalog.CapacityBlock, ov.CapacityBlock, func(o *catalog.Offer) *float64 { return &o.CapacityBlockUSD }},
	}
}

// entryPriceInfo is the basis and date an offer entry states for the prices
// it gives (price_basis, price_as_of); the zero PriceInfo when it states
// none. Problems are appended to errs.
func entryPriceInfo(ov *overlayOffer, errs *catalog.FieldErrors) catalog.PriceInfo {
	var info catalog.PriceInfo
	if ov.PriceBasis == nil && ov.PriceAsOf == nil {
		return info
	}
	add := func(field, format string, args ...any) {
		*errs = append(*errs, &catalog.FieldError{Field: field, Msg: fmt.Sprintf(format, args...)})
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
		add(field, "describes the prices this entry gives, and it gives none (%s)",
			catalog.QuoteList([]string{"on_demand_usd", "spot_usd", "reserved_1y_usd", "reserved_3y_usd", "capacity_block_usd"}))
		return info
	}
	if ov.PriceBasis != nil {
		if info.Basis = *ov.PriceBasis; !slices.Contains(catalog.PriceBases, info.Basis) {
			add("price_basis", "must be one of %s, got %q", catalog.QuoteList(catalog.PriceBases), string(info.Basis))
		}
	}
	if ov.PriceAsOf != nil {
		t, err := time.Parse(time.DateOnly, *ov.PriceAsOf)
		if err != nil {
			add("price_as_of", "want the date of the prices as YYYY-MM-DD, got %q", *ov.PriceAsOf)
		}
		info.AsOf = t
	}
	return info
}

// setPrices sets the prices an entry gives on o, with the entry's basis
// and date (a price of 0 removes the price and its info).
func setPrices(o *catalog.Offer, ov *overlayOffer, info catalog.PriceInfo) {
	for _, pf := range priceFields(ov) {
		if pf.given == nil {
			continue
		}
		*pf.get(o) = *pf.given
		*o.PriceInfos.Of(pf.pm) = catalog.PriceInfo{}
		if *pf.given > 0 {
			*o.PriceInfos.Of(pf.pm) = info
		}
	}
	syncReservedDerived(o)
}

// noteZeroPrices warns about each price the entry sets to 0 that o, the
// built-in offer it overrides, sells at: the pricing model is removed,
// which the file may mean, but the file should say so knowingly.
func (r *run) noteZeroPrices(o *catalog.Offer, ov *overlayOffer, e entry) {
	for _, pf := range priceFields(ov) {
		if was := *pf.get(o); pf.given != nil && *pf.given == 0 && was > 0 {
			r.warn(lineOf(e.node, pf.name), e.String(), pf.name, "0 means not sold: the built-in %s of %s USD/h is removed "+
				"(omit %s to keep it)", pf.name, catalog.FormatNumber(was), pf.name)
		}
	}
}

// syncReservedDerived sets Offer.ReservedDerived from the reserved prices'
// bases.
func syncReservedDerived(o *catalog.Offer) {
	o.ReservedDerived = o.PriceInfos.Reserved1Y.Basis == catalog.PriceDerived || o.PriceInfos.Reserved3Y.Basis == catalog.PriceDerived
}

// mergeOffer builds the resulting offer of an overlay entry: a copy of the
// existing offer with the given fields overridden, or a new offer. When the
// entry lowers on_demand_usd below a built-in spot or reserved price it
// leaves out, that price is rescaled (keeping its discount off on-demand)
// with a warning, instead of rejecting the partial override.
func (r *run) mergeOffer(ov *overlayOffer, prev *catalog.Offer, e entry) (*catalog.Offer, error) {
	c := r.cur
	var errs catalog.FieldErrors
	for _, f := range []struct{ name, v string }{{"cloud", ov.Cloud}, {"instance_type", ov.InstanceType}, {"region", ov.Region}} {
		if f.v == "" {
			errs = append(errs, &catalog.FieldError{Field: f.name, Msg: "required: cloud, instance_type and region identify an offer"})
		}
	}
	info := entryPriceInfo(ov, &errs)
	if len(errs) > 0 {
		return nil, errs
	}
	exists := prev != nil
	var o catalog.Offer
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
	if exists {
		r.noteZeroPrices(&o, ov, e)
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
func (r *run) overriddenOffer(prev *catalog.Offer, ov *overlayOffer) catalog.Offer {
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
func (r *run) newOffer(ov *overlayOffer) (catalog.Offer, error) {
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
		return catalog.Offer{}, catalog.FieldErrors{{Msg: fmt.Sprintf("new offer (no built-in offer has this cloud/instance_type/region): "+
			"fields %s are required (gpu_fraction for a share of one GPU; capacity_block_usd for a capacity-block-only offer), missing %s",
			catalog.QuoteList([]string{"accelerator", "gpus", "on_demand_usd"}), catalog.QuoteList(missing))}}
	}
	return catalog.Offer{Cloud: ov.Cloud, Region: ov.Region, InstanceType: ov.InstanceType, Fabric: catalog.FabricNone, Currency: "USD",
		Source: r.sourcePrefix()}, nil
}

// rescale keeps a partial override consistent: a built-in spot or reserved
// price the entry leaves out that is not below the new on-demand price is
// scaled by new / old on-demand (it keeps its discount off on-demand) and
// becomes derived from both (info describes the new on-demand price).
// Called before the given prices are set on o.
func (r *run) rescale(o *catalog.Offer, ov *overlayOffer, e entry, info catalog.PriceInfo) {
	newOD, oldOD := *ov.OnDemandUSD, o.OnDemandUSD
	if catalog.CheckField(secOffers, "on_demand_usd", newOD) != nil || oldOD <= 0 {
		return // the on-demand price itself is reported by ValidateOffer
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
		r.warn(lineOf(e.node, "on_demand_usd"), e.String(), pf.name,
			"the built-in %s %s is not below the new on_demand_usd %s: rescaled to %s, keeping its %s discount off on-demand; state %s in the file to set it",
			pf.name, usd(*v), usd(newOD), usd(scaled), numfmt.Percent(1-*v/oldOD), pf.name)
		*v = scaled
		*o.PriceInfos.Of(pf.pm) = catalog.DerivedPriceInfo(*o.PriceInfos.Of(pf.pm), o.PriceInfos.OnDemand, info)
	}
}

func usd(v float64) string {
	return catalog.FormatNumber(math.Round(v*1e4) / 1e4)
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

// overlayOffer is an offer in an overlay. cloud, instance_type and region
// identify it; when that offer exists the given fields override it (for
// example only on_demand_usd for a negotiated price), otherwise it is a new
// offer and accelerator, gpus (or gpu_fraction) and on_demand_usd (or
// capacity_block_usd) are required.
type overlayOffer struct {
	Cloud         string          `json:"cloud"`
	Region        string          `json:"region"`
	InstanceType  string          `json:"instance_type"`
	Accelerator   *string         `json:"accelerator"`
	GPUs          *int            `json:"gpus"`
	GPUFraction   *float64        `json:"gpu_fraction"`
	GPUMemoryGB   *float64        `json:"gpu_memory_gb"`
	VCPUs         *int            `json:"vcpus"`
	MemoryGB      *float64        `json:"memory_gb"`
	NetworkGbps   *float64        `json:"network_gbps"`
	Fabric        *catalog.Fabric `json:"fabric"`
	OnDemandUSD   *float64        `json:"on_demand_usd"`
	SpotUSD       *float64        `json:"spot_usd"`
	Reserved1YUSD *float64        `json:"reserved_1y_usd"`
	Reserved3YUSD *float64        `json:"reserved_3y_usd"`
	CapacityBlock *float64        `json:"capacity_block_usd"`
	// PriceBasis and PriceAsOf describe the prices the entry gives.
	PriceBasis *catalog.PriceBasis `json:"price_basis"`
	PriceAsOf  *string             `json:"price_as_of"`
	Source     *string             `json:"source"`
}

// applyOffers merges each offer entry: an override of the offer with its
// cloud, instance type and region (in place), or a new offer (appended).
func (r *run) applyOffers(base *catalog.Catalog, list *section) {
	// r.offers are base's offers (some discounted) in base's order, then
	// the file's new offers: an override replaces base's offer at its
	// position, found by pointer (built at the first override).
	var pos map[*catalog.Offer]int
	for e := range r.entries(list, "cloud", "instance_type", "region") {
		var ov overlayOffer
		d := decoder{budget: r.budget, section: secOffers}
		d.decode(e.node, &ov)
		if ov.Cloud != "" && ov.InstanceType != "" && ov.Region != "" &&
			r.duplicate(r.fileOffers, ov.Cloud+"/"+ov.InstanceType+"/"+ov.Region, e) {
			r.entryProblems(e, d.errs, nil)
			continue
		}
		i := -1
		if bo, ok := base.Offer(ov.Cloud, ov.InstanceType, ov.Region); ok {
			if pos == nil {
				pos = make(map[*catalog.Offer]int, len(base.Offers))
				for j, x := range base.Offers {
					pos[x] = j
				}
			}
			i = pos[bo]
			e.overrides = true
		}
		var prev *catalog.Offer
		if i >= 0 {
			prev = r.offers[i]
		}
		o, err := r.mergeOffer(&ov, prev, e)
		if err == nil {
			err = r.cur.ValidateOffer(o)
			if same := base.OffersOf(ov.Cloud, ov.InstanceType); len(same) > 0 && same[0].InstanceType != ov.InstanceType {
				// Names match in any case: one instance type, one spelling.
				fe := &catalog.FieldError{Field: "instance_type", Msg: fmt.Sprintf("%q is written %q in the catalog: names match in "+
					"any case, so write it as the catalog does", ov.InstanceType, same[0].InstanceType)}
				var fes catalog.FieldErrors
				errors.As(err, &fes)
				err = append(fes, fe)
			}
		}
		r.entryProblems(e, d.errs, err)
		switch {
		case o == nil:
		case i >= 0:
			r.offers[i] = o
		default:
			r.offers = append(r.offers, o)
		}
	}
}
