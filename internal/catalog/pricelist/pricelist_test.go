// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package pricelist_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/catalog/overlay"
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

// TestReadAzure: Consumption = on-demand, "… Spot" = spot, the on-demand
// item's savingsPlan "1 Year"/"3 Years" = reserved_1y/3y (the catalog's
// Azure reserved definition); Reservation items (noted), other savings-plan
// terms (noted), Windows, Low Priority and DevTest ignored.
func TestReadAzure(t *testing.T) {
	res := read(t, "testdata/azure_retail_prices.json", pricelist.ReadAzure)
	raw := genericItems(t, "testdata/azure_retail_prices.json")
	h100 := func(typ, term, sku string) float64 {
		for _, it := range raw {
			if it.ArmSkuName == "Standard_ND96isr_H100_v5" && it.Type == typ && it.SkuName == sku &&
				!strings.Contains(it.ProductName, "Windows") {
				if term == "" {
					return it.UnitPrice
				}
				for _, sp := range it.SavingsPlan {
					if sp.Term == term {
						return sp.UnitPrice
					}
				}
			}
		}
		t.Fatalf("fixture lacks %s %s %s", typ, term, sku)
		return 0
	}
	p, ok := priceOf(res, "Standard_ND96isr_H100_v5", "eastus")
	want := pricelist.Price{Cloud: "azure", InstanceType: "Standard_ND96isr_H100_v5", Region: "eastus",
		OnDemandUSD: h100("Consumption", "", "ND96isr H100 v5"), SpotUSD: h100("Consumption", "", "ND96isr H100 v5 Spot"),
		Reserved1YUSD: h100("Consumption", "1 Year", "ND96isr H100 v5"), Reserved3YUSD: h100("Consumption", "3 Years", "ND96isr H100 v5")}
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
	for _, note := range []string{"Reserved VM Instance (1 Year) skipped", "savings plan term \"5 Years\"; skipped"} {
		if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, note) }) {
			t.Errorf("notes %q lack %q", res.Notes, note)
		}
	}
}

