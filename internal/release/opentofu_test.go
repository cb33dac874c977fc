// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package release_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenTofu runs README's "Use it with OpenTofu" as written, with
// OpenTofu (OPENTOFU_PATH; `make testacc-tofu` sets it): make install-local
// for registry.opentofu.org (OpenTofu's reading of `source =
// "gpuplan/gpu"`) into a temporary home, its CLI configuration, then tofu
// init and plan of the quickstart with a provider function call added,
// offline.
func TestOpenTofu(t *testing.T) {
	tofu := os.Getenv("OPENTOFU_PATH")
	if tofu == "" {
		t.Skip("OPENTOFU_PATH is not set: `make testacc-tofu` runs this against OpenTofu")
	}
	c := newCLI(t)
	c.tf = tofu
	blocks := readmeSection(t, "Use it with OpenTofu")
	if len(blocks["hcl"]) != 1 || len(blocks["sh"]) != 2 {
		t.Fatalf("the README section has %d hcl and %d sh blocks, want 1 and 2", len(blocks["hcl"]), len(blocks["sh"]))
	}
	install := strings.Fields(blocks["sh"][0])
	if len(install) < 2 || install[0] != "make" {
		t.Fatalf("README's install command is not a make command: %q", blocks["sh"][0])
	}
	out := c.run("../..", false, "make", append([]string{"--no-print-directory"}, install[1:]...)...)
	if !strings.Contains(out, "gpuplan/gpu") {
		t.Fatalf("%s said:\n%s", blocks["sh"][0], out)
	}
	rc := filepath.Join(c.home, ".tofurc")
	writeText(t, rc, strings.ReplaceAll(blocks["hcl"][0], "/home/you", c.home))
	c.env = append(c.env, "TF_CLI_CONFIG_FILE="+rc)

	quickstart, err := os.ReadFile("../../examples/quickstart/main.tf")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeText(t, filepath.Join(dir, "main.tf"), string(quickstart)+`
output "p5_instance" {
  value = provider::gpu::instance_type("aws", "H100", 8)
}
`)
	var plan string
	for _, line := range strings.Split(strings.TrimSpace(blocks["sh"][1]), "\n") {
		args := strings.Fields(line)
		if args[0] != "tofu" {
			t.Fatalf("README command %q is not a tofu command", line)
		}
		plan = c.terraform(dir, append(args[1:], "-input=false")...)
	}
	for _, want := range []string{`p5_instance`, `"p5.48xlarge"`, "finetune_candidates", "feasible candidates, ranked by cost"} {
		if !strings.Contains(plan, want) {
			t.Errorf("tofu plan of the quickstart lacks %q:\n%s", want, plan)
		}
	}
	if lock, err := os.ReadFile(filepath.Join(dir, ".terraform.lock.hcl")); err != nil || !strings.Contains(string(lock), `provider "registry.opentofu.org/gpuplan/gpu"`) {
		t.Errorf("lock file does not select registry.opentofu.org/gpuplan/gpu (%v):\n%s", err, lock)
	}
}
