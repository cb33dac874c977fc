// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package catalog

import (
	"fmt"
	"slices"
	"time"
)

// allOrNone is a csvRows header check for the columns cols, which start
// at column first: a file has all of them (*has is set) or none.
func allOrNone(has *bool, first int, cols []string) func(present []bool) error {
	return func(present []bool) error {
		var missing []string
		for i, ok := range present[first : first+len(cols)] {
			if !ok {
				missing = append(missing, cols[i])
			}
		}
		*has = len(missing) == 0
		if len(missing) == 0 || len(missing) == len(cols) {
			return nil
		}
		return fmt.Errorf("columns %s come together: missing %s", QuoteList(cols), QuoteList(missing))
	}
}

// priceInfo parses a basis column and the as-of column after it; priced
// says whether the record has the price they describe: then both are
// required, else both must be empty.
func (p *fieldParser) priceInfo(basisCol int, priced bool) PriceInfo {
	b, d := p.rec[basisCol], p.rec[basisCol+1]
	if p.err != nil {
		return PriceInfo{}
	}
	if !priced {
		if b != "" || d != "" {
			p.err = fmt.Errorf("fields %q and %q: set without a price (%q, %q)", p.hdr[basisCol], p.hdr[basisCol+1], b, d)
		}
		return PriceInfo{}
	}
	info := PriceInfo{Basis: PriceBasis(b)}
	if !validPriceBasis(info.Basis) {
		p.err = fmt.Errorf("field %q: must be one of %s for a price, got %q", p.hdr[basisCol], QuoteList(PriceBases), b)
		return PriceInfo{}
	}
	t, err := time.Parse(dateLayout, d)
	if err != nil {
		p.err = fmt.Errorf("field %q: want the source's date as YYYY-MM-DD for a price, got %q", p.hdr[basisCol+1], d)
		return PriceInfo{}
	}
	info.AsOf = t
	return info
}

// priceInfos parses the basis and as-of columns of every pricing model of
// an offer record, starting at column first (OfferPricingModels order), and
// checks reserved_derived against them.
func (p *fieldParser) priceInfos(o *Offer, first int) {
	for i, pm := range OfferPricingModels {
		usd, _ := o.Price(pm)
		*o.PriceInfos.Of(pm) = p.priceInfo(first+2*i, usd > 0)
	}
	if p.err == nil && o.reservedDerived() != o.ReservedDerived {
		p.err = fmt.Errorf("field %q: %v, but reserved_1y_basis %q and reserved_3y_basis %q", "reserved_derived",
			o.ReservedDerived, o.PriceInfos.Reserved1Y.Basis, o.PriceInfos.Reserved3Y.Basis)
	}
}

// legacyPriceInfos fills the price bases and dates of an offer read from a
// file without the basis and as-of columns: every price is published,
// except the reserved prices of a reserved_derived offer, and dated date
// (the file's catalog_date).
func legacyPriceInfos(o *Offer, date time.Time) {
	for _, pm := range OfferPricingModels {
		if _, ok := o.Price(pm); !ok {
			continue
		}
		info := PriceInfo{Basis: PricePublished, AsOf: date}
		if o.ReservedDerived && (pm == Reserved1Y || pm == Reserved3Y) {
			info.Basis = PriceDerived
		}
		*o.PriceInfos.Of(pm) = info
	}
}

func validPriceBasis(b PriceBasis) bool { return slices.Contains(PriceBases, b) }

// DerivedPriceInfo is the PriceInfo of a price computed from prices with
// the given infos (a discount taken off a list price, a price rescaled with
// on-demand): derived, dated by the oldest input, undated when an input is
// undated (a catalog_file price without price_as_of).
func DerivedPriceInfo(inputs ...PriceInfo) PriceInfo {
	info := PriceInfo{Basis: PriceDerived}
	for i, in := range inputs {
		if in.AsOf.IsZero() {
			return PriceInfo{Basis: PriceDerived}
		}
		if i == 0 || in.AsOf.Before(info.AsOf) {
			info.AsOf = in.AsOf
		}
	}
	return info
}

// reservedDerived is Offer.ReservedDerived as its price infos say it.
func (o *Offer) reservedDerived() bool {
	return o.PriceInfos.Reserved1Y.Basis == PriceDerived || o.PriceInfos.Reserved3Y.Basis == PriceDerived
}
