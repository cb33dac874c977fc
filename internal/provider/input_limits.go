// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// This file bounds every number a user gives: an attribute or a function
// argument declares an inputLimit (a catalog.Limit from
// data/input_limits.json, or one narrowed from it) and the limit is checked
// on the number exactly as Terraform sent it.
//
// Attributes carry the limit in their type (CustomType: limit.Float64() or
// limit.Int64()), not in a validator: a validator sees the value after the
// framework converted it, and the framework's own conversion fails first,
// with a message that names no attribute, on what users actually type
// wrong (1e400 or 1e308*10 for a float64, 8.5 or 2^70 for an int64). The
// types here convert every number and check it in Validate, which sees the
// arbitrary-precision value: representability, whole numbers and the range
// are one check and one diagnostic ("gpu_count must be a whole number from
// 1 to 1,000,000 GPUs, got 8.5."). Reading a rejected value in provider
// code fails with the same diagnostic (the framework drops the duplicate).
//
// Function arguments are Number parameters whose validator is the same
// limit (ValidateParameterNumber), for the same reason.

// Values a limited type reads for a number it rejects: every limit rejects
// them too, so code that reads a configuration without validating it (a
// nested object's attributes) never takes a rejected number for a valid one.
var (
	rejectedFloat64 = math.Inf(-1)
	rejectedInt64   = int64(math.MinInt64)
)

// inputLimit is the allowed range of one number attribute or function
// argument.
type inputLimit struct{ l catalog.Limit }

// limitOf returns the named input limit (a catalog.Limit* constant). A
// missing name, a programming error the tests catch, yields a limit that
// rejects every value with a message that says so.
func limitOf(name string) inputLimit {
	if l, ok := catalog.InputLimit(name); ok {
		return inputLimit{l}
	}
	return inputLimit{catalog.Limit{Name: name, Min: math.NaN(), Max: math.NaN()}}
}

// positive is the limit with its lower bound exclusive: "more than 0".
func (in inputLimit) positive() inputLimit {
	in.l.MinExclusive = true
	return in
}

// orZero is the limit with 0 allowed as its inclusive lower bound (a
// minimum filter where 0 means none).
func (in inputLimit) orZero() inputLimit {
	in.l.Min, in.l.MinExclusive = 0, false
	return in
}

// atMost narrows the upper bound to max when that is lower (a bound of the
// spec document format or of the planner).
func (in inputLimit) atMost(maxValue float64) inputLimit {
	if maxValue < in.l.Max {
		in.l.Max, in.l.MaxExclusive = maxValue, false
	}
	return in
}

// exclusive makes both bounds exclusive: a probability strictly between
// 0 and 1.
func (in inputLimit) exclusive() inputLimit {
	in.l.MinExclusive, in.l.MaxExclusive = true, true
	return in
}

func (in inputLimit) equal(o inputLimit) bool {
	a, b := in.l, o.l
	return a.Name == b.Name && a.Min == b.Min && a.Max == b.Max && a.MinExclusive == b.MinExclusive &&
		a.MaxExclusive == b.MaxExclusive && a.Integer == b.Integer
}

// Doc is the sentence that documents the range on the attribute or
// argument, for example " Allowed: a whole number from 1 to 1,000,000 GPUs.".
func (in inputLimit) Doc() string { return in.DocAs("Allowed") }

// DocAs is Doc with another label: " Each value: from 0 to 1.".
func (in inputLimit) DocAs(label string) string {
	if in.l.Integer {
		return " " + label + ": a whole number " + in.l.Range() + "."
	}
	return " " + label + ": " + in.l.Range() + "."
}

// allows reports whether a number read by a limited type is within the
// limit (false for the rejected* values).
func (in inputLimit) allows(v float64) bool { return in.l.Allows(v) }

