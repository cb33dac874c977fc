// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// terraform-plugin-testing asserts on state, plans and errors, not on
// warnings. cliDiagnostics plans a configuration with the real Terraform
// CLI (TF_ACC_TERRAFORM_PATH) and the provider built from this checkout
// (through dev_overrides, offline), and returns every diagnostic of
// `terraform plan -json`, warnings included.

// cliDiagnostic is one diagnostic of Terraform's machine-readable output.
type cliDiagnostic struct {
	Severity string `json:"severity"`
	Summary  string `json:"summary"`
	Detail   string `json:"detail"`
	Address  string `json:"address"`
	Range    *struct {
		Start struct {
			Line int `json:"line"`
		} `json:"start"`
	} `json:"range"`
}

var (
	cliProviderOnce sync.Once
	cliProviderDir  string
	cliProviderErr  error
)

// cliProvider builds the provider binary once per test run.
func cliProvider(t *testing.T) string {
	t.Helper()
	cliProviderOnce.Do(func() {
		dir, err := os.MkdirTemp("", "gpu-provider-cli")
		if err != nil {
			cliProviderErr = err
			return
		}
		cmd := exec.Command("go", "build", "-trimpath", "-o", filepath.Join(dir, "terraform-provider-gpu"), ".")
		cmd.Dir = filepath.Join("..", "..")
		if out, err := cmd.CombinedOutput(); err != nil {
			cliProviderErr = &buildError{out: string(out), err: err}
			return
		}
		cliProviderDir = dir
	})
	if cliProviderErr != nil {
		t.Fatalf("building the provider: %v", cliProviderErr)
	}
	return cliProviderDir
}

type buildError struct {
	out string
	err error
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + e.out }

// cliDiagnostics plans config and returns its diagnostics, without the
// dev_overrides warning Terraform always prints.
func cliDiagnostics(t *testing.T, config string) []cliDiagnostic {
	t.Helper()
	tf := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if os.Getenv("TF_ACC") == "" || tf == "" {
		t.Skip("needs TF_ACC=1 and TF_ACC_TERRAFORM_PATH (make test sets both)")
	}
	bin := cliProvider(t)
	work := t.TempDir()
	rc := filepath.Join(work, "cli.tfrc")
	cli := "provider_installation {\n  dev_overrides {\n    \"gpuplan/gpu\" = \"" + bin + "\"\n  }\n  direct {}\n}\n"
	main := "terraform {\n  required_providers {\n    gpu = { source = \"gpuplan/gpu\" }\n  }\n}\n" + config
	for name, body := range map[string]string{rc: cli, filepath.Join(work, "main.tf"): main} {
		if err := os.WriteFile(name, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(tf, "plan", "-json", "-input=false", "-lock=false", "-refresh=false")
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "TF_CLI_CONFIG_FILE="+rc, "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1")
	out, _ := cmd.Output() // a plan with errors exits 1; its diagnostics are what we want
	var diags []cliDiagnostic
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var line struct {
			Type       string        `json:"type"`
			Diagnostic cliDiagnostic `json:"diagnostic"`
		}
		if json.Unmarshal(sc.Bytes(), &line) != nil || line.Type != "diagnostic" {
			continue
		}
		if strings.Contains(line.Diagnostic.Summary, "Provider development overrides") {
			continue
		}
		diags = append(diags, line.Diagnostic)
	}
	return diags
}

// diagnosticsWith returns the diagnostics of a severity whose summary
// contains summary.
func diagnosticsWith(diags []cliDiagnostic, severity, summary string) []cliDiagnostic {
	var out []cliDiagnostic
	for _, d := range diags {
		if d.Severity == severity && strings.Contains(d.Summary, summary) {
			out = append(out, d)
		}
	}
	return out
}
