// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/planner"
)

// Acceptance tests of the planner's realism rules (issue 10): each asserts
// behaviour a user relies on, derived from the built-in catalog where a
// number is needed, never copied from a run.

// outputTrue checks that a boolean output computed in HCL is true.
func outputTrue(name string) statecheck.StateCheck {
	return statecheck.ExpectKnownOutputValue(name, knownvalue.Bool(true))
}

// Independent serving replicas need no fabric: 300 tok/s of an 8B model on
// L4 scales out over 1-GPU instances, and that costs less than the best a
// single node can do.
func TestAccRealism_fabricLessReplicas(t *testing.T) {
	t.Parallel()
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: `
locals {
  workload = {
    kind                         = "inference"
    model_parameters_b           = 8
    precision                    = "fp16"
    tokens_per_second            = 300
    max_time_per_output_token_ms = 200
  }
}
data "gpu_recommendation" "scale_out" {
  workload    = local.workload
  constraints = { clouds = ["aws"], accelerators = ["L4"] }
}
data "gpu_recommendation" "one_node" {
  workload    = local.workload
  constraints = { clouds = ["aws"], accelerators = ["L4"], max_nodes = 1 }
}
output "scaled_out" {
  value = data.gpu_recommendation.scale_out.best.nodes > 1 && data.gpu_recommendation.scale_out.best.gpus_per_node == 1
}
output "cheaper" {
  value = data.gpu_recommendation.scale_out.best.estimated_cost_usd < data.gpu_recommendation.one_node.best.estimated_cost_usd
}`,
			ConfigStateChecks: []statecheck.StateCheck{
				outputTrue("scaled_out"),
				outputTrue("cheaper"),
				statecheck.ExpectKnownValue("data.gpu_recommendation.scale_out", tfjsonpath.New("best").AtMapKey("explanation"),
					knownvalue.StringRegexp(regexp.MustCompile(`no fabric needed between replicas`))),
			},
		}},
	})
}

// A synchronous job on spot stops when any node is interrupted: the cost of
// a useful GPU-hour grows with the node count (gpu_tco prices the
// instances as one job), and a multi-node spot training candidate states
// its rework factor.
func TestAccRealism_spotAtScale(t *testing.T) {
	t.Parallel()
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: `
locals {
  spot = { cloud = "gcp", region = "us-central1", instance_type = "a3-highgpu-8g", months = 1 }
}
data "gpu_tco" "spot" {
  count          = 2 # one instance, then 64 as one synchronous job
  cloud          = local.spot.cloud
  region         = local.spot.region
  instance_type  = local.spot.instance_type
  months         = local.spot.months
  instance_count = [1, 64][count.index]
  pricing_mix    = { spot = 1 }
}
data "gpu_recommendation" "train" {
  workload = {
    kind               = "training"
    model_parameters_b = 70
    training_tokens_b  = 2000
    precision          = "bf16"
  }
  constraints = { clouds = ["gcp"], accelerators = ["H100"], pricing_models = ["spot"] }
  objective   = "time"
}
output "dearer_per_gpu_hour" {
  value = data.gpu_tco.spot[1].cost_per_gpu_hour_usd > data.gpu_tco.spot[0].cost_per_gpu_hour_usd * 1.01
}`,
			ConfigStateChecks: []statecheck.StateCheck{
				outputTrue("dearer_per_gpu_hour"),
				statecheck.ExpectKnownValue("data.gpu_recommendation.train", tfjsonpath.New("best").AtMapKey("explanation"),
					knownvalue.StringRegexp(regexp.MustCompile(`spot: \d+ nodes as one job, rework ×1\.\d+`))),
			},
		}},
	})
}

