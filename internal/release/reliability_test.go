// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package release_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The reliability table (issue 23): one row per defect found by trying
// the provider as an attacker would, each with the input that showed it
// and what the real Terraform CLI must now say: exactly one error
// diagnostic (its summary and a part of its detail), or a plan that
// succeeds with the right figures. A row never accepts Terraform's
// "provider bug" messages, a hang (every command runs under hangGuard) or a
// count of diagnostics that grows with the input.
//
// Rows run `terraform plan -json` (and apply where the defect needs one)
// against the provider built from this tree, through a CLI configuration
// with dev_overrides (no init per row); make overlay's importer runs as
// its binary. Unit tests keep the finer points of each fix (see the
// packages' tests named in each row's comment).

// hangGuard bounds every command of the table: a defect of the "hangs"
// family took 13 minutes and ignored SIGTERM; the slowest row (10,000
// names in a list) answers in about 10 s on a loaded 2-core machine.
const hangGuard = 3 * time.Minute

const relWorkload = `workload = {
    kind               = "inference"
    model_parameters_b = 8
    tokens_per_second  = 1000
  }`

const relTCO = `cloud         = "aws"
  region        = "us-east-1"
  instance_type = "p5.48xlarge"
  months        = 1`

// unknownAtPlan is a value Terraform knows only at apply.
const unknownAtPlan = "resource \"terraform_data\" \"later\" {}\n"

// relRow is one row of the table.
type relRow struct {
	defect string
	config string            // after the required_providers block
	files  map[string]string // files beside main.tf
	setup  func(t *testing.T, dir string)
	// err is the summary of the one error diagnostic plan gives and detail
	// a part of its detail; err "" expects the plan to succeed.
	err, detail string
	// more is how many more error diagnostics may follow (a summarised
	// list: its five shown and the count).
	more int
	// outputs checks the planned outputs of a plan that succeeds.
	outputs map[string]func(v any) string
	// notIn is text no diagnostic may contain.
	notIn string
}

// usesFunctions reports whether a row calls a provider function, which
// needs Terraform 1.8.
func (row relRow) usesFunctions() bool { return strings.Contains(row.config, "provider::") }

func TestReliability(t *testing.T) {
	r := newRelCLI(t)
	for _, row := range relRows() {
		t.Run(row.defect, func(t *testing.T) { r.check(t, row) })
	}
	t.Run("catalog_file edited between plan -out and apply of an update", r.catalogChangedSincePlan)
	t.Run("make overlay on a FIFO or /dev/zero (every importer)", r.importerGuards)
	t.Run("make overlay: GCP negative nanos, AWS 0.0, a negative price", r.importerOddPrices)
}

