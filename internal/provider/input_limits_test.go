// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// inputAttribute is what every schema package's attributes have in common.
type inputAttribute interface {
	GetType() attr.Type
	IsRequired() bool
	IsOptional() bool
}

// unlimitedNumbers lists the numbers inside an input's type that carry no
// input limit: a plain float64, int64 or number type, or a limited type
// whose limit name is not in input_limits.json.
func unlimitedNumbers(p string, t attr.Type) []string {
	if l, ok := limitOfType(t); ok {
		if math.IsNaN(l.l.Min) {
			return []string{p + ": unknown input limit " + l.l.Name}
		}
		return nil
	}
	switch tt := t.(type) {
	case basetypes.Float64Type, basetypes.Int64Type, basetypes.Int32Type, basetypes.Float32Type, basetypes.NumberType:
		return []string{p}
	case basetypes.ObjectType:
		var out []string
		for name, at := range tt.AttrTypes {
			out = append(out, unlimitedNumbers(p+"."+name, at)...)
		}
		return out
	case basetypes.ListType:
		return unlimitedNumbers(p+"[*]", tt.ElemType)
	case basetypes.SetType:
		return unlimitedNumbers(p+"[*]", tt.ElemType)
	case basetypes.MapType:
		return unlimitedNumbers(p+"[*]", tt.ElemType)
	}
	return nil
}

// objectInputWithoutLimits checks a Dynamic input: an object input whose
// key table gives every number key a known limit.
func objectInputWithoutLimits(p string, a any) []string {
	keys := keyTableOf(a)
	if keys == nil {
		return []string{p + ": a Dynamic input without a key table (objectValidator)"}
	}
	var out []string
	for name, l := range keys.numberLimits(p + ".") {
		if math.IsNaN(l.l.Min) {
			out = append(out, name+": unknown input limit "+l.l.Name)
		}
	}
	return out
}

// inputsWithoutLimit checks every attribute a user gives (required or
// optional, nested ones included).
func inputsWithoutLimit[A any](object string, attrs map[string]A) []string {
	var out []string
	for name, a := range attrs {
		ia, ok := any(a).(inputAttribute)
		if !ok {
			out = append(out, fmt.Sprintf("%s.%s: not an attribute", object, name))
			continue
		}
		if !ia.IsRequired() && !ia.IsOptional() {
			continue
		}
		if _, dynamic := ia.GetType().(basetypes.DynamicType); dynamic {
			out = append(out, objectInputWithoutLimits(object+"."+name, a)...)
			continue
		}
		out = append(out, unlimitedNumbers(object+"."+name, ia.GetType())...)
	}
	return out
}

// Every number a user gives (attribute or function argument) carries an
// input limit: a limited type on attributes, a Number parameter with the
// limit's validator on functions. A new number input without one fails
// here, before a user can crash the provider with 1e308.
func TestEveryNumberInputHasALimit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := New("test")()
	var bad []string

	var ps provider.SchemaResponse
	p.Schema(ctx, provider.SchemaRequest{}, &ps)
	bad = append(bad, inputsWithoutLimit("provider", ps.Schema.Attributes)...)
	for _, newDS := range p.DataSources(ctx) {
		ds := newDS()
		var md datasource.MetadataResponse
		ds.Metadata(ctx, datasource.MetadataRequest{ProviderTypeName: "gpu"}, &md)
		var sr datasource.SchemaResponse
		ds.Schema(ctx, datasource.SchemaRequest{}, &sr)
		bad = append(bad, inputsWithoutLimit(md.TypeName, sr.Schema.Attributes)...)
	}
	for _, newRes := range p.Resources(ctx) {
		r := newRes()
		var md resource.MetadataResponse
		r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: "gpu"}, &md)
		var sr resource.SchemaResponse
		r.Schema(ctx, resource.SchemaRequest{}, &sr)
		bad = append(bad, inputsWithoutLimit(md.TypeName, sr.Schema.Attributes)...)
	}
	pf, ok := p.(provider.ProviderWithFunctions)
	if !ok {
		t.Fatal("the provider has no functions")
	}
	for _, newFn := range pf.Functions(ctx) {
		fn := newFn()
		var md function.MetadataResponse
		fn.Metadata(ctx, function.MetadataRequest{}, &md)
		var dr function.DefinitionResponse
		fn.Definition(ctx, function.DefinitionRequest{}, &dr)
		for _, param := range dr.Definition.Parameters {
			name := md.Name + "(" + param.GetName() + ")"
			switch pp := param.(type) {
			case function.NumberParameter:
				if len(pp.Validators) == 0 {
					bad = append(bad, name+": a Number parameter without its limit's validator")
				}
			case function.Float64Parameter, function.Int64Parameter, function.Float32Parameter, function.Int32Parameter:
				bad = append(bad, name+": use a Number parameter with the limit's validator (Arg)")
			}
		}
	}
	if len(bad) > 0 {
		t.Errorf("number inputs without an input limit:\n  %s", strings.Join(bad, "\n  "))
	}
}

