// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
)

// badConfig is one configuration the provider must refuse: with exactly
// `errors` diagnostics (1 when 0), one of them matching want, which names
// the attribute and the value; never a crash.
type badConfig struct {
	name     string
	config   string // data sources, resources, outputs; a provider block when it is what is tested
	want     string // errRe pattern (spaces match line breaks)
	errors   int    // diagnostics Terraform reports; 0 = 1
	function bool   // calls a provider function: Terraform 1.8 or later
}

// Configurations the bad configs are built from.
const (
	badTCO = `data "gpu_tco" "x" {
  cloud         = "aws"
  region        = "us-east-1"
  instance_type = "p5.48xlarge"
  %s
}`
	badEstimate = `data "gpu_estimate" "x" {
  accelerator = "H100"
  %s
}`
	badTraining  = `kind = "training", model_parameters_b = 70, training_tokens_b = 100`
	badRecommend = `data "gpu_recommendation" "x" {
  workload = { kind = "fine_tuning", model_parameters_b = 70, training_tokens_b = 1 }
  %s
}`
	badSpec = `resource "gpu_cluster_spec" "x" {
  name          = "x"
  cloud         = "aws"
  accelerator   = "H100"
  gpus_per_node = 8
  %s
}`
	badOffers = `data "gpu_offers" "x" {
  %s
}`
)

// digits309 is 10^308 written out: 309 digits.
var digits309 = "1" + strings.Repeat("0", 308)

