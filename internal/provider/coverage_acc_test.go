// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/planner"
)

// Acceptance tests of the catalog coverage (issue 12): TPU, Trainium2, RTX
// PRO 6000, fractional GPUs and serverless offers, planned end to end
// against the real Terraform binary.

// objectSatisfies checks an object value (numbers as float64) with fn.
func objectSatisfies(fn func(map[string]any) error) knownvalue.Check { return objectCheck{fn} }

type objectCheck struct{ fn func(map[string]any) error }

func (c objectCheck) CheckValue(v any) error {
	obj, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("expected an object, got %T", v)
	}
	return c.fn(numbersToFloat(obj))
}

func (c objectCheck) String() string { return "the object satisfies the predicate" }

// sourceRows reads a coverage source file of the catalog
// (internal/catalog/testdata/sources) as maps of column → value, parsed
// here, independently of the catalog generator.
func sourceRows(t *testing.T, name string) []map[string]string {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "catalog", "testdata", "sources", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	out := make([]map[string]string, 0, len(recs)-1)
	for _, rec := range recs[1:] {
		row := map[string]string{}
		for i, h := range recs[0] {
			row[h] = rec[i]
		}
		out = append(out, row)
	}
	return out
}

func parseFloat(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return v
}

// attrFloat is a number attribute of an object value, 0 when null or absent.
func attrFloat(obj map[string]any, name string) float64 {
	v, _ := obj[name].(float64)
	return v
}

// price4 rounds a source price to the 4 decimals gpu_offers shows.
func price4(v float64) float64 { return math.Round(v*1e4) / 1e4 }

// A TPU v5e serving recommendation plans on GCP's v5e slices: the price is
// the catalog's for the chosen slice, pricing model and node count, the
// slice serves the target within the default latency limit, and every chip
// holds its share within v5e's 16 GB.
func TestAccCoverage_tpuV5eRecommendation(t *testing.T) {
	t.Parallel()
	cat := builtinForTest(t)
	v5e, _ := cat.Accelerator("TPU-V5E")
	pol, err := planner.BuiltinPolicy()
	if err != nil {
		t.Fatal(err)
	}
	best := objectSatisfies(func(b map[string]any) error {
		it, _ := b["instance_type"].(string)
		region, _ := b["region"].(string)
		pm, _ := b["pricing_model"].(string)
		nodes, hourly, cost := attrFloat(b, "nodes"), attrFloat(b, "hourly_cost_usd"), attrFloat(b, "estimated_cost_usd")
		tps, tpot, mem := attrFloat(b, "tokens_per_second"), attrFloat(b, "time_per_output_token_ms"), attrFloat(b, "memory_per_gpu_gb")
		o, ok := cat.Offer("gcp", it, region)
		switch {
		case b["cloud"] != "gcp" || b["accelerator"] != "TPU-V5E" || !strings.HasPrefix(it, "v5litepod-") || !ok:
			return fmt.Errorf("best is %v %v %v in %v, want a GCP v5e slice", b["cloud"], it, b["accelerator"], region)
		case tps < 2000:
			return fmt.Errorf("serves %v tok/s, below the 2,000 target", tps)
		case !(tpot > 0) || tpot > pol.DefaultMaxTimePerOutputTokenMs:
			return fmt.Errorf("p99 time per output token %v ms, want within the default %v ms", tpot, pol.DefaultMaxTimePerOutputTokenMs)
		case !(mem > 0) || mem > v5e.MemoryGB:
			return fmt.Errorf("%v GB per chip, more than v5e's %v GB", mem, v5e.MemoryGB)
		}
		price, sold := o.Price(catalog.PricingModel(pm))
		if !sold || math.Abs(hourly-nodes*price) > 0.01 {
			return fmt.Errorf("%v × %s %s: $%v/h, catalog %v × $%v/h", nodes, it, pm, hourly, nodes, price)
		}
		if pm == "on_demand" || pm == "spot" { // billed the month's 730 hours, no term
			if math.Abs(cost-hourly*730) > 0.01*cost {
				return fmt.Errorf("$%v a month at $%v/h, want 730 h", cost, hourly)
			}
		}
		return nil
	})
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: `
data "gpu_recommendation" "tpu" {
  workload    = { kind = "inference", model = "llama-3.1-8b", tokens_per_second = 2000 }
  constraints = { accelerators = ["TPU-V5E"] }
}`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.gpu_recommendation.tpu", tfjsonpath.New("best"), best),
			},
		}},
	})
}

