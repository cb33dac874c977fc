// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpuplan/terraform-provider-gpu/internal/cost"
	"github.com/gpuplan/terraform-provider-gpu/internal/planner"
)

// Acceptance tests of issue 20: what a buyer deploys and what the team
// can run.

const (
	recQLoRA8B = `{
    kind               = "fine_tuning"
    model_parameters_b = 8
    training_tokens_b  = 1
    fine_tuning_method = "qlora"
  }`
	allStacks = `software_stacks = ["cuda", "rocm", "xla", "neuron", "gaudi"]`
)

// everyCandidate checks fn over every candidate of recAddr.
func everyCandidate(fn func(c map[string]any) error) statecheck.StateCheck {
	return candidatesCheck{fn: fn}
}

// stackIs checks every candidate runs one of the stacks.
func stackIs(stacks ...string) statecheck.StateCheck {
	return everyCandidate(func(c map[string]any) error {
		for _, s := range stacks {
			if c["software_stack"] == s {
				return nil
			}
		}
		return fmt.Errorf("software_stack %v (%v), want one of %v", c["software_stack"], c["accelerator"], stacks)
	})
}

// TestAccSoftwareStacks: by default only CUDA parts are candidates and the
// best names the cheaper part left out on another stack with how to allow
// it; allowing xla (any case) lets the TPU win; QLoRA never lands on a
// stack without bitsandbytes whatever is allowed; a misspelled stack is
// an error.
func TestAccSoftwareStacks(t *testing.T) {
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      recConfig("", recQLoRA8B, `software_stacks = ["xla", "neuron"]`, ""),
				ExpectError: errRe(`fine_tuning_method = "qlora" runs only on the software stacks cuda, rocm, gaudi`),
			},
			{
				Config:      recConfig("", recQLoRA8B, `software_stacks = ["cdua"]`, ""),
				ExpectError: errRe(`cdua`),
			},
			{
				Config: recConfig("", recLoRA70B, "", ""),
				ConfigStateChecks: []statecheck.StateCheck{
					stackIs("cuda"),
					statecheck.ExpectKnownValue(recAddr, tfjsonpath.New("best").AtMapKey("explanation"),
						knownvalue.StringRegexp(regexp.MustCompile(`; a cheaper candidate on software stack \w+ was left out: \d+× \S+ \(.*\) at \$[\d,.]+, [\d.]+% less; `+
							`allow it with constraints\.software_stacks = \["cuda", "\w+"\] if your code runs there`))),
					statecheck.ExpectKnownValue(recAddr, tfjsonpath.New("summary"),
						knownvalue.StringRegexp(regexp.MustCompile(`Left out, software stack \w+ not allowed: `))),
				},
			},
			{
				Config:            recConfig("", recLoRA70B, `software_stacks = ["CUDA", "Xla"]`, ""),
				ConfigStateChecks: []statecheck.StateCheck{stackIs("cuda", "xla"), bestStack("xla")},
			},
			{
				Config: recConfig("", recQLoRA8B, allStacks, `top = 20`),
				ConfigStateChecks: []statecheck.StateCheck{
					stackIs("cuda", "rocm", "gaudi"),
					rejectedHas("stack_cannot_run_method"),
				},
			},
		},
	})
}

// TestAccInferenceOnlyPart: Inferentia2 is never a training or fine-tuning
// candidate, whatever stacks are allowed; it still serves.
func TestAccInferenceOnlyPart(t *testing.T) {
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      recConfig("", recPretrain8B, `accelerators = ["INFERENTIA2"]`+"\n"+allStacks, ""),
				ExpectError: errRe(`built for inference only`),
			},
			{
				Config: recConfig("", recPretrain8B, allStacks, `top = 20`),
				ConfigStateChecks: []statecheck.StateCheck{
					rejectedHas("inference_only_accelerator"),
					everyCandidate(func(c map[string]any) error {
						if c["accelerator"] == "INFERENTIA2" {
							return fmt.Errorf("an inference-only part is a training candidate")
						}
						return nil
					}),
				},
			},
			{
				Config: recConfig("", `{
    kind               = "inference"
    model_parameters_b = 8
    tokens_per_second  = 500
  }`, `accelerators = ["INFERENTIA2"]`+"\n"+`software_stacks = ["neuron"]`, ""),
				ConfigStateChecks: []statecheck.StateCheck{bestStack("neuron")},
			},
		},
	})
}

