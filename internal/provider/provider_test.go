// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"os"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// testAccProtoV6ProviderFactories starts the provider in-process for
// acceptance tests. The provider calls no cloud API, so acceptance tests
// need no credentials and always run (resource.UnitTest); they need a
// Terraform binary, which `make terraform` builds and `make test` passes
// through TF_ACC_TERRAFORM_PATH.
var testAccProtoV6ProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"gpu": func() (tfprotov6.ProviderServer, error) {
		return Summarizing(providerserver.NewProtocol6(New("test")())()), nil
	},
}

func TestMain(m *testing.M) {
	// Never let the checkpoint client phone home from tests.
	if os.Getenv("CHECKPOINT_DISABLE") == "" {
		_ = os.Setenv("CHECKPOINT_DISABLE", "1")
	}
	os.Exit(m.Run())
}
