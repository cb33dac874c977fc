// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Terraform drops an attribute it does not know from an object value
// before the provider sees it (hashicorp/terraform#33570): `constraints =
// { deadline = 1 }` reaches the provider as constraints with every
// attribute null, and the limit the user meant is silently not applied.
// The provider cannot see the dropped name, but it can see an object that
// was given with nothing in it: emptyObjects warns about those, listing
// the attributes the object has.

// warnEmptyObjects warns about each object at paths that is given with
// none of its attributes set (objects whose attributes are all optional,
// so an empty one is not an error and means nothing). It runs in Read,
// once per plan: Terraform validates a data source's configuration twice
// per plan, and a config validator's warning would show twice.
func warnEmptyObjects(ctx context.Context, cfg tfsdk.Config, diags *diag.Diagnostics, paths ...path.Path) {
	for _, p := range paths {
		var obj types.Object
		if d := cfg.GetAttribute(ctx, p, &obj); d.HasError() || obj.IsNull() || obj.IsUnknown() {
			continue // a parent is null, or the object is not given
		}
		names := make([]string, 0, len(obj.Attributes()))
		empty := true
		for name, a := range obj.Attributes() {
			names = append(names, name)
			empty = empty && a.IsNull()
		}
		if !empty {
			continue
		}
		slices.Sort(names)
		diags.AddAttributeWarning(p, "Object With No Known Attribute Set",
			fmt.Sprintf("%s is set, but none of its attributes is. Terraform silently drops an attribute the provider does not "+
				"define (for example `deadline` instead of `deadline_hours`), and `terraform validate` does not report it, "+
				"so a misspelled attribute leaves the object empty. Its attributes are: %s. Check the spelling, or remove "+
				"the empty object.", p, strings.Join(names, ", ")))
	}
}