// TestAccCarbonForEveryPart: every built-in accelerator has a power
// figure, so TPU, Trainium and Inferentia candidates carry a CO2e; with a
// carbon price the cost objective ranks by it.
func TestAccCarbonForEveryPart(t *testing.T) {
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: `data "gpu_accelerators" "all" {}`,
				ConfigStateChecks: []statecheck.StateCheck{listEvery("data.gpu_accelerators.all", "accelerators", func(a map[string]any) error {
					if a["tdp_watts"] == nil {
						return fmt.Errorf("%v has no power figure", a["id"])
					}
					if a["software_stack"] == "" || a["purpose"] == "" {
						return fmt.Errorf("%v: software_stack %q, purpose %q", a["id"], a["software_stack"], a["purpose"])
					}
					return nil
				})},
			},
			{
				Config: recConfig(`carbon_price_usd_per_tonne = 100`, recLoRA70B,
					`accelerators = ["TPU-V5E", "TPU-V6E", "TRAINIUM", "TRAINIUM2"]`+"\n"+allStacks, `top = 10`),
				ConfigStateChecks: []statecheck.StateCheck{everyCandidate(func(c map[string]any) error {
					if c["estimated_co2e_kg"] == nil || c["estimated_carbon_cost_usd"] == nil {
						return fmt.Errorf("%v: CO2e unknown", c["accelerator"])
					}
					return nil
				})},
			},
		},
	})
}

// TestAccTiesAndNear: candidates of equal score come lower CO2e first;
// near accepts a geography or a country by name and rejects anything
// else with the choices.
func TestAccTiesAndNear(t *testing.T) {
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      recConfig("", recPretrain8B, `near = "Atlantis"`, ""),
				ExpectError: errRe(`constraints.near = "Atlantis" is not a country code or name.*Geographies:`),
			},
			{
				Config: recConfig("", recPretrain8B, `near = "Germany"`, `
  objective   = "time"
  distinct_by = "region"
  top         = 30`),
				ConfigStateChecks: []statecheck.StateCheck{tieOrder{}},
			},
			{
				Config:            recConfig("", recPretrain8B, `near = "EU"`, ""),
				ConfigStateChecks: []statecheck.StateCheck{tieOrder{}},
			},
		},
	})
}

// tieOrder checks consecutive candidates of equal objective value come
// with the known lower CO2e first.
type tieOrder struct{}

func (tieOrder) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	cands, err := stateList(req, recAddr, "candidates")
	if err != nil {
		resp.Error = err
		return
	}
	for i := 1; i < len(cands); i++ {
		a, b := cands[i-1], cands[i]
		if a["estimated_hours"] != b["estimated_hours"] || a["estimated_co2e_kg"] == nil || b["estimated_co2e_kg"] == nil {
			continue
		}
		ac, _ := num(a["estimated_co2e_kg"])
		bc, _ := num(b["estimated_co2e_kg"])
		if ac > bc {
			resp.Error = fmt.Errorf("candidates %d and %d tie at %v h but the higher CO2e (%v kg > %v kg) ranks first", i-1, i, a["estimated_hours"], ac, bc)
			return
		}
	}
}

// bestStack checks the best candidate's stack.
func bestStack(stack string) statecheck.StateCheck {
	return statecheck.ExpectKnownValue(recAddr, tfjsonpath.New("best").AtMapKey("software_stack"), knownvalue.StringExact(stack))
}

// rejectedHas checks recAddr's rejections count a reason.
func rejectedHas(reason string) statecheck.StateCheck {
	return listEvery(recAddr, "rejected", nil, reason)
}

// listCheck runs fn over every element of a list attribute of a data
// source, or, with want, checks some element's reason is want.
type listCheck struct {
	addr, attr, want string
	fn               func(map[string]any) error
}

// listEvery is a listCheck.
func listEvery(addr, attr string, fn func(map[string]any) error, want ...string) statecheck.StateCheck {
	lc := listCheck{addr: addr, attr: attr, fn: fn}
	if len(want) > 0 {
		lc.want = want[0]
	}
	return lc
}

