// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// A gpu_cluster_spec's figures come from the catalog, so a catalog_file
// edited between `terraform plan -out` and `terraform apply` would make
// apply plan other figures than the saved plan shows, which Terraform
// reports as a provider bug ("Provider produced inconsistent final plan").
// The plan records the digest of the catalog it was made with, and apply
// reports a changed file as such instead.
//
// Where the record lives: Terraform gives the provider, when it plans a
// change again at apply, the private data of the state the plan refreshed,
// nothing else of the plan. So Read, the refresh of every plan, records
// the digest under catalogReadKey, and ModifyPlan compares it with the
// catalog now; Create and Update remove it, so that a later plan that skips
// the refresh (-refresh=false) compares nothing (unless a failed apply or
// `apply -refresh-only` stored a refreshed state: the message says so).
// A resource created by the plan has no state to refresh: Terraform gives
// its apply nothing of the plan at all, and a changed file is then
// Terraform's "inconsistent final plan" (the provider cannot tell).

// catalogReadKey is the private-state key of the digest Read recorded.
const catalogReadKey = "catalog_digest_at_refresh"

// privateState is what the resource reads and writes of its private
// state (the framework's request and response Private).
type privateState interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

// recordCatalog records the digest of the catalog in use (Read).
func (d *providerData) recordCatalog(ctx context.Context, private privateState) diag.Diagnostics {
	v, err := json.Marshal(d.CatalogDigest)
	if err != nil {
		return nil // a string always marshals
	}
	return private.SetKey(ctx, catalogReadKey, v)
}

// forgetCatalog removes the digest Read recorded (Create, Update).
func forgetCatalog(ctx context.Context, private privateState) diag.Diagnostics {
	return private.SetKey(ctx, catalogReadKey, nil)
}

// catalogUnchanged reports an error, and returns false, when the catalog
// differs from the one whose digest the last refresh recorded in private.
func (d *providerData) catalogUnchanged(ctx context.Context, private privateState, diags *diag.Diagnostics) bool {
	raw, ds := private.GetKey(ctx, catalogReadKey)
	if ds.HasError() || len(raw) == 0 {
		return true
	}
	var then string
	if err := json.Unmarshal(raw, &then); err != nil || then == d.CatalogDigest {
		return true
	}
	now := "no catalog_file (the built-in catalog)"
	if d.CatalogFile != "" {
		now = fmt.Sprintf("catalog_file %q with SHA-256 %s", d.CatalogFile, short(d.CatalogDigest))
	}
	was := "no catalog_file (the built-in catalog)"
	if then != "" {
		was = "a catalog file with SHA-256 " + short(then)
	}
	diags.AddError("Catalog File Changed Since The Plan",
		fmt.Sprintf("This plan was made with %s; the provider now reads %s. The plan's instance type, region and costs "+
			"come from the catalog it was made with, so applying it now would record figures the plan does not show. "+
			"Run terraform plan again (with -out, then apply that plan) to see and apply the figures of the catalog as it "+
			"is now, or restore the file the plan was made with. (A plan made with -refresh=false is compared with the "+
			"catalog of the last refresh: plan once with the refresh.)", was, now))
	return false
}

// short is the first 12 hex digits of a digest, enough to tell two apart.
func short(digest string) string {
	if len(digest) > 12 {
		return digest[:12]
	}
	return digest
}
