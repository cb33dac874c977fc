// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package cost

import (
	"fmt"
	"strings"
	"time"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// PriceInfo is the basis and source date of the list price a TCO bills
// under pm: the serverless offer's, or the instance's for that model (the
// zero PriceInfo when the catalog states none).
func (in *Input) PriceInfo(pm catalog.PricingModel) catalog.PriceInfo {
	if in.Serverless != nil {
		return in.Serverless.PriceInfo
	}
	if in.Offer == nil {
		return catalog.PriceInfo{}
	}
	_, info, _ := in.Offer.PriceInfo(pm)
	return info
}

// MixModels lists the pricing models the mix bills (share > 0), in
// canonical order: on_demand for an empty mix, serverless for a serverless
// offer.
func (in *Input) MixModels() []catalog.PricingModel {
	if in.Serverless != nil {
		return []catalog.PricingModel{catalog.Serverless}
	}
	if len(in.PricingMix) == 0 {
		return []catalog.PricingModel{catalog.OnDemand}
	}
	var out []catalog.PricingModel
	for _, pm := range catalog.AllPricingModels {
		if in.PricingMix[pm] > 0 {
			out = append(out, pm)
		}
	}
	return out
}

// OldestMixPrice is the pricing model of the mix whose price has the
// oldest source date, and that price's info; ok is false when no price of
// the mix states a date.
func (in *Input) OldestMixPrice() (pm catalog.PricingModel, info catalog.PriceInfo, ok bool) {
	for _, m := range in.MixModels() {
		i := in.PriceInfo(m)
		if !i.AsOf.IsZero() && (!ok || i.AsOf.Before(info.AsOf)) {
			pm, info, ok = m, i, true
		}
	}
	return pm, info, ok
}

// pricesLine says, under the comparison table, what each price of the mix
// is: published or derived, and as of when; a derived price is named as
// such, since it decided the total. "" when the catalog states no basis.
func pricesLine(in *Input) string {
	var parts, derived []string
	for _, pm := range in.MixModels() {
		info := in.PriceInfo(pm)
		if info.Basis == "" {
			continue
		}
		p := fmt.Sprintf("%s %s", pm, info.Basis)
		if !info.AsOf.IsZero() {
			p += " as of " + info.AsOf.Format(time.DateOnly)
		}
		parts = append(parts, p)
		if info.Basis == catalog.PriceDerived {
			derived = append(derived, string(pm))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	line := "Prices in the mix: " + strings.Join(parts, ", ") + ".\n"
	if len(derived) > 0 {
		line += fmt.Sprintf("The %s price of this instance is derived from published prices (price_source says how), "+
			"not a rate the cloud publishes for it: the total rests on it.\n", strings.Join(derived, " and "))
	}
	return line
}
