// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/config"
	acc "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
	"github.com/gpuplan/terraform-provider-gpu/internal/planner"
)

// objectMistakes are misspelled keys, wrong types and bad values inside
// the object inputs, each written the ways users write objects.
func objectMistakes() []badConfig {
	const rec = `data "gpu_recommendation" "x" {
  %s
}`
	const serve = `kind = "inference", model = "llama-3.1-8b", tokens_per_second = 500`
	est := func(workload string) string {
		return fmt.Sprintf(badEstimate, "workload = { "+workload+" }\n  gpu_count = 1")
	}
	tco := func(attrs string) string { return fmt.Sprintf(badTCO, "months = 12\n  "+attrs) }
	return []badConfig{
		// A misspelled key, in each object input and each way of writing one.
		{name: "typo beside valid keys", config: fmt.Sprintf(rec, "workload = { "+serve+", max_time_per_token_ms = 40 }"),
			want: `Unknown Attribute.*workload.max_time_per_token_ms is not an attribute of workload\. Closest: max_time_per_output_token_ms\. ` +
				`Attributes: kind, model, .*speculative_decoding\.`},
		{name: "lone typo", config: fmt.Sprintf(badRecommend, "constraints = { deadline = 48 }"),
			want: `constraints.deadline is not an attribute of constraints\. Closest: deadline_hours\.`},
		{name: "typo in speculative_decoding", config: est(serve + `, speculative_decoding = { method = "mtp", draft_token = 2 }`),
			want: `workload.speculative_decoding.draft_token is not an attribute of workload.speculative_decoding\. Closest: draft_tokens\.`},
		{name: "typo in gpu_tco storage", config: tco(`storage = { block = 100 }`),
			want: `storage.block is not an attribute of storage\. Closest: block_gb\. Attributes: block_gb, object_gb\.`},
		{name: "typo in gpu_tco network", config: tco(`network = { egress_gb = 100 }`),
			want: `network.egress_gb is not an attribute of network\. Closest: egress_gb_per_month\.`},
		{name: "typo in gpu_estimate parallelism", config: fmt.Sprintf(badEstimate, "workload = { "+serve+" }\n  gpu_count = 8\n  parallelism = { tensors = 8 }"),
			want: `parallelism.tensors is not an attribute of parallelism\. Closest: tensor\. Attributes: tensor, pipeline, expert, context, data\.`},
		{name: "typo in pricing_mix", config: tco(`pricing_mix = { on_demnd = 0.5, SPOT = 0.5 }`),
			want: `Unknown Map Key.*pricing_mix\["on_demnd"\] is not a pricing model\. Closest: "on_demand"\.`},
		{name: "typo in gpu_cluster_spec storage", config: fmt.Sprintf(badSpec, `storage = { blockgb = 100 }`),
			want: `storage.blockgb is not an attribute of storage\. Closest: block_gb\.`},
		{name: "typo through merge", config: `locals { base = { ` + serve + ` } }` + "\n" +
			fmt.Sprintf(rec, `workload = merge(local.base, { max_time_to_first_token = 500 })`),
			want: `workload.max_time_to_first_token is not an attribute of workload\. Closest: max_time_to_first_token_ms\.`},
		{name: "typo through locals", config: `locals { c = { max_gpu = 8 } }` + "\n" + fmt.Sprintf(badRecommend, "constraints = local.c"),
			want: `constraints.max_gpu is not an attribute of constraints\. Closest: max_gpus\.`},
		{name: "typo beside an unknown value", config: `resource "terraform_data" "t" { input = 500 }` + "\n" +
			fmt.Sprintf(rec, `workload = { kind = "inference", model_parameters_b = 8, tokens_per_second = terraform_data.t.output, duty = 1 }`),
			want: `workload.duty is not an attribute of workload\. Closest: duty_cycle\.`},
		{name: "two typos, two errors", config: fmt.Sprintf(badRecommend, "constraints = { cloud = [\"aws\"], region = [\"us-east-1\"] }"),
			errors: 2, want: `constraints.cloud is not .*Closest: clouds\..*constraints.region is not .*Closest: regions\.`},
		// Types Terraform would not convert, and bad values.
		{name: "bool for a number", config: est(serve + `, input_tokens = true`),
			want: `Invalid Attribute Type.*workload.input_tokens must be a number, got a bool\. Allowed: a whole number from 1 to`},
		{name: "string that is no number", config: est(`kind = "inference", model = "llama-3.1-8b", tokens_per_second = "fast"`),
			want: `workload.tokens_per_second must be a number, got the string "fast"\.`},
		{name: "string number beyond the limit", config: est(serve + `, duty_cycle = "1.5"`),
			want: `Invalid Number.*workload.duty_cycle must be more than 0 and at most 1, got 1.5\.`},
		{name: "string for a list", config: fmt.Sprintf(badRecommend, `constraints = { clouds = "aws" }`),
			want: `constraints.clouds must be a list of strings such as \["a", "b"\], got the string "aws"\.`},
		{name: "object for a string", config: est(`kind = { x = 1 }, model_parameters_b = 8`),
			want: `workload.kind must be a string, got an object\.`},
		{name: "string for the object", config: fmt.Sprintf(badRecommend, `constraints = "gdpr"`),
			want: `constraints must be an object such as \{ clouds = … \}, got the string "gdpr"\.`},
		{name: "empty string", config: est(serve + `, precision = ""`),
			want: `Empty Value.*workload.precision = "" is empty: give one of "fp32", .*, or leave precision out \(or null\) for its default\.`},
		{name: "enum in a list", config: fmt.Sprintf(badRecommend, `constraints = { compliance = ["GDPR", "hipa"] }`),
			want: `constraints.compliance\[1\] = "hipa" is not one of .* \(any case\)\. Closest: "hipaa"\.`},
		{name: "enum twice in another case", config: fmt.Sprintf(badRecommend, `constraints = { pricing_models = ["spot", "SPOT"] }`),
			want: `Duplicate List Element.*constraints.pricing_models lists "spot" twice \(elements 0 and 1\)`},
		{name: "required keys missing", config: fmt.Sprintf(rec, "workload = {}"), errors: 2,
			want: `(Missing Required Attribute.*workload.kind is required: .*workload.model_parameters_b = 0: is required without model|` +
				`workload.model_parameters_b = 0: is required without model.*Missing Required Attribute.*workload.kind is required: )`},
		{name: "required nested key missing", config: est(serve + `, speculative_decoding = { draft_tokens = 2 }`),
			want: `workload.speculative_decoding.method is required: `},
		{name: "many bad list elements summarised", config: fmt.Sprintf(badRecommend,
			`constraints = { pricing_models = ["a", "b", "c", "d", "e", "f", "g", "h"] }`),
			errors: maxListProblems + 1, want: fmt.Sprintf(`constraints.pricing_models has %d more invalid elements like the ones above\.`, 8-maxListProblems)},
	}
}

