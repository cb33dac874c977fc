// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package main

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/refresh"
	"github.com/gpuplan/terraform-provider-gpu/internal/refresh/refreshtest"
)

// TestPriceListRefresh is a maintainers' refresh end to end: the sources
// plus a price-list file in sources/pricelists, the generator, the loader.
// The file's prices replace the catalog's, dated by the file (catalog_date
// stays the oldest price date), and the generated catalog loads.
func TestPriceListRefresh(t *testing.T) {
	base, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sources, out := filepath.Join(dir, "sources"), filepath.Join(dir, "data")
	if err := os.CopyFS(sources, os.DirFS(filepath.Join("..", "..", "testdata", "sources"))); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(sources, priceListDir), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"aws_ec2_offer.json", "azure_retail_prices.json"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "pricelist", "testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		// The AWS file as if downloaded after every built-in source
		// (2026-12-01): its prices replace the catalog's. The Azure file
		// keeps its 2026-08-01 date: older than some built-in prices.
		b = bytes.Replace(b, []byte(`"publicationDate": "2026-08-01T00:00:00Z"`), []byte(`"publicationDate": "2026-12-01T00:00:00Z"`), 1)
		if err := os.WriteFile(filepath.Join(sources, priceListDir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.CopyFS(out, os.DirFS(filepath.Join("..", "..", "data"))); err != nil {
		t.Fatal(err)
	}
	*srcDir, *outDir, *curatedDir = sources, out, "curated"
	(&gen{drops: map[string]int{}}).run()

	c, err := catalog.Load(os.DirFS(out))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cloud, it, region string
		od, r1y           float64
	}{
		{"aws", "p5.48xlarge", "us-east-1", 55.04, 35.776},
		{"aws", "p5.48xlarge", "ap-southeast-4", 71.552, 0},
	} {
		o, ok := c.Offer(tc.cloud, tc.it, tc.region)
		if !ok || o.OnDemandUSD != tc.od || (tc.r1y > 0 && (o.Reserved1YUSD != tc.r1y || o.ReservedDerived)) ||
			!strings.Contains(o.Source, "dated 2026-12-01") || o.PriceInfos.OnDemand.AsOf.Format("2006-01-02") != "2026-12-01" {
			t.Errorf("%s/%s/%s = %+v, want on-demand %v, reserved_1y %v from the price list", tc.cloud, tc.it, tc.region, o, tc.od, tc.r1y)
		}
	}
	// A file older than an offer's price does not replace it: the newer
	// published price wins (Azure ND96isr_H100_v5 eastus, November 2026).
	if o, _ := c.Offer("azure", "Standard_ND96isr_H100_v5", "eastus"); strings.Contains(o.Source, "dated 2026-08-01") ||
		o.PriceInfos.OnDemand.AsOf.Format("2006-01-02") != "2026-11-09" {
		t.Errorf("azure ND96isr_H100_v5 eastus: %+v, want the newer 2026-11-09 price kept", o)
	}
	// A derived reserved price follows the new on-demand price.
	if o, _ := c.Offer("aws", "p5.48xlarge", "ap-southeast-4"); o.Reserved1YUSD <= 0 || !o.ReservedDerived {
		t.Errorf("new p5 offer: reserved %v derived %v", o.Reserved1YUSD, o.ReservedDerived)
	}
	if !c.Date.Equal(base.Date) || len(c.Offers) != len(base.Offers)+1 {
		t.Errorf("catalog date %v, %d offers (built-in %d)", c.Date, len(c.Offers), len(base.Offers))
	}
}

// TestMakeRefreshNoDiff is make refresh with the answers replayed from a
// recording: the refresh writes its extract into sources/pricelists, the
// generator applies it. Its prices reach the generated catalog, dated as
// the answers and published; and the same recording, refreshed and
// generated again, changes no byte of the extract or of the data.
func TestMakeRefreshNoDiff(t *testing.T) {
	dir := t.TempDir()
	sources := filepath.Join(dir, "sources")
	if err := os.CopyFS(sources, os.DirFS(filepath.Join("..", "..", "testdata", "sources"))); err != nil {
		t.Fatal(err)
	}
	extract := filepath.Join(sources, priceListDir, "refresh.json")
	if err := os.MkdirAll(filepath.Dir(extract), 0o755); err != nil {
		t.Fatal(err)
	}
	var runs [2]map[string][]byte
	for i := range runs {
		o := refresh.Options{Extract: extract, Replay: refreshtest.Recorded(), Catalog: refreshtest.Catalog(t)}
		if _, err := refresh.Run(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, fmt.Sprintf("data%d", i))
		if err := os.CopyFS(out, os.DirFS(filepath.Join("..", "..", "data"))); err != nil {
			t.Fatal(err)
		}
		*srcDir, *outDir, *curatedDir = sources, out, "curated"
		(&gen{drops: map[string]int{}}).run()
		runs[i] = map[string][]byte{}
		for _, f := range []string{"offers.csv", "catalog.json", "regions.csv", "clouds.json", "accelerators.json", "serverless.csv"} {
			b, err := os.ReadFile(filepath.Join(out, f))
			if err != nil {
				t.Fatal(err)
			}
			runs[i][f] = b
		}
		b, _ := os.ReadFile(extract)
		runs[i]["extract"] = b
	}
	for f, b := range runs[0] {
		if !bytes.Equal(b, runs[1][f]) {
			t.Errorf("%s differs between two refreshes of the same recording", f)
		}
	}
	c, err := catalog.Load(os.DirFS(filepath.Join(dir, "data0")))
	if err != nil {
		t.Fatal(err)
	}
	base, err := catalog.Load(os.DirFS(filepath.Join("..", "..", "data")))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, tc := range []struct {
		cloud, it, region string
		od                float64
		asOf              string
	}{
		{"lambda", "gpu_8x_h100_sxm5", "us-east-1", 23.92, "2026-11-16"},
		// one date per answer set: the latest effectiveStartDate of the Azure pages
		{"azure", "Standard_NC24ads_A100_v4", "eastus", 3.673, "2026-11-01"},
		{"runpod", "8x_A100-80GB_SECURE", "US-KS-2", 8 * 1.64, "2026-11-16"},
		{"aws", "p5.48xlarge", "us-east-1", 55.04, "2026-11-14"},
	} {
		o, ok := c.Offer(tc.cloud, tc.it, tc.region)
		b, inBase := base.Offer(tc.cloud, tc.it, tc.region)
		if !ok || !inBase {
			t.Errorf("%s/%s/%s missing (generated %v, committed %v)", tc.cloud, tc.it, tc.region, ok, inBase)
			continue
		}
		_, info, _ := o.PriceInfo(catalog.OnDemand)
		_, was, _ := b.PriceInfo(catalog.OnDemand)
		wantOD, wantInfo := tc.od, catalog.PriceInfo{Basis: catalog.PricePublished}
		wantInfo.AsOf, _ = time.Parse(time.DateOnly, tc.asOf)
		if was.AsOf.After(wantInfo.AsOf) {
			// The committed price is newer than the recording: it stays.
			wantOD, wantInfo = b.OnDemandUSD, was
		} else {
			checked++
		}
		if math.Abs(o.OnDemandUSD-wantOD) > 1e-9 || info.Basis != wantInfo.Basis || !info.AsOf.Equal(wantInfo.AsOf) {
			t.Errorf("%s/%s/%s = %v %+v, want %v %+v", tc.cloud, tc.it, tc.region, o.OnDemandUSD, info, wantOD, wantInfo)
		}
	}
	if checked == 0 {
		t.Error("every committed price is newer than the recording: the test checks no price taken from it")
	}
}