// check returns the problem with the number f given for name, or "" when
// it is allowed: "months must be from 0.001 to 1,200 months, got 1 × 10^309".
func (in inputLimit) check(name string, f *big.Float) string {
	v, acc := f.Float64()
	representable := !math.IsInf(v, 0) && (v != 0 || acc == big.Exact)
	whole := !in.l.Integer || f.IsInt()
	if representable && whole && in.l.Allows(v) {
		return ""
	}
	if math.IsNaN(in.l.Min) {
		return fmt.Sprintf("%s has no input limit %q (a provider bug, please report it), got %s", name, in.l.Name, formatBig(f))
	}
	what := "must be"
	if in.l.Integer {
		what = "must be a whole number"
	}
	return fmt.Sprintf("%s %s %s, got %s", name, what, in.l.Range(), formatBig(f))
}

// maxNumberDigits bounds a number written out in a message.
const maxNumberDigits = 40

// formatBig renders a number as catalog.FormatNumber does, also beyond
// float64: "8.5", "1,000,000", "1 × 10^400", "5 × 10^-324".
func formatBig(f *big.Float) string {
	if f.IsInf() { // 1/0 in HCL
		return catalog.FormatNumber(math.Inf(f.Sign()))
	}
	if v, acc := f.Float64(); !math.IsInf(v, 0) && (v != 0 || acc == big.Exact) {
		if a := math.Abs(v); a == 0 || (a >= 1e-4 && a < 1e15) {
			if v == math.Trunc(v) && !f.IsInt() {
				// A fraction too small for float64: 1.0000000000000000000001.
				if s := f.Text('g', -1); len(s) <= maxNumberDigits {
					return s
				}
			}
			return catalog.FormatNumber(v)
		}
	}
	mant, exp, _ := strings.Cut(f.Text('e', 3), "e") // "-1.235e+400"
	if strings.Contains(mant, ".") {
		mant = strings.TrimRight(strings.TrimRight(mant, "0"), ".")
	}
	e, _ := strconv.Atoi(exp)
	return fmt.Sprintf("%s × 10^%d", mant, e)
}

// knownNumber is the number val holds; nil when val is not a known,
// non-null number (the base types handle those).
func knownNumber(val tftypes.Value) (*big.Float, error) {
	if val.Type() == nil || !val.Type().Is(tftypes.Number) || !val.IsKnown() || val.IsNull() {
		return nil, nil
	}
	var f big.Float
	if err := val.As(&f); err != nil {
		return nil, err
	}
	return &f, nil
}

// validate is the attribute check of both limited types.
func (in inputLimit) validate(val tftypes.Value, p path.Path) diag.Diagnostics {
	var diags diag.Diagnostics
	f, err := knownNumber(val)
	switch {
	case err != nil:
		diags.AddAttributeError(p, "Invalid Number", fmt.Sprintf("%s is not a number: %v.", p, err))
	case f != nil:
		if problem := in.check(p.String(), f); problem != "" {
			diags.AddAttributeError(p, "Invalid Number", problem+".")
		}
	}
	return diags
}

// Arg is the validator of the Number function argument name.
func (in inputLimit) Arg(name string) function.NumberParameterValidator { return argLimit{in, name} }

// argLimit checks a Number function argument against a limit.
type argLimit struct {
	limit inputLimit
	name  string
}

func (a argLimit) ValidateParameterNumber(_ context.Context, req function.NumberParameterValidatorRequest, resp *function.NumberParameterValidatorResponse) {
	if req.Value.IsNull() || req.Value.IsUnknown() {
		return
	}
	if problem := a.limit.check(a.name, req.Value.ValueBigFloat()); problem != "" {
		resp.Error = function.NewArgumentFuncError(req.ArgumentPosition, "Invalid Number: "+problem)
	}
}

// Float64 is the custom type of a float64 attribute bounded by the limit.
func (in inputLimit) Float64() basetypes.Float64Typable { return limitedFloat64Type{limit: in} }

// Int64 is the custom type of an int64 attribute bounded by the limit,
// which then admits whole numbers only.
func (in inputLimit) Int64() basetypes.Int64Typable {
	in.l.Integer = true
	return limitedInt64Type{limit: in}
}

// limitedFloat64Type is a float64 attribute type that reads any number and
// reports one outside its limit (or beyond float64) on the attribute.
type limitedFloat64Type struct {
	basetypes.Float64Type
	limit inputLimit
}

