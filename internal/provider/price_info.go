// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/numfmt"
)

// priceBasisDoc and priceAsOfDoc describe a price's basis and date.
const (
	priceBasisDoc = "`published` (the cloud's own rate for this offer, as its price list, price API or page states it) or " +
		"`derived` (computed from other published prices by the rule `price_source` states, for example a reserved price from " +
		"on-demand and the cloud's published commitment discount)"
	priceAsOfDoc = "the date of the source the price was read from, `YYYY-MM-DD` (for a derived price, the oldest of its inputs)"
)

// priceInfoValues are a price's basis and date as Terraform strings; null
// where the catalog states none (a catalog_file entry that gives none).
func priceInfoValues(info catalog.PriceInfo) (basis, asOf types.String) {
	basis, asOf = types.StringNull(), types.StringNull()
	if info.Basis != "" {
		basis = types.StringValue(string(info.Basis))
	}
	if !info.AsOf.IsZero() {
		asOf = types.StringValue(info.AsOf.Format(time.DateOnly))
	}
	return basis, asOf
}

// priceInfoMaps are an offer row's price_basis and price_as_of: pricing
// model -> basis and -> date, for each model the row is priced under that
// states them.
func priceInfoMaps(infos map[catalog.PricingModel]catalog.PriceInfo) (basis, asOf types.Map) {
	b, d := map[string]attr.Value{}, map[string]attr.Value{}
	for pm, info := range infos {
		bv, dv := priceInfoValues(info)
		if !bv.IsNull() {
			b[string(pm)] = bv
		}
		if !dv.IsNull() {
			d[string(pm)] = dv
		}
	}
	return types.MapValueMust(types.StringType, b), types.MapValueMust(types.StringType, d)
}

// priceAgeKey makes the age warnings one per plan, whichever price or
// the catalog raises it first.
const priceAgeKey = "price age"

// priceAge is when a plan warns about old prices: the threshold (the
// data's default, lowered by max_catalog_age_days) and the clock.
type priceAge struct {
	days int
	// byUser: max_catalog_age_days set the threshold.
	byUser bool
	now    func() time.Time
}

// limitWords names the threshold in a warning.
func (a priceAge) limitWords() string {
	if a.byUser {
		return fmt.Sprintf("max_catalog_age_days = %d", a.days)
	}
	return fmt.Sprintf("%d days, the provider's default (max_catalog_age_days can lower it)", a.days)
}

func (a priceAge) summary() string {
	if a.byUser {
		return "Prices Older Than max_catalog_age_days"
	}
	return fmt.Sprintf("Prices Older Than %d Days", a.days)
}

// refreshAdvice is how to get fresh prices.
const refreshAdvice = "Cloud GPU prices move by tens of percent within a few months. Refresh them: run the provider binary by hand, " +
	"`terraform-provider-gpu refresh --out prices.yaml` (guide: Refresh prices), and set catalog_file = \"prices.yaml\"; " +
	"or upgrade the provider. Shown once per plan."

// warnCatalogAge warns, once per plan, when the catalog's prices
// (catalog_date, the oldest source date that still decides a price) are
// older than the threshold. at is max_catalog_age_days when it set it.
func (d *providerData) warnCatalogAge(cat *catalog.Catalog, diags *diag.Diagnostics) {
	age := catalog.AgeDays(cat.Date, d.age.now())
	if age <= d.age.days {
		return
	}
	var at *path.Path
	if d.age.byUser {
		p := path.Root("max_catalog_age_days")
		at = &p
	}
	ages := cat.PriceAgesAt(d.age.now(), d.age.days)
	d.warnings.addKeyed(diags, priceAgeKey, at, d.age.summary(), fmt.Sprintf(
		"The built-in catalog's oldest price that still decides an answer is dated %s (catalog_date), %d days ago, more "+
			"than %s: %s of its %s prices (%s) are older than that; the newest is dated %s. Each price's date is on "+
			"gpu_offers (price_as_of) and on every candidate. %s", cat.Date.Format(time.DateOnly), age, d.age.limitWords(),
		numfmt.Thousands(float64(ages.Old), 0), numfmt.Thousands(float64(ages.Dated), 0),
		numfmt.Percent(float64(ages.Old)/float64(max(ages.Dated, 1))), ages.Newest.Format(time.DateOnly), refreshAdvice))
}

// warnPriceAge warns, once per plan, when the price that decided an
// answer is older than the threshold; what names the price ("the
// reserved_1y price of aws p5.48xlarge in us-east-1") and answer the
// answer it decided.
func (d *providerData) warnPriceAge(diags *diag.Diagnostics, what, answer string, info catalog.PriceInfo) {
	if d.age.now == nil {
		return
	}
	age := catalog.AgeDays(info.AsOf, d.age.now())
	if age <= d.age.days {
		return
	}
	d.warnings.addKeyed(diags, priceAgeKey, nil, d.age.summary(), fmt.Sprintf(
		"%s, which decided %s, is dated %s, %d days ago, more than %s. %s",
		what, answer, info.AsOf.Format(time.DateOnly), age, d.age.limitWords(), refreshAdvice))
}

// regionWords is a region in a message: a serverless worker placed by its
// platform has none.
func regionWords(region string) string {
	if region == "" {
		return "the regions its platform chooses"
	}
	return region
}

// priceAgeDefaultDoc states the default threshold for the docs, from the
// data (a small file, not the catalog: schemas are built at every start).
func priceAgeDefaultDoc() string {
	days, err := catalog.PriceAgeWarningDays()
	if err != nil {
		return "Prices older than the provider's default age always warn."
	}
	return fmt.Sprintf("Prices older than %d days always warn (the default, with its reason in the provider's data).", days)
}
