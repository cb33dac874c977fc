// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package release_test

import (
	"archive/zip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"

	"github.com/gpuplan/terraform-provider-gpu/internal/refresh/refreshtest"
	"github.com/gpuplan/terraform-provider-gpu/internal/release"
)

// registryPlatforms are the archives .goreleaser.yml builds (goos × goarch
// minus its ignore list); change both together. The registry needs linux,
// darwin, windows and freebsd on amd64 and arm64; the 32-bit builds follow
// HashiCorp's scaffolding. There is no windows_arm: Go 1.26 removed that
// port.
var registryPlatforms = []string{
	"darwin_amd64", "darwin_arm64",
	"freebsd_386", "freebsd_amd64", "freebsd_arm", "freebsd_arm64",
	"linux_386", "linux_amd64", "linux_arm", "linux_arm64",
	"windows_386", "windows_amd64", "windows_arm64",
}

// TestSnapshot checks a real GoReleaser release (RELEASE_DIST, written by
// `make release-snapshot`): its shape, the -version output of this
// platform's archived binary, and that each Terraform in RELEASE_TERRAFORM
// (a path list) installs the provider from a filesystem mirror holding
// nothing but the archive and plans examples/quickstart with it, offline.
// `make release-check` sets both variables.
func TestSnapshot(t *testing.T) {
	dist := os.Getenv("RELEASE_DIST")
	if dist == "" {
		t.Skip("RELEASE_DIST is not set; run `make release-snapshot release-check`")
	}
	d, err := release.Check(dist, registryPlatforms)
	if err != nil {
		t.Fatal(err)
	}
	host := runtime.GOOS + "_" + runtime.GOARCH
	archive, ok := d.Archives[host]
	if !ok {
		t.Fatalf("the release has no archive for this machine (%s)", host)
	}
	t.Logf("release %s: %d archives, SHA256SUMS and manifest are registry-shaped", d.Version, len(d.Archives))

	t.Run("version flag", func(t *testing.T) {
		bin := extractBinary(t, filepath.Join(dist, archive), release.BinaryName(d.Version, runtime.GOOS))
		out, err := exec.Command(bin, "-version").CombinedOutput()
		want := fmt.Sprintf("%s %s %s/%s", release.Name, d.Version, runtime.GOOS, runtime.GOARCH)
		if err != nil || strings.TrimSpace(string(out)) != want {
			t.Fatalf("%s -version = %q, %v; want %q", filepath.Base(bin), out, err, want)
		}
	})

	t.Run("refresh subcommand", func(t *testing.T) {
		// The archived binary refreshes prices by hand: offline here, from
		// the recorded RunPod and Lambda answers, into an overlay.
		bin := extractBinary(t, filepath.Join(dist, archive), release.BinaryName(d.Version, runtime.GOOS))
		out := filepath.Join(t.TempDir(), "prices.yaml")
		msg, err := exec.Command(bin, "refresh", "--replay", refreshtest.Recorded(), "--clouds", "runpod,lambda", "--out", out).CombinedOutput()
		data, rerr := os.ReadFile(out)
		if err != nil || rerr != nil || !strings.Contains(string(data), "instance_type: gpu_8x_h100_sxm5") {
			t.Fatalf("%s refresh: %v\n%s\n%s", filepath.Base(bin), err, msg, data)
		}
	})

	terraforms := filepath.SplitList(os.Getenv("RELEASE_TERRAFORM"))
	if len(terraforms) == 0 {
		t.Fatal("RELEASE_TERRAFORM is not set: list the Terraform binaries that must plan the quickstart with the archived provider")
	}
	for _, tf := range terraforms {
		t.Run("quickstart on Terraform "+terraformVersion(t, tf), func(t *testing.T) {
			planQuickstart(t, tf, d, archive)
		})
	}
}

