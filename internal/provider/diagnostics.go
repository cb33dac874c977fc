// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/cost"
	"github.com/gpuplan/terraform-provider-gpu/internal/inputerr"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
	"github.com/gpuplan/terraform-provider-gpu/internal/planner"
)

// This file turns every error of the pure packages into Terraform
// diagnostics (ARCHITECTURE.md, "Errors"): input errors on the attribute
// their structured path names, and anything else as the one "provider bug"
// diagnostic.

// attributePath converts a pure package's path into a framework path.
func attributePath(p inputerr.Path) (path.Path, bool) {
	var out path.Path
	for i, s := range p.Steps() {
		if name, ok := s.AttributeName(); ok {
			if i == 0 {
				out = path.Root(name)
			} else {
				out = out.AtName(name)
			}
			continue
		}
		if i == 0 {
			return path.Empty(), false // a function argument or no root
		}
		if n, ok := s.ListIndex(); ok {
			out = out.AtListIndex(n)
		} else if k, ok := s.MapKey(); ok {
			out = out.AtMapKey(k)
		}
	}
	return out, !p.IsEmpty()
}

// addInputError adds one input error, on its attribute when it has one.
func addInputError(diags *diag.Diagnostics, e *inputerr.Error) {
	if p, ok := attributePath(e.Path); ok {
		diags.AddAttributeError(p, e.Summary, e.Detail)
		return
	}
	diags.AddError(e.Summary, e.Detail)
}

// addWarning adds a pure package's warning, on its attribute when it has
// one.
func addWarning(diags *diag.Diagnostics, at inputerr.Path, summary, detail string) {
	if p, ok := attributePath(at); ok {
		diags.AddAttributeWarning(p, summary, detail)
		return
	}
	diags.AddWarning(summary, detail)
}

// addError turns an error of a pure package into diagnostics: input
// errors, a recommendation without candidates, a precision the
// accelerator cannot run, a bad cost input; anything else is a provider
// bug. A nil error adds nothing.
func addError(diags *diag.Diagnostics, err error) {
	if err == nil {
		return
	}
	if errs := inputerr.From(err); len(errs) > 0 {
		for _, e := range errs {
			addInputError(diags, e)
		}
		return
	}
	var nc *planner.NoCandidateError
	var pe *perf.PrecisionError
	var ce *cost.InputError
	var nf *cost.NonFiniteError
	switch {
	case errors.As(err, &nc):
		addInputError(diags, &inputerr.Error{Path: nc.Path, Summary: "No GPU Offer Satisfies The Constraints", Detail: nc.Detail})
	case errors.As(err, &pe):
		diags.AddAttributeError(path.Root("workload").AtName("precision"), "Precision Not Supported By Accelerator", pe.Error()+".")
	case errors.As(err, &ce):
		addCostError(diags, ce)
	case errors.As(err, &nf):
		diags.AddError("Cost Too Large To Compute", fmt.Sprintf("The %s figure came out as %s, not a finite number: the inputs, "+
			"or the prices of a catalog_file, are too large to price. Reduce months, instance_count, data sizes or the prices in the catalog file.",
			nf.Figure, catalog.FormatNumber(nf.Value)))
	default:
		addBug(diags, "", err)
	}
}

// addBug reports what should never happen: a broken embedded data file or
// an error no input explains.
func addBug(diags *diag.Diagnostics, what string, err error) {
	if what != "" {
		what += ": "
	}
	diags.AddError("Unexpected Provider Error", fmt.Sprintf("%s%v\n\nThis is a provider bug, please report it.", what, err))
}

// addCostError puts a cost-model input error on its attribute.
func addCostError(diags *diag.Diagnostics, ce *cost.InputError) {
	switch ce.Field {
	case "discount", "carbon_price_usd_per_tonne":
		// Provider-level settings: no attribute of the data source to point at.
		diags.AddError(ce.Summary, "Provider configuration: "+ce.Detail)
		return
	}
	addInputError(diags, costInputError(ce))
}

// costInputError is a cost-model input error with a structured path.
func costInputError(ce *cost.InputError) *inputerr.Error {
	parts := strings.Split(ce.Field, ".")
	p := inputerr.Root(parts[0])
	for _, name := range parts[1:] {
		p = p.Name(name)
	}
	if ce.MapKey != "" {
		p = p.Key(ce.MapKey)
	}
	return &inputerr.Error{Path: p, Summary: ce.Summary, Detail: ce.Detail}
}

// funcError turns an error of a pure package into a provider-function
// error: on the argument its path names (a root attribute that args maps
// to an argument position), else for the call.
// Terraform ends the message with its own period.
func funcError(err error, args map[string]int64) *function.FuncError {
	errs := inputerr.From(err)
	if ce := (*cost.InputError)(nil); len(errs) == 0 && errors.As(err, &ce) {
		errs = inputerr.List{costInputError(ce)}
	}
	if len(errs) == 0 {
		return function.NewFuncError(fmt.Sprintf("%v\n\nThis is a provider bug, please report it", err))
	}
	var out *function.FuncError
	for _, e := range errs {
		msg := e.Summary + ": " + strings.TrimSuffix(e.Detail, ".")
		if pos, ok := argumentOf(e.Path, args); ok {
			out = function.ConcatFuncErrors(out, function.NewArgumentFuncError(pos, msg))
		} else {
			out = function.ConcatFuncErrors(out, function.NewFuncError(msg))
		}
	}
	return out
}

// argumentOf is the function argument a path starts at.
func argumentOf(p inputerr.Path, args map[string]int64) (int64, bool) {
	steps := p.Steps()
	if len(steps) == 0 {
		return 0, false
	}
	name, _ := steps[0].AttributeName()
	pos, ok := args[name]
	return pos, ok
}

// warnAmbiguousAccelerator warns when an accelerator name at p is an alias
// of one part among several variants ("a100" is read as A100-40GB; the
// catalog also has A100-80GB): catalog.AmbiguousAccelerator says which.
func warnAmbiguousAccelerator(diags *diag.Diagnostics, cat *catalog.Catalog, p path.Path, at, name string) {
	if w := cat.AmbiguousAccelerator(at, name); w != "" {
		diags.AddAttributeWarning(p, "Accelerator Name Has Variants", w)
	}
}

// warnAmbiguousAccelerators is warnAmbiguousAccelerator for every element
// of a list of accelerator names at p (at is its name in messages).
func warnAmbiguousAccelerators(ctx context.Context, diags *diag.Diagnostics, cat *catalog.Catalog, l types.List, p path.Path, at string) {
	var names []string
	if optionalStrings(ctx, l, &names).HasError() {
		return
	}
	for i, n := range names {
		warnAmbiguousAccelerator(diags, cat, p.AtListIndex(i), fmt.Sprintf("%s[%d]", at, i), n)
	}
}
