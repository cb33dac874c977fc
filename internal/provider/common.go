// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"math"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// configuredData converts the ProviderData handed to Configure of a data
// source or resource. It returns nil (and no diagnostic) before the provider
// is configured, as the framework calls Configure early during validation.
func configuredData(raw any, diags *diag.Diagnostics) *providerData {
	if raw == nil {
		return nil
	}
	d, ok := raw.(*providerData)
	if !ok {
		diags.AddError("Unexpected Provider Data",
			fmt.Sprintf("Expected *providerData, got %T. This is a provider bug, please report it.", raw))
		return nil
	}
	return d
}

// builtinCatalog returns the built-in catalog for provider functions, which
// receive no provider configuration (Terraform calls them without it).
func builtinCatalog() (*catalog.Catalog, error) {
	return catalog.Builtin()
}

// Rounding at the Terraform boundary keeps plans identical on every machine.

func roundUSD(v float64) float64   { return math.Round(v*100) / 100 }
func roundHours(v float64) float64 { return math.Round(v*100) / 100 }
func roundRatio(v float64) float64 { return math.Round(v*1e4) / 1e4 }

// roundPrice keeps hourly list prices to 1/10,000 USD: the sources quote
// sub-cent rates (0.7582 $/h) that cent rounding would distort.
func roundPrice(v float64) float64 { return math.Round(v*1e4) / 1e4 }

// codeList renders values as a comma-separated list of Markdown code spans,
// for schema descriptions.
func codeList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = "`" + s + "`"
	}
	return strings.Join(q, ", ")
}
