// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package pricelist_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/catalog/pricelist"
	"github.com/gpuplan/terraform-provider-gpu/internal/fuzzutil"
)

// The fuzz targets of the price-list readers (make fuzz): the importers of
// make overlay, the generator and the refresh subcommand. Any input gives
// a result or one *FileError within a time bound, never a panic; a result
// holds only finite, positive prices of instance types the catalog knows,
// commitment and spot prices below on-demand; and a document read through
// Read (format sniffing) gives the same answer as its own reader.

// fuzzTime bounds one input: the seeds read in milliseconds.
const fuzzTime = 10 * time.Second

// seeds adds the package's and the refresh's recorded documents.
func seeds(f *testing.F, globs ...string) {
	f.Helper()
	for _, g := range globs {
		files, err := filepath.Glob(g)
		if err != nil || len(files) == 0 {
			f.Fatalf("no seed matches %s", g)
		}
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
			f.Add(data[:len(data)/2])
		}
	}
	f.Add([]byte(`{}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"data": {"gpuTypes": [{"id": "x", "securePrice": -1}]}}`))
}

// fixedKnown is a small catalog for the fuzz targets: loading the
// built-in one in every fuzzing worker takes most of a short run.
type fixedKnown []*catalog.Offer

func (k fixedKnown) OffersOf(cloud, it string) []*catalog.Offer {
	var out []*catalog.Offer
	for _, o := range k {
		if o.Cloud == cloud && o.InstanceType == it {
			out = append(out, o)
		}
	}
	return out
}

func (k fixedKnown) InstanceTypes(cloud string) []string {
	var out []string
	for _, o := range k {
		if o.Cloud == cloud && !slices.Contains(out, o.InstanceType) {
			out = append(out, o.InstanceType)
		}
	}
	return out
}

// fuzzKnown holds the instance types the seeds price, in two regions each.
var fuzzKnown = func() fixedKnown {
	var k fixedKnown
	for _, o := range []catalog.Offer{
		{Cloud: "aws", InstanceType: "p5.48xlarge", GPUs: 8, VCPUs: 192, MemoryGB: 2048},
		{Cloud: "aws", InstanceType: "g6.xlarge", GPUs: 1, VCPUs: 4, MemoryGB: 16},
		{Cloud: "azure", InstanceType: "Standard_ND96isr_H100_v5", GPUs: 8, VCPUs: 96, MemoryGB: 1900},
		{Cloud: "azure", InstanceType: "Standard_NC24ads_A100_v4", GPUs: 1, VCPUs: 24, MemoryGB: 220},
		{Cloud: "gcp", InstanceType: "a3-highgpu-8g", GPUs: 8, VCPUs: 208, MemoryGB: 1872},
		{Cloud: "gcp", InstanceType: "a2-highgpu-1g", GPUs: 1, VCPUs: 12, MemoryGB: 85},
		{Cloud: "runpod", InstanceType: "8x_A100-80GB_SECURE", GPUs: 8, VCPUs: 64, MemoryGB: 1000},
		{Cloud: "runpod", InstanceType: "1x_A100-80GB-SXM_COMMUNITY", GPUs: 1, VCPUs: 16, MemoryGB: 125},
		{Cloud: "lambda", InstanceType: "gpu_8x_h100_sxm5", GPUs: 8, VCPUs: 208, MemoryGB: 1800},
		{Cloud: "lambda", InstanceType: "gpu_1x_a10", GPUs: 1, VCPUs: 30, MemoryGB: 200},
	} {
		for _, r := range []string{"us-east-1", "eastus"} {
			o := o
			o.Region = r
			k = append(k, &o)
		}
	}
	return k
}()

// checkResult is the properties of a result.
func checkResult(c pricelist.Known, res *pricelist.Result, err error) string {
	if err != nil {
		var fe *pricelist.FileError
		if !errors.As(err, &fe) {
			return fmt.Sprintf("error %T is not a *FileError: %v", err, err)
		}
		if len(err.Error()) > 2000 {
			return fmt.Sprintf("error of %d bytes echoes too much of the input", len(err.Error()))
		}
		return ""
	}
	for _, p := range res.Prices {
		if len(c.OffersOf(p.Cloud, p.InstanceType)) == 0 {
			return fmt.Sprintf("price of an instance type the catalog does not know: %+v", p)
		}
		for _, v := range []float64{p.OnDemandUSD, p.SpotUSD, p.Reserved1YUSD, p.Reserved3YUSD} {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				return fmt.Sprintf("price %v in %+v", v, p)
			}
		}
		if !(p.OnDemandUSD > 0) || p.SpotUSD >= p.OnDemandUSD || p.Reserved1YUSD >= p.OnDemandUSD || p.Reserved3YUSD >= p.OnDemandUSD {
			return fmt.Sprintf("prices out of order: %+v", p)
		}
	}
	return ""
}

