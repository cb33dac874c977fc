// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

//go:build generate

package tools

import (
	// Documentation generation.
	_ "github.com/hashicorp/terraform-plugin-docs/cmd/tfplugindocs"
)

// Format Terraform code for use in documentation. Terraform comes from
// `make terraform`; the GNUmakefile puts it on PATH.
//go:generate terraform fmt -recursive ../examples/

// Generate documentation. No --tf-version: tfplugindocs then uses the
// terraform on PATH and works offline.
//go:generate go run github.com/hashicorp/terraform-plugin-docs/cmd/tfplugindocs generate --provider-dir .. --provider-name gpu