// badConfigs are the inputs of issue 15 and their kin. Add a row for every
// new way to get an input wrong.
func badConfigs(t *testing.T) []badConfig {
	missing := filepath.Join("no-such-dir", "prices.yaml")
	abs, err := filepath.Abs(missing)
	if err != nil {
		t.Fatal(err)
	}
	est := func(attrs string) string { return fmt.Sprintf(badEstimate, attrs) }
	estW := func(workload, hw string) string {
		return est("workload = { " + workload + " }\n  " + hw)
	}
	return []badConfig{
		// Numbers beyond float64, beyond the limits, not whole.
		{name: "months 1e308", config: fmt.Sprintf(badTCO, `months = 1e308`),
			want: `Invalid Number.*months must be from 0.001 to 1200 months, got 1 × 10\^308\.`},
		{name: "months 1e308*10", config: fmt.Sprintf(badTCO, `months = 1e308*10`), want: `months must be from 0.001 .*, got 1 × 10\^309\.`},
		{name: "months 1e400", config: fmt.Sprintf(badTCO, `months = 1e400`), want: `months must be from 0.001 .*, got 1 × 10\^400\.`},
		{name: "months 1e-400", config: fmt.Sprintf(badTCO, `months = 1e-400`), want: `months must be from 0.001 .*, got 1 × 10\^-400\.`},
		{name: "months 5e-324", config: fmt.Sprintf(badTCO, `months = 5e-324`), want: `months must be from 0.001 .*, got 5 × 10\^-324\.`},
		{name: "extra_monthly_usd 1e308 pairs", config: fmt.Sprintf(badTCO, `months = 12
  extra_monthly_usd = { x = 1e308, y = 1e308 }`), errors: 2,
			want: `extra_monthly_usd\["x"\] must be from 0 to 1,000,000,000,000 USD/month, got 1 × 10\^308\..*extra_monthly_usd\["y"\]`},
		{name: "extra_monthly_usd null", config: fmt.Sprintf(badTCO, `months = 12
  extra_monthly_usd = { x = null }`), want: `Null Map Value.*extra_monthly_usd\["x"\] is null`},
		{name: "storage.block_gb 1e308", config: fmt.Sprintf(badTCO, `months = 12
  storage = { block_gb = 1e308 }`), want: `storage.block_gb must be from 0 to 1,000,000,000 GB, got 1 × 10\^308\.`},
		{name: "egress 1e308", config: fmt.Sprintf(badTCO, `months = 12
  network = { egress_gb_per_month = 1e308 }`), want: `network.egress_gb_per_month must be from 0 to 1,000,000,000 GB, got 1 × 10\^308\.`},
		{name: "pricing_mix 1e400", config: fmt.Sprintf(badTCO, `months = 12
  pricing_mix = { on_demand = 1e400 }`), want: `pricing_mix\["on_demand"\] must be from 0 to 1, got 1 × 10\^400\.`},
		{name: "instance_count 8.5", config: fmt.Sprintf(badTCO, `months = 12
  instance_count = 8.5`), want: `instance_count must be a whole number from 1 to 1,000,000 nodes, got 8.5\.`},
		{name: "instance_count 2^62", config: fmt.Sprintf(badTCO, `months = 12
  instance_count = 4611686018427387904`), want: `instance_count must be a whole number .*, got 4.612 × 10\^18\.`},
		{name: "carbon price 1e308", config: `provider "gpu" { carbon_price_usd_per_tonne = 1e308 }` + "\n" + fmt.Sprintf(badTCO, `months = 12`),
			want: `carbon_price_usd_per_tonne must be from 0 to 100,000 USD/t, got 1 × 10\^308\.`},
		{name: "discount 1e308", config: `provider "gpu" { discounts = { aws = 1e308 } }` + "\n" + fmt.Sprintf(badOffers, ""),
			want: `discounts\["aws"\] must be at least 0 and less than 1, got 1 × 10\^308\.`},
		{name: "discount null", config: `provider "gpu" { discounts = { aws = null } }` + "\n" + fmt.Sprintf(badOffers, ""),
			want: `Null Map Value.*discounts\["aws"\] is null`},
		{name: "max_catalog_age_days 1e20", config: `provider "gpu" { max_catalog_age_days = 1e20 }` + "\n" + fmt.Sprintf(badOffers, ""),
			want: `max_catalog_age_days must be a whole number from 1 to 36,500 days, got 1 × 10\^20\.`},
		{name: "gpu_count 2^62", config: estW(badTraining, `gpu_count = 4611686018427387904`),
			want: `gpu_count must be a whole number from 1 to 1,000,000 GPUs, got 4.612 × 10\^18\.`},
		{name: "gpu_count 2^40", config: estW(badTraining, `gpu_count = 1099511627776`),
			want: `gpu_count must be a whole number from 1 to 1,000,000 GPUs, got 1,099,511,627,776\.`},
		{name: "gpus_per_node 2^62", config: estW(badTraining, `gpu_count = 8
  gpus_per_node = 4611686018427387904`), want: `gpus_per_node must be a whole number from 1 to 65,536 GPUs, got 4.612 × 10\^18\.`},
		{name: "layers and kv_heads 3037000500", config: estW(badTraining+`, layers = 3037000500, kv_heads = 3037000500`, `gpu_count = 8`),
			errors: 2, want: `workload.(layers|kv_heads) must be a whole number from 1 to .*, got 3,037,000,500\..*workload.(layers|kv_heads) must be`},
		{name: "sequence_length 2^63-1", config: estW(badTraining+`, sequence_length = 9223372036854775807`, `gpu_count = 8`),
			want: `workload.sequence_length must be a whole number from 1 to 100,000,000 tokens, got 9.223 × 10\^18\.`},
		{name: "sequence_length 2^64", config: estW(badTraining+`, sequence_length = 18446744073709551616`, `gpu_count = 8`),
			want: `workload.sequence_length must be a whole number .*, got 1.845 × 10\^19\.`},
		{name: "309-digit parameter count", config: estW(`kind = "training", training_tokens_b = 100, model_parameters_b = `+digits309, `gpu_count = 8`),
			want: `workload.model_parameters_b must be from 0.0001 to 100,000 B parameters, got 1 × 10\^308\.`},
		{name: "negative training_tokens_b once", config: estW(`kind = "training", model_parameters_b = 70, training_tokens_b = -5`, `gpu_count = 8`),
			want: `workload.training_tokens_b must be more than 0 and at most 10,000,000 B tokens, got -5\.`},
		{name: "kind enum once", config: estW(`kind = "trainin", model_parameters_b = 70, training_tokens_b = 5`, `gpu_count = 8`),
			want: `Invalid Value.*workload.kind = "trainin" is not one of "training", "fine_tuning", "inference" \(any case\)\. Closest: "training"\.`},
		{name: "precision enum once", config: estW(badTraining+`, precision = "fp9"`, `gpu_count = 8`),
			want: `workload.precision = "fp9" is not one of "fp32", .*Closest: "fp8"`},
		{name: "speculative method enum once", config: estW(`kind = "inference", model_parameters_b = 70, speculative_decoding = { method = "eagle" }`,
			`gpu_count = 8`), want: `workload.speculative_decoding.method = "eagle" is not one of "mtp", "draft_model"`},
		{name: "two workload mistakes, two errors", config: estW(`kind = "trainin", model_parameters_b = 70, training_tokens_b = -5`, `gpu_count = 8.5`),
			errors: 3, want: `gpu_count must be a whole number .*, got 8.5\.`},
		// Lists: null elements, duplicates, empty.
		{name: "provider clouds with null", config: `provider "gpu" { clouds = ["aws", null] }` + "\n" + fmt.Sprintf(badOffers, ""),
			want: `Null List Element.*clouds\[1\] is null: give a name or remove the element\.`},
		{name: "provider clouds twice", config: `provider "gpu" { clouds = ["aws", "gcp", "aws"] }` + "\n" + fmt.Sprintf(badOffers, ""),
			want: `Duplicate List Element.*clouds lists "aws" twice \(elements 0 and 2\)`},
		{name: "provider clouds empty", config: `provider "gpu" { clouds = [] }` + "\n" + fmt.Sprintf(badOffers, ""),
			want: `Empty List.*clouds = \[\]: an empty allow-list allows no cloud`},
		{name: "constraints clouds twice", config: fmt.Sprintf(badRecommend, `constraints = { clouds = ["aws", "aws"] }`),
			want: `constraints.clouds lists "aws" twice \(elements 0 and 1\)`},
		{name: "constraints regions null", config: fmt.Sprintf(badRecommend, `constraints = { regions = [null] }`),
			want: `constraints.regions\[0\] is null`},
		{name: "constraints max_gpus 2^62", config: fmt.Sprintf(badRecommend, `constraints = { max_gpus = 4611686018427387904 }`),
			want: `constraints.max_gpus must be a whole number from 1 to 1,000,000 GPUs`},
		{name: "offers regions twice", config: fmt.Sprintf(badOffers, `regions = ["us-east-1", "us-east-1"]`),
			want: `regions lists "us-east-1" twice`},
		{name: "offers clouds empty", config: fmt.Sprintf(badOffers, `clouds = []`), want: `clouds = \[\]: an empty list matches no offer`},
		// gpu_cluster_spec.
		{name: "spec nodes 2^62", config: fmt.Sprintf(badSpec, `nodes = 4611686018427387904`),
			want: `nodes must be a whole number from 1 to 100,000 nodes, got 4.612 × 10\^18\.`},
		{name: "spec storage 1e12", config: fmt.Sprintf(badSpec, `storage = { block_gb = 1e12 }`),
			want: `storage.block_gb must be a whole number from 0 to 1,000,000,000 GB, got 1,000,000,000,000\.`},
		{name: "spec labels null", config: fmt.Sprintf(badSpec, `labels = { team = null }`), want: `labels\["team"\] is null`},
		// Provider functions.
		{name: "training_hours 1e400", function: true, config: `output "x" { value = provider::gpu::training_hours(1e400, 10, "H100", 8) }`,
			want: `"model_parameters_b" parameter: Invalid Number: model_parameters_b must be from 0.0001 to 100,000 B parameters, got 1 × 10\^400`},
		{name: "training_hours 8.5 GPUs", function: true, config: `output "x" { value = provider::gpu::training_hours(70, 10, "H100", 8.5) }`,
			want: `"gpu_count" parameter: Invalid Number: gpu_count must be a whole number from 1 to 1,000,000 GPUs, got 8.5`},
		{name: "training_hours 2^62 GPUs", function: true, config: `output "x" { value = provider::gpu::training_hours(70, 10, "H100", 4611686018427387904) }`,
			want: `gpu_count must be a whole number .*, got 4.612 × 10\^18`},
		{name: "vram_required_gb 5e-324", function: true, config: `output "x" { value = provider::gpu::vram_required_gb(5e-324, "bf16", "inference") }`,
			want: `model_parameters_b must be from 0.0001 .*, got 5 × 10\^-324`},
		{name: "instance_type 1e20 GPUs", function: true, config: `output "x" { value = provider::gpu::instance_type("aws", "H100", 1e20) }`,
			want: `"gpus_per_node" parameter: Invalid Number: gpus_per_node must be a whole number from 1 to 1024 GPUs`},
		// catalog_file: a relative path, and a path not known at plan.
		{name: "catalog_file relative", config: fmt.Sprintf(`provider "gpu" { catalog_file = %q }`, missing) + "\n" + fmt.Sprintf(badOffers, ""),
			want: `Invalid Catalog File.*\(relative: resolved against the root module directory, where Terraform runs, whichever module sets it, so ` + regexp.QuoteMeta(abs)},
		{name: "catalog_file unknown at plan", config: `resource "terraform_data" "f" { input = "prices.yaml" }
provider "gpu" { catalog_file = "${terraform_data.f.id}.yaml" }` + "\n" + fmt.Sprintf(badOffers, ""),
			want: `Catalog File Not Known At Plan.*catalog_file is not known until apply.*must be known at plan`},
		{name: "overlay-only cloud, overlay unknown", config: `resource "terraform_data" "f" { input = "prices.yaml" }
provider "gpu" {
  catalog_file = "${terraform_data.f.id}.yaml"
  clouds       = ["onprem"]
}` + "\n" + fmt.Sprintf(badSpec, "") + "\n" + fmt.Sprintf(badEstimate, "workload = { "+badTraining+" }\n  gpu_count = 8"),
			errors: 2, want: `Catalog File Not Known At Plan`},
	}
}

