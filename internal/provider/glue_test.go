// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"
	"math/big"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dsschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/cost"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
	"github.com/gpuplan/terraform-provider-gpu/internal/planner"
)

// glueRow is one attribute of a configuration object: the value set in
// it (every other attribute null) and where the library input must show
// it after the glue converted the object.
type glueRow[T any] struct {
	attr string // a nested attribute as "outer.inner"
	val  any    // float64, int, string or []string
	got  func(T) any
	want any
}

// TestGlueCarriesEveryWorkloadAttribute: every attribute of the workload
// object reaches perf.Workload (one row per attribute; an attribute of
// the schema without a row fails), so the glue dropping one fails here.
func TestGlueCarriesEveryWorkloadAttribute(t *testing.T) {
	t.Parallel()
	rows := []glueRow[perf.Workload]{
		{"kind", "inference", func(w perf.Workload) any { return w.Kind }, "inference"},
		{"model", "llama-3.1-70b", func(w perf.Workload) any { return w.Model }, "llama-3.1-70b"},
		{"model_parameters_b", 70.0, func(w perf.Workload) any { return w.ModelParametersB }, 70.0},
		{"active_parameters_b", 12.0, func(w perf.Workload) any { return w.ActiveParametersB }, 12.0},
		{"precision", "fp8", func(w perf.Workload) any { return w.Precision }, "fp8"},
		{"sequence_length", 8192, func(w perf.Workload) any { return w.SequenceLength }, 8192},
		{"training_tokens_b", 2.0, func(w perf.Workload) any { return w.TrainingTokensB }, 2.0},
		{"fine_tuning_method", "qlora", func(w perf.Workload) any { return w.FineTuningMethod }, "qlora"},
		{"tokens_per_second", 5000.0, func(w perf.Workload) any { return w.TokensPerSecond }, 5000.0},
		{"input_tokens", 2000, func(w perf.Workload) any { return w.InputTokens }, 2000},
		{"output_tokens", 300, func(w perf.Workload) any { return w.OutputTokens }, 300},
		{"output_tokens_p99", 1200, func(w perf.Workload) any { return w.OutputTokensP99 }, 1200},
		{"max_concurrency", 64, func(w perf.Workload) any { return w.MaxConcurrency }, 64},
		{"global_batch_tokens", 4194304, func(w perf.Workload) any { return w.GlobalBatchTokens }, 4194304.0},
		{"max_time_to_first_token_ms", 800.0, func(w perf.Workload) any { return w.MaxTimeToFirstTokenMs }, 800.0},
		{"max_time_per_output_token_ms", 40.0, func(w perf.Workload) any { return w.MaxTimePerOutputTokenMs }, 40.0},
		{"duty_cycle", 0.25, func(w perf.Workload) any { return w.DutyCycle }, 0.25},
		{"layers", 80, func(w perf.Workload) any { return w.Layers }, 80},
		{"hidden_size", 8192, func(w perf.Workload) any { return w.HiddenSize }, 8192},
		{"kv_heads", 8, func(w perf.Workload) any { return w.KVHeads }, 8},
		{"requests_per_second", 20.0, func(w perf.Workload) any { return w.RequestsPerSecond }, 20.0},
		{"speculative_decoding.method", "mtp", func(w perf.Workload) any { return w.SpeculativeDecoding.Method }, "mtp"},
		{"speculative_decoding.acceptance_rate", 0.6, func(w perf.Workload) any { return w.SpeculativeDecoding.AcceptanceRate }, 0.6},
		{"speculative_decoding.draft_tokens", 3, func(w perf.Workload) any { return w.SpeculativeDecoding.DraftTokens }, 3},
		{"speculative_decoding.draft_model_parameters_b", 1.0,
			func(w perf.Workload) any { return w.SpeculativeDecoding.DraftModelParametersB }, 1.0},
	}
	checkRowsCoverSchema(t, "workload", recommendationWorkloadKeys().names(""), rows)
	runGlueRows(t, "workload.", rows, func(t *testing.T, r glueRow[perf.Workload]) (perf.Workload, diag.Diagnostics) {
		set := map[string]any{"kind": "training", r.attr: r.val} // kind is required
		if strings.HasPrefix(r.attr, "speculative_decoding.") && r.attr != "speculative_decoding.method" {
			set["speculative_decoding.method"] = "mtp" // so is the method
		}
		var diags diag.Diagnostics
		in, _ := readWorkload(context.Background(), dynamicOf(t, set), &diags)
		return in.workload, diags
	})
}