func (lc listCheck) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	items, err := stateList(req, lc.addr, lc.attr)
	if err != nil {
		resp.Error = err
		return
	}
	found := false
	for i, m := range items {
		if lc.fn != nil {
			if err := lc.fn(m); err != nil {
				resp.Error = fmt.Errorf("%s.%s[%d]: %w", lc.addr, lc.attr, i, err)
				return
			}
		}
		found = found || m["reason"] == lc.want
	}
	if lc.want != "" && !found {
		resp.Error = fmt.Errorf("%s.%s has no %q: %v", lc.addr, lc.attr, lc.want, items)
	}
}

// stateList reads a list of objects of a data source from state.
func stateList(req statecheck.CheckStateRequest, addr, attr string) ([]map[string]any, error) {
	if req.State == nil || req.State.Values == nil || req.State.Values.RootModule == nil {
		return nil, fmt.Errorf("no state")
	}
	for _, r := range req.State.Values.RootModule.Resources {
		if r.Address != addr {
			continue
		}
		raw, _ := r.AttributeValues[attr].([]any)
		out := make([]map[string]any, 0, len(raw))
		for i, x := range raw {
			m, ok := x.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s.%s[%d] is %T", addr, attr, i, x)
			}
			out = append(out, m)
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s not in state", addr)
}

// TestAccSpotWhereItBelongs: serving is on spot only when pricing_models
// names it, then with spare replicas said in the explanation; a large
// synchronous spot job is flagged beyond the typical spot capacity of a
// region; a spot price implausibly far below on-demand is flagged on
// every candidate that has one and on no other.
func TestAccSpotWhereItBelongs(t *testing.T) {
	cat := builtinForTest(t)
	pol, err := planner.BuiltinPolicy()
	if err != nil {
		t.Fatal(err)
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: recConfig("", recServe70B, "", `top = 20`),
				ConfigStateChecks: []statecheck.StateCheck{everyCandidate(func(c map[string]any) error {
					if c["pricing_model"] == "spot" {
						return fmt.Errorf("serving on spot by default")
					}
					return nil
				}), rejectedHas("pricing_models")},
			},
			{
				Config: recConfig("", recServe70B, `pricing_models = ["spot"]`, ""),
				ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownValue(recAddr, tfjsonpath.New("best").AtMapKey("explanation"),
					knownvalue.StringRegexp(regexp.MustCompile(`spot: \+\d+ spare replicas? \(.*\) included to ride out interruptions`)))},
			},
			{
				Config: recConfig("", `{
    kind               = "training"
    model_parameters_b = 70
    training_tokens_b  = 2000
  }`, `pricing_models = ["spot"]`+"\n"+`deadline_hours = 720`, ""),
				ConfigStateChecks: []statecheck.StateCheck{everyCandidate(func(c map[string]any) error {
					gpus, _ := num(c["total_gpus"])
					said := regexp.MustCompile(`spot GPUs in one region at once for one synchronous job: more than the \d+ spot typically yields one account`).
						MatchString(textOf(c["explanation"]))
					if beyond := gpus > float64(pol.TypicalRegionSpotCapacityGPUs); said != beyond {
						return fmt.Errorf("%v spot GPUs: capacity flag said %v", gpus, said)
					}
					return nil
				})},
			},
			{
				Config: recConfig("", `{
    kind               = "inference"
    model_parameters_b = 1
    precision          = "fp16"
    tokens_per_second  = 100
  }`, `pricing_models = ["spot"]`+"\n"+`accelerators = ["T4"]`+"\n"+`regions = ["eu-south-1", "us-east-1"]`, `
  distinct_by = "deployment"
  top         = 100`),
				ConfigStateChecks: []statecheck.StateCheck{everyCandidate(func(c map[string]any) error {
					o, ok := cat.Offer(textOf(c["cloud"]), textOf(c["instance_type"]), textOf(c["region"]))
					if !ok {
						return fmt.Errorf("not an offer")
					}
					implausible := o.OnDemandUSD > 0 && o.SpotUSD < pol.ImplausibleSpotPriceRatio*o.OnDemandUSD
					if said := regexp.MustCompile(`implausibly low`).MatchString(textOf(c["explanation"])); said != implausible {
						return fmt.Errorf("spot %v vs on-demand %v: implausible-price flag said %v", o.SpotUSD, o.OnDemandUSD, said)
					}
					return nil
				})},
			},
		},
	})
}