// diagnosticRe matches the heading of each diagnostic Terraform prints.
var diagnosticRe = regexp.MustCompile(`(?m)^[\s│]*Error: `)

// TestAccBadConfigs plans each bad configuration against the real
// Terraform binary: the plan fails with the expected number of
// diagnostics, one matching the expected message, and the provider does
// not crash (a crash fails the plan with "The plugin encountered an error"
// instead).
func TestAccBadConfigs(t *testing.T) {
	t.Parallel()
	runBadConfigs(t, badConfigs(t))
}

// runBadConfigs plans each bad configuration (see TestAccBadConfigs).
func runBadConfigs(t *testing.T, configs []badConfig) {
	for _, bc := range configs {
		t.Run(strings.ReplaceAll(bc.name, " ", "_"), func(t *testing.T) {
			want := errRe(bc.want)
			errors := max(bc.errors, 1)
			checked := false
			tc := resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps:                    []resource.TestStep{{Config: bc.config, PlanOnly: true}},
				ErrorCheck: func(err error) error {
					checked = true
					text := err.Error()
					if strings.Contains(text, "plugin") && strings.Contains(text, "crash") {
						return fmt.Errorf("the provider crashed: %w", err)
					}
					if !want.MatchString(text) {
						return fmt.Errorf("no diagnostic matches %q: %w", bc.want, err)
					}
					if n := len(diagnosticRe.FindAllString(text, -1)); n != errors {
						return fmt.Errorf("%d diagnostics, want %d: %w", n, errors, err)
					}
					return nil
				},
			}
			if bc.function {
				tc.TerraformVersionChecks = []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)}
			}
			resource.UnitTest(t, tc)
			if !checked && !t.Skipped() {
				t.Fatalf("the configuration planned without an error:\n%s", bc.config)
			}
		})
	}
}