func relRows() []relRow {
	one := func() string {
		return "data \"gpu_tco\" \"t\" {\n  " + relTCO + "\n}\n"
	}
	spec := func(extra string) string {
		return "resource \"gpu_cluster_spec\" \"x\" {\n  name          = \"x\"\n  cloud         = \"aws\"\n  accelerator   = \"H100\"\n" +
			"  gpus_per_node = 8\n" + extra + "}\n"
	}
	estimate := func(extra string) string {
		return "data \"gpu_estimate\" \"e\" {\n  workload = {\n    kind = \"inference\"\n    model_parameters_b = 8\n" + extra +
			"  }\n  accelerator = \"H100\"\n  gpu_count = 1\n}\n"
	}
	recommend := func(constraints string) string {
		return "data \"gpu_recommendation\" \"r\" {\n  " + relWorkload + "\n  constraints = " + constraints + "\n}\n"
	}
	withCatalog := func(body string) string { return "provider \"gpu\" {\n  catalog_file = \"c.yaml\"\n}\n" + body }
	total := func(want float64) func(any) string {
		return func(v any) string {
			if f, ok := v.(float64); !ok || f < want*0.999 || f > want*1.001 {
				return fmt.Sprintf("%v, want %v", v, want)
			}
			return ""
		}
	}
	positive := func(v any) string {
		if f, ok := v.(float64); !ok || f <= 0 {
			return fmt.Sprintf("%v, want a positive number", v)
		}
		return ""
	}
	return []relRow{
		// Provider-bug errors (provider tests: TestNotEmpty..., cluster_spec_resource_test).
		{defect: "gpu_cluster_spec region empty", config: spec("  region = \"\"\n"),
			err: "Empty Value", detail: `region = "" is empty: give a region code of cloud`},
		{defect: "provider clouds unknown at plan", config: unknownAtPlan + "provider \"gpu\" {\n  clouds = [terraform_data.later.id]\n}\n" + spec(""),
			err: "Provider Configuration Not Known At Plan", detail: "The provider's clouds is not known until apply"},
		{defect: "import ID name a lone surrogate escape (read as U+FFFD)",
			config: "import {\n  to = gpu_cluster_spec.x\n  id = " + strconv.Quote(`{"apiVersion":"gpuplan.io/v1","kind":"GPUCluster","metadata":{"name":"a\ufffdb",`+
				`"annotations":{"gpuplan.io/cloud":"aws"}},"spec":{"accelerator":"H100","gpusPerNode":8,"nodes":1,"pricingModel":"on_demand",`+
				`"storage":{"blockGB":0,"objectGB":0}}}`) + "\n}\n" + spec(""),
			err: "Invalid Cluster Spec", detail: "contains U+FFFD, the replacement character"},

		// Hangs (provider server_test.go TestSummarizeDiagnostics; inputerr AddLazy).
		{defect: "10,000 unknown names in a list attribute",
			config: recommend(`{ regions = flatten([for j in range(10) : [for i in range(1000) : "nowhere-${j}-${i}"]]) }`),
			err:    "Unknown Region", detail: `constraints.regions[0] = "nowhere-0-0" is not a region in the catalog`, more: 5},
		{defect: "10,000 unknown keys in a map attribute",
			config: "provider \"gpu\" {\n  discounts = merge([for j in range(10) : {for i in range(1000) : \"nocloud-${j}-${i}\" => 0.1}]...)\n}\n" + one(),
			err:    "Unknown Cloud", detail: `discounts has the key "nocloud-0-0", which is not a cloud in the catalog`, more: 5},

		// Memory (overlay TestOverlayHostileShapes, BenchmarkOverlay*).
		{defect: "60 MB YAML catalog_file of one long list", config: withCatalog(one()),
			setup: func(t *testing.T, dir string) {
				writeText(t, filepath.Join(dir, "c.yaml"), strings.Repeat("- 1\n", 15<<20))
			},
			err: "Invalid Catalog File", detail: "the top level must be a mapping"},
		{defect: "12.5 M JSON nulls", config: "provider \"gpu\" {\n  catalog_file = \"c.json\"\n}\n" + one(),
			setup: func(t *testing.T, dir string) {
				writeText(t, filepath.Join(dir, "c.json"), `{"offers":[`+strings.Repeat("null,", 12_500_000-1)+"null]}")
			},
			err: "Invalid Catalog File", detail: "problems"},

		// Silent wrong results.
		{defect: "provider discounts unknown at plan", config: unknownAtPlan + "provider \"gpu\" {\n  discounts = { aws = length(terraform_data.later.id) > 0 ? 0.5 : 0.1 }\n}\n" + one(),
			err: "Provider Configuration Not Known At Plan", detail: "The provider's discounts is not known until apply"},
		{defect: "provider carbon price unknown at plan", config: unknownAtPlan + "provider \"gpu\" {\n  carbon_price_usd_per_tonne = length(terraform_data.later.id)\n}\n" + one(),
			err: "Provider Configuration Not Known At Plan", detail: "carbon_price_usd_per_tonne is not known until apply"},
		{defect: "speculative_decoding method empty", config: estimate("    speculative_decoding = { method = \"\" }\n"),
			err: "Empty Value", detail: "or leave speculative_decoding out (or null) to turn it off"},
		{defect: "precision empty", config: estimate("    precision = \"\"\n"), err: "Empty Value", detail: "or leave precision out (or null) for its default"},
		{defect: "precision blank", config: estimate("    precision = \" \"\n"), err: "Empty Value", detail: `workload.precision = " " is blank: give one of`},
		{defect: "fine_tuning_method empty",
			config: "data \"gpu_estimate\" \"e\" {\n  workload = {\n    kind = \"fine_tuning\"\n    model_parameters_b = 8\n    training_tokens_b = 1\n" +
				"    fine_tuning_method = \"\"\n  }\n  accelerator = \"H100\"\n  gpu_count = 8\n}\n",
			err: "Empty Value", detail: "or leave fine_tuning_method out (or null) for its default"},
		{defect: "model blank", config: estimate("    model = \"  \"\n"), err: "Empty Value", detail: `workload.model = "  " is blank: name a model preset`},
		{defect: "model empty", config: estimate("    model = \"\"\n"), err: "Empty Value", detail: `workload.model = "" is empty: name a model preset`},
		{defect: "catalog_file egress tiers out of order (unlimited first)",
			config: withCatalog(one()), files: map[string]string{"c.yaml": "clouds:\n  - id: aws\n    egress_tiers:\n" +
				"      - {up_to_gb: 0, usd_per_gb: 0.05}\n      - {up_to_gb: 10240, usd_per_gb: 0.09}\n"},
			err: "Invalid Catalog File", detail: "0 (unlimited) is for the last tier only"},

		// Messages (the 15 families).
		{defect: "pricing_mix of 1/3 and 2/3 (was: cannot store 0.3333333333 in float64)",
			config:  "data \"gpu_tco\" \"t\" {\n  " + relTCO + "\n  pricing_mix = { on_demand = 1/3, spot = 2/3 }\n}\noutput \"total\" { value = data.gpu_tco.t.total_cost_usd }\n",
			outputs: map[string]func(any) string{"total": positive}},
		{defect: "extra_monthly_usd of 1e-320 (was: cannot store 1e-320 in float64)",
			config:  "data \"gpu_tco\" \"t\" {\n  " + relTCO + "\n  extra_monthly_usd = { x = 1e-320 }\n}\noutput \"total\" { value = data.gpu_tco.t.total_cost_usd }\n",
			outputs: map[string]func(any) string{"total": positive}},
		{defect: "discounts of 1e-320 (was: cannot store 1e-320 in float64)",
			config:  "provider \"gpu\" {\n  discounts = { aws = 1e-320 }\n}\ndata \"gpu_tco\" \"t\" {\n  " + relTCO + "\n}\noutput \"total\" { value = data.gpu_tco.t.total_cost_usd }\n",
			outputs: map[string]func(any) string{"total": positive}},
		{defect: "an unknown map value in discounts (was: target type cannot handle unknown values)",
			config: unknownAtPlan + "provider \"gpu\" {\n  discounts = { aws = 0.1, gcp = length(terraform_data.later.id) }\n}\n" + one(),
			err:    "Provider Configuration Not Known At Plan", detail: "discounts is not known", notIn: "Value Conversion Error"},
		{defect: "months = 1/0 (was: +Inf × 10^0)", config: "data \"gpu_tco\" \"t\" {\n  cloud = \"aws\"\n  instance_type = \"p5.48xlarge\"\n  months = 1/0\n}\n",
			err: "Invalid Number", detail: "got infinity", notIn: "Inf × 10^0"},
		{defect: "max_hourly_cost_usd = 1e-9 (was: echoed as = 0)", config: recommend("{ max_hourly_cost_usd = 1e-9 }"),
			err: "No GPU Offer Satisfies The Constraints", detail: "max_hourly_cost_usd = 1 × 10^-9:", notIn: "max_hourly_cost_usd = 0:"},
		{defect: "compliance gdpr twice (was: lists both gdpr and gdpr)", config: recommend(`{ compliance = ["gdpr", "gdpr"] }`),
			err: "Duplicate List Element", detail: `constraints.compliance lists "gdpr" twice`},
		{defect: "max_co2e_kg where no candidate has a CO2e figure (was: each alone can be met: and nothing)",
			config: recommend(`{ regions = ["EU-CZ-1"], max_co2e_kg = 1 }`),
			err:    "No GPU Offer Satisfies The Constraints", detail: "no candidate that passes the other constraints has a known CO2e figure",
			notIn: "each alone can be met:  "},
		{defect: "catalog_file empty (was: <cwd> is a directory)", config: "provider \"gpu\" {\n  catalog_file = \"\"\n}\n" + one(),
			err: "Empty Value", detail: `catalog_file = "" is empty`, notIn: "is a directory"},
		{defect: "a field the file never set (was: must be more than 0 …, got 0)", config: withCatalog(one()),
			files: map[string]string{"c.yaml": "accelerators:\n  - id: H100\n    interconnect_kind: pcie\n"},
			err:   "Invalid Catalog File", detail: `field "memory_bandwidth_tbps": not set, and required here: must be more than 0`, notIn: "got 0"},
		{defect: "catalog_file YAML 1e400 (was: got a string)", config: withCatalog(one()),
			files: map[string]string{"c.yaml": "offers:\n  - cloud: aws\n    instance_type: p5.48xlarge\n    region: us-east-1\n    on_demand_usd: 1e400\n"},
			err:   "Invalid Catalog File", detail: "got 1 × 10^400", notIn: "got a string"},
		{defect: "cluster name of 200 two-byte characters (was: counted as 400 bytes)",
			config: "resource \"gpu_cluster_spec\" \"x\" {\n  name = \"" + strings.Repeat("é", 200) + "\"\n  cloud = \"aws\"\n  accelerator = \"H100\"\n  gpus_per_node = 8\n}\n" +
				"output \"n\" { value = length(gpu_cluster_spec.x.name) }\n",
			outputs: map[string]func(any) string{"n": total(200)}},
		{defect: "cluster name of 254 characters", config: "resource \"gpu_cluster_spec\" \"x\" {\n  name = \"" + strings.Repeat("é", 254) + "\"\n  cloud = \"aws\"\n  accelerator = \"H100\"\n  gpus_per_node = 8\n}\n",
			err: "Invalid Cluster Name", detail: "must be at most 253 characters, got 254"},
		{defect: "AWS in gpu_tco (was: rejected here, accepted by gpu_offers)",
			config:  "data \"gpu_tco\" \"t\" {\n  cloud = \"AWS\"\n  region = \"US-EAST-1\"\n  instance_type = \"P5.48XLARGE\"\n  months = 1\n}\noutput \"r\" { value = data.gpu_tco.t.region }\n",
			outputs: map[string]func(any) string{"r": func(v any) string { return diff(v, "us-east-1") }}},
		{defect: "AWS in the provider's clouds (was: rejected)",
			config:  "provider \"gpu\" {\n  clouds = [\"AWS\"]\n}\ndata \"gpu_offers\" \"o\" {\n  accelerators = [\"H100\"]\n}\noutput \"n\" { value = length(data.gpu_offers.o.offers) }\n",
			outputs: map[string]func(any) string{"n": positive}},
		{defect: "AWS in the provider's discounts (was: rejected, or a key that discounted nothing)",
			config: "provider \"gpu\" {\n  discounts = { AWS = 0.5 }\n}\nprovider \"gpu\" {\n  alias = \"list\"\n}\n" + one() +
				"data \"gpu_tco\" \"list\" {\n  provider = gpu.list\n  " + relTCO + "\n}\n" +
				"output \"ratio\" { value = data.gpu_tco.t.total_cost_usd / data.gpu_tco.list.total_cost_usd }\n",
			outputs: map[string]func(any) string{"ratio": total(0.5)}},
		{defect: "AWS and US-EAST-1 in gpu_cluster_spec (was: rejected)",
			config:  "resource \"gpu_cluster_spec\" \"x\" {\n  name = \"x\"\n  cloud = \"AWS\"\n  region = \"US-EAST-1\"\n  pricing_model = \"ON_DEMAND\"\n  accelerator = \"h100\"\n  gpus_per_node = 8\n}\noutput \"it\" { value = gpu_cluster_spec.x.instance_type }\n",
			outputs: map[string]func(any) string{"it": func(v any) string { return diff(v, "p5.48xlarge") }}},
		{defect: "a 20,000-character name echoed whole", config: recommend(`{ regions = ["` + strings.Repeat("x", 20000) + `"] }`),
			err: "Unknown Region", detail: `…" (20000 characters) is not a region in the catalog`, notIn: strings.Repeat("x", 100)},
		{defect: "objective with a space and in capitals (was: refused at validate, read by the planner)",
			config:  "data \"gpu_recommendation\" \"r\" {\n  " + relWorkload + "\n  objective = \" COST\"\n}\noutput \"n\" { value = length(data.gpu_recommendation.r.candidates) }\n",
			outputs: map[string]func(any) string{"n": positive}},
		{defect: "an objective that does not exist", config: "data \"gpu_recommendation\" \"r\" {\n  " + relWorkload + "\n  objective = \"cheapest\"\n}\n",
			err: "Invalid Value", detail: `objective = "cheapest"; allowed: "cost", "time", "carbon", "balanced"`},
		{defect: "a deadline no candidate meets by a fraction of an hour (was: needs 0.0 h)",
			config: "data \"gpu_recommendation\" \"r\" {\n  workload = {\n    kind = \"training\"\n    model_parameters_b = 1\n    training_tokens_b = 0.001\n  }\n" +
				"  constraints = { deadline_hours = 0.000001 }\n}\n",
			err: "No GPU Offer Satisfies The Constraints", detail: "deadline_hours = 1 × 10^-6: the fastest candidate", notIn: "needs 0.0 h"},
		{defect: "hourly_price_usd with an empty region (was: \"\" is not a region, Closest: …)",
			config: "output \"p\" { value = provider::gpu::hourly_price_usd(\"aws\", \"p5.48xlarge\", \"\", \"on_demand\") }\n",
			err:    "Invalid function argument", detail: `region = "" is empty: give one of the regions where p5.48xlarge is offered`},
		{defect: "aws and AWS in one list (a duplicate in any case)", config: recommend(`{ clouds = ["aws", "AWS"] }`),
			err: "Duplicate List Element", detail: `constraints.clouds lists "aws" and "AWS" (elements 0 and 1), one name`},

		// Security.
		{defect: "catalog_file symlinked to a secret file", config: withCatalog(one()),
			setup: func(t *testing.T, dir string) {
				secret := filepath.Join(t.TempDir(), "secret.txt")
				writeText(t, secret, "db_password: s3cr3t-0123456789-abcdefghijklmnopqrstuvwxyz-tail-of-the-secret\n")
				if err := os.Symlink(secret, filepath.Join(dir, "c.yaml")); err != nil {
					t.Fatal(err)
				}
			},
			err: "Invalid Catalog File", detail: "db_password", notIn: "tail-of-the-secret"},
		{defect: "a right-to-left override in a catalog_file name", config: withCatalog(one()),
			files: map[string]string{"c.yaml": "clouds:\n  - id: myc\n    name: \"My\\u202eCloud\"\n    pue: 1.2\n"},
			err:   "Invalid Catalog File", detail: "U+202E, a bidirectional control character"},
		{defect: "a catalog_file name not in NFC", config: withCatalog(one()),
			files: map[string]string{"c.yaml": "clouds:\n  - id: \"cafe\\u0301\"\n    pue: 1.2\n"},
			err:   "Invalid Catalog File", detail: "is not in Unicode normalization form C"},
	}
}

