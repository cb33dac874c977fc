// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"runtime"
	"runtime/debug"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"

	"github.com/gpuplan/terraform-provider-gpu/internal/provider"
	"github.com/gpuplan/terraform-provider-gpu/internal/refresh"
)

// version is set by GoReleaser through -ldflags "-X main.version=...".
var version = "dev"

func main() {
	// `terraform-provider-gpu refresh …`, run by hand, is the only path
	// that touches the network; Terraform starts the plugin without
	// arguments (or with -debug), which serves the provider below.
	if len(os.Args) > 1 && os.Args[1] == refresh.Command {
		os.Exit(refresh.Main(os.Args[2:], os.Stderr, os.Getenv))
	}
	var debug, showVersion bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers like delve")
	flag.BoolVar(&showVersion, "version", false, "print the provider version and exit")
	flag.Parse()
	if showVersion {
		fmt.Println(versionLine())
		return
	}
	quietSDKLogsUnlessAsked()
	collectGarbageLessOften()

	// The framework's server (what providerserver.Serve serves) with its
	// answers' diagnostics summarised (provider.Summarizing).
	var opts []tf6server.ServeOpt
	if debug {
		opts = append(opts, tf6server.WithManagedDebug())
	}
	serve := func() tfprotov6.ProviderServer {
		return provider.Summarizing(providerserver.NewProtocol6(provider.New(version)())())
	}
	if err := tf6server.Serve("registry.terraform.io/gpuplan/gpu", serve, opts...); err != nil {
		log.Fatal(err.Error())
	}
}

// versionLine is what -version prints: the name, the version GoReleaser
// stamped (without a leading "v", as in the archive names) and the platform.
func versionLine() string {
	return fmt.Sprintf("terraform-provider-gpu %s %s/%s", version, runtime.GOOS, runtime.GOARCH)
}

// gcPercent is the garbage collector's target for the plugin process: the
// process lives for one Terraform command and holds the catalog and the
// planner (about 25 MB live), while a plan's reads allocate short-lived
// values at a high rate. At Go's default (100) the collector took about a
// fifth of the plugin's CPU in a plan of 20 recommendations; at 400 the
// plugin used 140 instead of 170 ms CPU and 60 instead of 42 MB RSS
// (measured 2026-12-02, internal/provider/testdata/plan-timing).
const gcPercent = 400

// memoryLimit is the plugin's soft memory limit: beyond it the collector
// runs as often as it must, whatever gcPercent. gcPercent lets the heap
// grow to five times what is live; with the largest catalog_file accepted
// (64 MB of YAML, 220,000 offers, about 240 MB live while it is read) that
// was a heap goal of 918 MB and 867-899 MB RSS, near the 1 GB a 64 MB input
// may take (issue 23). Typical plans (about 25 MB live, a heap goal near
// 125 MB) never reach it. Measured 2026-12-03 with /usr/bin/time -v and
// GODEBUG=gctrace=1 on the plugin of `terraform plan`.
const memoryLimit = 512 << 20

// collectGarbageLessOften applies gcPercent unless the user set GOGC, and
// memoryLimit unless the user set GOMEMLIMIT.
func collectGarbageLessOften() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
}

// quietSDKLogsUnlessAsked turns the plugin SDK's own logging off when no
// Terraform logging is requested. By default the SDK formats a trace line
// for every RPC, which Terraform then discards unless TF_LOG is set; with 20
// data sources in a plan that work is a visible part of plan time. Any
// TF_LOG* variable the user sets wins.
func quietSDKLogsUnlessAsked() {
	for _, v := range []string{"TF_LOG", "TF_LOG_PROVIDER", "TF_LOG_SDK", "TF_LOG_SDK_FRAMEWORK", "TF_LOG_SDK_PROTO"} {
		if os.Getenv(v) != "" {
			return
		}
	}
	for _, v := range []string{"TF_LOG_SDK", "TF_LOG_SDK_FRAMEWORK", "TF_LOG_SDK_PROTO"} {
		_ = os.Setenv(v, "off")
	}
}
