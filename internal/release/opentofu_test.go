// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package release_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenTofu plans the README's quickstart and calls a provider function
// with OpenTofu (OPENTOFU_PATH; `make testacc-tofu` sets it), as a user of
// OpenTofu would: the provider installed into a filesystem mirror under
// registry.opentofu.org (OpenTofu's reading of `source = "gpuplan/gpu"`)
// by .ci/install-provider, a CLI configuration naming the mirror, offline.
func TestOpenTofu(t *testing.T) {
	tofu := os.Getenv("OPENTOFU_PATH")
	if tofu == "" {
		t.Skip("OPENTOFU_PATH is not set: `make testacc-tofu` runs this against OpenTofu")
	}
	c := newCLI(t)
	c.tf = tofu
	mirror := filepath.Join(c.home, "mirror")
	c.env = append(c.env, "PROVIDER_HOST=registry.opentofu.org")
	out := c.run("../..", false, ".ci/install-provider", mirror)
	if !strings.Contains(out, "Installed gpuplan/gpu") {
		t.Fatalf(".ci/install-provider said:\n%s", out)
	}
	rc := filepath.Join(c.home, "tofurc")
	writeText(t, rc, fmt.Sprintf("provider_installation {\n  filesystem_mirror {\n    path    = %q\n    include = [\"registry.opentofu.org/gpuplan/gpu\"]\n  }\n}\n", mirror))
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
	c.terraform(dir, "init", "-input=false")
	plan := c.terraform(dir, "plan", "-input=false")
	for _, want := range []string{`p5_instance`, `"p5.48xlarge"`, "finetune_candidates", "feasible candidates, ranked by cost"} {
		if !strings.Contains(plan, want) {
			t.Errorf("tofu plan of the quickstart lacks %q:\n%s", want, plan)
		}
	}
	if lock, err := os.ReadFile(filepath.Join(dir, ".terraform.lock.hcl")); err != nil || !strings.Contains(string(lock), `provider "registry.opentofu.org/gpuplan/gpu"`) {
		t.Errorf("lock file does not select registry.opentofu.org/gpuplan/gpu (%v):\n%s", err, lock)
	}
}