func diff(got any, want string) string {
	if got != want {
		return fmt.Sprintf("%v, want %q", got, want)
	}
	return ""
}

// relCLI runs Terraform against the provider built from this tree.
type relCLI struct {
	*cli
	rc        string // CLI configuration with dev_overrides
	functions bool   // Terraform 1.8 or later: provider functions
}

func newRelCLI(t *testing.T) *relCLI {
	c := newCLI(t)
	bin := filepath.Join(c.home, "bin")
	c.run("../..", false, "go", "build", "-o", filepath.Join(bin, "terraform-provider-gpu"), ".")
	rc := filepath.Join(c.home, "dev.tfrc")
	writeText(t, rc, fmt.Sprintf("provider_installation {\n  dev_overrides {\n    \"registry.terraform.io/gpuplan/gpu\" = %q\n  }\n  direct {}\n}\n", bin))
	var v struct {
		Version string `json:"terraform_version"`
	}
	if err := json.Unmarshal([]byte(c.run(c.home, true, c.tf, "version", "-json")), &v); err != nil {
		t.Fatal(err)
	}
	var major, minor int
	_, _ = fmt.Sscanf(v.Version, "%d.%d", &major, &minor)
	return &relCLI{cli: c, rc: rc, functions: major > 1 || minor >= 8}
}