func fuzzReader(f *testing.F, read pricelist.Reader, globs ...string) {
	seeds(f, globs...)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzutil.Within(t, fuzzTime, func() string {
			res, err := read("fuzz.json", bytes.NewReader(data), fuzzKnown)
			if p := checkResult(fuzzKnown, res, err); p != "" {
				return p
			}
			sniffed, serr := pricelist.Read("fuzz.json", bytes.NewReader(data), fuzzKnown)
			if err == nil && (serr != nil || !samePrices(res, sniffed)) && sniffed != nil && sniffed.Format == res.Format {
				return fmt.Sprintf("Read differs from the format's reader: %v / %v", serr, err)
			}
			return ""
		})
	})
}

func samePrices(a, b *pricelist.Result) bool {
	if a == nil || b == nil || len(a.Prices) != len(b.Prices) {
		return false
	}
	for i := range a.Prices {
		if a.Prices[i] != b.Prices[i] {
			return false
		}
	}
	return true
}

func FuzzReadAWS(f *testing.F) {
	fuzzReader(f, pricelist.ReadAWS, "testdata/aws_ec2_offer.json", "../../refresh/testdata/recorded/aws/us-*.json")
}

func FuzzReadAzure(f *testing.F) {
	fuzzReader(f, pricelist.ReadAzure, "testdata/azure_retail_prices.json", "../../refresh/testdata/recorded/azure/*/page-*.json")
}

func FuzzReadGCP(f *testing.F) {
	fuzzReader(f, pricelist.ReadGCP, "testdata/gcp_billing_skus.json", "../../refresh/testdata/recorded/gcp/page-*.json")
}

func FuzzReadRunPod(f *testing.F) {
	fuzzReader(f, pricelist.ReadRunPod, "../../refresh/testdata/recorded/runpod/*.json")
}

func FuzzReadLambda(f *testing.F) {
	fuzzReader(f, pricelist.ReadLambda, "../../refresh/testdata/recorded/lambda/*.json")
}

// FuzzRead: format sniffing over any document, and the region index.
func FuzzRead(f *testing.F) {
	seeds(f, "testdata/*.json", "../../refresh/testdata/recorded/aws/region_index.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzutil.Within(t, fuzzTime, func() string {
			res, err := pricelist.Read("fuzz.json", bytes.NewReader(data), fuzzKnown)
			if p := checkResult(fuzzKnown, res, err); p != "" {
				return p
			}
			idx, err := pricelist.ReadAWSRegionIndex("fuzz.json", bytes.NewReader(data))
			if err == nil {
				for r, path := range idx.Paths {
					if !strings.HasPrefix(path, "/") || strings.Contains(path, "..") || strings.Contains(path, "://") || r == "" {
						return fmt.Sprintf("region %q path %q", r, path)
					}
				}
			}
			return ""
		})
	})
}

// FuzzPages: the paged reading of the refresh, two pages at a time.
func FuzzPages(f *testing.F) {
	for _, g := range []string{"../../refresh/testdata/recorded/azure/Standard_ND96isr_H100_v5/page-*.json", "../../refresh/testdata/recorded/gcp/page-*.json"} {
		files, _ := filepath.Glob(g)
		if len(files) != 2 {
			f.Fatalf("%s: want two pages", g)
		}
		a, _ := os.ReadFile(files[0])
		b, _ := os.ReadFile(files[1])
		f.Add(a, b, strings.Contains(g, "azure"))
	}
	f.Fuzz(func(t *testing.T, a, b []byte, azure bool) {
		format := pricelist.FormatGCP
		if azure {
			format = pricelist.FormatAzure
		}
		fuzzutil.Within(t, fuzzTime, func() string {
			p, _ := pricelist.NewPages(format, "fuzz")
			for i, data := range [][]byte{a, b} {
				if _, err := p.Add(fmt.Sprintf("page-%d", i+1), data); err != nil {
					return checkResult(fuzzKnown, nil, err)
				}
			}
			res, err := p.Result(fuzzKnown)
			return checkResult(fuzzKnown, res, err)
		})
	})
}
