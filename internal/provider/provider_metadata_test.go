// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/provider"
)

// TestMetadataVersion checks that the version main.go receives from the
// GoReleaser ldflags reaches the framework unchanged.
func TestMetadataVersion(t *testing.T) {
	t.Parallel()
	resp := &provider.MetadataResponse{}
	New("1.2.3")().Metadata(context.Background(), provider.MetadataRequest{}, resp)
	if resp.TypeName != "gpu" || resp.Version != "1.2.3" {
		t.Fatalf("Metadata = {TypeName: %q, Version: %q}, want {gpu, 1.2.3}", resp.TypeName, resp.Version)
	}
}