func TestLimitedTypes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	gpus := limitOf(catalog.LimitGPUCount).Int64()
	months := limitOf(catalog.LimitMonths).Float64()
	for _, tc := range []struct {
		typ  attr.Type
		name string
		in   string
		want string // "" = valid
	}{
		{gpus, "gpu_count", "8", ""},
		{gpus, "gpu_count", "1000000", ""},
		{gpus, "gpu_count", "8.5", "gpu_count must be a whole number from 1 to 1,000,000 GPUs, got 8.5."},
		{gpus, "gpu_count", "0", "gpu_count must be a whole number from 1 to 1,000,000 GPUs, got 0."},
		{gpus, "gpu_count", "4611686018427387904", "got 4.612 × 10^18."},
		{gpus, "gpu_count", "1e30", "got 1 × 10^30."},
		{gpus, "gpu_count", "1.0000000000000000000001", "must be a whole number from 1 to 1,000,000 GPUs, got 1.0000000000000000000001."},
		{months, "months", "12", ""},
		{months, "months", "0.001", ""},
		{months, "months", "1e308", "months must be from 0.001 to 1200 months, got 1 × 10^308."},
		{months, "months", "1e400", "got 1 × 10^400."},
		{months, "months", "-1e400", "got -1 × 10^400."},
		{months, "months", "1e-400", "got 1 × 10^-400."},
		{months, "months", "5e-324", "got 5 × 10^-324."},
	} {
		t.Run(tc.name+"="+tc.in, func(t *testing.T) {
			f, _, err := big.ParseFloat(tc.in, 10, 512, big.ToNearestEven)
			if err != nil {
				t.Fatal(err)
			}
			v := tftypes.NewValue(tftypes.Number, f)
			val, err := tc.typ.ValueFromTerraform(ctx, v)
			if err != nil {
				t.Fatalf("ValueFromTerraform(%s): %v, want any number read", tc.in, err)
			}
			vt, ok := tc.typ.(interface {
				Validate(context.Context, tftypes.Value, path.Path) diag.Diagnostics
			})
			if !ok {
				t.Fatalf("%T has no Validate", tc.typ)
			}
			diags := vt.Validate(ctx, v, path.Root(tc.name))
			switch {
			case tc.want == "" && diags.HasError():
				t.Fatalf("%s rejected: %v", tc.in, diags)
			case tc.want != "" && (!diags.HasError() || !strings.Contains(diags[0].Detail(), tc.want)):
				t.Fatalf("%s: got %v, want an error containing %q", tc.in, diags, tc.want)
			case tc.want != "":
				// A rejected number reads as a value every limit rejects, so
				// code reading without validating never takes it for valid.
				if l, _ := limitOfType(tc.typ); l.allows(numberOf(val)) {
					t.Fatalf("%s reads as %v, which the limit allows", tc.in, val)
				}
			}
		})
	}
}

// numberOf is a Float64 or Int64 value as a float64.
func numberOf(v attr.Value) float64 {
	switch n := v.(type) {
	case types.Float64:
		return n.ValueFloat64()
	case types.Int64:
		return float64(n.ValueInt64())
	}
	return math.NaN()
}

// Every computed float64 reaches the framework through float64Value (or a
// function result through funcFloat64): no other file of the package may
// build a Float64 value from a float64.
func TestOneGuardedFloatConversion(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") || file == "values.go" || file == "input_limits.go" {
			continue
		}
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, file, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
				if pkg, ok := sel.X.(*ast.Ident); ok {
					switch pkg.Name + "." + sel.Sel.Name {
					case "types.Float64Value", "basetypes.NewFloat64Value", "types.Float64PointerValue", "basetypes.NewFloat64PointerValue":
						t.Errorf("%s: %s.%s: use float64Value, which keeps NaN and ±Inf from the framework", fset.Position(call.Pos()), pkg.Name, sel.Sel.Name)
					}
				}
			}
			return true
		})
	}
}