// try runs terraform in dir under hangGuard and returns its output and
// error (a plan that finds errors exits 1).
func (r *relCLI) try(t *testing.T, dir string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.tf, append(args, "-no-color")...)
	cmd.Dir = dir
	cmd.Env = append(append([]string{}, r.env...), "TF_CLI_CONFIG_FILE="+r.rc, "HTTPS_PROXY=http://127.0.0.1:9", "HTTP_PROXY=http://127.0.0.1:9")
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("terraform %s: no answer within %v (a hang)", strings.Join(args, " "), hangGuard)
	}
	return string(out), err
}

// errorsOf returns the error diagnostics of a -json run's output.
func errorsOf(out string) []diagnostic {
	var ds []diagnostic
	for _, line := range strings.Split(out, "\n") {
		var msg struct {
			Type       string     `json:"type"`
			Diagnostic diagnostic `json:"diagnostic"`
		}
		if json.Unmarshal([]byte(line), &msg) == nil && msg.Type == "diagnostic" && msg.Diagnostic.Severity == "error" {
			ds = append(ds, msg.Diagnostic)
		}
	}
	return ds
}

func (r *relCLI) dir(t *testing.T, row relRow) string {
	dir := t.TempDir()
	writeText(t, filepath.Join(dir, "main.tf"), "terraform {\n  required_providers {\n    gpu = { source = \"gpuplan/gpu\" }\n  }\n}\n\n"+row.config)
	for name, content := range row.files {
		writeText(t, filepath.Join(dir, name), content)
	}
	if row.setup != nil {
		row.setup(t, dir)
	}
	return dir
}

