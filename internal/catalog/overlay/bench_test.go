// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package overlay_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// overlayOffers renders n new offers (a fresh instance type each, so every
// entry adds an offer) as YAML or JSON.
func overlayOffers(n int, json bool) []byte {
	var b strings.Builder
	if json {
		b.WriteString(`{"offers": [`)
	} else {
		b.WriteString("offers:\n")
	}
	for i := range n {
		if json {
			if i > 0 {
				b.WriteString(",\n")
			}
			fmt.Fprintf(&b, `{"cloud": "aws", "instance_type": "bench%d.48xlarge", "region": "us-east-1", "accelerator": "H100", "gpus": 8, "vcpus": 192, "memory_gb": 2048, "network_gbps": 3200, "fabric": "efa", "on_demand_usd": %d.5, "spot_usd": 5.25, "source": "generated offer number %d for a stress test of the overlay"}`, i, 10+i%100, i)
		} else {
			fmt.Fprintf(&b, "  - cloud: aws\n    instance_type: bench%d.48xlarge\n    region: us-east-1\n    accelerator: H100\n    gpus: 8\n    vcpus: 192\n    memory_gb: 2048\n    network_gbps: 3200\n    fabric: efa\n    on_demand_usd: %d.5\n    spot_usd: 5.25\n    source: \"generated offer number %d for a stress test of the overlay\"\n", i, 10+i%100, i)
		}
	}
	if json {
		b.WriteString("]}\n")
	}
	return []byte(b.String())
}

// BenchmarkOverlay50kOffers: read, validate and merge 50,000 new offers
// (JSON: mostly the merge; YAML: plus the YAML parser).
func BenchmarkOverlay50kOffers(b *testing.B) {
	base := builtin(b)
	for _, format := range []string{"json", "yaml"} {
		data := overlayOffers(50_000, format == "json")
		b.Run(format, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				c, _, err := applyBytes(base, "bench."+format, data)
				if err != nil {
					b.Fatal(err)
				}
				if len(c.Offers) != len(base.Offers)+50_000 {
					b.Fatalf("%d offers", len(c.Offers))
				}
			}
		})
	}
}

// BenchmarkOverlay50MBYAML: the largest YAML file accepted is read with
// memory a small multiple of its size (B/op is the total allocated).
func BenchmarkOverlay50MBYAML(b *testing.B) {
	base := builtin(b)
	data := overlayOffers(180_000, false) // about 50 MB
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, _, err := applyBytes(base, "big.yaml", data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOverlaySmall: the documented negotiated-prices example, the
// cost a provider pays at every Configure with a typical file.
func BenchmarkOverlaySmall(b *testing.B) {
	base := builtin(b)
	data, err := os.ReadFile(examplePath("negotiated.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := applyBytes(base, "negotiated.yaml", data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOverlayHostileFiles: a FIFO nobody writes to and /dev/zero are
// refused at once (they used to block for ever and to grow the process
// until it died).
func BenchmarkOverlayHostileFiles(b *testing.B) {
	if runtime.GOOS == "windows" {
		b.Skip("no FIFOs or /dev/zero")
	}
	base := builtin(b)
	fifo := filepath.Join(b.TempDir(), "pipe.yaml")
	mkfifo(b, fifo)
	for _, path := range []string{fifo, "/dev/zero"} {
		b.Run(filepath.Base(path), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := applyFile(base, path); err == nil {
					b.Fatal("accepted")
				}
			}
		})
	}
}
