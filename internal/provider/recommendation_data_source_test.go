// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

const (
	// A 70B LoRA fine-tune (the quickstart's training job).
	recLoRA70B = `{
    kind               = "fine_tuning"
    model_parameters_b = 70
    training_tokens_b  = 2
    fine_tuning_method = "lora"
  }`
	// Pre-training an 8B model on 200B tokens.
	recPretrain8B = `{
    kind               = "training"
    model_parameters_b = 8
    training_tokens_b  = 200
  }`
	// Serving a 70B model at 20,000 output tok/s, 50 ms per token at most.
	recServe70B = `{
    kind                         = "inference"
    model_parameters_b           = 70
    tokens_per_second            = 20000
    max_time_per_output_token_ms = 50
  }`
)

// recConfig is one gpu_recommendation "r" with optional provider and
// constraints blocks (HCL bodies).
func recConfig(providerBody, workload, constraints, extra string) string {
	c := ""
	if constraints != "" {
		c = "constraints = {\n" + constraints + "\n}\n"
	}
	return fmt.Sprintf(`
provider "gpu" {
%s
}
data "gpu_recommendation" "r" {
  workload = %s
  %s
  %s
}
output "best" { value = data.gpu_recommendation.r.best }
`, providerBody, workload, c, extra)
}

const recAddr = "data.gpu_recommendation.r"

// num reads a JSON number from state.
func num(v any) (float64, error) {
	switch x := v.(type) {
	case json.Number:
		return x.Float64()
	case float64:
		return x, nil
	case nil:
		return 0, fmt.Errorf("null value")
	}
	return 0, fmt.Errorf("not a number: %T %v", v, v)
}

// twoNums reads the two numbers a value comparer is given.
func twoNums(values []any) (a, b float64, err error) {
	if a, err = num(values[0]); err != nil {
		return 0, 0, err
	}
	b, err = num(values[1])
	return a, b, err
}

// textOf reads a string from state ("" when it is not one).
func textOf(v any) string {
	s, _ := v.(string)
	return s
}

// monotone is a compare.ValueComparer asserting each value is <= (or >=)
// the previous one.
type monotone struct {
	nonIncreasing bool
	what          string
}

func (m monotone) CompareValues(values ...any) error {
	for i := 1; i < len(values); i++ {
		a, err := num(values[i-1])
		if err != nil {
			return err
		}
		b, err := num(values[i])
		if err != nil {
			return err
		}
		if (m.nonIncreasing && b > a+1e-9) || (!m.nonIncreasing && b < a-1e-9) {
			return fmt.Errorf("%s: value %d is %v after %v", m.what, i, b, a)
		}
	}
	return nil
}

var _ compare.ValueComparer = monotone{}

// candidatesCheck runs fn over every candidate object of recAddr.
type candidatesCheck struct {
	fn func(c map[string]any) error
}

func (cc candidatesCheck) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	if req.State == nil || req.State.Values == nil || req.State.Values.RootModule == nil {
		resp.Error = fmt.Errorf("no state")
		return
	}
	for _, r := range req.State.Values.RootModule.Resources {
		if r.Address != recAddr {
			continue
		}
		cands, ok := r.AttributeValues["candidates"].([]any)
		if !ok || len(cands) == 0 {
			resp.Error = fmt.Errorf("no candidates in state")
			return
		}
		for i, c := range cands {
			m, ok := c.(map[string]any)
			if !ok {
				resp.Error = fmt.Errorf("candidate %d is %T", i, c)
				return
			}
			if err := cc.fn(m); err != nil {
				resp.Error = fmt.Errorf("candidate %d (%v %v %v): %w", i, m["cloud"], m["region"], m["instance_type"], err)
				return
			}
		}
		return
	}
	resp.Error = fmt.Errorf("%s not in state", recAddr)
}

