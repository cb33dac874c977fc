// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"os/exec"
	"strings"
	"testing"
)

// TestProviderImportsNoNetwork: nothing the provider runs when Terraform
// plans or applies can open a socket — neither it nor any package it
// imports (the planning packages, the framework, the catalog) links a
// network package or a way to run a program that would. Only the
// refresh subcommand (internal/refresh, dispatched by main before the
// server starts) downloads prices; the served process's own sockets are
// checked in the root package's TestPluginOpensNoNetworkSocket.
func TestProviderImportsNoNetwork(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("this test lists the provider's imports with the go command: %v", err)
	}
	out, err := exec.Command(goTool, "list", "-deps", "-f", "{{.ImportPath}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	forbidden := map[string]string{
		"net":                            "sockets",
		"net/http":                       "HTTP clients",
		"crypto/tls":                     "TLS connections",
		"os/exec":                        "running a program (curl, a cloud CLI)",
		"net/rpc":                        "RPC clients",
		"plugin":                         "loading code at run time",
		modulePath + "/internal/refresh": "the price download",
	}
	for _, d := range deps {
		if why, bad := forbidden[d]; bad {
			t.Errorf("the provider imports %s (%s), directly or through a dependency: `go list -deps` to find the path; Terraform's plugin must not touch the network", d, why)
		}
	}
	if len(deps) < 50 {
		t.Errorf("only %d dependencies listed: the check would not see an import", len(deps))
	}
}

// modulePath is the module's import path.
const modulePath = "github.com/gpuplan/terraform-provider-gpu"
