// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package release_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	tfjson "github.com/hashicorp/terraform-json"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/cost"
	"github.com/gpuplan/terraform-provider-gpu/internal/numfmt"
)

// cli runs the real Terraform and make as a user would, with a temporary
// home directory, offline: HTTP(S) proxies that refuse every connection
// make any download attempt fail.
type cli struct {
	t    *testing.T
	tf   string
	home string
	env  []string
}

// newCLI prepares a temporary home. Go's caches stay where they are, so
// make install-local builds incrementally.
func newCLI(t *testing.T) *cli {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("TF_ACC is not set: `make test` runs the install-local flow against the real Terraform")
	}
	tf := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if tf == "" {
		t.Skip("TF_ACC_TERRAFORM_PATH is not set")
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	c := &cli{t: t, tf: tf, home: t.TempDir()}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case name == "HOME", strings.HasPrefix(name, "TF_"), strings.HasSuffix(strings.ToUpper(name), "_PROXY"),
			// A make running this test passes its flags and variables on.
			name == "MAKEFLAGS", name == "MFLAGS", name == "MAKELEVEL", name == "PLUGIN_DIR", name == "INSTALL_VERSION":
			continue
		}
		c.env = append(c.env, kv)
	}
	for _, v := range []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOENV"} {
		out, err := exec.Command("go", "env", v).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", v, err)
		}
		c.env = append(c.env, v+"="+strings.TrimSpace(string(out)))
	}
	c.env = append(c.env, "HOME="+c.home, "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1")
	return c
}

// run runs a command in dir and returns its combined output; a failing
// command fails the test. Offline adds proxies that refuse connections.
func (c *cli) run(dir string, offline bool, name string, args ...string) string {
	c.t.Helper()
	out, err := c.runMayFail(dir, offline, name, args...)
	if err != nil {
		c.t.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, out)
	}
	return out
}

// runMayFail is run for a command that may fail (a plan with errors).
func (c *cli) runMayFail(dir string, offline bool, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = c.env
	if offline {
		cmd.Env = append(append([]string{}, c.env...), "HTTPS_PROXY=http://127.0.0.1:9", "HTTP_PROXY=http://127.0.0.1:9")
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

func (c *cli) terraform(dir string, args ...string) string {
	c.t.Helper()
	return c.run(dir, true, c.tf, append(args, "-no-color")...)
}

// installLocal runs `make install-local` and returns the version it
// installed or found installed.
func (c *cli) installLocal() string {
	c.t.Helper()
	out := c.run("../..", false, "make", "--no-print-directory", "install-local")
	m := regexp.MustCompile(`gpuplan/gpu (\d+\.\d+\.\d+) \(`).FindStringSubmatch(out)
	if m == nil {
		c.t.Fatalf("make install-local said:\n%s", out)
	}
	return m[1]
}

func (c *cli) binary(version string) string {
	exe := ""
	if runtime.GOOS == "windows" {
		exe = ".exe"
	}
	return filepath.Join(c.home, ".terraform.d", "plugins", "registry.terraform.io", "gpuplan", "gpu", version,
		runtime.GOOS+"_"+runtime.GOARCH, "terraform-provider-gpu_v"+version+exe)
}

// readmeSection returns the fenced code blocks of a README section by
// language, in order.
func readmeSection(t *testing.T, heading string) map[string][]string {
	t.Helper()
	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(raw), "\n## "+heading+"\n")
	if !ok {
		t.Fatalf("README.md has no section %q", heading)
	}
	rest, _, _ = strings.Cut(rest, "\n## ")
	blocks := map[string][]string{}
	sc := bufio.NewScanner(strings.NewReader(rest))
	lang, body := "", []string(nil)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case lang == "" && strings.HasPrefix(line, "```") && len(line) > 3:
			lang, body = line[3:], nil
		case lang != "" && line == "```":
			blocks[lang] = append(blocks[lang], strings.Join(body, "\n")+"\n")
			lang = ""
		case lang != "":
			body = append(body, line)
		}
	}
	return blocks
}