// A TPU v5p training estimate over 512 chips (128 hosts of 4, one slice
// joined by ICI) fits, and its numbers hang together: throughput is what
// the chips' dense BF16 peak at the reported MFU gives for 6·N FLOPs a
// token, the MFU is a training MFU, and the hours are the tokens at that
// rate plus the goodput loss.
func TestAccCoverage_tpuV5pTrainingEstimate(t *testing.T) {
	t.Parallel()
	cat := builtinForTest(t)
	v5p, _ := cat.Accelerator("TPU-V5P")
	const chips, paramsB, tokensB = 512, 70.0, 1000.0
	peak := v5p.PeakTFLOPS["bf16"] * 1e12
	est := objectSatisfies(func(e map[string]any) error {
		tps, mfu, hours := attrFloat(e, "tokens_per_second"), attrFloat(e, "mfu"), attrFloat(e, "estimated_hours")
		flops := 6 * paramsB * 1e9 * tps // useful FLOP/s, without the attention term
		ideal := tokensB * 1e9 / tps / 3600
		switch {
		case e["fits"] != true:
			return fmt.Errorf("does not fit 512 v5p chips (95 GB each)")
		case !(mfu >= 0.2 && mfu <= 0.75):
			return fmt.Errorf("MFU %v outside a training MFU's 0.2–0.75", mfu)
		case math.Abs(flops/(chips*peak)-mfu) > 0.15*mfu:
			return fmt.Errorf("%v tok/s is %v of the peak, but MFU says %v", tps, flops/(chips*peak), mfu)
		case !(hours >= ideal && hours <= 1.3*ideal):
			return fmt.Errorf("%v h, want %v h of tokens plus at most 30 %% goodput loss", hours, ideal)
		}
		return nil
	})
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf(`
data "gpu_estimate" "v5p" {
  workload      = { kind = "training", model_parameters_b = %v, training_tokens_b = %v }
  accelerator   = "TPU-V5P"
  gpu_count     = %d
  gpus_per_node = 4
}
output "v5p" { value = data.gpu_estimate.v5p }`, paramsB, tokensB, chips),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownOutputValue("v5p", est),
			},
		}},
	})
}