// Energy is per node, GPUs plus host: an 8× H100 instance running a
// training load draws at least 0.85 kWh per GPU-hour before PUE, and no
// more than the DGX H100's rated 10.2 kW / 8.
func TestAccRealism_nodeEnergy(t *testing.T) {
	t.Parallel()
	cat := builtinForTest(t)
	rg, ok := cat.Region("aws", "us-east-1")
	cl, _ := cat.Cloud("aws")
	if !ok || cl == nil {
		t.Fatal("catalog lacks aws us-east-1")
	}
	pue := rg.PUE
	if pue <= 0 {
		pue = cl.PUE
	}
	gpuHours := 8 * 730.0
	perGPUHour := knownvalue.Float64Func(func(kwh float64) error {
		if v := kwh / gpuHours / pue; v < 0.85 || v > 10.2/8 {
			return fmt.Errorf("%.3f kWh per GPU-hour before PUE, want 0.85–1.275", v)
		}
		return nil
	})
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: `
data "gpu_tco" "h100" {
  cloud         = "aws"
  region        = "us-east-1"
  instance_type = "p5.48xlarge"
  months        = 1
}`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.gpu_tco.h100", tfjsonpath.New("energy_kwh"), perGPUHour),
			},
		}},
	})
}

// Separate-account partitions (AWS China, GovCloud) are candidates only
// when asked for: never by default, even when cheapest, and an explicit
// region brings them in.
func TestAccRealism_partitions(t *testing.T) {
	t.Parallel()
	cat := builtinForTest(t)
	var partitioned []string
	for _, o := range cat.Offers {
		rg, _ := cat.Region(o.Cloud, o.Region)
		if o.Cloud == "aws" && o.Accelerator == "A10G" && rg != nil && rg.Partition != catalog.PartitionCommercial && o.OnDemandUSD > 0 {
			partitioned = append(partitioned, o.Region)
		}
	}
	if len(partitioned) == 0 {
		t.Fatal("catalog has no partitioned AWS A10G offer to test with")
	}
	slices.Sort(partitioned)
	asked := partitioned[0]
	cands := make([]statecheck.StateCheck, 0, 10)
	for i := range 10 {
		cands = append(cands, statecheck.ExpectKnownValue("data.gpu_recommendation.default",
			tfjsonpath.New("candidates").AtSliceIndex(i).AtMapKey("region"), knownvalue.StringFunc(func(r string) error {
				if slices.Contains(partitioned, r) || strings.HasPrefix(r, "cn-") || strings.Contains(r, "gov") {
					return fmt.Errorf("candidate %d in separate-account region %s, not asked for", i, r)
				}
				return nil
			})))
	}
	cands = append(cands,
		statecheck.ExpectKnownValue("data.gpu_recommendation.asked", tfjsonpath.New("best").AtMapKey("region"), knownvalue.StringExact(asked)))
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf(`
locals {
  workload = { kind = "inference", model_parameters_b = 8, precision = "fp16", tokens_per_second = 200 }
}
data "gpu_recommendation" "default" {
  workload    = local.workload
  constraints = { clouds = ["aws"], accelerators = ["A10G"] }
  distinct_by = "region"
  top         = 10
}
data "gpu_recommendation" "asked" {
  workload    = local.workload
  constraints = { clouds = ["aws"], accelerators = ["A10G"], regions = [%q] }
}`, asked),
			ConfigStateChecks: cands,
		}},
	})
}

