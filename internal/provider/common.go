// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
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

// codeList renders values as a comma-separated list of Markdown code spans,
// for schema descriptions.
func codeList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = "`" + s + "`"
	}
	return strings.Join(q, ", ")
}
