// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"
	"math"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// The one conversion of a computed number to a framework value. NaN would
// crash the plugin (the framework's big.Float panics on it) and ±Inf cannot
// be written to the state, so a non-finite figure becomes an error naming
// the attribute and a null value, never a framework value. Every computed
// float64 goes through here (TestOneGuardedFloatConversion).

// nonFiniteDetail explains a computed figure that is not finite.
func nonFiniteDetail(attribute string, v float64) string {
	return fmt.Sprintf("%s came out as %s, not a finite number: the inputs, or the figures of a catalog_file, are too large "+
		"to compute with. Reduce them. Within the documented input limits every figure is finite, so if the inputs are within "+
		"them this is a provider bug, please report it", attribute, catalog.FormatNumber(v))
}

// float64Value is v as a framework value, or null with an error on diags
// when v is NaN or infinite. attribute names the output in the message
// ("candidates[2].estimated_cost_usd").
func float64Value(diags *diag.Diagnostics, attribute string, v float64) types.Float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		diags.AddError("Result Is Not A Finite Number", nonFiniteDetail(attribute, v)+".")
		return types.Float64Null()
	}
	return types.Float64Value(v)
}

// funcFloat64 is a provider function's float64 result, or an error when v
// is NaN or infinite.
func funcFloat64(name string, v float64) (float64, *function.FuncError) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, function.NewFuncError("Result Is Not A Finite Number: " + nonFiniteDetail(name, v))
	}
	return v, nil
}

// optionalStrings reads an optional list of strings into *out; a null or
// unknown list leaves *out nil (no filter).
func optionalStrings(ctx context.Context, l types.List, out *[]string) diag.Diagnostics {
	if l.IsNull() || l.IsUnknown() {
		return nil
	}
	*out = []string{}
	return l.ElementsAs(ctx, out, false)
}

// stringList is ss as a list value (empty, not null, for no strings).
func stringList(ss []string) types.List {
	vals := make([]attr.Value, len(ss))
	for i, s := range ss {
		vals[i] = types.StringValue(s)
	}
	return types.ListValueMust(types.StringType, vals)
}
