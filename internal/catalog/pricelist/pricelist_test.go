// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package pricelist_test

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/catalog/pricelist"
)

func builtin(t *testing.T) *catalog.Catalog {
	t.Helper()
	c, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func read(t *testing.T, path string, r pricelist.Reader) *pricelist.Result {
	t.Helper()
	res, err := pricelist.ReadFile(path, r, builtin(t))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func priceOf(res *pricelist.Result, it, region string) (pricelist.Price, bool) {
	for _, p := range res.Prices {
		if p.InstanceType == it && p.Region == region {
			return p, true
		}
	}
	return pricelist.Price{}, false
}

// TestReadAWS: the Linux shared-tenancy list price and the standard
// no-upfront RIs, and nothing from the trap rows (Windows, BYOL, dedicated
// tenancy, capacity reservations, SQL and RHEL images, upfront and
// convertible RIs).
func TestReadAWS(t *testing.T) {
	res := read(t, "testdata/aws_ec2_offer.json", pricelist.ReadAWS)
	for _, tc := range []struct {
		it, region  string
		od, r1y, r3 float64
	}{
		{"p5.48xlarge", "us-east-1", 55.04, 35.776, 24.768},
		{"p5.48xlarge", "ap-southeast-4", 71.552, 0, 0},
		{"p5.48xlarge", "ap-east-2", 66.048, 0, 0},
		{"g6.xlarge", "us-west-2", 0.8048, 0.507, 0},
	} {
		p, ok := priceOf(res, tc.it, tc.region)
		if !ok || !near(p.OnDemandUSD, tc.od) || !near(p.Reserved1YUSD, tc.r1y) || !near(p.Reserved3YUSD, tc.r3) || p.SpotUSD != 0 {
			t.Errorf("%s/%s = %+v (found %v), want on-demand %v, reserved %v / %v", tc.it, tc.region, p, ok, tc.od, tc.r1y, tc.r3)
		}
	}
	if len(res.Prices) != 4 {
		t.Errorf("%d prices, want 4: %+v", len(res.Prices), res.Prices)
	}
	if !slices.Equal(res.Unknown, []string{"p6e-gb200.36xlarge"}) {
		t.Errorf("unknown = %v, want the GB200 instance only (m7i is not an accelerator instance)", res.Unknown)
	}
	if res.Date != "2026-08-01" || !strings.Contains(res.Source, "20260801000000") || res.Cloud != "aws" {
		t.Errorf("date %q source %q", res.Date, res.Source)
	}
}

// TestReadAzure: Consumption = on-demand, "… Spot" = spot, Reservation
// unitPrice / hours of the term; Windows, Low Priority and DevTest ignored.
func TestReadAzure(t *testing.T) {
	res := read(t, "testdata/azure_retail_prices.json", pricelist.ReadAzure)
	raw := genericItems(t, "testdata/azure_retail_prices.json")
	h100 := func(typ, term, sku string) float64 {
		for _, it := range raw {
			if it.ArmSkuName == "Standard_ND96isr_H100_v5" && it.Type == typ && it.SkuName == sku &&
				!strings.Contains(it.ProductName, "Windows") && (term == "" || it.ReservationTerm == term) {
				return it.UnitPrice
			}
		}
		t.Fatalf("fixture lacks %s %s %s", typ, term, sku)
		return 0
	}
	p, ok := priceOf(res, "Standard_ND96isr_H100_v5", "eastus")
	want := pricelist.Price{Cloud: "azure", InstanceType: "Standard_ND96isr_H100_v5", Region: "eastus",
		OnDemandUSD: h100("Consumption", "", "ND96isr H100 v5"), SpotUSD: h100("Consumption", "", "ND96isr H100 v5 Spot"),
		Reserved1YUSD: h100("Reservation", "1 Year", "ND96isr H100 v5") / 8760, Reserved3YUSD: h100("Reservation", "3 Years", "ND96isr H100 v5") / 26280}
	if !ok || !near(p.OnDemandUSD, want.OnDemandUSD) || !near(p.SpotUSD, want.SpotUSD) || !near(p.Reserved1YUSD, want.Reserved1YUSD) ||
		!near(p.Reserved3YUSD, want.Reserved3YUSD) {
		t.Errorf("ND96isr_H100_v5 = %+v, want %+v", p, want)
	}
	if p, ok := priceOf(res, "Standard_NC24lds_xl_RTXPRO6000BSE_v6", "eastus"); !ok || p.OnDemandUSD != 1.13 {
		t.Errorf("NCv6 = %+v", p)
	}
	if len(res.Prices) != 2 || !slices.Equal(res.Unknown, []string{"Standard_ND128isr_NDR_GB300_v6"}) || res.Date != "2026-08-01" {
		t.Errorf("prices %+v unknown %v date %s", res.Prices, res.Unknown, res.Date)
	}
}

// azureFixtureItem is the test's own reading of an Azure item.
type azureFixtureItem struct {
	ArmSkuName, SkuName, ProductName, Type, ReservationTerm string
	UnitPrice                                               float64
}

// genericItems parses the Azure fixture without the package's types.
func genericItems(t *testing.T, path string) []azureFixtureItem {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ps []struct{ Items []azureFixtureItem }
	if err := json.Unmarshal(b, &ps); err != nil {
		t.Fatal(err)
	}
	var out []azureFixtureItem
	for _, p := range ps {
		out = append(out, p.Items...)
	}
	return out
}

// gcpRates parses the GCP fixture without the package's types: description
// -> units + nanos / 1e9.
func gcpRates(t *testing.T, path string) map[string]float64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		SKUs []struct {
			Description string
			PricingInfo []struct {
				PricingExpression struct {
					TieredRates []struct {
						UnitPrice struct {
							Units string
							Nanos float64
						}
					}
				}
			}
		}
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, s := range doc.SKUs {
		up := s.PricingInfo[0].PricingExpression.TieredRates[0].UnitPrice
		units, err := strconv.ParseFloat(up.Units, 64)
		if err != nil {
			t.Fatal(err)
		}
		out[s.Description] = units + up.Nanos/1e9
	}
	return out
}

// TestReadGCP: a machine price is vCPUs x core + GiB x RAM + GPUs x GPU of
// its family's SKUs, for each usage type, with the catalog's machine shape.
func TestReadGCP(t *testing.T) {
	c := builtin(t)
	res := read(t, "testdata/gcp_billing_skus.json", pricelist.ReadGCP)
	r := gcpRates(t, "testdata/gcp_billing_skus.json")
	o := c.OffersOf("gcp", "a3-highgpu-8g")[0]
	compose := func(core, ram, gpu string) float64 {
		return float64(o.VCPUs)*r[core] + o.MemoryGB*r[ram] + float64(o.GPUs)*r[gpu]
	}
	want := pricelist.Price{Cloud: "gcp", InstanceType: "a3-highgpu-8g", Region: "us-central1",
		OnDemandUSD: compose("A3 Instance Core running in Americas", "A3 Instance Ram running in Americas", "Nvidia H100 80GB GPU running in Americas"),
		SpotUSD: compose("Spot Preemptible A3 Instance Core running in Americas", "Spot Preemptible A3 Instance Ram running in Americas",
			"Nvidia H100 80GB GPU attached to Spot Preemptible VMs running in Americas"),
		Reserved1YUSD: compose("Commitment v1: A3 Cpu in Americas for 1 Year", "Commitment v1: A3 Ram in Americas for 1 Year",
			"Commitment v1: Nvidia H100 80GB GPU in Americas for 1 Year"),
		Reserved3YUSD: compose("Commitment v1: A3 Cpu in Americas for 3 Years", "Commitment v1: A3 Ram in Americas for 3 Years",
			"Commitment v1: Nvidia H100 80GB GPU in Americas for 3 Years")}
	got, ok := priceOf(res, "a3-highgpu-8g", "us-central1")
	if !ok || !near(got.OnDemandUSD, want.OnDemandUSD) || !near(got.SpotUSD, want.SpotUSD) || !near(got.Reserved1YUSD, want.Reserved1YUSD) ||
		!near(got.Reserved3YUSD, want.Reserved3YUSD) {
		t.Errorf("a3-highgpu-8g = %+v\nwant %+v", got, want)
	}
	a2 := c.OffersOf("gcp", "a2-highgpu-1g")[0]
	for _, region := range []string{"us-central1", "us-east1"} {
		got, ok := priceOf(res, "a2-highgpu-1g", region)
		wantOD := float64(a2.VCPUs)*r["A2 Instance Core running in Americas"] + a2.MemoryGB*r["A2 Instance Ram running in Americas"] +
			r["Nvidia Tesla A100 GPU running in Americas"]
		if !ok || !near(got.OnDemandUSD, wantOD) || got.SpotUSD != 0 || got.Reserved1YUSD != 0 {
			t.Errorf("a2-highgpu-1g/%s = %+v, want on-demand %v only", region, got, wantOD)
		}
	}
	if _, ok := priceOf(res, "a3-megagpu-8g", "us-central1"); ok {
		t.Error("a3-megagpu-8g priced without its GPU SKU")
	}
	if !slices.Contains(res.Unknown, "Nvidia Tesla T4 GPU") || res.Date != "2026-08-01" {
		t.Errorf("unknown %v date %s", res.Unknown, res.Date)
	}
}

// TestOverlayLoads: the overlay written from the three files loads as a
// catalog_file and its prices are the catalog's afterwards.
func TestOverlayLoads(t *testing.T) {
	c := builtin(t)
	var results []*pricelist.Result
	for _, in := range []struct {
		path string
		r    pricelist.Reader
	}{{"testdata/aws_ec2_offer.json", pricelist.ReadAWS}, {"testdata/azure_retail_prices.json", pricelist.ReadAzure},
		{"testdata/gcp_billing_skus.json", pricelist.ReadGCP}} {
		results = append(results, read(t, in.path, in.r))
	}
	ov, notes := pricelist.BuildOverlay(results, c)
	data, err := ov.YAML()
	if err != nil {
		t.Fatal(err)
	}
	n, _, err := c.WithOverlayBytes("overlay.yaml", data)
	if err != nil {
		t.Fatalf("overlay does not load: %v\n%s", err, data)
	}
	checked := 0
	for _, res := range results {
		for _, p := range res.Prices {
			o, ok := n.Offer(p.Cloud, p.InstanceType, p.Region)
			if _, hasRegion := c.Region(p.Cloud, p.Region); !hasRegion {
				if ok {
					t.Errorf("%s/%s/%s: offer in a region without metadata", p.Cloud, p.InstanceType, p.Region)
				}
				continue
			}
			if !ok || !near(o.OnDemandUSD, p.OnDemandUSD) || (p.SpotUSD > 0 && !near(o.SpotUSD, p.SpotUSD)) ||
				(p.Reserved1YUSD > 0 && (!near(o.Reserved1YUSD, p.Reserved1YUSD) || o.ReservedDerived)) ||
				!strings.Contains(o.Source, res.File) {
				t.Errorf("%s/%s/%s: catalog %+v after the overlay, file %+v", p.Cloud, p.InstanceType, p.Region, o, p)
			}
			checked++
		}
	}
	// A new region gets the instance's specs from the catalog; a region
	// without metadata is left out with a note.
	if o, ok := n.Offer("aws", "p5.48xlarge", "ap-southeast-4"); !ok || o.Accelerator != "H100" || o.GPUs != 8 || o.GPUMemoryGB != 640 {
		t.Errorf("new p5 offer = %+v", o)
	}
	if !slices.ContainsFunc(notes, func(s string) bool { return strings.HasPrefix(s, "aws/p5.48xlarge/ap-east-2: region has no metadata") }) {
		t.Errorf("notes %v lack the region without metadata", notes)
	}
	if o, _ := n.Offer("azure", "Standard_NC24lds_xl_RTXPRO6000BSE_v6", "eastus"); !o.Fractional() {
		t.Errorf("fractional offer lost its fraction: %+v", o)
	}
	if checked < 7 || !strings.HasPrefix(string(data), "# Catalog overlay") {
		t.Errorf("%d prices checked", checked)
	}
}

// TestBadInput: malformed and truncated files name the file and position,
// a file of another format says which format was expected.
func TestBadInput(t *testing.T) {
	c := builtin(t)
	aws, err := os.ReadFile("testdata/aws_ec2_offer.json")
	if err != nil {
		t.Fatal(err)
	}
	azure, _ := os.ReadFile("testdata/azure_retail_prices.json")
	gcp, _ := os.ReadFile("testdata/gcp_billing_skus.json")
	for _, tc := range []struct {
		name string
		read pricelist.Reader
		data []byte
		want string
	}{
		{"truncated", pricelist.ReadAWS, aws[:len(aws)/2], `^ec2\.json:\d+:\d+: the file ends in the middle of the JSON document \(truncated download\?\)$`},
		{"truncated azure", pricelist.ReadAzure, azure[:len(azure)-40], `^ec2\.json:\d+:\d+: the file ends in the middle`},
		{"malformed", pricelist.ReadAWS, []byte(strings.Replace(string(aws), `"offerCode": "AmazonEC2",`, `"offerCode": "AmazonEC2",,`, 1)),
			`^ec2\.json:4:27: malformed JSON: invalid character ','`},
		{"azure as aws", pricelist.ReadAWS, azure, `expected the format AWS Price List EC2 offer file \(JSON\); this file looks like: Azure Retail Prices API response \(JSON\)`},
		{"aws as gcp", pricelist.ReadGCP, aws, `expected the format Google Cloud Billing Catalog SKU list \(JSON\); this file looks like: AWS Price List EC2 offer file`},
		{"csv", pricelist.ReadAzure, []byte("a,b\n1,2\n"), `^ec2\.json:1:1: malformed JSON`},
		{"other object", pricelist.ReadGCP, []byte(`{"services": []}`), `expected the format Google Cloud Billing Catalog SKU list \(JSON\) \(top-level fields: services\)`},
		{"other offer", pricelist.ReadAWS, []byte(strings.Replace(string(aws), `"AmazonEC2"`, `"AmazonRDS"`, 1)), `offerCode "AmazonRDS": not the AmazonEC2 offer file`},
		{"euro", pricelist.ReadAzure, []byte(strings.ReplaceAll(string(azure), `"currencyCode": "USD"`, `"currencyCode": "EUR"`)), `prices in EUR; download with currencyCode='USD'`},
		{"gcp units", pricelist.ReadGCP, []byte(strings.Replace(string(gcp), `"units": "9"`, `"units": "nine"`, 1)), `units "nine" is not an integer`},
		{"trailing data", pricelist.ReadGCP, append(append([]byte{}, gcp...), []byte(`{"skus": []}`)...), `trailing data after the JSON document`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.read("ec2.json", tc.data, c)
			if err == nil || !regexp.MustCompile(tc.want).MatchString(err.Error()) {
				t.Fatalf("err = %v\nwant matching %s", err, tc.want)
			}
		})
	}
}