// Trainium2 and RTX PRO 6000 offers appear in gpu_offers with the prices of
// their source rows: trn2.48xlarge's on-demand from aws_accelerator_offers.csv
// and its spot from SkyPilot's zone rows; every NCv6 size in every priced
// region from the Azure retail price copy, fractional sizes with their share.
func TestAccCoverage_offersMatchSources(t *testing.T) {
	t.Parallel()
	trn2OD, trn2Spot := map[string]float64{}, map[string][]float64{}
	for _, r := range sourceRows(t, "aws_accelerator_offers.csv") {
		if r["instance_type"] == "trn2.48xlarge" && r["pricing_model"] == "on_demand_linux" && r["usd_per_hour"] != "" {
			trn2OD[r["region"]] = parseFloat(t, r["usd_per_hour"])
		}
	}
	for _, r := range sourceRows(t, "gpu_prices.csv") {
		if r["instance_type"] == "trn2.48xlarge" && r["price_spot_usd_per_hour"] != "" {
			trn2Spot[r["region"]] = append(trn2Spot[r["region"]], parseFloat(t, r["price_spot_usd_per_hour"]))
		}
	}
	if len(trn2OD) == 0 {
		t.Fatal("no trn2.48xlarge on-demand row in aws_accelerator_offers.csv")
	}
	trn2 := everyOffer(func(o map[string]any) error {
		region, _ := o["region"].(string)
		od, ok := trn2OD[region]
		if !ok || o["instance_type"] != "trn2.48xlarge" || o["on_demand_usd"] != price4(od) {
			return fmt.Errorf("%v in %s: on-demand %v, source %v", o["instance_type"], region, o["on_demand_usd"], od)
		}
		if spots := trn2Spot[region]; len(spots) > 0 {
			sort.Float64s(spots) // the catalog's spot is the median zone rate
			if want := price4(spots[len(spots)/2]); len(spots)%2 == 1 && o["spot_usd"] != want {
				return fmt.Errorf("trn2.48xlarge in %s: spot %v, source median %v", region, o["spot_usd"], want)
			}
		}
		return nil
	})

	ga := map[string]float64{} // NCv6 size -> GPU share, GA sizes only
	for _, r := range sourceRows(t, "azure_ncv6_rtxpro6000_skus.csv") {
		if strings.HasPrefix(r["status"], "GA") {
			ga[r["sku"]] = parseFloat(t, r["gpu_fraction"])
		}
	}
	ncv6Price := map[string]float64{} // sku/region -> on-demand
	for _, r := range sourceRows(t, "azure_gpu_ondemand_2026-06-18.csv") {
		if _, ok := ga[r["sku"]]; ok {
			ncv6Price[r["sku"]+"/"+r["region"]] = parseFloat(t, r["on_demand_usd_per_hour"])
		}
	}
	ncv6 := everyOffer(func(o map[string]any) error {
		it, _ := o["instance_type"].(string)
		want, ok := ncv6Price[it+"/"+o["region"].(string)]
		if !ok || o["on_demand_usd"] != price4(want) {
			return fmt.Errorf("%s in %v: on-demand %v, source %v (priced there: %v)", it, o["region"], o["on_demand_usd"], want, ok)
		}
		share := ga[it]
		gotShare, _ := o["gpu_fraction"].(float64)
		if (share < 1) != (gotShare > 0) || (share < 1 && gotShare != share) || (share >= 1 && o["gpus"] != share) {
			return fmt.Errorf("%s: gpus %v, gpu_fraction %v, source share %v", it, o["gpus"], o["gpu_fraction"], share)
		}
		return nil
	})
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: `
data "gpu_offers" "trn2" {
  clouds       = ["aws"]
  accelerators = ["TRAINIUM2"]
}
data "gpu_offers" "rtx_pro_6000" {
  clouds       = ["azure"]
  accelerators = ["RTX-PRO-6000"]
}`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.gpu_offers.trn2", tfjsonpath.New("offers"), trn2),
				statecheck.ExpectKnownValue("data.gpu_offers.trn2", tfjsonpath.New("offers"), knownvalue.ListSizeExact(len(trn2OD))),
				statecheck.ExpectKnownValue("data.gpu_offers.rtx_pro_6000", tfjsonpath.New("offers"), ncv6),
				statecheck.ExpectKnownValue("data.gpu_offers.rtx_pro_6000", tfjsonpath.New("offers"), knownvalue.ListSizeExact(len(ncv6Price))),
			},
		}},
	})
}

// A fractional A10 share serves a 1B model (it is the cheapest way to), and
// a training job on the same hardware rejects every fractional offer under
// fractional_gpu, one count per (offer, pricing model).
func TestAccCoverage_fractionalServesNotTrains(t *testing.T) {
	t.Parallel()
	cat := builtinForTest(t)
	fractionalPairs := 0
	for _, o := range cat.Offers {
		if o.Cloud == "azure" && o.Accelerator == "A10" && o.Fractional() {
			for _, pm := range []catalog.PricingModel{catalog.OnDemand, catalog.Spot, catalog.Reserved1Y, catalog.Reserved3Y, catalog.CapacityBlock} {
				if _, ok := o.Price(pm); ok {
					fractionalPairs++
				}
			}
		}
	}
	if fractionalPairs == 0 {
		t.Fatal("the catalog has no fractional azure A10 offer")
	}
	serve := objectSatisfies(func(b map[string]any) error {
		f, _ := b["gpu_fraction"].(float64)
		if !(f > 0 && f < 1) || b["gpus_per_node"] != 0.0 || attrFloat(b, "tokens_per_second") < 100 {
			return fmt.Errorf("best %v: gpu_fraction %v, gpus_per_node %v, %v tok/s; want a share of one A10 serving 100 tok/s",
				b["instance_type"], b["gpu_fraction"], b["gpus_per_node"], b["tokens_per_second"])
		}
		return nil
	})
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: `
data "gpu_recommendation" "serve" {
  workload    = { kind = "inference", model_parameters_b = 1, tokens_per_second = 100 }
  constraints = { clouds = ["azure"], accelerators = ["A10"] }
}
data "gpu_recommendation" "train" {
  workload    = { kind = "training", model_parameters_b = 1, training_tokens_b = 10 }
  constraints = { clouds = ["azure"], accelerators = ["A10"] }
}`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.gpu_recommendation.serve", tfjsonpath.New("best"), serve),
				statecheck.ExpectKnownValue("data.gpu_recommendation.train", tfjsonpath.New("best").AtMapKey("gpu_fraction"), knownvalue.Null()),
				statecheck.ExpectKnownValue("data.gpu_recommendation.train", tfjsonpath.New("rejected"), knownvalue.SetPartial([]knownvalue.Check{
					knownvalue.ObjectExact(map[string]knownvalue.Check{
						"reason": knownvalue.StringExact(planner.ReasonFractionalGPU), "count": knownvalue.Int64Exact(int64(fractionalPairs)),
					}),
				})),
			},
		}},
	})
}