func (r *relCLI) check(t *testing.T, row relRow) {
	if row.usesFunctions() && !r.functions {
		t.Skip("provider functions need Terraform 1.8")
	}
	dir := r.dir(t, row)
	if row.err == "" {
		r.checkOutputs(t, dir, row)
		return
	}
	out, _ := r.try(t, dir, "plan", "-json", "-input=false")
	errs := errorsOf(out)
	if len(errs) == 0 || len(errs) > 1+row.more {
		t.Fatalf("%d error diagnostics, want 1 (then at most %d): %+v\n%s", len(errs), row.more, errs, tail(out))
	}
	t.Logf("%s: %s", errs[0].Summary, errs[0].Detail) // what a user reads (go test -v: the message families)
	if e := errs[0]; e.Summary != row.err || !strings.Contains(e.Detail, row.detail) {
		t.Errorf("error %q: %q\nwant %q containing %q", e.Summary, e.Detail, row.err, row.detail)
	}
	if row.more > 0 && len(errs) == 1+row.more && !strings.HasSuffix(errs[row.more].Summary, "More Errors") {
		t.Errorf("the last of %d diagnostics is %q, not a count of the others", len(errs), errs[row.more].Summary)
	}
	if row.notIn != "" && strings.Contains(out, row.notIn) {
		t.Errorf("the output contains %q", row.notIn)
	}
	if strings.Contains(out, "provider bug") || strings.Contains(out, "bug in the provider") {
		t.Errorf("a provider-bug message:\n%s", tail(out))
	}
}