// TestGlueCarriesEveryConstraint: every attribute of gpu_recommendation's
// constraints reaches planner.Constraints (one row per attribute; an
// attribute of the schema without a row fails).
func TestGlueCarriesEveryConstraint(t *testing.T) {
	t.Parallel()
	rows := []glueRow[planner.Constraints]{
		{"clouds", []string{"aws"}, func(c planner.Constraints) any { return c.Clouds }, []string{"aws"}},
		{"regions", []string{"us-east-1"}, func(c planner.Constraints) any { return c.Regions }, []string{"us-east-1"}},
		{"geographies", []string{"eu"}, func(c planner.Constraints) any { return c.Geographies }, []string{"eu"}},
		{"countries", []string{"DE"}, func(c planner.Constraints) any { return c.Countries }, []string{"DE"}},
		{"accelerators", []string{"H100"}, func(c planner.Constraints) any { return c.Accelerators }, []string{"H100"}},
		{"pricing_models", []string{"spot"}, func(c planner.Constraints) any { return c.PricingModels },
			[]catalog.PricingModel{catalog.Spot}},
		{"compliance", []string{"gdpr"}, func(c planner.Constraints) any { return c.Compliance }, []string{"gdpr"}},
		{"max_hourly_cost_usd", 50.0, func(c planner.Constraints) any { return c.MaxHourlyCostUSD }, 50.0},
		{"max_total_cost_usd", 900.0, func(c planner.Constraints) any { return c.MaxTotalCostUSD }, 900.0},
		{"deadline_hours", 48.0, func(c planner.Constraints) any { return c.DeadlineHours }, 48.0},
		{"max_gpus", 64, func(c planner.Constraints) any { return c.MaxGPUs }, 64},
		{"max_nodes", 8, func(c planner.Constraints) any { return c.MaxNodes }, 8},
		{"min_gpu_memory_gb", 80.0, func(c planner.Constraints) any { return c.MinGPUMemoryGB }, 80.0},
		{"min_network_gbps", 400.0, func(c planner.Constraints) any { return c.MinNetworkGbps }, 400.0},
		{"max_co2e_kg", 100.0, func(c planner.Constraints) any { return c.MaxCO2eKg }, 100.0},
		{"software_stacks", []string{"cuda", "xla"}, func(c planner.Constraints) any { return c.SoftwareStacks }, []string{"cuda", "xla"}},
		{"near", "Germany", func(c planner.Constraints) any { return c.Near }, "Germany"},
	}
	checkRowsCoverSchema(t, "constraints", constraintsKeys().names(""), rows)
	runGlueRows(t, "constraints.", rows, func(t *testing.T, r glueRow[planner.Constraints]) (planner.Constraints, diag.Diagnostics) {
		var c planner.Constraints
		var diags diag.Diagnostics
		readObject(context.Background(), constraintsKeys(), dynamicOf(t, map[string]any{r.attr: r.val}), path.Root("constraints"), &c, &diags)
		return c, diags
	})
}