// A serving load busy 2% of the month is cheapest on a serverless offer,
// which says why; the same load constant is not (dedicated instances win);
// gpu_tco of the serverless choice at the same duty cycle bills the same
// compute to the cent.
func TestAccCoverage_serverlessDutyCycle(t *testing.T) {
	t.Parallel()
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: `
locals {
  workload = { kind = "inference", model = "llama-3.1-8b", tokens_per_second = 500 }
}
data "gpu_recommendation" "bursty" {
  workload = merge(local.workload, { duty_cycle = 0.02 })
}
data "gpu_recommendation" "constant" {
  workload = merge(local.workload, { duty_cycle = 1 })
}
locals {
  best = data.gpu_recommendation.bursty.best
}
data "gpu_tco" "same" {
  cloud          = local.best.cloud
  region         = local.best.region
  instance_type  = local.best.instance_type
  instance_count = local.best.nodes
  months         = 1
  utilization    = 0.02
  pricing_mix    = { (local.best.pricing_model) = 1 }
}
locals {
  compute = one([for l in data.gpu_tco.same.breakdown : l.cost_usd if l.category == "compute"])
}
output "tco_agrees" {
  value = abs(local.compute - local.best.estimated_cost_usd) <= 0.01
}
output "cheaper_than_constant" {
  value = local.best.estimated_cost_usd < data.gpu_recommendation.constant.best.estimated_cost_usd
}`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.gpu_recommendation.bursty", tfjsonpath.New("best").AtMapKey("pricing_model"),
					knownvalue.StringExact("serverless")),
				statecheck.ExpectKnownValue("data.gpu_recommendation.bursty", tfjsonpath.New("best").AtMapKey("explanation"),
					knownvalue.StringRegexp(regexp.MustCompile(`serverless: billed only for the 2% of the month the load is there`))),
				statecheck.ExpectKnownValue("data.gpu_recommendation.constant", tfjsonpath.New("best").AtMapKey("pricing_model"),
					knownvalue.StringFunc(func(pm string) error {
						if pm == "serverless" {
							return fmt.Errorf("a constant load is best on serverless")
						}
						return nil
					})),
				statecheck.ExpectKnownValue("data.gpu_tco.same", tfjsonpath.New("pricing_model_comparison"), knownvalue.ListExact([]knownvalue.Check{
					knownvalue.ObjectPartial(map[string]knownvalue.Check{"pricing_model": knownvalue.StringExact("serverless")}),
				})),
				statecheck.ExpectKnownOutputValue("tco_agrees", knownvalue.Bool(true)),
				statecheck.ExpectKnownOutputValue("cheaper_than_constant", knownvalue.Bool(true)),
			},
		}},
	})
}