// TestAccObjectInputMistakes plans each mistake against the real CLI: one
// error per mistake, naming the key and what would be right.
func TestAccObjectInputMistakes(t *testing.T) {
	t.Parallel()
	runBadConfigs(t, objectMistakes())
}

// moduleTypos are the errors of testdata/TestAccObjectInput_module/typo.tf.
var moduleTypos = [2]string{
	`workload.max_time_per_token_ms is not an attribute of workload\. Closest: max_time_per_output_token_ms\.`,
	`constraints.pricing_model is not an attribute of constraints\. Closest: pricing_models\.`,
}

// TestAccObjectInput_module passes the objects through a module whose
// variables are typed `any`: a correct call plans, and a misspelled key in
// the caller's object is reported with the closest valid name.
func TestAccObjectInput_module(t *testing.T) {
	t.Setenv("TF_ACC_PROVIDER_NAMESPACE", "gpuplan")
	acc.UnitTest(t, acc.TestCase{
		// Providers per step: the harness then initialises each step's
		// configuration, child module included.
		Steps: []acc.TestStep{
			{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				ConfigFile:               config.TestNameFile("ok.tf"),
				// Plan only: the harness's state reader does not support child modules.
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks: acc.ConfigPlanChecks{PostApplyPreRefresh: []plancheck.PlanCheck{
					plancheck.ExpectKnownOutputValue("pricing_model", knownvalue.StringExact("spot")),
				}},
			},
			{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				ConfigFile:               config.TestNameFile("typo.tf"),
				PlanOnly:                 true,
				ExpectError:              errRe(`(` + moduleTypos[0] + `.*` + moduleTypos[1] + `|` + moduleTypos[1] + `.*` + moduleTypos[0] + `)`),
			},
		},
	})
}