// TestAccServingAtDeploymentScale: DeepSeek-R1 at 100,000 output tok/s on
// GB200 is planned as rack-scale deployments (expert parallelism and
// disaggregated prefill/decode across the NVL72 domain), and the best
// deployment is exactly what gpu_estimate, the same model, finds on that
// hardware: its GPUs meet the target, one node fewer does not.
func TestAccServingAtDeploymentScale(t *testing.T) {
	const cfg = `
data "gpu_recommendation" "r" {
  workload = {
    kind              = "inference"
    model             = "deepseek-r1"
    tokens_per_second = 100000
  }
  constraints = { accelerators = ["GB200"] }
}
locals { b = data.gpu_recommendation.r.best }
data "gpu_offers" "o" {
  clouds       = [local.b.cloud]
  regions      = [local.b.region]
  accelerators = [local.b.accelerator]
}
locals { net = [for o in data.gpu_offers.o.offers : o.network_gbps if o.instance_type == local.b.instance_type][0] }
data "gpu_estimate" "same" {
  workload = {
    kind                         = "inference"
    model                        = "deepseek-r1"
    max_time_per_output_token_ms = 40
    max_time_to_first_token_ms   = 450
  }
  accelerator   = local.b.accelerator
  gpu_count     = local.b.total_gpus
  gpus_per_node = local.b.gpus_per_node
  network_gbps  = local.net
}
data "gpu_estimate" "fewer" {
  workload = {
    kind                         = "inference"
    model                        = "deepseek-r1"
    max_time_per_output_token_ms = 40
    max_time_to_first_token_ms   = 450
  }
  accelerator   = local.b.accelerator
  gpu_count     = local.b.total_gpus - local.b.gpus_per_node
  gpus_per_node = local.b.gpus_per_node
  network_gbps  = local.net
}
`
	atLeast := func(lo float64) knownvalue.Check {
		return knownvalue.Float64Func(func(v float64) error {
			if v < lo {
				return fmt.Errorf("%v < %v", v, lo)
			}
			return nil
		})
	}
	below := func(hi float64) knownvalue.Check {
		return knownvalue.Float64Func(func(v float64) error {
			if v >= hi {
				return fmt.Errorf("%v >= %v", v, hi)
			}
			return nil
		})
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: cfg,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(recAddr, tfjsonpath.New("best").AtMapKey("total_gpus"), knownvalue.Int64Func(func(v int64) error {
					if v > 72 {
						return fmt.Errorf("%d GPUs: more than one NVL72 rack for 100k tok/s", v)
					}
					return nil
				})),
				statecheck.ExpectKnownValue(recAddr, tfjsonpath.New("best").AtMapKey("serving_layout").AtMapKey("expert_parallel"),
					knownvalue.Int64Func(func(v int64) error {
						if v < 8 {
							return fmt.Errorf("expert parallelism %d: the rack's NVLink is not used", v)
						}
						return nil
					})),
				statecheck.ExpectKnownValue(recAddr, tfjsonpath.New("best").AtMapKey("estimated_cost_usd"), below(1.5e6)),
				statecheck.ExpectKnownValue("data.gpu_estimate.same", tfjsonpath.New("tokens_per_second"), atLeast(100000)),
				statecheck.ExpectKnownValue("data.gpu_estimate.fewer", tfjsonpath.New("tokens_per_second"), below(100000)),
				statecheck.CompareValuePairs(recAddr, tfjsonpath.New("best").AtMapKey("tokens_per_second"),
					"data.gpu_estimate.same", tfjsonpath.New("tokens_per_second"), compare.ValuesSame()),
			},
		}},
	})
}