// azureFixtureItem is the test's own reading of an Azure item.
type azureFixtureItem struct {
	ArmSkuName, SkuName, ProductName, Type, ReservationTerm string
	UnitPrice                                               float64
	SavingsPlan                                             []struct {
		UnitPrice float64
		Term      string
	}
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
	res, err := overlay.Apply(c, "overlay.yaml", overlay.Options{Data: data})
	if err != nil {
		t.Fatalf("overlay does not load: %v\n%s", err, data)
	}
	n := res.Catalog
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
			if info := o.PriceInfos.OnDemand; info.Basis != catalog.PricePublished || info.AsOf.Format(time.DateOnly) != res.Date {
				t.Errorf("%s/%s/%s: on-demand %+v, want published as of the file's %s", p.Cloud, p.InstanceType, p.Region, info, res.Date)
			}
			checked++
		}
	}
	// A new region gets the instance's specs from the catalog (when the
	// catalog has the region's metadata: the built-in catalog carries only
	// regions with offers); a region without metadata is left out with a
	// note.
	if _, known := c.Region("aws", "ap-southeast-4"); known {
		if o, ok := n.Offer("aws", "p5.48xlarge", "ap-southeast-4"); !ok || o.Accelerator != "H100" || o.GPUs != 8 || o.GPUMemoryGB != 640 {
			t.Errorf("new p5 offer = %+v", o)
		}
	} else if !slices.ContainsFunc(notes, func(s string) bool {
		return strings.HasPrefix(s, "aws/p5.48xlarge/ap-southeast-4: region has no metadata")
	}) {
		t.Errorf("notes %v lack the region without metadata", notes)
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
		{"other object", pricelist.ReadGCP, []byte(`{"services": []}`), `expected the format Google Cloud Billing Catalog SKU list \(JSON\) \(top-level fields: services; has the API.s format changed\?\)`},
		{"other offer", pricelist.ReadAWS, []byte(strings.Replace(string(aws), `"AmazonEC2"`, `"AmazonRDS"`, 1)), `offerCode "AmazonRDS": not the AmazonEC2 offer file`},
		{"euro", pricelist.ReadAzure, []byte(strings.ReplaceAll(string(azure), `"currencyCode": "USD"`, `"currencyCode": "EUR"`)), `prices in EUR; download with currencyCode='USD'`},
		{"gcp units", pricelist.ReadGCP, []byte(strings.Replace(string(gcp), `"units": "9"`, `"units": "nine"`, 1)), `units "nine" is not an integer`},
		{"trailing data", pricelist.ReadGCP, append(append([]byte{}, gcp...), []byte(`{"skus": []}`)...), `trailing data after the JSON document`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.read("ec2.json", bytes.NewReader(tc.data), c)
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

// TestOddPrices: a zero, negative or non-finite price is left out with a
// note saying which, never silently or as "not a number"; a GCP SKU whose
// nanos are negative is left out with a note, not read as cheaper.
func TestOddPrices(t *testing.T) {
	c := builtin(t)
	aws, _ := os.ReadFile("testdata/aws_ec2_offer.json")
	gcp, _ := os.ReadFile("testdata/gcp_billing_skus.json")
	for _, tc := range []struct {
		name string
		read pricelist.Reader
		data string
		note string
	}{
		{"aws zero", pricelist.ReadAWS, strings.Replace(string(aws), `"USD": "55.0400000000"`, `"USD": "0.0"`, 1),
			`SKU SKUP5LINUX: on-demand price "0.0" is zero (not sold at a list price); skipped`},
		{"aws negative", pricelist.ReadAWS, strings.Replace(string(aws), `"USD": "55.0400000000"`, `"USD": "-55.04"`, 1),
			`SKU SKUP5LINUX: price "-55.04" is negative; skipped`},
		{"aws infinite", pricelist.ReadAWS, strings.Replace(string(aws), `"USD": "55.0400000000"`, `"USD": "Inf"`, 1),
			`SKU SKUP5LINUX: price "Inf" is not a finite number; skipped`},
		{"gcp negative nanos", pricelist.ReadGCP, strings.Replace(string(gcp), `"nanos": 797500000`, `"nanos": -797500000`, 1),
			`SKU H100-0001-0001 (Nvidia H100 80GB GPU): a negative or malformed price; skipped`},
	} {
		res, err := tc.read("f.json", strings.NewReader(tc.data), c)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !slices.Contains(res.Notes, tc.note) {
			t.Errorf("%s: notes %q lack %q", tc.name, res.Notes, tc.note)
		}
	}
	// The p5 in us-east-1 is left out with its on-demand price; the H100
	// machine is not composed from a partial price.
	res, _ := pricelist.ReadAWS("f.json", strings.NewReader(strings.Replace(string(aws), `"USD": "55.0400000000"`, `"USD": "0.0"`, 1)), c)
	if p, ok := priceOf(res, "p5.48xlarge", "us-east-1"); ok {
		t.Errorf("a zero on-demand price was imported: %+v", p)
	}
	res, _ = pricelist.ReadGCP("f.json", strings.NewReader(strings.Replace(string(gcp), `"nanos": 797500000`, `"nanos": -797500000`, 1)), c)
	if p, ok := priceOf(res, "a3-highgpu-8g", "us-central1"); ok && p.OnDemandUSD > 0 {
		t.Errorf("an a3-highgpu-8g on-demand price from a negative GPU SKU: %+v", p)
	}
}

// TestReadRunPodLambda: RunPod's per-GPU prices times the GPUs of the
// instance type, by cloud type (secure, community), spot only where
// RunPod has one; Lambda's cents per hour; both in every region the
// catalog lists; and their errors in the answer become a FileError.
func TestReadRunPodLambda(t *testing.T) {
	rp, err := os.ReadFile("../../refresh/testdata/recorded/runpod/gpu_types.json")
	if err != nil {
		t.Fatal(err)
	}
	res, err := pricelist.ReadRunPod("runpod.json", bytes.NewReader(rp), fuzzKnown)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		it         string
		od, spot   float64
		wantPrices int
	}{
		{"8x_A100-80GB_SECURE", 8 * 1.64, 8 * 0.82, 2},
		{"1x_A100-80GB-SXM_COMMUNITY", 1.39, 0, 2},
	} {
		n := 0
		for _, p := range res.Prices {
			if p.InstanceType == tc.it {
				n++
				if !near(p.OnDemandUSD, tc.od) || !near(p.SpotUSD, tc.spot) {
					t.Errorf("%s in %s = %+v, want on-demand %v spot %v", tc.it, p.Region, p, tc.od, tc.spot)
				}
			}
		}
		if n != tc.wantPrices {
			t.Errorf("%s priced in %d regions, want %d", tc.it, n, tc.wantPrices)
		}
	}
	if _, err := pricelist.ReadRunPod("runpod.json", strings.NewReader(`{"errors": [{"message": "rate limited\u0007"}]}`), fuzzKnown); err == nil ||
		!strings.Contains(err.Error(), `the API answered with an error: rate limited\a`) {
		t.Errorf("GraphQL error: %v", err)
	}
	lam, _ := os.ReadFile("../../refresh/testdata/recorded/lambda/instance_types.json")
	res, err = pricelist.ReadLambda("lambda.json", bytes.NewReader(lam), fuzzKnown)
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := priceOf(res, "gpu_8x_h100_sxm5", "eastus"); !ok || p.OnDemandUSD != 23.92 || p.SpotUSD != 0 || len(res.Prices) != 4 {
		t.Errorf("lambda prices %+v", res.Prices)
	}
	if _, err := pricelist.ReadLambda("lambda.json", strings.NewReader(`{"error": {"code": "global/invalid-api-key", "message": "API key was invalid"}}`), fuzzKnown); err == nil ||
		!strings.Contains(err.Error(), "the API answered with an error: global/invalid-api-key: API key was invalid") {
		t.Errorf("Lambda error: %v", err)
	}
}

// TestReadGCPG2: a G2 machine is composed from the G2 host SKUs and the L4
// GPU SKU, whose name Google writes in either case.
func TestReadGCPG2(t *testing.T) {
	c := fixedKnown{{Cloud: "gcp", InstanceType: "g2-standard-4", Region: "us-central1", Accelerator: "L4", GPUs: 1, VCPUs: 4, MemoryGB: 16}}
	sku := func(id, desc string, nanos int) string {
		return fmt.Sprintf(`{"skuId": %q, "description": %q, "category": {"resourceGroup": "G", "usageType": "OnDemand"}, "serviceRegions": ["us-central1"],
 "pricingInfo": [{"effectiveTime": "2026-11-12T07:00:00Z", "pricingExpression": {"usageUnit": %q, "tieredRates": [{"startUsageAmount": 0, "unitPrice": {"currencyCode": "USD", "units": "0", "nanos": %d}}]}}]}`,
			id, desc, map[bool]string{true: "GiBy.h", false: "h"}[strings.Contains(desc, "Ram")], nanos)
	}
	page := `{"skus": [` + sku("1", "G2 Instance Core running in Americas", 24200000) + "," + sku("2", "G2 Instance Ram running in Americas", 3250000) + "," +
		sku("3", "NVIDIA L4 GPU running in Americas", 560040000) + `]}`
	res, err := pricelist.ReadGCP("g2.json", strings.NewReader(page), c)
	if err != nil {
		t.Fatal(err)
	}
	o := c.OffersOf("gcp", "g2-standard-4")[0]
	want := float64(o.VCPUs)*0.0242 + o.MemoryGB*0.00325 + o.GPUCount()*0.56004
	if p, ok := priceOf(res, "g2-standard-4", "us-central1"); !ok || !near(p.OnDemandUSD, want) || slices.Contains(res.Unknown, "NVIDIA L4 GPU") {
		t.Errorf("g2-standard-4 = %+v (found %v), want on-demand %v; unknown %v", p, ok, want, res.Unknown)
	}
}