// TestAccObjectInput_conversions: what Terraform's own conversion would
// accept is read the same as the canonical spelling: a number written as a
// string, enums in any case, a set for a list, a null key (unset) and an
// empty object (nothing set).
func TestAccObjectInput_conversions(t *testing.T) {
	t.Parallel()
	same := func(a, b string, p tfjsonpath.Path) statecheck.StateCheck {
		return statecheck.CompareValuePairs(a, p, b, p, compare.ValuesSame())
	}
	acc.UnitTest(t, acc.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []acc.TestStep{{
			Config: `
data "gpu_estimate" "written" {
  workload = {
    kind                 = "INFERENCE"
    model_parameters_b   = "8"
    precision            = "BF16"
    tokens_per_second    = "500"
    duty_cycle           = null
    speculative_decoding = { method = "Draft_Model", draft_model_parameters_b = "1" }
  }
  accelerator = "H100"
  gpu_count   = 1
}

data "gpu_estimate" "canonical" {
  workload = {
    kind                 = "inference"
    model_parameters_b   = 8
    precision            = "bf16"
    tokens_per_second    = 500
    speculative_decoding = { method = "draft_model", draft_model_parameters_b = 1 }
  }
  accelerator = "H100"
  gpu_count   = 1
}

data "gpu_estimate" "qlora_written" {
  workload    = { kind = "Fine_Tuning", model_parameters_b = 8, training_tokens_b = "0.5", fine_tuning_method = "QLORA" }
  accelerator = "H100"
  gpu_count   = 1
}

data "gpu_estimate" "qlora" {
  workload    = { kind = "fine_tuning", model_parameters_b = 8, training_tokens_b = 0.5, fine_tuning_method = "qlora" }
  accelerator = "H100"
  gpu_count   = 1
}

data "gpu_recommendation" "written" {
  workload    = { kind = "inference", model = "llama-3.1-8b", tokens_per_second = "500" }
  constraints = { pricing_models = toset(["SPOT", "On_Demand"]), compliance = ["GDPR"], max_gpus = "8" }
  top         = 1
}

data "gpu_recommendation" "canonical" {
  workload    = { kind = "inference", model = "llama-3.1-8b", tokens_per_second = 500 }
  constraints = { pricing_models = ["on_demand", "spot"], compliance = ["gdpr"], max_gpus = 8 }
  top         = 1
}

data "gpu_tco" "written" {
  cloud         = "aws"
  region        = "us-east-1"
  instance_type = "g5.xlarge"
  months        = 12
  storage       = {}
  network       = { egress_gb_per_month = "1100", inter_region_gb_per_month = null }
}

data "gpu_tco" "canonical" {
  cloud         = "aws"
  region        = "us-east-1"
  instance_type = "g5.xlarge"
  months        = 12
  network       = { egress_gb_per_month = 1100 }
}
`,
			ConfigStateChecks: []statecheck.StateCheck{
				same("data.gpu_estimate.written", "data.gpu_estimate.canonical", tfjsonpath.New("explanation")),
				same("data.gpu_estimate.written", "data.gpu_estimate.canonical", tfjsonpath.New("tokens_per_second")),
				same("data.gpu_estimate.qlora_written", "data.gpu_estimate.qlora", tfjsonpath.New("explanation")),
				same("data.gpu_recommendation.written", "data.gpu_recommendation.canonical", tfjsonpath.New("best")),
				same("data.gpu_tco.written", "data.gpu_tco.canonical", tfjsonpath.New("breakdown")),
				statecheck.ExpectKnownValue("data.gpu_estimate.qlora", tfjsonpath.New("explanation"),
					knownvalue.StringRegexp(regexp.MustCompile(`(?i)qlora`))),
				// The configuration's object is kept as written.
				statecheck.ExpectKnownValue("data.gpu_recommendation.written", tfjsonpath.New("workload").AtMapKey("tokens_per_second"),
					knownvalue.StringExact("500")),
			},
		}},
	})
}