// Serverless offers appear in gpu_offers: one row per offer, only
// serverless_usd priced, equal to the source row's per-second rate × 3,600
// (RunPod bills no host on top of the GPU rate).
func TestAccCoverage_serverlessOffers(t *testing.T) {
	t.Parallel()
	perSecond := map[string]float64{} // RunPod flex GPU classes by resource
	for _, r := range sourceRows(t, "serverless_gpu_pricing.csv") {
		if r["provider"] == "RunPod" && r["product"] == "Serverless" && r["usd_per_second"] != "" {
			perSecond[r["resource"]+"/"+r["tier"]] = parseFloat(t, r["usd_per_second"])
		}
	}
	if len(perSecond) == 0 {
		t.Fatal("no RunPod Serverless rows in serverless_gpu_pricing.csv")
	}
	rates := map[float64]bool{}
	for _, v := range perSecond {
		rates[price4(v*3600)] = true
	}
	runpod := everyOffer(func(o map[string]any) error {
		name, _ := o["instance_type"].(string)
		if !strings.HasPrefix(name, "serverless-") {
			return nil // a RunPod pod, priced per instance
		}
		v, _ := o["serverless_usd"].(float64)
		if !rates[v] || o["on_demand_usd"] != nil || o["region"] != "" {
			return fmt.Errorf("%s: serverless_usd %v (no source row × 3,600 matches), on_demand_usd %v, region %q",
				name, o["serverless_usd"], o["on_demand_usd"], o["region"])
		}
		return nil
	})
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: `data "gpu_offers" "runpod" { clouds = ["runpod"] }`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.gpu_offers.runpod", tfjsonpath.New("offers"), runpod),
			},
		}},
	})
}

// Bad serverless input: a duty cycle of 0, above 1 or on a job, and
// instance pricing on a serverless offer, each gives one error naming the
// attribute, the value and what is allowed.
func TestAccCoverage_serverlessBadInput(t *testing.T) {
	t.Parallel()
	rec := func(workload string) string {
		return fmt.Sprintf(`data "gpu_recommendation" "r" { workload = %s }`, workload)
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      rec(`{ kind = "inference", model_parameters_b = 8, tokens_per_second = 100, duty_cycle = 0 }`),
				ExpectError: regexp.MustCompile(`(?s)workload.duty_cycle must be more than 0 and at most 1, got 0\.`),
			},
			{
				Config:      rec(`{ kind = "inference", model_parameters_b = 8, tokens_per_second = 100, duty_cycle = 1.5 }`),
				ExpectError: regexp.MustCompile(`(?s)workload.duty_cycle must be more than 0 and at\s+most 1, got 1.5\.`),
			},
			{
				Config:      rec(`{ kind = "training", model_parameters_b = 8, training_tokens_b = 1, duty_cycle = 0.5 }`),
				ExpectError: regexp.MustCompile(`(?s)workload.duty_cycle = 0.5: applies to kind = "inference" only`),
			},
			{
				Config: `
data "gpu_tco" "t" {
  cloud         = "modal"
  region        = ""
  instance_type = "functions-h100"
  months        = 1
  pricing_mix   = { on_demand = 1 }
}`,
				ExpectError: regexp.MustCompile(`(?s)modal functions-h100 \(workers placed by the platform\) has no\s+"on_demand"\s+price.*sold\s+as:\s+"serverless"`),
			},
			{
				Config: `
data "gpu_tco" "t" {
  cloud         = "modal"
  region        = "us-east-1"
  instance_type = "functions-h100"
  months        = 1
}`,
				ExpectError: regexp.MustCompile(`(?s)functions-h100 is a serverless offer that runs in: ""`),
			},
			{
				// Without a region, a serverless offer is priced where its
				// platform places the workers, and region says so ("").
				Config: `
data "gpu_tco" "t" {
  cloud         = "modal"
  instance_type = "functions-h100"
  months        = 1
  utilization   = 0.1
}`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.gpu_tco.t", tfjsonpath.New("region"), knownvalue.StringExact("")),
					statecheck.ExpectKnownValue("data.gpu_tco.t", tfjsonpath.New("regions"), knownvalue.ListSizeExact(0)),
					statecheck.ExpectKnownValue("data.gpu_tco.t", tfjsonpath.New("summary"), knownvalue.StringRegexp(regexp.MustCompile(`functions-h100`))),
				},
			},
		},
	})
}
