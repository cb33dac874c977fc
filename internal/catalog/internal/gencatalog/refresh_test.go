// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
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