// TestInstallLocal runs README's "Use it from your own configuration" as
// written: make install-local into a temporary home, its CLI configuration,
// its configuration in a fresh directory outside the repository, then its
// commands, offline, on the real Terraform. The lock step leaves init
// nothing to add: no "Incomplete lock file information" warning. Then the
// version scheme: the same build keeps its version, a different one gets
// the next, and `terraform init -upgrade` moves to it.
func TestInstallLocal(t *testing.T) {
	c := newCLI(t)
	blocks := readmeSection(t, "Use it from your own configuration")
	if len(blocks["hcl"]) != 2 || len(blocks["sh"]) != 2 {
		t.Fatalf("the README section has %d hcl and %d sh blocks, want 2 and 2", len(blocks["hcl"]), len(blocks["sh"]))
	}
	version := c.installLocal()
	if _, err := os.Stat(c.binary(version)); err != nil {
		t.Fatalf("make install-local installed %s, but: %v", version, err)
	}
	writeText(t, filepath.Join(c.home, ".terraformrc"), strings.ReplaceAll(blocks["hcl"][0], "/home/you", c.home))
	dir := t.TempDir()
	writeText(t, filepath.Join(dir, "main.tf"), blocks["hcl"][1])

	var initOut string
	for _, line := range strings.Split(strings.TrimSpace(blocks["sh"][1]), "\n") {
		args := strings.Fields(strings.ReplaceAll(strings.ReplaceAll(line, `"$HOME`, c.home), `"`, ""))
		if args[0] != "terraform" {
			t.Fatalf("README command %q is not a terraform command", line)
		}
		out := c.terraform(dir, args[1:]...)
		if args[1] == "init" {
			initOut = out
		}
	}
	if !strings.Contains(initOut, "Terraform has been successfully initialized") || strings.Contains(initOut, "Warning") {
		t.Fatalf("terraform init (after the lock step) warned or failed:\n%s", initOut)
	}
	plan := showPlan(t, c, dir)
	summary, _ := plan.PlannedValues.Outputs["plan"].Value.(string)
	if !strings.Contains(summary, "✔  1  ") {
		t.Fatalf("output plan is not a summary table: %q", summary)
	}

	if again := c.installLocal(); again != version {
		t.Fatalf("reinstalling the same build changed the version %s → %s", version, again)
	}
	// A different build (here: the installed binary changed) gets the next
	// version; the old one stays for the lock files that name it.
	f, err := os.OpenFile(c.binary(version), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("\n"); err != nil {
		t.Fatal(err)
	}
	_ = f.Close()
	next := c.installLocal()
	if next == version {
		t.Fatalf("a different build kept version %s", version)
	}
	c.terraform(dir, "init", "-upgrade", "-input=false")
	lock, err := os.ReadFile(filepath.Join(dir, ".terraform.lock.hcl"))
	if err != nil || !strings.Contains(string(lock), `version = "`+next+`"`) {
		t.Fatalf("after init -upgrade the lock file does not select %s: %v\n%s", next, err, lock)
	}
	showPlan(t, c, dir)
}

// showPlan plans dir into a plan file and returns `terraform show -json`.
func showPlan(t *testing.T, c *cli, dir string, args ...string) *tfjson.Plan {
	t.Helper()
	c.terraform(dir, append([]string{"plan", "-input=false", "-out=tfplan"}, args...)...)
	var plan tfjson.Plan
	if err := json.Unmarshal([]byte(c.terraform(dir, "show", "-json", "tfplan")), &plan); err != nil {
		t.Fatal(err)
	}
	if plan.PlannedValues == nil {
		t.Fatal("the plan has no planned values")
	}
	return &plan
}

// diagnostic is one diagnostic of `terraform plan -json`.
type diagnostic struct {
	Severity, Summary, Detail, Address string
	Range                              *struct {
		Start struct{ Line int }
	}
}

// planDiagnostics runs `terraform plan -json` and returns its diagnostics.
func planDiagnostics(t *testing.T, c *cli, dir string, args ...string) []diagnostic {
	t.Helper()
	return parseDiagnostics(c.terraform(dir, append([]string{"plan", "-json", "-input=false"}, args...)...))
}

// failedPlanDiagnostics is planDiagnostics of a plan that fails.
func failedPlanDiagnostics(t *testing.T, c *cli, dir string) []diagnostic {
	t.Helper()
	out, err := c.runMayFail(dir, true, c.tf, "plan", "-json", "-input=false", "-no-color")
	if err == nil {
		t.Fatalf("the plan succeeded:\n%s", out)
	}
	return parseDiagnostics(out)
}

// parseDiagnostics reads the diagnostics of `terraform plan -json`.
func parseDiagnostics(out string) []diagnostic {
	var ds []diagnostic
	for _, line := range strings.Split(out, "\n") {
		var msg struct {
			Type       string     `json:"type"`
			Diagnostic diagnostic `json:"diagnostic"`
		}
		if json.Unmarshal([]byte(line), &msg) == nil && msg.Type == "diagnostic" {
			ds = append(ds, msg.Diagnostic)
		}
	}
	return ds
}

// warnings runs `terraform plan -json` and returns its warnings as
// "summary: detail".
func warnings(t *testing.T, c *cli, dir string, args ...string) []string {
	t.Helper()
	var ws []string
	for _, d := range planDiagnostics(t, c, dir, args...) {
		if d.Severity == "warning" {
			ws = append(ws, d.Summary+": "+d.Detail)
		}
	}
	return ws
}

// withSummary returns the diagnostics of a severity whose summary is summary.
func withSummary(ds []diagnostic, severity, summary string) []diagnostic {
	var out []diagnostic
	for _, d := range ds {
		if d.Severity == severity && (summary == "" || d.Summary == summary) {
			out = append(out, d)
		}
	}
	return out
}

// initConfig writes a configuration into a fresh directory and runs init
// against the installed provider.
func initConfig(t *testing.T, c *cli, config string) string {
	t.Helper()
	dir := t.TempDir()
	writeText(t, filepath.Join(dir, "main.tf"), "terraform {\n  required_providers {\n    gpu = { source = \"gpuplan/gpu\" }\n  }\n}\n\n"+config)
	c.terraform(dir, "init", "-input=false")
	return dir
}

func count(ws []string, substr string) int {
	n := 0
	for _, w := range ws {
		if strings.Contains(w, substr) {
			n++
		}
	}
	return n
}

func installed(t *testing.T) *cli {
	t.Helper()
	c := newCLI(t)
	c.installLocal()
	writeText(t, filepath.Join(c.home, ".terraformrc"), fmt.Sprintf(
		"provider_installation {\n  filesystem_mirror {\n    path    = %q\n    include = [\"registry.terraform.io/gpuplan/gpu\"]\n  }\n}\n",
		filepath.Join(c.home, ".terraform.d", "plugins")))
	return c
}

// TestCLIWarnings checks, in `terraform plan -json` of the installed
// provider, the warnings terraform-plugin-testing cannot see: a missing
// power figure is reported once per plan, however many gpu_tco meet it;
// a misspelled key is an error on its line; a cluster
// beyond a typical quota is flagged; and a gpu_cluster_spec cloud switch
// reports its monthly cost change with the percentage.
func TestCLIWarnings(t *testing.T) {
	c := installed(t)
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	t.Run("missing TDP once per plan", func(t *testing.T) {
		// Every built-in part has a power figure: two parts of a
		// catalog_file without one, one of them used twice.
		dir := t.TempDir()
		var file strings.Builder
		file.WriteString("{\"accelerators\": [")
		for i, acc := range []string{"ACME-A", "ACME-B"} {
			if i > 0 {
				file.WriteString(",")
			}
			fmt.Fprintf(&file, `{"id": %q, "name": %q, "vendor": "NVIDIA", "family": "hopper", "memory_gb": 80, "memory_type": "HBM3",
  "memory_bandwidth_tbps": 3, "peak_tflops": {"bf16": 900}, "tdp_watts": 0, "interconnect": "PCIe", "interconnect_gbps": 64,
  "interconnect_kind": "pcie", "nvlink_domain_gpus": 1, "form_factor": "PCIe", "confidence": "test", "source": "test"}`, acc, acc)
		}
		file.WriteString("], \"offers\": [")
		for i, acc := range []string{"ACME-A", "ACME-B"} {
			if i > 0 {
				file.WriteString(",")
			}
			fmt.Fprintf(&file, `{"cloud": "aws", "region": "us-east-1", "instance_type": %q, "accelerator": %q, "gpus": 1,
  "gpu_memory_gb": 80, "vcpus": 8, "memory_gb": 64, "network_gbps": 25, "fabric": "none", "on_demand_usd": 2, "source": "test"}`,
				strings.ToLower(acc)+".xlarge", acc)
		}
		file.WriteString("]}")
		writeText(t, filepath.Join(dir, "parts.json"), file.String())
		config := fmt.Sprintf("provider \"gpu\" {\n  catalog_file = %q\n}\n\n", filepath.Join(dir, "parts.json"))
		for i, it := range []string{"acme-a.xlarge", "acme-a.xlarge", "acme-b.xlarge"} {
			config += fmt.Sprintf("data \"gpu_tco\" \"t%d\" {\n  cloud         = \"aws\"\n  region        = \"us-east-1\"\n"+
				"  instance_type = %q\n  months        = 1\n}\n\n", i, it)
		}
		ws := warnings(t, c, initConfig(t, c, config))
		for _, acc := range []string{"ACME-A", "ACME-B"} {
			if n := count(ws, cost.NoTDPWarning(acc)); n != 1 {
				t.Errorf("the missing TDP of %s is reported %d times in one plan, want once; warnings:\n%s", acc, n, strings.Join(ws, "\n"))
			}
		}
	})
	t.Run("misspelled key", func(t *testing.T) {
		// A misspelled key of an object input is an error naming the
		// closest attribute, on the line of the key when the object is
		// written inline; a correct object plans.
		const wl = `workload = { kind = "inference", model_parameters_b = 8, tokens_per_second = 200 }`
		ds := failedPlanDiagnostics(t, c, initConfig(t, c, `data "gpu_recommendation" "typo" {
  `+wl+`
  constraints = { deadline = 1 }
}

data "gpu_recommendation" "ok" {
  `+wl+`
  constraints = { deadline_hours = 10000 }
}

data "gpu_tco" "typo" {
  cloud         = "aws"
  region        = "us-east-1"
  instance_type = "g5.xlarge"
  months        = 1
  storage = {
    block = 100
  }
}
`))
		errs := withSummary(ds, "error", "Unknown Attribute")
		if len(errs) != 2 {
			t.Fatalf("%d unknown-attribute errors, want 2 (constraints of typo, storage of gpu_tco): %+v", len(errs), ds)
		}
		for _, e := range errs {
			switch e.Address {
			case "data.gpu_recommendation.typo":
				// initConfig's terraform block takes 6 lines: constraints is line 9.
				if !strings.Contains(e.Detail, "constraints.deadline is not an attribute of constraints. Closest: deadline_hours.") ||
					e.Range == nil || e.Range.Start.Line != 9 {
					t.Errorf("constraints error: %+v", e)
				}
			default:
				if e.Address != "data.gpu_tco.typo" || !strings.Contains(e.Detail, "storage.block is not an attribute of storage. Closest: block_gb.") ||
					e.Range == nil || e.Range.Start.Line != 23 {
					t.Errorf("storage error: %+v", e)
				}
			}
		}
		if n := len(withSummary(ds, "error", "")); n != 2 {
			t.Errorf("%d errors, want the 2 above: %+v", n, ds)
		}
	})
	t.Run("old prices once per plan", func(t *testing.T) {
		// Prices older than 90 days warn once per plan, however many
		// answers rest on them (the clock is the real one: the warning is
		// expected exactly when the built-in catalog is that old).
		ws := warnings(t, c, initConfig(t, c, `data "gpu_recommendation" "a" {
  workload = { kind = "training", model_parameters_b = 1, training_tokens_b = 1 }
}

data "gpu_recommendation" "b" {
  workload    = { kind = "inference", model_parameters_b = 8, tokens_per_second = 500 }
  constraints = { clouds = ["azure"], pricing_models = ["reserved_1y"] }
}

data "gpu_tco" "c" {
  cloud         = "aws"
  region        = "us-east-1"
  instance_type = "g5.xlarge"
  months        = 1
}
`))
		days, err := catalog.PriceAgeWarningDays()
		if err != nil {
			t.Fatal(err)
		}
		n := count(ws, "Prices Older Than ")
		stale := catalog.AgeDays(cat.Date, time.Now()) > days
		if n > 1 || (stale && n != 1) || (n == 1 && !strings.Contains(strings.Join(ws, "\n"), "terraform-provider-gpu refresh --out prices.yaml")) {
			t.Errorf("%d price-age warnings (catalog dated %s, stale %v), want one when stale and never more; warnings:\n%s",
				n, cat.Date.Format(time.DateOnly), stale, strings.Join(ws, "\n"))
		}
	})
	t.Run("quota", func(t *testing.T) {
		// A pay-as-you-go cluster above a typical regional quota is flagged
		// with a warning naming the remedy; a small one is not.
		ds := planDiagnostics(t, c, initConfig(t, c, `data "gpu_recommendation" "big" {
  workload    = { kind = "training", model_parameters_b = 70, training_tokens_b = 15000 }
  constraints = { accelerators = ["H100"], pricing_models = ["on_demand"] }
  objective   = "time"
}

data "gpu_recommendation" "small" {
  workload    = { kind = "training", model_parameters_b = 1, training_tokens_b = 1 }
  constraints = { max_gpus = 8 }
}
`))
		warns := withSummary(ds, "warning", "GPU Capacity Beyond A Typical Quota")
		if len(warns) != 1 || warns[0].Address != "data.gpu_recommendation.big" ||
			!strings.Contains(warns[0].Detail, "on demand") || !strings.Contains(warns[0].Detail, "constraints.max_gpus") {
			t.Errorf("quota warnings = %+v, want one on data.gpu_recommendation.big", warns)
		}
	})
	t.Run("ambiguous accelerator", func(t *testing.T) {
		// "a100" is read as the 40 GB part: every data source that takes
		// an accelerator name says so and names the other parts; a name
		// that picks the part says nothing.
		ds := planDiagnostics(t, c, initConfig(t, c, `data "gpu_offers" "bare" {
  accelerators = ["L4", "a100"]
}

data "gpu_offers" "exact" {
  accelerators = ["A100-80GB"]
}

data "gpu_estimate" "bare" {
  workload    = { kind = "inference", model = "llama-3.1-8b", precision = "fp16" }
  accelerator = "v100"
  gpu_count   = 1
}
`))
		warns := withSummary(ds, "warning", "Accelerator Name Has Variants")
		if len(warns) != 2 {
			t.Fatalf("%d variant warnings, want 2 (gpu_offers.bare, gpu_estimate.bare): %+v", len(warns), ds)
		}
		for _, w := range warns {
			want := map[string]string{
				"data.gpu_offers.bare":   `accelerators[1] = "a100" is read as "A100-40GB" (40 GB); the catalog also has "A100-80GB" (80 GB)`,
				"data.gpu_estimate.bare": `accelerator = "v100" is read as "V100-16GB" (16 GB); the catalog also has "V100-32GB" (32 GB)`,
			}[w.Address]
			if want == "" || !strings.Contains(w.Detail, want) {
				t.Errorf("warning on %s: %s, want it to contain %s", w.Address, w.Detail, want)
			}
		}
		if errs := withSummary(ds, "error", ""); len(errs) > 0 {
			t.Errorf("errors: %+v", errs)
		}
	})
	t.Run("cloud switch", func(t *testing.T) {
		dir := initConfig(t, c, `variable "cloud" { type = string }

resource "gpu_cluster_spec" "train" {
  name          = "llm-train"
  cloud         = var.cloud
  accelerator   = "H100"
  gpus_per_node = 8
  nodes         = 4
}
`)
		c.terraform(dir, "apply", "-auto-approve", "-input=false", "-var=cloud=aws")
		if ws := withoutPriceAge(warnings(t, c, dir, "-var=cloud=aws")); len(ws) != 0 {
			t.Fatalf("an unchanged cluster warns: %v", ws)
		}
		ws := warnings(t, c, dir, "-var=cloud=gcp")
		plan := showPlan(t, c, dir, "-var=cloud=gcp")
		before := monthly(t, plan.PriorState.Values.RootModule)
		after := monthly(t, plan.PlannedValues.RootModule)
		want := "Cluster Monthly Cost Changes: 4× p5.48xlarge (32× H100) on aws us-east-1, on_demand → 4× "
		pct := "(" + numfmt.SignedPercent((after-before)/before) + ","
		if n := count(ws, want); n != 1 || count(ws, pct) != 1 {
			t.Errorf("want one warning %q… with %q ($%.2f → $%.2f); warnings:\n%s", want, pct, before, after, strings.Join(ws, "\n"))
		}
	})
}

func monthly(t *testing.T, m *tfjson.StateModule) float64 {
	t.Helper()
	if m == nil || len(m.Resources) != 1 {
		t.Fatalf("want one resource in %v", m)
	}
	v, ok := m.Resources[0].AttributeValues["monthly_cost_usd"].(float64)
	if !ok || v <= 0 {
		t.Fatalf("monthly_cost_usd = %v", m.Resources[0].AttributeValues["monthly_cost_usd"])
	}
	return v
}

// withoutPriceAge drops the warning about old prices, which depends on
// the day the test runs.
func withoutPriceAge(ws []string) []string {
	var out []string
	for _, w := range ws {
		if !strings.HasPrefix(w, "Prices Older Than ") {
			out = append(out, w)
		}
	}
	return out
}