func builtinForTest(t *testing.T) *catalog.Catalog {
	t.Helper()
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// The EU and EEA member states (ISO 3166-1 alpha-2).
var euEEA = map[string]bool{
	"AT": true, "BE": true, "BG": true, "HR": true, "CY": true, "CZ": true, "DK": true, "EE": true, "FI": true,
	"FR": true, "DE": true, "GR": true, "HU": true, "IE": true, "IT": true, "LV": true, "LT": true, "LU": true,
	"MT": true, "NL": true, "PL": true, "PT": true, "RO": true, "SK": true, "SI": true, "ES": true, "SE": true,
	"IS": true, "LI": true, "NO": true,
}

func catalogCountry(cat *catalog.Catalog, c map[string]any) (string, error) {
	cl, _ := c["cloud"].(string)
	rg, _ := c["region"].(string)
	r, ok := cat.Region(cl, rg)
	if !ok {
		return "", fmt.Errorf("region %s/%s not in the catalog", cl, rg)
	}
	return r.Country, nil
}

// TestAccRecommendation_basic: a LoRA fine-tune with every output checked,
// determinism across two plans, and stability of best across steps.
func TestAccRecommendation_basic(t *testing.T) {
	t.Parallel()
	same := statecheck.CompareValue(compare.ValuesSame())
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				ConfigFile: config.TestNameFile("main.tf"),
				ConfigStateChecks: []statecheck.StateCheck{
					same.AddStateValue("data.gpu_recommendation.lora", tfjsonpath.New("best")),
					statecheck.ExpectKnownValue("data.gpu_recommendation.lora", tfjsonpath.New("catalog_date"),
						knownvalue.StringRegexp(regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`))),
					statecheck.ExpectKnownValue("data.gpu_recommendation.lora", tfjsonpath.New("candidates"), knownvalue.ListSizeExact(3)),
					statecheck.ExpectKnownValue("data.gpu_recommendation.lora", tfjsonpath.New("best"), knownvalue.ObjectPartial(map[string]knownvalue.Check{
						"explanation":   knownvalue.StringRegexp(regexp.MustCompile(`^bound by .+; \d+× \S+ \(\d+× \S+\) process 2B tokens in [\d,.]+ h.*; cheapest of [\d,]+ feasible candidates(; a cheaper candidate on software stack \w+ was left out: .*)?; limits applied: deadline 48 h, geographies eu$`)),
						"total_gpus":    knownvalue.NotNull(),
						"pricing_model": knownvalue.StringRegexp(regexp.MustCompile(`^(on_demand|spot|reserved_1y|reserved_3y)$`)),
					})),
					// best is candidates[0].
					statecheck.CompareValuePairs("data.gpu_recommendation.lora", tfjsonpath.New("best"),
						"data.gpu_recommendation.lora", tfjsonpath.New("candidates").AtSliceIndex(0), compare.ValuesSame()),
					statecheck.ExpectKnownValue("data.gpu_recommendation.lora", tfjsonpath.New("rejected").AtSliceIndex(0),
						knownvalue.ObjectPartial(map[string]knownvalue.Check{"reason": knownvalue.NotNull(), "count": knownvalue.NotNull()})),
				},
			},
			{
				// Same configuration again: nothing changes, the plan is empty.
				ConfigFile: config.TestNameFile("main.tf"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					same.AddStateValue("data.gpu_recommendation.lora", tfjsonpath.New("best")),
				},
			},
		},
	})
}

// TestAccRecommendation_gdpr: every candidate of a GDPR recommendation is
// in an EU/EEA country.
func TestAccRecommendation_gdpr(t *testing.T) {
	t.Parallel()
	cat := builtinForTest(t)
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: recConfig("", recLoRA70B, `compliance = ["gdpr"]`, "top = 100\n  distinct_by = \"deployment\""),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(recAddr, tfjsonpath.New("candidates"), knownvalue.ListSizeExact(100)),
				candidatesCheck{fn: func(c map[string]any) error {
					country, err := catalogCountry(cat, c)
					if err != nil {
						return err
					}
					if !euEEA[country] {
						return fmt.Errorf("country %s is not in the EU/EEA", country)
					}
					return nil
				}},
			},
		}},
	})
}

// TestAccRecommendation_mlps2: every candidate of an MLPS 2.0
// recommendation is in mainland China (not Hong Kong or Macao).
func TestAccRecommendation_mlps2(t *testing.T) {
	t.Parallel()
	cat := builtinForTest(t)
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: recConfig("", `{
    kind               = "inference"
    model_parameters_b = 7
    tokens_per_second  = 500
  }`, `compliance = ["mlps2"]`, "top = 100"),
			ConfigStateChecks: []statecheck.StateCheck{
				candidatesCheck{fn: func(c map[string]any) error {
					country, err := catalogCountry(cat, c)
					if err != nil {
						return err
					}
					if country != "CN" {
						return fmt.Errorf("country %s is not mainland China", country)
					}
					return nil
				}},
			},
		}},
	})
}

// TestAccRecommendation_tighterBudget: with objective = "time", each
// tighter total budget yields a best that costs no more (and is no faster).
func TestAccRecommendation_tighterBudget(t *testing.T) {
	t.Parallel()
	cost := statecheck.CompareValue(monotone{nonIncreasing: true, what: "best.estimated_cost_usd"})
	hours := statecheck.CompareValue(monotone{nonIncreasing: false, what: "best.estimated_hours"})
	var steps []resource.TestStep
	for _, budget := range []string{"", "max_total_cost_usd = 50000", "max_total_cost_usd = 15000", "max_total_cost_usd = 10000"} {
		steps = append(steps, resource.TestStep{
			Config: recConfig("", recPretrain8B, budget, `objective = "time"`),
			ConfigStateChecks: []statecheck.StateCheck{
				cost.AddStateValue(recAddr, tfjsonpath.New("best").AtMapKey("estimated_cost_usd")),
				hours.AddStateValue(recAddr, tfjsonpath.New("best").AtMapKey("estimated_hours")),
				candidatesCheck{fn: func(c map[string]any) error {
					// estimated_seconds is estimated_hours without its rounding to 0.01 h.
					h, errH := num(c["estimated_hours"])
					sec, errS := num(c["estimated_seconds"])
					if errH != nil || errS != nil || math.Abs(sec/3600-h) > 0.005+1e-9 {
						return fmt.Errorf("estimated_seconds %v is not estimated_hours %v in seconds (%v, %v)", sec, h, errH, errS)
					}
					if budget == "" {
						return nil
					}
					limit, _ := strconv.ParseFloat(budget[len("max_total_cost_usd = "):], 64)
					v, err := num(c["estimated_cost_usd"])
					if err != nil || v > limit {
						return fmt.Errorf("estimated_cost_usd %v over the budget %v (%v)", v, limit, err)
					}
					return nil
				}},
			},
		})
	}
	resource.UnitTest(t, resource.TestCase{ProtoV6ProviderFactories: testAccProtoV6ProviderFactories, Steps: steps})
}

// TestAccRecommendation_moreClouds: widening the provider's clouds
// allow-list never makes the best worse under the same objective.
func TestAccRecommendation_moreClouds(t *testing.T) {
	t.Parallel()
	for _, obj := range []string{"cost", "time"} {
		t.Run(obj, func(t *testing.T) {
			attr := "estimated_cost_usd"
			if obj == "time" {
				attr = "estimated_hours"
			}
			best := statecheck.CompareValue(monotone{nonIncreasing: true, what: "best." + attr})
			var steps []resource.TestStep
			for _, clouds := range []string{`["lambda"]`, `["lambda", "gcp"]`, `["lambda", "gcp", "aws"]`, `["lambda", "gcp", "aws", "azure", "nebius"]`} {
				steps = append(steps, resource.TestStep{
					Config: recConfig("clouds = "+clouds, recLoRA70B, "", fmt.Sprintf("objective = %q", obj)),
					ConfigStateChecks: []statecheck.StateCheck{
						best.AddStateValue(recAddr, tfjsonpath.New("best").AtMapKey(attr)),
					},
				})
			}
			resource.UnitTest(t, resource.TestCase{ProtoV6ProviderFactories: testAccProtoV6ProviderFactories, Steps: steps})
		})
	}
}

// TestAccRecommendation_replicas: a throughput target that no single GPU
// (nor node) meets is served by several replicas.
func TestAccRecommendation_replicas(t *testing.T) {
	t.Parallel()
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: recConfig("", recServe70B, "", ""),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(recAddr, tfjsonpath.New("best"), knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"explanation":       knownvalue.StringRegexp(regexp.MustCompile(`\b([2-9]|\d{2,}) (replicas of \d+× |decode workers on \d+× )`)),
					"tokens_per_second": knownvalue.Float64Func(func(v float64) error { return atLeast(v, 20000) }),
					"estimated_hours":   knownvalue.Float64Exact(730),
				})),
				candidatesCheck{fn: func(c map[string]any) error {
					n, err := num(c["nodes"])
					if err != nil {
						return err
					}
					g, _ := num(c["total_gpus"])
					if g < 2 {
						return fmt.Errorf("total_gpus %v: one GPU cannot serve the target", g)
					}
					tps, _ := num(c["tokens_per_second"])
					_ = n
					return atLeast(tps, 20000)
				}},
			},
		}},
	})
}

func atLeast(v, lo float64) error {
	if v < lo {
		return fmt.Errorf("%v < %v", v, lo)
	}
	return nil
}

// TestAccRecommendation_timeVsCost: objective = "time" is never slower than
// objective = "cost" for the same job, and never cheaper.
func TestAccRecommendation_timeVsCost(t *testing.T) {
	t.Parallel()
	cfg := fmt.Sprintf(`
data "gpu_recommendation" "cost" {
  workload = %[1]s
}
data "gpu_recommendation" "time" {
  workload  = %[1]s
  objective = "time"
}
data "gpu_recommendation" "serve_cost" {
  workload = %[2]s
}
data "gpu_recommendation" "serve_time" {
  workload  = %[2]s
  objective = "time"
}
`, recPretrain8B, recServe70B)
	hours := tfjsonpath.New("best").AtMapKey("estimated_hours")
	costs := tfjsonpath.New("best").AtMapKey("estimated_cost_usd")
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: cfg,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.CompareValuePairs("data.gpu_recommendation.cost", hours, "data.gpu_recommendation.time", hours,
					monotone{nonIncreasing: true, what: "time-objective hours vs cost-objective hours"}),
				statecheck.CompareValuePairs("data.gpu_recommendation.cost", costs, "data.gpu_recommendation.time", costs,
					monotone{nonIncreasing: false, what: "time-objective cost vs cost-objective cost"}),
				statecheck.CompareValuePairs("data.gpu_recommendation.serve_cost", costs, "data.gpu_recommendation.serve_time", costs,
					monotone{nonIncreasing: false, what: "serving: time-objective cost vs cost-objective cost"}),
			},
		}},
	})
}

// TestAccRecommendation_badInput: every bad-input path gives an
// attribute-level diagnostic; none panics.
func TestAccRecommendation_badInput(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, provider, workload, constraints, extra string
		want                                         string
	}{
		{"unknown accelerator", "", recLoRA70B, `accelerators = ["H1000"]`, "",
			`Unknown Accelerator.*accelerators\[0\] = "H1000".*Closest: "H100"`},
		{"unknown cloud", "", recLoRA70B, `clouds = ["awss"]`, "", `Unknown Cloud.*"awss".*Closest: "aws"`},
		{"unknown region", "", recLoRA70B, `regions = ["us-east-9"]`, "", `Unknown Region.*"us-east-9".*Closest: "us-east-\d"`},
		{"unknown geography", "", recLoRA70B, `geographies = ["europe"]`, "", `Unknown Geography.*"europe".*Closest: "eu"`},
		{"unknown compliance", "", recLoRA70B, `compliance = ["gdrp"]`, "", `Invalid Value.*constraints.compliance\[0\] = "gdrp" is not one of.*Closest: "gdpr"`},
		{"gdpr and mlps2", "", recLoRA70B, `compliance = ["gdpr", "mlps2"]`, "", `Contradictory Constraints.*"gdpr" and "mlps2"`},
		{"region not in clouds", "", recLoRA70B, "clouds = [\"gcp\"]\nregions = [\"us-east-1\"]", "",
			`Contradictory Constraints.*"us-east-1" is a region of.*"aws".*not in clouds`},
		{"cloud outside provider allow-list", `clouds = ["gcp"]`, recLoRA70B, `clouds = ["aws"]`, "",
			`Contradictory Constraints.*excluded by the provider's clouds allow-list`},
		{"max_gpus below need", "", `{
    kind               = "training"
    model_parameters_b = 405
    training_tokens_b  = 100
  }`, `max_gpus = 8`, "", `No GPU Offer Satisfies The Constraints.*max_gpus = 8: the smallest deployment that holds the workload`},
		{"impossible deadline", "", `{
    kind               = "training"
    model_parameters_b = 70
    training_tokens_b  = 15000
  }`, `deadline_hours = 24`, "", `No GPU Offer Satisfies The Constraints.*deadline_hours = 24: the fastest candidate, \d+× \S+ on \S+ \S+ in \S+ .*needs [\d,.]+ h`},
		{"inference without target", "", `{
    kind               = "inference"
    model_parameters_b = 8
  }`, "", "", `Missing Workload Attribute.*workload.tokens_per_second is not set`},
		{"negative budget", "", recLoRA70B, `max_total_cost_usd = -5`, "", `Invalid Number.*constraints.max_total_cost_usd must be more than 0 and at most 1 × 10\^15 USD, got -5\.`},
		{"bad objective", "", recLoRA70B, "", `objective = "cheap"`, `Invalid Value[\s\S]*objective = "cheap"`},
		{"top out of range", "", recLoRA70B, "", `top = 0`, `Invalid Number.*top must be a whole number from 1 to 100 candidates, got 0\.`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      recConfig(tc.provider, tc.workload, tc.constraints, tc.extra),
					ExpectError: errRe(tc.want),
				}},
			})
		})
	}
}