// Candidates are distinct (cloud, instance type) pairs by default; by
// region on request; countries = ["DE"] keeps German regions only.
func TestAccRealism_distinctAndCountries(t *testing.T) {
	t.Parallel()
	cat := builtinForTest(t)
	var german []string
	for _, r := range cat.Regions {
		if r.Country == "DE" {
			german = append(german, r.Cloud+"/"+r.ID)
		}
	}
	if len(german) == 0 {
		t.Fatal("catalog has no German region")
	}
	germanHCL := `["` + strings.Join(german, `", "`) + `"]`
	checks := []statecheck.StateCheck{
		outputTrue("distinct_instances"),
		outputTrue("distinct_regions"),
		outputTrue("all_german"),
		statecheck.ExpectKnownValue("data.gpu_recommendation.fastest", tfjsonpath.New("best").AtMapKey("serving_layout"), knownvalue.Null()),
		statecheck.ExpectKnownValue("data.gpu_recommendation.de", tfjsonpath.New("best").AtMapKey("serving_layout").AtMapKey("decode_workers"),
			knownvalue.Int64Func(func(v int64) error {
				if v < 1 {
					return fmt.Errorf("%d decode workers", v)
				}
				return nil
			})),
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: `
locals {
  german   = ` + germanHCL + `
  pretrain = { kind = "training", model_parameters_b = 7, training_tokens_b = 100, precision = "bf16" }
  keys     = [for c in data.gpu_recommendation.fastest.candidates : "${c.cloud}/${c.instance_type}"]
  rkeys    = [for c in data.gpu_recommendation.by_region.candidates : "${c.cloud}/${c.instance_type}/${c.region}"]
}
data "gpu_recommendation" "fastest" {
  workload  = local.pretrain
  objective = "time"
  top       = 10
}
data "gpu_recommendation" "by_region" {
  workload    = local.pretrain
  objective   = "time"
  top         = 10
  distinct_by = "region"
}
data "gpu_recommendation" "de" {
  workload    = { kind = "inference", model_parameters_b = 8, precision = "fp16", tokens_per_second = 500 }
  constraints = { countries = ["de"] }
  top         = 3
}
output "distinct_instances" {
  value = length(local.keys) == 10 && length(distinct(local.keys)) == length(local.keys)
}
output "distinct_regions" {
  value = length(local.rkeys) == 10 && length(distinct(local.rkeys)) == length(local.rkeys)
}
output "all_german" {
  value = length(data.gpu_recommendation.de.candidates) == 3 && alltrue([
    for c in data.gpu_recommendation.de.candidates : c.country == "DE" && contains(local.german, "${c.cloud}/${c.region}")
  ])
}`,
			ConfigStateChecks: checks,
		}},
	})
}

// The recommendation and gpu_tco agree: gpu_tco of the recommended cloud,
// region, instance type, node count and pricing model over the same hours
// gives the same compute cost, to 1 %.
func TestAccRealism_recommendationMatchesTCO(t *testing.T) {
	t.Parallel()
	for _, pm := range []string{"on_demand", "spot", "reserved_1y"} {
		t.Run(pm, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config: fmt.Sprintf(`
data "gpu_recommendation" "r" {
  workload = { kind = "training", model_parameters_b = 13, training_tokens_b = 300, precision = "bf16" }
  constraints = { clouds = ["aws", "gcp", "azure"], pricing_models = [%q] }
}
locals {
  best = data.gpu_recommendation.r.best
}
data "gpu_tco" "same" {
  cloud          = local.best.cloud
  region         = local.best.region
  instance_type  = local.best.instance_type
  instance_count = local.best.nodes
  months         = local.best.estimated_hours / 730
  pricing_mix    = { (local.best.pricing_model) = 1 }
}
locals {
  compute = one([for l in data.gpu_tco.same.breakdown : l.cost_usd if l.category == "compute"])
}
output "agree" {
  value = abs(local.compute - local.best.estimated_cost_usd) <= 0.01 * local.best.estimated_cost_usd
}
output "detail" {
  value = "${local.compute} vs ${local.best.estimated_cost_usd}"
}`, pm),
					ConfigStateChecks: []statecheck.StateCheck{outputTrue("agree")},
				}},
			})
		})
	}
}

