// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"runtime"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/gpuplan/terraform-provider-gpu/internal/provider"
)

// version is set by GoReleaser through -ldflags "-X main.version=...".
var version = "dev"

func main() {
	var debug, showVersion bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers like delve")
	flag.BoolVar(&showVersion, "version", false, "print the provider version and exit")
	flag.Parse()
	if showVersion {
		fmt.Println(versionLine())
		return
	}
	quietSDKLogsUnlessAsked()

	err := providerserver.Serve(context.Background(), provider.New(version), providerserver.ServeOpts{
		Address: "registry.terraform.io/gpuplan/gpu",
		Debug:   debug,
	})
	if err != nil {
		log.Fatal(err.Error())
	}
}

// versionLine is what -version prints: the name, the version GoReleaser
// stamped (without a leading "v", as in the archive names) and the platform.
func versionLine() string {
	return fmt.Sprintf("terraform-provider-gpu %s %s/%s", version, runtime.GOOS, runtime.GOARCH)
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