// planQuickstart builds a packed filesystem mirror from the archive alone
// (registry.terraform.io/gpuplan/gpu/<archive>.zip), runs `terraform init`
// with a CLI configuration that installs only from it, checks that the lock
// file records the version and the hash of exactly that archive, then plans
// a copy of examples/quickstart and reads the planned outputs.
func planQuickstart(t *testing.T, tf string, d *release.Dist, archive string) {
	work := t.TempDir()
	mirror := filepath.Join(work, "mirror")
	pkgDir := filepath.Join(mirror, "registry.terraform.io", "gpuplan", "gpu")
	copyFile(t, filepath.Join(d.Dir, archive), filepath.Join(pkgDir, archive))
	cliConfig := filepath.Join(work, "terraformrc")
	// No direct block: nothing may come from the network.
	writeText(t, cliConfig, fmt.Sprintf("provider_installation {\n  filesystem_mirror {\n    path    = %q\n    include = [\"registry.terraform.io/gpuplan/gpu\"]\n  }\n}\n", mirror))

	config := filepath.Join(work, "quickstart")
	sources, err := filepath.Glob("../../examples/quickstart/*.tf")
	if err != nil || len(sources) == 0 {
		t.Fatalf("examples/quickstart/*.tf: %v (found %d)", err, len(sources))
	}
	for _, src := range sources {
		copyFile(t, src, filepath.Join(config, filepath.Base(src)))
	}
	// A snapshot version is a pre-release, which Terraform selects only when
	// a constraint names it exactly.
	writeText(t, filepath.Join(config, "release_override.tf"), fmt.Sprintf(
		"terraform {\n  required_providers {\n    gpu = {\n      source  = \"gpuplan/gpu\"\n      version = %q\n    }\n  }\n}\n", d.Version))

	env := []string{"TF_CLI_CONFIG_FILE=" + cliConfig, "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1"}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TF_") && !strings.HasPrefix(kv, "CHECKPOINT_DISABLE=") {
			env = append(env, kv)
		}
	}
	terraform := func(args ...string) []byte {
		t.Helper()
		cmd := exec.Command(tf, append([]string{"-chdir=" + config}, args...)...)
		cmd.Env = env
		out, err := cmd.Output()
		if err != nil {
			stderr := ""
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = string(ee.Stderr)
			}
			t.Fatalf("terraform %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr)
		}
		return out
	}

	terraform("init", "-input=false", "-no-color")
	lock, err := os.ReadFile(filepath.Join(config, ".terraform.lock.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	h1, err := release.PackageHashV1(filepath.Join(d.Dir, archive))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`version     = "` + d.Version + `"`, `"` + h1 + `"`} {
		if !strings.Contains(string(lock), want) {
			t.Fatalf(".terraform.lock.hcl does not record %s (the version, and the hash of the archive's content):\n%s", want, lock)
		}
	}

	terraform("plan", "-input=false", "-no-color", "-lock=false", "-out=quickstart.tfplan")
	var plan tfjson.Plan
	if err := json.Unmarshal(terraform("show", "-json", "quickstart.tfplan"), &plan); err != nil {
		t.Fatal(err)
	}
	outputs := map[string]any{}
	if plan.PlannedValues != nil {
		for name, o := range plan.PlannedValues.Outputs {
			outputs[name] = o.Value
		}
	}
	finetune, _ := outputs["finetune"].(map[string]any)
	choice, _ := finetune["choice"].(string)
	cost, _ := finetune["cost_usd"].(float64)
	date, _ := outputs["catalog_date"].(string)
	if choice == "" || cost <= 0 || date == "" {
		t.Fatalf("the quickstart plan lacks known outputs: finetune = %v, catalog_date = %q", finetune, date)
	}
	t.Logf("planned: %s, $%.2f (catalog %s)", choice, cost, date)
}

// terraformVersion is `terraform version -json`'s version, for test names.
func terraformVersion(t *testing.T, tf string) string {
	t.Helper()
	out, err := exec.Command(tf, "version", "-json").Output()
	if err != nil {
		t.Fatalf("%s version: %v", tf, err)
	}
	var v struct {
		Version string `json:"terraform_version"`
	}
	if err := json.Unmarshal(out, &v); err != nil || v.Version == "" {
		t.Fatalf("%s version -json: %q, %v", tf, out, err)
	}
	return v.Version
}

// extractBinary writes the named file of a zip into a temporary directory,
// executable, and returns its path.
func extractBinary(t *testing.T, archive, name string) string {
	t.Helper()
	zr, err := zip.OpenReader(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	rc, err := zr.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	path := filepath.Join(t.TempDir(), name)
	out, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, rc); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	writeText(t, dst, string(data))
}

func writeText(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