// Serving is interactive by default: with no latency limit, every inference
// candidate is sized for the default p99 time per output token and reports
// both latencies; a looser limit, set by the user, is honoured instead.
func TestAccRealism_servingLatency(t *testing.T) {
	t.Parallel()
	pol, err := planner.BuiltinPolicy()
	if err != nil {
		t.Fatal(err)
	}
	within := func(limit float64) knownvalue.Check {
		return knownvalue.Float64Func(func(v float64) error {
			if !(v > 0 && v <= limit) {
				return fmt.Errorf("time per output token %.2f ms, want in (0, %g]", v, limit)
			}
			return nil
		})
	}
	positive := knownvalue.Float64Func(func(v float64) error {
		if !(v > 0) {
			return fmt.Errorf("time to first token %.2f ms, want > 0", v)
		}
		return nil
	})
	var checks []statecheck.StateCheck
	for i := range 3 {
		p := tfjsonpath.New("candidates").AtSliceIndex(i)
		checks = append(checks,
			statecheck.ExpectKnownValue("data.gpu_recommendation.chat", p.AtMapKey("time_per_output_token_ms"), within(pol.DefaultMaxTimePerOutputTokenMs)),
			statecheck.ExpectKnownValue("data.gpu_recommendation.chat", p.AtMapKey("time_to_first_token_ms"), positive),
			statecheck.ExpectKnownValue("data.gpu_recommendation.batch", p.AtMapKey("time_per_output_token_ms"), within(400)),
		)
	}
	checks = append(checks, outputTrue("batch_not_dearer"))
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: `
locals {
  llama70 = { kind = "inference", model_parameters_b = 70, precision = "fp8", tokens_per_second = 2000 }
}
data "gpu_recommendation" "chat" {
  workload = local.llama70
  top      = 3
}
data "gpu_recommendation" "batch" {
  workload = merge(local.llama70, { max_time_per_output_token_ms = 400 })
  top      = 3
}
output "batch_not_dearer" {
  value = data.gpu_recommendation.batch.best.estimated_cost_usd <= data.gpu_recommendation.chat.best.estimated_cost_usd
}`,
			ConfigStateChecks: checks,
		}},
	})
}

// Enumerated values are accepted in any case, everywhere: the same
// answer as in lower case.
func TestAccEnumsAnyCase(t *testing.T) {
	t.Parallel()
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: `
locals {
  workload = { kind = "Inference", model_parameters_b = 8, precision = "FP16", tokens_per_second = 500 }
}
data "gpu_recommendation" "upper" {
  workload    = local.workload
  constraints = { compliance = ["GDPR"], clouds = ["AWS", "GCP"], pricing_models = ["ON_DEMAND", "Spot"] }
  objective   = "COST"
  distinct_by = "Region"
}
data "gpu_recommendation" "lower" {
  workload    = { kind = "inference", model_parameters_b = 8, precision = "fp16", tokens_per_second = 500 }
  constraints = { compliance = ["gdpr"], clouds = ["aws", "gcp"], pricing_models = ["on_demand", "spot"] }
  objective   = "cost"
  distinct_by = "region"
}
data "gpu_tco" "t" {
  cloud         = "aws"
  region        = "us-east-1"
  instance_type = "g5.xlarge"
  months        = 1
  pricing_mix   = { ON_DEMAND = 0.5, Spot = 0.5 }
}
output "same" {
  value = data.gpu_recommendation.upper.best.instance_type == data.gpu_recommendation.lower.best.instance_type && data.gpu_recommendation.upper.best.estimated_cost_usd == data.gpu_recommendation.lower.best.estimated_cost_usd
}`,
			ConfigStateChecks: []statecheck.StateCheck{
				outputTrue("same"),
				statecheck.ExpectKnownValue("data.gpu_tco.t", tfjsonpath.New("total_cost_usd"), knownvalue.Float64Func(func(v float64) error {
					if !(v > 0) {
						return fmt.Errorf("total %v", v)
					}
					return nil
				})),
			},
		}},
	})
}

// One mistake, one suggestion: an accelerator typo gets the same closest
// accelerators from every data source (catalog.ClosestAccelerators).
func TestAccSameClosestEverywhere(t *testing.T) {
	t.Parallel()
	cat := builtinForTest(t)
	want := regexp.QuoteMeta(catalog.QuoteList(cat.ClosestAccelerators("H100-SMX", 3)))
	want = strings.ReplaceAll(want, " ", `\s+`)
	wl := `workload = { kind = "inference", model_parameters_b = 8, tokens_per_second = 100 }`
	step := func(config string) resource.TestStep {
		return resource.TestStep{Config: config, ExpectError: regexp.MustCompile(`(?s)"H100-SMX" is not an accelerator ID or\s+alias in\s+the\s+catalog.\s+Closest:\s+` + want)}
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			step(`data "gpu_recommendation" "r" {
  ` + wl + `
  constraints = { accelerators = ["H100-SMX"] }
}`),
			step(`data "gpu_estimate" "e" {
  ` + wl + `
  accelerator = "H100-SMX"
  gpu_count   = 1
}`),
			step(`data "gpu_offers" "o" { accelerators = ["H100-SMX"] }`),
		},
	})
}