// TestAccObjectInput_unknownAtPlan: an object holding a value known only
// at apply is validated for what is known (see objectMistakes for a typo
// beside one), read when it is known, and gives the same answer as the
// value written out.
func TestAccObjectInput_unknownAtPlan(t *testing.T) {
	t.Parallel()
	acc.UnitTest(t, acc.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []acc.TestStep{{
			Config: `
resource "terraform_data" "tps" {
  input = 500
}

data "gpu_estimate" "later" {
  workload    = { kind = "inference", model_parameters_b = 8, tokens_per_second = terraform_data.tps.output }
  accelerator = "H100"
  gpu_count   = 1
}

data "gpu_estimate" "now" {
  workload    = { kind = "inference", model_parameters_b = 8, tokens_per_second = 500 }
  accelerator = "H100"
  gpu_count   = 1
}
`,
			ConfigPlanChecks: acc.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectUnknownValue("data.gpu_estimate.later", tfjsonpath.New("replicas_needed")),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.CompareValuePairs("data.gpu_estimate.later", tfjsonpath.New("replicas_needed"),
					"data.gpu_estimate.now", tfjsonpath.New("replicas_needed"), compare.ValuesSame()),
				statecheck.ExpectKnownValue("data.gpu_estimate.now", tfjsonpath.New("replicas_needed"), knownvalue.NotNull()),
			},
		}},
	})
}

// TestAccClusterSpecStorage: gpu_cluster_spec's storage as written (one
// key, a string number) is kept and plans no change the next time;
// without it, the default of no storage.
func TestAccClusterSpecStorage(t *testing.T) {
	t.Parallel()
	cfg := func(storage string) string {
		return fmt.Sprintf(badSpec, storage) + "\n" + `output "monthly" { value = gpu_cluster_spec.x.monthly_cost_usd }`
	}
	acc.UnitTest(t, acc.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []acc.TestStep{
			{
				Config: cfg(`storage = { block_gb = "2000" }`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("gpu_cluster_spec.x", tfjsonpath.New("storage"),
						knownvalue.ObjectExact(map[string]knownvalue.Check{"block_gb": knownvalue.StringExact("2000")})),
					statecheck.ExpectKnownValue("gpu_cluster_spec.x", tfjsonpath.New("spec_json"),
						knownvalue.StringRegexp(regexp.MustCompile(`"blockGB":2000`))),
				},
			},
			{Config: cfg(`storage = { block_gb = "2000" }`), PlanOnly: true},
			{
				Config: cfg(""),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("gpu_cluster_spec.x", tfjsonpath.New("storage"), knownvalue.ObjectExact(map[string]knownvalue.Check{
						"block_gb": knownvalue.Int64Exact(0), "object_gb": knownvalue.Int64Exact(0)})),
				},
			},
			{Config: cfg(""), PlanOnly: true},
		},
	})
}