func (r *relCLI) checkOutputs(t *testing.T, dir string, row relRow) {
	if out, err := r.try(t, dir, "plan", "-input=false", "-out=tfplan"); err != nil {
		t.Fatalf("plan failed: %v\n%s", err, tail(out))
	}
	out, err := r.try(t, dir, "show", "-json", "tfplan")
	if err != nil {
		t.Fatalf("show: %v\n%s", err, tail(out))
	}
	var plan struct {
		PlannedValues struct {
			Outputs map[string]struct{ Value any } `json:"outputs"`
		} `json:"planned_values"`
	}
	if err := json.Unmarshal([]byte(out), &plan); err != nil {
		t.Fatal(err)
	}
	for name, check := range row.outputs {
		t.Logf("output %s = %v", name, plan.PlannedValues.Outputs[name].Value)
		if problem := check(plan.PlannedValues.Outputs[name].Value); problem != "" {
			t.Errorf("output %s: %s", name, problem)
		}
	}
}

// catalogChangedSincePlan: a catalog_file edited between `plan -out` and
// `apply` of a change to an existing gpu_cluster_spec is reported as such
// (was: "Provider produced inconsistent final plan"). A spec the plan
// creates has no state to carry the plan's digest: Terraform gives the
// provider nothing of a saved plan when it creates a resource
// (ARCHITECTURE.md, catalog_change.go).
func (r *relCLI) catalogChangedSincePlan(t *testing.T) {
	prices := "offers:\n  - cloud: aws\n    instance_type: p5.48xlarge\n    region: us-east-1\n    on_demand_usd: %s\n"
	row := relRow{config: "provider \"gpu\" {\n  catalog_file = \"c.yaml\"\n}\nresource \"gpu_cluster_spec\" \"x\" {\n  name = \"x\"\n  cloud = \"aws\"\n" +
		"  region = \"us-east-1\"\n  accelerator = \"H100\"\n  gpus_per_node = 8\n  nodes = 1\n}\n",
		files: map[string]string{"c.yaml": fmt.Sprintf(prices, "41.28")}}
	dir := r.dir(t, row)
	if out, err := r.try(t, dir, "apply", "-auto-approve", "-input=false"); err != nil {
		t.Fatalf("apply: %v\n%s", err, tail(out))
	}
	writeText(t, filepath.Join(dir, "main.tf"), strings.Replace(readFile(t, dir, "main.tf"), "nodes = 1", "nodes = 2", 1))
	if out, err := r.try(t, dir, "plan", "-input=false", "-out=tfplan"); err != nil {
		t.Fatalf("plan: %v\n%s", err, tail(out))
	}
	writeText(t, filepath.Join(dir, "c.yaml"), fmt.Sprintf(prices, "40"))
	out, _ := r.try(t, dir, "apply", "-json", "-input=false", "tfplan")
	errs := errorsOf(out)
	if len(errs) != 1 || errs[0].Summary != "Catalog File Changed Since The Plan" || strings.Contains(out, "inconsistent final plan") {
		t.Fatalf("apply of a plan made with another catalog_file: %+v\n%s", errs, tail(out))
	}
	// Planned again, the change shows, and applies.
	if out, err := r.try(t, dir, "apply", "-auto-approve", "-input=false"); err != nil {
		t.Fatalf("apply after planning again: %v\n%s", err, tail(out))
	}
}

