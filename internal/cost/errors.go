// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package cost

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// InputError is a bad input, tied to the input field that carries it.
// Field is the Terraform attribute path in dotted form ("utilization",
// "pricing_mix", "storage.block_gb"), with MapKey naming the key of a map
// attribute ("extra_monthly_usd" / "support"), so the
// provider can attach the diagnostic to the attribute.
type InputError struct {
	Field   string
	MapKey  string // the map key inside Field, for map attributes ("" otherwise)
	Summary string // Title-Case, e.g. "Invalid Utilization"
	Detail  string
}

func (e *InputError) Error() string {
	if e.MapKey != "" {
		return fmt.Sprintf("%s[%q]: %s", e.Field, e.MapKey, e.Detail)
	}
	return fmt.Sprintf("%s: %s", e.Field, e.Detail)
}

func keyErr(field, key, summary, format string, args ...any) *InputError {
	e := inputErr(field, summary, format, args...)
	e.MapKey = key
	return e
}

func inputErr(field, summary, format string, args ...any) *InputError {
	return &InputError{Field: field, Summary: summary, Detail: fmt.Sprintf(format, args...)}
}

// OfferedModels lists the pricing models an offer is sold under, in
// canonical order.
func OfferedModels(o *catalog.Offer) []catalog.PricingModel {
	var pms []catalog.PricingModel
	for _, pm := range catalog.InstancePricingModels {
		if _, ok := o.Price(pm); ok {
			pms = append(pms, pm)
		}
	}
	return pms
}

func joinModels(pms []catalog.PricingModel) string {
	if len(pms) == 0 {
		return "none"
	}
	s := make([]string, len(pms))
	for i, pm := range pms {
		s[i] = fmt.Sprintf("%q", pm)
	}
	return strings.Join(s, ", ")
}

func notSoldErr(field, key string, o *catalog.Offer, pm catalog.PricingModel) *InputError {
	return notSoldAs(field, key, o, pm, OfferedModels(o))
}

// notSoldAs is notSoldErr with the models the offer is sold under given.
func notSoldAs(field, key string, o *catalog.Offer, pm catalog.PricingModel, sold []catalog.PricingModel) *InputError {
	where := "in " + o.Region
	if o.Region == "" {
		where = "(workers placed by the platform)"
	}
	return keyErr(field, key, "Pricing Model Not Offered",
		"%s %s %s has no %q price in the catalog; it is sold as: %s.",
		o.Cloud, o.InstanceType, where, pm, joinModels(sold))
}

func knownModel(pm catalog.PricingModel) bool {
	return slices.Contains(catalog.InstancePricingModels, pm)
}