// TestAccLatencyRealism: a serving recommendation bounds the time to
// first token by default; with 1,000-token prompts a 500 ms limit costs a
// 70B service about what 10 s does (the wait for prefill grows with the
// load, not a fixed factor); a prompt beyond the preset's context window
// is an error naming the window.
func TestAccLatencyRealism(t *testing.T) {
	serve := func(ttft string) string {
		return fmt.Sprintf(`
data "gpu_recommendation" "r%[1]s" {
  workload = {
    kind              = "inference"
    model             = "llama-3.1-70b"
    tokens_per_second = 20000
    %[2]s
  }
}
`, strings.NewReplacer(" ", "", "=", "", "_", "").Replace(ttft), ttft)
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: `
data "gpu_recommendation" "r" {
  workload = {
    kind              = "inference"
    model             = "llama-3.1-8b"
    input_tokens      = 500000
    tokens_per_second = 1000
  }
}
`,
				ExpectError: errRe(`input_tokens = 500000: plus output_tokens \(256\) is 500,256 tokens, beyond the context window of llama-3.1-8b: 131,072 tokens`),
			},
			{
				Config: serve("") + serve("max_time_to_first_token_ms = 500") + serve("max_time_to_first_token_ms = 10000"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.gpu_recommendation.r", tfjsonpath.New("best").AtMapKey("time_to_first_token_ms"),
						knownvalue.Float64Func(func(v float64) error {
							if v > 450 {
								return fmt.Errorf("p99 time to first token %v ms above the 450 ms interactive default", v)
							}
							return nil
						})),
					statecheck.CompareValuePairs("data.gpu_recommendation.rmaxtimetofirsttokenms500", tfjsonpath.New("best").AtMapKey("estimated_cost_usd"),
						"data.gpu_recommendation.rmaxtimetofirsttokenms10000", tfjsonpath.New("best").AtMapKey("estimated_cost_usd"), within(0.10)),
				},
			},
		},
	})
}

// within compares two numbers: the first at most share above the second.
type within float64

func (w within) CompareValues(values ...any) error {
	a, b, err := twoNums(values)
	if err != nil {
		return err
	}
	if a > b*(1+float64(w)) {
		return fmt.Errorf("%v is more than %v%% above %v", a, float64(w)*100, b)
	}
	return nil
}

// TestAccRequestsPerSecond: the target in requests per second serves
// requests_per_second × output_tokens, every candidate reports the
// sequences in flight, and setting both targets is an error.
func TestAccRequestsPerSecond(t *testing.T) {
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: recConfig("", `{
    kind                = "inference"
    model               = "llama-3.1-8b"
    requests_per_second = 20
    tokens_per_second   = 5120
  }`, "", ""),
				ExpectError: errRe(`requests_per_second = 20: and tokens_per_second = 5120 both set the target`),
			},
			{
				Config: recConfig("", `{
    kind                = "inference"
    model               = "llama-3.1-8b"
    requests_per_second = 20
    output_tokens       = 500
  }`, "", ""),
				ConfigStateChecks: []statecheck.StateCheck{
					everyCandidate(func(c map[string]any) error {
						tps, _ := num(c["tokens_per_second"])
						conc, err := num(c["concurrency"])
						switch {
						case tps < 20*500:
							return fmt.Errorf("serves %v tok/s, below 20 requests/s × 500 tokens", tps)
						case err != nil || !(conc > 0):
							return fmt.Errorf("concurrency %v: want the sequences in flight", c["concurrency"])
						case !strings.Contains(textOf(c["explanation"]), "target (20 requests/s)"):
							return fmt.Errorf("explanation does not name the requests/s target")
						}
						return nil
					}),
				},
			},
		},
	})
}

