// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package catalog_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// Every Limit* constant names a limit of input_limits.json and every limit
// of the file has a constant, a reason and a finite range.
func TestInputLimitsFile(t *testing.T) {
	limits, err := catalog.InputLimits()
	if err != nil {
		t.Fatal(err)
	}
	f, err := parser.ParseFile(token.NewFileSet(), "limits.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	consts := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || len(vs.Names) != 1 || !strings.HasPrefix(vs.Names[0].Name, "Limit") || len(vs.Values) != 1 {
			return true
		}
		if lit, ok := vs.Values[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
			name, _ := strconv.Unquote(lit.Value)
			consts[name] = true
			if _, ok := limits[name]; !ok {
				t.Errorf("%s = %q is not in input_limits.json", vs.Names[0].Name, name)
			}
		}
		return true
	})
	for name, l := range limits {
		if !consts[name] {
			t.Errorf("limit %q has no Limit* constant", name)
		}
		if l.Reason == "" || len(l.AppliesTo) == 0 || l.Name != name || !(l.Min < l.Max) {
			t.Errorf("limit %q: %+v", name, l)
		}
	}
}

func TestLimitCheck(t *testing.T) {
	price, _ := catalog.InputLimit(catalog.LimitInstancePriceUSDPerHour)
	gpus, _ := catalog.InputLimit(catalog.LimitGPUsPerInstance)
	disc, _ := catalog.InputLimit(catalog.LimitDiscountFraction)
	months, _ := catalog.InputLimit(catalog.LimitMonths)
	params, _ := catalog.InputLimit(catalog.LimitModelParametersB)
	for _, tc := range []struct {
		l    catalog.Limit
		v    float64
		want string // "" = allowed
	}{
		{price, 55.04, ""},
		{price, 1e6, ""},
		{price, 1e308, "must be from 0.0001 to 1,000,000 USD/h, got 1 × 10^308"},
		{price, math.Inf(1), "must be a finite number from 0.0001 to 1,000,000 USD/h, got infinity"},
		{price, math.NaN(), "must be a finite number from 0.0001 to 1,000,000 USD/h, got NaN"},
		{price, 5e-324, "got 4.941 × 10^-324"},
		{gpus, 8, ""},
		{gpus, 8.5, "must be a whole number from 1 to 65,536 GPUs, got 8.5"},
		{gpus, 1 << 62, "got 4.612 × 10^18"},
		{disc, 0, ""},
		{disc, 1, "must be at least 0 and less than 1, got 1"},
		{months, 0, "must be from 0.001 to 1200 months, got 0"},
		{params, 0, "must be from 0.0001 to 100,000 B parameters, got 0"},
		{months, 1200, ""},
	} {
		err := tc.l.Check(tc.v)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s.Check(%v) = %v, want allowed", tc.l.Name, tc.v, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s.Check(%v) = %v, want %q", tc.l.Name, tc.v, err, tc.want)
		}
	}
	if _, ok := catalog.InputLimit("no_such_limit"); ok {
		t.Error("unknown limit found")
	}
}

func TestFormatNumber(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{0, "0"}, {1, "1"}, {-3, "-3"}, {1000000, "1,000,000"}, {0.0025, "0.0025"}, {1234.5, "1234.5"}, {12345.5, "12,345.5"}, {2024, "2024"},
		{1e308, "1 × 10^308"}, {5e-324, "4.941 × 10^-324"}, {1.5e20, "1.5 × 10^20"}, {math.Inf(1), "infinity"},
		{math.Inf(-1), "-infinity"}, {math.NaN(), "NaN"}, {999999999999999, "999,999,999,999,999"},
	} {
		if got := catalog.FormatNumber(tc.v); got != tc.want {
			t.Errorf("FormatNumber(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}