// overlayBin builds make overlay's importer once per test.
func (r *relCLI) overlayBin() string {
	bin := filepath.Join(r.home, "bin", "overlay")
	if _, err := os.Stat(bin); err != nil {
		r.run("../..", false, "go", "build", "-o", bin, "./internal/catalog/pricelist/cmd/overlay")
	}
	return bin
}

// runOverlay runs the importer under hangGuard.
func (r *relCLI) runOverlay(t *testing.T, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.overlayBin(), args...)
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("overlay %s: no answer within %v (a hang)", strings.Join(args, " "), hangGuard)
	}
	return string(out), err
}

// importerGuards: each importer refuses a FIFO and /dev/zero at once (was:
// blocked for ever; 20 GB in 37 s).
func (r *relCLI) importerGuards(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	for _, flag := range []string{"-aws", "-azure", "-gcp"} {
		for path, want := range map[string]string{fifo: "is a named pipe (FIFO), not a regular file", "/dev/zero": "is a character device, not a regular file"} {
			out, err := r.runOverlay(t, flag, path, "-out", filepath.Join(t.TempDir(), "o.yaml"))
			var ee *exec.ExitError
			if !errors.As(err, &ee) || !strings.Contains(out, want) {
				t.Errorf("overlay %s %s: %v\n%s", flag, path, err, out)
			}
		}
	}
}

// importerOddPrices: a GCP SKU with negative nanos and an AWS price of
// "0.0" are left out with a note naming the SKU (was: 21 % cheaper; dropped
// silently), and a negative price is called negative (was: "not a
// number"). pricelist's TestOddPrices checks the readers alone.
func (r *relCLI) importerOddPrices(t *testing.T) {
	src := "../catalog/pricelist/testdata/"
	for _, tc := range []struct {
		name, flag, file, old, new, note string
	}{
		{"gcp negative nanos", "-gcp", "gcp_billing_skus.json", `"nanos": 797500000`, `"nanos": -797500000`, "a negative or malformed price; skipped"},
		{"aws 0.0", "-aws", "aws_ec2_offer.json", `"USD": "55.0400000000"`, `"USD": "0.0"`, `on-demand price "0.0" is zero (not sold at a list price); skipped`},
		{"aws negative", "-aws", "aws_ec2_offer.json", `"USD": "55.0400000000"`, `"USD": "-55.04"`, `price "-55.04" is negative; skipped`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := filepath.Join(t.TempDir(), tc.file)
			data := readFile(t, src, tc.file)
			if !strings.Contains(data, tc.old) {
				t.Fatalf("fixture: %s has no %s", tc.file, tc.old)
			}
			writeText(t, in, strings.Replace(data, tc.old, tc.new, 1))
			out, err := r.runOverlay(t, tc.flag, in, "-out", filepath.Join(t.TempDir(), "o.yaml"))
			if err != nil || !strings.Contains(out, tc.note) || strings.Contains(out, "not a number") {
				t.Errorf("overlay %s: %v\n%s", tc.flag, err, out)
			}
		})
	}
}

// tail is the end of a long output, for failure messages.
func tail(s string) string {
	if len(s) > 3000 {
		return "…" + s[len(s)-3000:]
	}
	return s
}
