// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package release_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fakeTerraform writes an executable `terraform` into a new directory that
// reports version v, and returns the directory.
func fakeTerraform(t *testing.T, v string) string {
	t.Helper()
	dir := t.TempDir()
	script := "#!/bin/sh\necho '{\"terraform_version\": \"" + v + "\", \"platform\": \"linux_amd64\"}'\n"
	if err := os.WriteFile(filepath.Join(dir, "terraform"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestFindTerraform: the make targets take a terraform >= 1.8 from PATH
// and fall back to the cached build (which `make terraform` builds) only
// when PATH has none or an older one.
func TestFindTerraform(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	home := t.TempDir()
	cached := filepath.Join(home, ".cache", "gpu-tf", "1.8.5", "terraform")
	sysPath := "/usr/bin:/bin" // sh, sed, sort, head; no terraform
	if _, err := os.Stat("/usr/bin/terraform"); err == nil {
		t.Skip("/usr/bin has a terraform: the no-terraform case cannot be set up")
	}
	newer, older := fakeTerraform(t, "1.11.4"), fakeTerraform(t, "1.5.7")
	for _, tc := range []struct{ name, path, want string }{
		{"terraform 1.11 on PATH", newer + ":" + sysPath, filepath.Join(newer, "terraform")},
		{"only terraform 1.5 on PATH", older + ":" + sysPath, cached},
		{"no terraform on PATH", sysPath, cached},
	} {
		cmd := exec.Command("bash", "../../.ci/find-terraform")
		cmd.Env = []string{"PATH=" + tc.path, "HOME=" + home, "TF_VERSION=1.8.5"}
		out, err := cmd.Output()
		if got := strings.TrimSpace(string(out)); err != nil || got != tc.want {
			t.Errorf("%s: find-terraform = %q (%v), want %q", tc.name, got, err, tc.want)
		}
	}
	// OpenTofu: `tofu version -json` names its version terraform_version.
	tofuDir := fakeTerraform(t, "1.10.10")
	if err := os.Rename(filepath.Join(tofuDir, "terraform"), filepath.Join(tofuDir, "tofu")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, path, want string }{
		{"tofu 1.10 on PATH", tofuDir + ":" + sysPath, filepath.Join(tofuDir, "tofu")},
		{"no tofu on PATH", newer + ":" + sysPath, "/cache/tofu"},
	} {
		cmd := exec.Command("bash", "../../.ci/find-terraform")
		cmd.Env = []string{"PATH=" + tc.path, "HOME=" + home, "CLI=tofu", "MIN_TF_VERSION=1.10.0", "FALLBACK=/cache/tofu"}
		out, err := cmd.Output()
		if got := strings.TrimSpace(string(out)); err != nil || got != tc.want {
			t.Errorf("%s: find-terraform = %q (%v), want %q", tc.name, got, err, tc.want)
		}
	}
}

// TestMakeDemo runs the README's `make demo` with the test's Terraform on
// PATH and an empty home (no cached Terraform build): it must use that
// Terraform, build none, keep init quiet and end with the plan's outputs.
func TestMakeDemo(t *testing.T) {
	c := newCLI(t)
	for i, kv := range c.env {
		if strings.HasPrefix(kv, "PATH=") {
			c.env[i] = "PATH=" + filepath.Dir(c.tf) + ":" + strings.TrimPrefix(kv, "PATH=")
		}
	}
	out := c.run("../..", false, "make", "--no-print-directory", "demo")
	for _, bad := range []string{"Building Terraform", "Terraform has been successfully initialized", "Initializing provider plugins"} {
		if strings.Contains(out, bad) {
			t.Errorf("make demo printed %q:\n%s", bad, out)
		}
	}
	if !strings.Contains(out, "Terraform: "+filepath.Dir(c.tf)) && !strings.Contains(out, "Terraform: "+c.tf) {
		t.Errorf("make demo did not use the terraform on PATH (%s):\n%s", c.tf, out)
	}
	_, answer, ok := strings.Cut(out, "Changes to Outputs:")
	if !ok || !strings.Contains(answer, "finetune_candidates") || !strings.Contains(answer, "feasible candidates, ranked by cost") {
		t.Fatalf("make demo does not end with the plan's outputs:\n%s", out)
	}
	if strings.Contains(answer, "You can apply this plan") || strings.Contains(answer, "Note:") {
		t.Errorf("make demo ends with plan chatter after the outputs:\n%s", answer)
	}
}