// TestClusterSpecStateUpgrade upgrades version-0 states (storage a static
// object of both keys) through the protocol, as Terraform does: storage
// keeps its sizes in the shape a configuration most likely wrote, and
// every other attribute is kept.
func TestClusterSpecStateUpgrade(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var sr resource.SchemaResponse
	(&clusterSpecResource{}).Schema(ctx, resource.SchemaRequest{}, &sr)
	typ := sr.Schema.Type().TerraformType(ctx)
	for _, tc := range []struct {
		block, object int64
		want          map[string]int64
	}{
		{0, 0, map[string]int64{"block_gb": 0, "object_gb": 0}},
		{2000, 0, map[string]int64{"block_gb": 2000}},
		{0, 50000, map[string]int64{"object_gb": 50000}},
		{2000, 50000, map[string]int64{"block_gb": 2000, "object_gb": 50000}},
	} {
		t.Run(fmt.Sprintf("%d_%d", tc.block, tc.object), func(t *testing.T) {
			srv, err := providerserver.NewProtocol6WithError(New("test")())()
			if err != nil {
				t.Fatal(err)
			}
			v0 := fmt.Sprintf(`{"id":"x","name":"x","cloud":"aws","region":"us-east-1","accelerator":"H100","gpus_per_node":8,`+
				`"nodes":2,"pricing_model":"on_demand","storage":{"block_gb":%d,"object_gb":%d},"labels":{"team":"ml"},`+
				`"instance_type":"p5.48xlarge","hourly_cost_usd":98.32,"monthly_cost_usd":71773.6,"spec_json":"{}","equivalents":{}}`,
				tc.block, tc.object)
			resp, err := srv.UpgradeResourceState(ctx, &tfprotov6.UpgradeResourceStateRequest{
				TypeName: "gpu_cluster_spec", Version: 0, RawState: &tfprotov6.RawState{JSON: []byte(v0)}})
			if err != nil || len(resp.Diagnostics) > 0 {
				t.Fatalf("%v %+v", err, resp.Diagnostics)
			}
			got, err := resp.UpgradedState.Unmarshal(typ)
			if err != nil {
				t.Fatal(err)
			}
			var attrs map[string]tftypes.Value
			if err := got.As(&attrs); err != nil {
				t.Fatal(err)
			}
			var storage map[string]tftypes.Value
			if err := attrs["storage"].As(&storage); err != nil {
				t.Fatal(err)
			}
			gotGB := map[string]int64{}
			for k, v := range storage {
				var f big.Float
				if err := v.As(&f); err != nil {
					t.Fatal(err)
				}
				gotGB[k], _ = f.Int64()
			}
			if fmt.Sprint(gotGB) != fmt.Sprint(tc.want) {
				t.Errorf("storage upgraded to %v, want %v", gotGB, tc.want)
			}
			var it string
			var nodes big.Float
			if attrs["instance_type"].As(&it) != nil || attrs["nodes"].As(&nodes) != nil || it != "p5.48xlarge" || nodes.String() != "2" {
				t.Errorf("other attributes changed: instance_type %q, nodes %v", it, nodes.String())
			}
		})
	}
}

// TestObjectKeysAcceptEveryEnumInAnyCase reads every allowed value of
// every enum key of every key table, upper-cased, and gets it back as
// listed.
func TestObjectKeysAcceptEveryEnumInAnyCase(t *testing.T) {
	t.Parallel()
	for name, keys := range map[string]keyTable{"workload": recommendationWorkloadKeys(), "constraints": constraintsKeys(),
		"storage": tcoStorageKeys(), "network": tcoNetworkKeys(), "cluster storage": clusterStorageKeys()} {
		for _, e := range enumKeysOf(keys, "") {
			for _, v := range e.values {
				val := tftypes.NewValue(tftypes.String, strings.ToUpper(v))
				if e.list {
					val = tftypes.NewValue(tftypes.Tuple{ElementTypes: []tftypes.Type{tftypes.String}}, []tftypes.Value{val})
				}
				for _, d := range keys.validate(objectWithKey(e.path, val), path.Root(name)) {
					if d.Summary() != "Missing Required Attribute" { // kind, method: not given here
						t.Errorf("%s.%s = %q: %s", name, e.path, strings.ToUpper(v), d.Detail())
					}
				}
			}
		}
	}
	var w perf.Workload
	if r := recommendationWorkloadKeys().read(&w, tfSparse(map[string]any{"kind": "FINE_TUNING", "precision": "Fp8"}),
		path.Root("workload")); r.diags.HasError() || w.Kind != perf.KindFineTuning || w.Precision != "fp8" {
		t.Errorf("read %q, %q: %v", w.Kind, w.Precision, r.diags)
	}
	var c planner.Constraints
	if r := constraintsKeys().read(&c, tfSparse(map[string]any{"pricing_models": []string{"SPOT"}}),
		path.Root("constraints")); r.diags.HasError() || !slices.Equal(c.PricingModels, []catalog.PricingModel{catalog.Spot}) {
		t.Errorf("read %v: %v", c.PricingModels, r.diags)
	}
}