// TestAccRecommendation_unknownAtPlan: values known only after apply plan
// without error (the read is deferred) and resolve on apply.
func TestAccRecommendation_unknownAtPlan(t *testing.T) {
	t.Parallel()
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: `
resource "terraform_data" "size" {
  input = 8
}
resource "terraform_data" "clouds" {
  input = ["gcp"]
}
data "gpu_recommendation" "r" {
  workload = {
    kind               = "training"
    model_parameters_b = terraform_data.size.output
    training_tokens_b  = 10
  }
  constraints = {
    clouds     = terraform_data.clouds.output
    compliance = ["gdpr"]
  }
}
`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(recAddr, tfjsonpath.New("best").AtMapKey("cloud"), knownvalue.StringExact("gcp")),
			},
		}},
	})
}

// TestAccRecommendationModule plans the examples/modules/gpu-recommendation
// module for a fine-tune and a serving workload.
func TestAccRecommendationModule(t *testing.T) {
	t.Setenv("TF_ACC_PROVIDER_NAMESPACE", "gpuplan")
	resource.UnitTest(t, resource.TestCase{
		Steps: []resource.TestStep{{
			ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
			ConfigFile:               config.TestNameFile("main.tf"),
			// Plan only: the harness's state reader does not support child modules.
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PostApplyPreRefresh: []plancheck.PlanCheck{
					plancheck.ExpectKnownOutputValue("finetune_launch",
						knownvalue.StringRegexp(regexp.MustCompile(`^\d+ × \S+ in \S+/\S+$`))),
					plancheck.ExpectKnownOutputValue("finetune_hours",
						knownvalue.Float64Func(func(v float64) error {
							if v <= 0 || v > 48 {
								return fmt.Errorf("hours %v outside (0, 48]", v)
							}
							return nil
						})),
					plancheck.ExpectKnownOutputValue("serve_alternatives", knownvalue.Int64Exact(4)),
				},
			},
		}},
	})
}

// TestAccRecommendationBudgetCheck plans examples/budget-check under a
// budget the job cannot meet (the check warns, the plan goes on) and one
// it can.
func TestAccRecommendationBudgetCheck(t *testing.T) {
	t.Setenv("TF_ACC_PROVIDER_NAMESPACE", "gpuplan")
	step := func(budget int, within bool) resource.TestStep {
		return resource.TestStep{
			ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
			ConfigFile:               config.TestNameFile("main.tf"),
			ConfigVariables:          config.Variables{"budget_usd": config.IntegerVariable(budget)},
			PlanOnly:                 true,
			ExpectNonEmptyPlan:       true,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PostApplyPreRefresh: []plancheck.PlanCheck{
					plancheck.ExpectKnownOutputValue("within_budget", knownvalue.Bool(within)),
				},
			},
		}
	}
	resource.UnitTest(t, resource.TestCase{Steps: []resource.TestStep{step(1, false), step(1000000, true)}})
}