// TestGlueCarriesEveryTCOInput: every input attribute of gpu_tco reaches
// cost.Fleet (one row per attribute; an input of the schema without a row
// fails).
func TestGlueCarriesEveryTCOInput(t *testing.T) {
	t.Parallel()
	rows := []glueRow[cost.Fleet]{
		{"cloud", "aws", func(f cost.Fleet) any { return f.Cloud }, "aws"},
		{"instance_type", "p5.48xlarge", func(f cost.Fleet) any { return f.InstanceType }, "p5.48xlarge"},
		{"region", "us-east-1", func(f cost.Fleet) any { return []any{f.Region, f.RegionUnset} }, []any{"us-east-1", false}},
		{"instance_count", 4, func(f cost.Fleet) any { return f.Input.InstanceCount }, 4},
		{"months", 18.0, func(f cost.Fleet) any { return f.Input.Months }, 18.0},
		{"utilization", 0.6, func(f cost.Fleet) any { return f.Input.Utilization }, 0.6},
		{"load", "Inference", func(f cost.Fleet) any { return f.Input.Workload }, "inference"},
		{"load_factor", 0.35, func(f cost.Fleet) any { return f.Input.LoadFactor }, 0.35},
		{"pricing_mix", map[string]float64{"Spot": 1}, func(f cost.Fleet) any { return f.Input.PricingMix },
			map[catalog.PricingModel]float64{catalog.Spot: 1}},
		{"storage.block_gb", 500.0, func(f cost.Fleet) any { return f.Input.BlockGB }, 500.0},
		{"storage.object_gb", 900.0, func(f cost.Fleet) any { return f.Input.ObjectGB }, 900.0},
		{"network.egress_gb_per_month", 70.0, func(f cost.Fleet) any { return f.Input.EgressGBPerMonth }, 70.0},
		{"network.inter_region_gb_per_month", 30.0, func(f cost.Fleet) any { return f.Input.InterRegionGBPerMonth }, 30.0},
		{"extra_monthly_usd", map[string]float64{"support": 73}, func(f cost.Fleet) any { return f.Input.ExtraMonthlyUSD },
			map[string]float64{"support": 73}},
	}
	var resp datasource.SchemaResponse
	(&tcoDataSource{}).Schema(context.Background(), datasource.SchemaRequest{}, &resp)
	typ := schemaObjectType(t, resp.Schema.Type())
	checkRowsCoverSchema(t, "gpu_tco", inputNames(resp.Schema.Attributes), rows)
	runGlueRows(t, "", rows, func(t *testing.T, r glueRow[cost.Fleet]) (cost.Fleet, diag.Diagnostics) {
		ctx := context.Background()
		var m tcoModel
		var f cost.Fleet
		diags := objectWith(t, typ, r.attr, r.val).As(ctx, &m, basetypes.ObjectAsOptions{})
		if !diags.HasError() {
			f = m.toFleet(ctx, &providerData{}, &diags)
		}
		return f, diags
	})
}

// runGlueRows has convert (the glue) turn each row's attribute, set alone
// (with the keys an object requires), into the library's input and
// compares where the value arrived; prefix names the object in messages.
func runGlueRows[T any](t *testing.T, prefix string, rows []glueRow[T], convert func(*testing.T, glueRow[T]) (T, diag.Diagnostics)) {
	t.Helper()
	for _, r := range rows {
		t.Run(r.attr, func(t *testing.T) {
			got, diags := convert(t, r)
			if diags.HasError() {
				t.Fatal(diags)
			}
			if g := r.got(got); !reflect.DeepEqual(g, r.want) {
				t.Errorf("%s%s = %v reached the library as %v", prefix, r.attr, r.val, g)
			}
		})
	}
}

// inputNames lists a data source's configurable attributes (computed-only
// ones left out), an object input's keys as "outer.inner".
func inputNames(attrs map[string]dsschema.Attribute) []string {
	var out []string
	for name, a := range attrs {
		switch {
		case !a.IsRequired() && !a.IsOptional():
		case keyTableOf(a) != nil:
			out = append(out, keyTableOf(a).names(name+".")...)
		default:
			out = append(out, name)
		}
	}
	return out
}

// keyTableOf is the key table of an object input, nil for another attribute.
func keyTableOf(a any) keyTable {
	if d, ok := a.(interface{ DynamicValidators() []validator.Dynamic }); ok {
		for _, v := range d.DynamicValidators() {
			if ov, ok := v.(objectValidator); ok {
				return ov.keys
			}
		}
	}
	return nil
}

// checkRowsCoverSchema fails for each attribute name that has no row.
func checkRowsCoverSchema[T any](t *testing.T, what string, names []string, rows []glueRow[T]) {
	t.Helper()
	covered := map[string]bool{}
	for _, r := range rows {
		covered[r.attr] = true
	}
	sort.Strings(names)
	for _, name := range names {
		if !covered[name] {
			t.Errorf("%s.%s has no row: add one showing where the glue puts it", what, name)
		}
	}
}

// dynamicOf is an object input holding only the keys of set ("a" or
// "a.b") with their values, as Terraform sends it (the object's type is
// its keys').
func dynamicOf(t *testing.T, set map[string]any) types.Dynamic {
	t.Helper()
	d, err := basetypes.DynamicType{}.ValueFromTerraform(context.Background(), tfSparse(set))
	if err != nil {
		t.Fatalf("%v: %v", set, err)
	}
	dyn, ok := d.(types.Dynamic)
	if !ok {
		t.Fatalf("%v: %T is not a Dynamic value", set, d)
	}
	return dyn
}