// TestAccTCOLoad: gpu_tco bills energy at the load the GPUs carry: serving
// (load = "inference") bills (0.50 + h) / (0.80 + h) of training's energy,
// a measured load_factor replaces the kind's; load and load_factor exclude
// each other.
func TestAccTCOLoad(t *testing.T) {
	cm, err := cost.DefaultModel()
	if err != nil {
		t.Fatal(err)
	}
	h := cm.HostPowerPerGPUTDP
	tco := func(name, extra string) string {
		return fmt.Sprintf(`
data "gpu_tco" %q {
  cloud         = "aws"
  region        = "us-east-1"
  instance_type = "p5.48xlarge"
  months        = 1
  %s
}
`, name, extra)
	}
	ratio := func(want float64) compare.ValueComparer { return ratioOf(want) }
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      tco("both", `load = "inference"`+"\n"+`load_factor = 0.4`),
				ExpectError: errRe(`Attribute "load_factor" cannot be specified when "load" is specified`),
			},
			{
				Config: tco("train", "") + tco("serve", `load = "Inference"`) + tco("measured", `load_factor = 0.3`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.CompareValuePairs("data.gpu_tco.serve", tfjsonpath.New("energy_kwh"), "data.gpu_tco.train", tfjsonpath.New("energy_kwh"),
						ratio((cm.LoadFactor["inference"]+h)/(cm.LoadFactor["training"]+h))),
					statecheck.CompareValuePairs("data.gpu_tco.measured", tfjsonpath.New("energy_kwh"), "data.gpu_tco.train", tfjsonpath.New("energy_kwh"),
						ratio((0.3+h)/(cm.LoadFactor["training"]+h))),
				},
			},
		},
	})
}

// ratioOf compares two numbers: the first is the second × want, to 0.1 %
// (the attributes are rounded).
type ratioOf float64

func (r ratioOf) CompareValues(values ...any) error {
	a, b, err := twoNums(values)
	if err != nil {
		return err
	}
	if math.Abs(a/b-float64(r)) > 1e-3*float64(r) {
		return fmt.Errorf("%v / %v = %v, want %v", a, b, a/b, float64(r))
	}
	return nil
}

// TestAccClusterSpecRequirements: min_network_gbps and rdma are the spec's
// requirements: the placement and every equivalent take the cheapest
// instance that meets them (Azure's InfiniBand ND H100 v5, not its
// Ethernet-only sizes), an equivalent on a cloud that has none is the
// closest, marked (GCP: a3-megagpu-8g, 1,800 Gbit/s); moving to such a
// cloud is an error naming the closest; the spec JSON carries them;
// Lambda's single on-demand instances have no multi-node fabric.
func TestAccClusterSpecRequirements(t *testing.T) {
	res := func(cloud, extra string) string {
		return fmt.Sprintf(`
resource "gpu_cluster_spec" "c" {
  name          = "train"
  cloud         = %q
  accelerator   = "H100"
  gpus_per_node = 8
  nodes         = 2
  %s
}
`, cloud, extra)
	}
	eq := func(cloud, attr string) tfjsonpath.Path {
		return tfjsonpath.New("equivalents").AtMapKey(cloud).AtMapKey(attr)
	}
	const addr = "gpu_cluster_spec.c"
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: res("aws", "min_network_gbps = 3200"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("instance_type"), knownvalue.StringExact("p5.48xlarge")),
					statecheck.ExpectKnownValue(addr, eq("azure", "instance_type"), knownvalue.StringRegexp(regexp.MustCompile(`^Standard_ND96isrf?_H100_v5$`))),
					statecheck.ExpectKnownValue(addr, eq("azure", "meets_requirements"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(addr, eq("gcp", "instance_type"), knownvalue.StringExact("a3-megagpu-8g")),
					statecheck.ExpectKnownValue(addr, eq("gcp", "meets_requirements"), knownvalue.Bool(false)),
					statecheck.ExpectKnownValue(addr, eq("gcp", "network_gbps"), knownvalue.Float64Exact(1800)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("spec_json"), knownvalue.StringRegexp(regexp.MustCompile(`"requirements":\{"minNetworkGbps":3200\}`))),
				},
			},
			{
				Config:      res("gcp", "min_network_gbps = 3200"),
				ExpectError: errRe(`no gcp offer of H100 with 8 GPUs per node meets min_network_gbps = 3,200: the closest, a3-megagpu-8g, has 1,800 Gbit/s`),
			},
			{
				Config:      res("lambda", "rdma = true"),
				ExpectError: errRe(`no lambda offer of H100 with 8 GPUs per node meets rdma = true`),
			},
			{
				Config: res("gcp", "min_network_gbps = 1600"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("instance_type"), knownvalue.StringExact("a3-megagpu-8g")),
				},
			},
		},
	})
}
