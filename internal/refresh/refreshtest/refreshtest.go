// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

// Package refreshtest holds what tests of the refresh share: the committed
// recording of trimmed price-API answers and the catalog it prices. Only
// tests import it.
package refreshtest

import (
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// Recorded is the directory of the committed recording
// (internal/refresh/testdata/recorded, described in its README.md).
func Recorded() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "testdata", "recorded")
}

// InstanceTypes are the instance types the recording prices.
var InstanceTypes = map[string]bool{
	"p5.48xlarge": true, "g6.xlarge": true,
	"Standard_ND96isr_H100_v5": true, "Standard_NC24ads_A100_v4": true,
	"a3-highgpu-8g": true, "a2-highgpu-1g": true,
	"1x_A100-80GB-SXM_SECURE": true, "8x_A100-80GB_SECURE": true,
	"gpu_1x_a10": true, "gpu_8x_h100_sxm5": true,
}

// Catalog is the built-in catalog with the offers of InstanceTypes only,
// so the recording answers every request a refresh makes.
func Catalog(tb testing.TB) *catalog.Catalog {
	tb.Helper()
	fsys := fstest.MapFS{}
	for _, name := range []string{catalog.FileMeta, catalog.FileAccelerators, catalog.FileClouds, catalog.FileRegions, catalog.FileOffers} {
		data, err := catalog.ReadDataFile(name)
		if err != nil {
			tb.Fatal(err)
		}
		if name == catalog.FileOffers {
			lines := strings.SplitAfter(string(data), "\n")
			var keep strings.Builder
			keep.WriteString(lines[0])
			for _, l := range lines[1:] {
				if f := strings.SplitN(l, ",", 4); len(f) == 4 && InstanceTypes[f[2]] {
					keep.WriteString(l)
				}
			}
			data = []byte(keep.String())
		}
		fsys[name] = &fstest.MapFile{Data: data}
	}
	c, err := catalog.Load(fsys)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}