// tfSparse is an object value holding only the keys of set ("a" or "a.b").
func tfSparse(set map[string]any) tftypes.Value {
	inner := map[string]map[string]any{}
	vals := map[string]tftypes.Value{}
	for p, v := range set {
		if name, rest, nested := strings.Cut(p, "."); nested {
			if inner[name] == nil {
				inner[name] = map[string]any{}
			}
			inner[name][rest] = v
		} else {
			vals[p] = tfValue(v)
		}
	}
	for name, set := range inner {
		vals[name] = tfSparse(set)
	}
	types := map[string]tftypes.Type{}
	for name, v := range vals {
		types[name] = v.Type()
	}
	return tftypes.NewValue(tftypes.Object{AttributeTypes: types}, vals)
}

// tfValue is v as a Terraform value of its own type: a string, a number,
// a tuple of strings or an object of numbers.
func tfValue(v any) tftypes.Value {
	switch x := v.(type) {
	case []string:
		types := make([]tftypes.Type, len(x))
		elems := make([]tftypes.Value, len(x))
		for i, s := range x {
			types[i], elems[i] = tftypes.String, tftypes.NewValue(tftypes.String, s)
		}
		return tftypes.NewValue(tftypes.Tuple{ElementTypes: types}, elems)
	case string:
		return tftypes.NewValue(tftypes.String, x)
	}
	return tftypes.NewValue(tftypes.Number, tfGo(v))
}

// schemaObjectType is a schema type that must be an object's.
func schemaObjectType(t *testing.T, typ attr.Type) types.ObjectType {
	t.Helper()
	ot, ok := typ.(types.ObjectType)
	if !ok {
		t.Fatalf("%v is not an object type", typ)
	}
	return ot
}

// objectWith is an object of typ whose attribute path ("a" or "a.b") is
// v and every other attribute null.
func objectWith(t *testing.T, typ types.ObjectType, path string, v any) types.Object {
	t.Helper()
	ctx := context.Background()
	val, err := tfObjectWith(typ.TerraformType(ctx), path, v)
	if err != nil {
		t.Fatalf("%s = %v: %v", path, v, err)
	}
	got, err := typ.ValueFromTerraform(ctx, val)
	if err != nil {
		t.Fatalf("%s = %v: %v", path, v, err)
	}
	obj, ok := got.(types.Object)
	if !ok {
		t.Fatalf("%s = %v: %T is not an object", path, v, got)
	}
	return obj
}

// tfObjectWith is objectWith's value as terraform-plugin-go holds it.
func tfObjectWith(t tftypes.Type, path string, v any) (tftypes.Value, error) {
	typ, ok := t.(tftypes.Object)
	if !ok {
		return tftypes.Value{}, fmt.Errorf("%v is not an object type", t)
	}
	attrs := map[string]tftypes.Value{}
	for name, at := range typ.AttributeTypes {
		attrs[name] = tftypes.NewValue(at, nil)
	}
	name, rest, nested := strings.Cut(path, ".")
	at := typ.AttributeTypes[name]
	switch {
	case at.Is(tftypes.DynamicPseudoType) && nested:
		attrs[name] = tfSparse(map[string]any{rest: v})
	case at.Is(tftypes.DynamicPseudoType):
		attrs[name] = tfValue(v)
	case nested:
		inner, err := tfObjectWith(at, rest, v)
		if err != nil {
			return tftypes.Value{}, err
		}
		attrs[name] = inner
	default:
		attrs[name] = tftypes.NewValue(at, tfGo(v))
	}
	return tftypes.NewValue(typ, attrs), nil
}

// tfGo is v as terraform-plugin-go holds it.
func tfGo(v any) any {
	switch x := v.(type) {
	case float64:
		return big.NewFloat(x)
	case int:
		return big.NewFloat(float64(x))
	case []string:
		elems := make([]tftypes.Value, len(x))
		for i, s := range x {
			elems[i] = tftypes.NewValue(tftypes.String, s)
		}
		return elems
	case map[string]float64:
		elems := map[string]tftypes.Value{}
		for k, f := range x {
			elems[k] = tftypes.NewValue(tftypes.Number, big.NewFloat(f))
		}
		return elems
	}
	return v
}
