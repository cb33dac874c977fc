// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// nameList checks a list of names (clouds, regions, accelerators, …):
// every element given, none twice, and the list not empty, each error
// naming the attribute. The framework's own messages for these name no
// attribute ("This attribute contains duplicate values of: \"aws\"") or
// leak its internals ("Received null value … Target Type: string").
type nameList struct {
	// empty says what an empty list would do and what to write instead;
	// "" allows an empty list.
	empty string
}

var _ validator.List = nameList{}

func (nameList) Description(context.Context) string {
	return "each element is a name given once, and the list is not empty"
}

func (v nameList) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v nameList) ValidateList(_ context.Context, req validator.ListRequest, resp *validator.ListResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	elems := req.ConfigValue.Elements()
	if len(elems) == 0 && v.empty != "" {
		resp.Diagnostics.AddAttributeError(req.Path, "Empty List", fmt.Sprintf("%s = []: %s", req.Path, v.empty))
		return
	}
	type firstSeen struct {
		index   int
		written string
	}
	first := map[string]firstSeen{}
	for i, e := range elems {
		if e.IsNull() {
			resp.Diagnostics.AddAttributeError(req.Path.AtListIndex(i), "Null List Element",
				fmt.Sprintf("%s[%d] is null: give a name or remove the element.", req.Path, i))
			continue
		}
		s, ok := e.(types.String)
		if !ok || s.IsUnknown() {
			continue
		}
		// Names match in any case (one rule for every name and enum), so
		// "aws" and "AWS" are the same name given twice.
		key := strings.ToLower(strings.TrimSpace(s.ValueString()))
		if f, dup := first[key]; dup {
			twice := fmt.Sprintf("%s twice (elements %d and %d)", catalog.QuoteName(s.ValueString()), f.index, i)
			if f.written != s.ValueString() {
				twice = fmt.Sprintf("%s and %s (elements %d and %d), one name: names match in any case",
					catalog.QuoteName(f.written), catalog.QuoteName(s.ValueString()), f.index, i)
			}
			resp.Diagnostics.AddAttributeError(req.Path.AtListIndex(i), "Duplicate List Element",
				fmt.Sprintf("%s lists %s. List each value once.", req.Path, twice))
			continue
		}
		first[key] = firstSeen{i, s.ValueString()}
	}
}

// noNullValues rejects a map whose values include null, naming the key.
type noNullValues struct{}

var _ validator.Map = noNullValues{}

func (noNullValues) Description(context.Context) string { return "no value is null" }

func (v noNullValues) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (noNullValues) ValidateMap(_ context.Context, req validator.MapRequest, resp *validator.MapResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	elems := req.ConfigValue.Elements()
	keys := make([]string, 0, len(elems))
	for k := range elems {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if elems[k].IsNull() {
			resp.Diagnostics.AddAttributeError(req.Path.AtMapKey(k), "Null Map Value",
				fmt.Sprintf("%s[%s] is null: give a value or remove the key.", req.Path, strconv.Quote(k)))
		}
	}
}

// notEmpty rejects a string given empty or blank ("", "  "): a value that
// would otherwise be read as unset (a default, an attribute turned off,
// the cheapest region) is an error naming the attribute. hint says what
// to write instead, for example "give a region code such as
// \"us-east-1\", or omit region for the cheapest one". (perf reads a
// blank workload string as unset; its code is left alone, since the
// accuracy report's leave-one-source-out results are keyed to it.)
type notEmpty struct{ hint string }

var _ validator.String = notEmpty{}

func (notEmpty) Description(context.Context) string { return "not empty or blank" }

func (v notEmpty) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v notEmpty) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() || strings.TrimSpace(req.ConfigValue.ValueString()) != "" {
		return
	}
	resp.Diagnostics.AddAttributeError(req.Path, "Empty Value", fmt.Sprintf("%s = %s is %s: %s.",
		req.Path, catalog.QuoteName(req.ConfigValue.ValueString()), blankOrEmpty(req.ConfigValue.ValueString()), v.hint))
}

// blankOrEmpty says which of the two an unusable string is: "empty" for
// "", "blank" for spaces only.
func blankOrEmpty(s string) string {
	if s == "" {
		return "empty"
	}
	return "blank"
}

// stringRule checks a string with a pure package's rule (check returns
// the problem, or ""), so terraform validate reports what plan would, in
// the same words: "name must be at most 253 characters, got 400".
type stringRule struct {
	summary string
	check   func(string) string
}

var _ validator.String = stringRule{}

func (stringRule) Description(context.Context) string { return "a value the rule accepts" }

func (v stringRule) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v stringRule) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if problem := v.check(req.ConfigValue.ValueString()); problem != "" {
		resp.Diagnostics.AddAttributeError(req.Path, v.summary, fmt.Sprintf("%s %s.", req.Path, problem))
	}
}

// oneOf checks an enumerated value the way the pure packages read it: in
// any case, surrounding spaces ignored (catalog.NameKey), so terraform
// validate and plan accept and refuse the same values; the message names
// the attribute, quotes the value (cut when long) and lists the allowed
// ones with the closest. It replaces the framework's OneOfCaseInsensitive,
// which refused " cost" that the planner reads as cost and answered
// "Invalid Attribute Value Match … got: \"\"".
type oneOf []string

var _ validator.String = oneOf{}

func (v oneOf) Description(context.Context) string {
	return "one of " + catalog.QuoteList(v) + ", in any case"
}

func (v oneOf) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v oneOf) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	got := req.ConfigValue.ValueString()
	for _, allowed := range v {
		if catalog.NameKey(got) == catalog.NameKey(allowed) {
			return
		}
	}
	closest := catalog.QuoteList(catalog.Closest(catalog.NameKey(got), v, 1))
	resp.Diagnostics.AddAttributeError(req.Path, "Invalid Value", fmt.Sprintf("%s = %s; allowed: %s. Closest: %s.",
		req.Path, catalog.QuoteName(got), catalog.QuoteList(v), closest))
}

// enumKeys rejects a map key that is not one of values (any case), naming
// the closest one: the map attribute's keys are a closed set, like an
// object input's (pricing_mix's pricing models).
type enumKeys struct {
	what   string // what a key is, for the message: "a pricing model"
	values []string
}

var _ validator.Map = enumKeys{}

func (v enumKeys) Description(context.Context) string {
	return "each key is " + v.what + ": " + strings.Join(v.values, ", ") + " (any case)"
}

func (v enumKeys) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v enumKeys) ValidateMap(_ context.Context, req validator.MapRequest, resp *validator.MapResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	for _, k := range sortedKeys(req.ConfigValue.Elements()) {
		if canonical(v.values, k) != "" {
			continue
		}
		resp.Diagnostics.AddAttributeError(req.Path.AtMapKey(k), "Unknown Map Key",
			fmt.Sprintf("%s[%s] is not %s. Closest: %q. Keys (any case): %s.", req.Path, catalog.QuoteName(k), v.what,
				catalog.Closest(k, v.values, 1)[0], catalog.QuoteList(v.values)))
	}
}