// enumKey is a key with allowed values.
type enumKey struct {
	path   string
	list   bool
	values []string
}

// enumKeysOf lists the enum keys of a key table (nested ones as "a.b").
func enumKeysOf(keys keyTable, prefix string) []enumKey {
	var out []enumKey
	switch k := keys.(type) {
	case *objectKeys[perf.Workload]:
		for _, key := range k.keys {
			out = append(out, enumOf(prefix+key.name, key.is.kind, key.is.enum, key.is.nested)...)
		}
	case *objectKeys[perf.SpeculativeDecoding]:
		for _, key := range k.keys {
			out = append(out, enumOf(prefix+key.name, key.is.kind, key.is.enum, key.is.nested)...)
		}
	case *objectKeys[planner.Constraints]:
		for _, key := range k.keys {
			out = append(out, enumOf(prefix+key.name, key.is.kind, key.is.enum, key.is.nested)...)
		}
	}
	return out
}

func enumOf(p string, kind valueKind, enum []string, nested keyTable) []enumKey {
	switch {
	case kind == kindObject:
		return enumKeysOf(nested, p+".")
	case enum != nil:
		return []enumKey{{p, kind == kindStrings, enum}}
	}
	return nil
}

// objectWithKey is an object with the key path ("a" or "a.b") set to v.
func objectWithKey(p string, v tftypes.Value) tftypes.Value {
	set := map[string]tftypes.Value{}
	name, rest, nested := strings.Cut(p, ".")
	if nested {
		v = objectWithKey(rest, v)
	}
	set[name] = v
	types := map[string]tftypes.Type{}
	for k, x := range set {
		types[k] = x.Type()
	}
	return tftypes.NewValue(tftypes.Object{AttributeTypes: types}, set)
}

// TestObjectKeysDocument: each object input's description lists every key
// with its type, and every allowed value of an enum key.
func TestObjectKeysDocument(t *testing.T) {
	t.Parallel()
	for name, keys := range map[string]keyTable{"workload": recommendationWorkloadKeys(), "constraints": constraintsKeys(),
		"storage": tcoStorageKeys(), "network": tcoNetworkKeys(), "cluster storage": clusterStorageKeys(),
		"parallelism": parallelismKeys()} {
		doc := objectDoc("", keys)
		for _, k := range keys.names("") {
			leaf := k[strings.LastIndex(k, ".")+1:]
			if !regexp.MustCompile("(?m)^ +- `" + leaf + "` \\((String|Number|List of String|Object)(, Required)?\\) ").MatchString(doc) {
				t.Errorf("%s: %s is not documented as a list item with its type:\n%s", name, k, doc)
			}
		}
		for _, e := range enumKeysOf(keys, "") {
			for _, v := range e.values {
				if !strings.Contains(doc, "`"+v+"`") {
					t.Errorf("%s.%s: the allowed value %q is not documented", name, e.path, v)
				}
			}
		}
	}
	if doc := objectDoc("", clusterStorageKeys()); !strings.Contains(doc, "Default: `0`.") || !strings.Contains(doc, "Allowed: a whole number from 0 to") {
		t.Errorf("defaults and ranges missing:\n%s", doc)
	}
}
