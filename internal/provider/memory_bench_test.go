// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// procStatusKB reads a "VmRSS"/"VmHWM"-style line of /proc/self/status.
func procStatusKB(b *testing.B, key string) float64 {
	b.Helper()
	f, err := os.Open("/proc/self/status")
	if err != nil {
		b.Skipf("no /proc/self/status on this OS: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, key+":") {
			fields := strings.Fields(strings.TrimPrefix(line, key+":"))
			if len(fields) > 0 {
				v, err := strconv.ParseFloat(fields[0], 64)
				if err == nil {
					return v
				}
			}
		}
	}
	b.Skipf("%s not found in /proc/self/status", key)
	return 0
}

// BenchmarkProviderMemory configures the provider the way Terraform does
// (schema, then Configure, which loads and indexes the built-in catalog)
// and reports the process's resident memory afterwards. The target is
// ≤ 60 MB RSS after load. Run alone (`-bench ProviderMemory`): other
// benchmarks in the same process inflate the figure.
func BenchmarkProviderMemory(b *testing.B) {
	for range b.N {
		cat, err := catalog.Builtin()
		if err != nil {
			b.Fatal(err)
		}
		if diags := configureWith(b, cat.Date.Add(24*time.Hour), nil); diags.HasError() {
			b.Fatal(diags)
		}
	}
	b.ReportMetric(procStatusKB(b, "VmRSS")/1024, "rss-MB")
	b.ReportMetric(procStatusKB(b, "VmHWM")/1024, "peak-rss-MB")
}