// Equal is true for the same limit, and for basetypes.Float64Type: the
// values of this type are basetypes.Float64Value, whose Type is that, and
// the framework checks every value of an object, list or map against its
// element type this way.
func (t limitedFloat64Type) Equal(o attr.Type) bool {
	if other, ok := o.(limitedFloat64Type); ok {
		return t.limit.equal(other.limit)
	}
	return t.Float64Type.Equal(o)
}

func (t limitedFloat64Type) String() string {
	return "provider.limitedFloat64Type(" + t.limit.l.Name + ")"
}

func (t limitedFloat64Type) ValueFromTerraform(ctx context.Context, in tftypes.Value) (attr.Value, error) {
	f, err := knownNumber(in)
	if err != nil || f == nil {
		return t.Float64Type.ValueFromTerraform(ctx, in)
	}
	v, acc := f.Float64()
	if math.IsInf(v, 0) || (v == 0 && acc != big.Exact) {
		return types.Float64Value(rejectedFloat64), nil // Validate reports it
	}
	// The nearest float64: a number no float64 holds exactly (1/3, 0.1 +
	// 0.2, 1e-320) would otherwise fail wherever the value is read into a
	// float64 (a map's ElementsAs) with the framework's "Value Conversion
	// Error ... cannot store 0.3333333333 in float64". Only data sources
	// and the provider take float inputs, and Terraform compares neither
	// with the configuration.
	return types.Float64Value(v), nil
}

func (t limitedFloat64Type) Validate(_ context.Context, in tftypes.Value, p path.Path) diag.Diagnostics {
	return t.limit.validate(in, p)
}

// limitedInt64Type is an int64 attribute type that reads any number and
// reports one outside its limit (or not whole, or beyond int64) on the
// attribute.
type limitedInt64Type struct {
	basetypes.Int64Type
	limit inputLimit
}

// Equal is true for the same limit and for basetypes.Int64Type (see
// limitedFloat64Type.Equal).
func (t limitedInt64Type) Equal(o attr.Type) bool {
	if other, ok := o.(limitedInt64Type); ok {
		return t.limit.equal(other.limit)
	}
	return t.Int64Type.Equal(o)
}

func (t limitedInt64Type) String() string { return "provider.limitedInt64Type(" + t.limit.l.Name + ")" }

func (t limitedInt64Type) ValueFromTerraform(ctx context.Context, in tftypes.Value) (attr.Value, error) {
	f, err := knownNumber(in)
	if err != nil || f == nil {
		return t.Int64Type.ValueFromTerraform(ctx, in)
	}
	if _, acc := f.Int64(); !f.IsInt() || acc != big.Exact {
		return types.Int64Value(rejectedInt64), nil // Validate reports it
	}
	return t.Int64Type.ValueFromTerraform(ctx, in)
}

func (t limitedInt64Type) Validate(_ context.Context, in tftypes.Value, p path.Path) diag.Diagnostics {
	return t.limit.validate(in, p)
}

// limitOfType is the limit a limited attribute type carries.
func limitOfType(t attr.Type) (inputLimit, bool) {
	switch lt := t.(type) {
	case limitedFloat64Type:
		return lt.limit, true
	case limitedInt64Type:
		return lt.limit, true
	}
	return inputLimit{}, false
}

// numberArg reads a Number function argument the limit has checked.
func numberArg(n types.Number) float64 {
	f, _ := n.ValueBigFloat().Float64()
	return f
}

// floatInput is an optional float64 attribute bounded by limit, the range
// documented after desc.
func floatInput(desc string, limit inputLimit) schema.Float64Attribute {
	return schema.Float64Attribute{Optional: true, MarkdownDescription: desc + limit.Doc(), CustomType: limit.Float64()}
}

// intInput is an optional int64 attribute bounded by limit.
func intInput(desc string, limit inputLimit) schema.Int64Attribute {
	return schema.Int64Attribute{Optional: true, MarkdownDescription: desc + limit.Doc(), CustomType: limit.Int64()}
}