// TestWriteFileAtomic: the file appears whole or not at all.
func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/o.yaml"
	if err := pricelist.WriteFileAtomic(path, []byte("a: 1\n")); err != nil {
		t.Fatal(err)
	}
	if err := pricelist.WriteFileAtomic(dir+"/missing/o.yaml", []byte("x")); err == nil {
		t.Error("writing into a missing directory succeeded")
	}
	entries, _ := os.ReadDir(dir)
	if b, _ := os.ReadFile(path); string(b) != "a: 1\n" || len(entries) != 1 {
		t.Errorf("content %q, %d entries (temporary files left?)", b, len(entries))
	}
}

// TestExampleSamples: the sample price-list files users are pointed to
// (examples/price-lists, README there) are the files these tests read,
// byte for byte, so the samples stay readable by the importer.
func TestExampleSamples(t *testing.T) {
	for _, name := range []string{"aws_ec2_offer.json", "azure_retail_prices.json", "gcp_billing_skus.json"} {
		sample, err := os.ReadFile("../../../examples/price-lists/" + name)
		if err != nil {
			t.Fatal(err)
		}
		tested, err := os.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(sample, tested) {
			t.Errorf("examples/price-lists/%s differs from testdata/%s: copy the tested file over the sample", name, name)
		}
	}
}
