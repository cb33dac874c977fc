// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package catalog_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// serverlessClouds maps the providers of serverless_gpu_pricing.csv to the
// catalog's clouds.
var serverlessClouds = map[string]string{"Modal": "modal", "Replicate": "replicate", "RunPod": "runpod",
	"Google Cloud Run": "gcp", "Beam (beam.cloud)": "beam"}

// TestServerlessMatchesSources: every priced GPU row of
// serverless_gpu_pricing.csv whose part the catalog knows is a serverless
// offer of its provider at the same per-second rate, with the row's GPU
// memory, and the billing rules the file states.
func TestServerlessMatchesSources(t *testing.T) {
	c := builtin(t)
	src := readSource(t, "serverless_gpu_pricing.csv")
	byRate := map[string][]*catalog.ServerlessOffer{}
	for _, s := range c.Serverless {
		byRate[s.Cloud] = append(byRate[s.Cloud], s)
	}
	hostRates := map[string][2]float64{} // cloud -> CPU core-second, memory GiB-second
	matched := 0
	for _, r := range src.rows {
		cloud, ok := serverlessClouds[src.get(r, "provider")]
		res := src.get(r, "resource")
		if !ok || src.get(r, "usd_per_second") == "" {
			if ok && strings.HasPrefix(res, "NVIDIA") && src.get(r, "usd_per_second") == "" {
				t.Logf("%s %s: no price in the source, not an offer", cloud, res)
			}
			continue
		}
		rate := src.f(t, r, "usd_per_second")
		switch {
		case strings.HasPrefix(res, "CPU"):
			h := hostRates[cloud]
			h[0] = rate
			hostRates[cloud] = h
			continue
		case strings.HasPrefix(strings.ToLower(res), "memory") || strings.HasPrefix(res, "RAM"):
			h := hostRates[cloud]
			h[1] = rate
			hostRates[cloud] = h
			continue
		case strings.HasPrefix(res, "A4000"):
			continue // no catalog accelerator (SOURCES.md)
		}
		var hit *catalog.ServerlessOffer
		for _, s := range byRate[cloud] {
			if near(s.USDPerGPUSecond, rate) && (src.get(r, "gpu_memory_gb") == "" || s.GPUMemoryGB == src.f(t, r, "gpu_memory_gb")) {
				hit = s
			}
		}
		if hit == nil {
			t.Errorf("%s %s %s: no serverless offer at %v/s", cloud, res, src.get(r, "tier"), rate)
			continue
		}
		matched++
		if h := src.get(r, "usd_per_hour"); h != "" && !near(hit.USDPerGPUSecond*3600, src.f(t, r, "usd_per_hour")) {
			t.Errorf("%s/%s: hourly %v, source %s", cloud, hit.Name, hit.USDPerGPUSecond*3600, h)
		}
		tier := src.get(r, "tier")
		switch cloud {
		case "runpod":
			if hit.AlwaysOn != (tier == "active") || hit.BillingIncrementSeconds != 1 ||
				(tier != "active" && hit.IdleBilledSeconds != 5) || !hit.ColdStartBilled {
				t.Errorf("runpod %s (%s): billing %+v, source: per second, start billed, idle timeout 5 s, active = always on", hit.Name, tier, hit)
			}
		case "gcp":
			if hit.Region != "us-central1" || hit.BillingIncrementSeconds != 0.1 || hit.MinCPUCores != 4 || hit.MinMemoryGiB != 16 {
				t.Errorf("cloud run %s: %+v, source: us-central1, 100 ms, >= 4 vCPU / 16 GiB", hit.Name, hit)
			}
		case "beam":
			if hit.IdleBilledSeconds != 180 || hit.ColdStartBilled {
				t.Errorf("beam %s: %+v, source: keep-warm 180 s billed, start not billed", hit.Name, hit)
			}
		}
	}
	for cloud, h := range hostRates {
		for _, s := range byRate[cloud] {
			if s.CPUUSDPerCoreSecond != h[0] || s.MemoryUSDPerGiBSecond != h[1] {
				if cloud == "replicate" {
					continue // Replicate's CPU row is a CPU-only instance, not a host add-on
				}
				t.Errorf("%s/%s: host rates %v/%v, source %v", cloud, s.Name, s.CPUUSDPerCoreSecond, s.MemoryUSDPerGiBSecond, h)
			}
		}
	}
	if matched != len(c.Serverless) || matched < 30 {
		t.Errorf("%d source rows matched, %d serverless offers", matched, len(c.Serverless))
	}
	for _, s := range c.Serverless {
		if cl, _ := c.Cloud(s.Cloud); !contains(cl.PricingModels, catalog.Serverless) {
			t.Errorf("cloud %s sells serverless offer %s but its pricing_models %v lack serverless", s.Cloud, s.Name, cl.PricingModels)
		}
	}
	t.Logf("%d serverless offers compared", matched)
}

func contains(pms []catalog.PricingModel, pm catalog.PricingModel) bool {
	for _, p := range pms {
		if p == pm {
			return true
		}
	}
	return false
}

// TestServerlessBilling: the billed time of one burst follows the stated
// rules (idle tail, cold start when billed, minimum, rounding up).
func TestServerlessBilling(t *testing.T) {
	cloudRun := &catalog.ServerlessOffer{GPUs: 1, USDPerGPUSecond: 0.0001867, BillingIncrementSeconds: 0.1, ColdStartSeconds: 5,
		ColdStartBilled: true, MinCPUCores: 4, MinMemoryGiB: 16, CPUUSDPerCoreSecond: 0.000018, MemoryUSDPerGiBSecond: 0.000002}
	runpod := &catalog.ServerlessOffer{GPUs: 1, BillingIncrementSeconds: 1, IdleBilledSeconds: 5}
	minimum := &catalog.ServerlessOffer{GPUs: 1, BillingIncrementSeconds: 1, MinBilledSeconds: 60}
	for _, tc := range []struct {
		name string
		s    *catalog.ServerlessOffer
		busy float64
		cold bool
		want float64
	}{
		{"cloud run warm, rounded up to 100 ms", cloudRun, 10.04, false, 10.1},
		{"cloud run cold start billed", cloudRun, 10.04, true, 15.1},
		{"cloud run exact increments stay", cloudRun, 0.3, false, 0.3},
		{"runpod idle tail, per second", runpod, 2.2, true, 8},
		{"minimum per start", minimum, 3, true, 60},
	} {
		if got := tc.s.BilledSeconds(tc.busy, tc.cold); !near(got, tc.want) {
			t.Errorf("%s: BilledSeconds(%v, %v) = %v, want %v", tc.name, tc.busy, tc.cold, got, tc.want)
		}
	}
	// 1 GPU + 4 vCPU + 16 GiB.
	if got, want := cloudRun.USDPerWorkerSecond(), 0.0001867+4*0.000018+16*0.000002; !near(got, want) {
		t.Errorf("USDPerWorkerSecond = %v, want %v", got, want)
	}
}

// TestServerlessValidation: bad serverless rows name the file, line and
// field; a catalog without serverless.csv loads.
func TestServerlessValidation(t *testing.T) {
	hdr := strings.Join(catalog.ServerlessHeader, ",") + "\n"
	row := "aws,,fn-h100,functions,H100,1,80,0.001,1,,,,true,false,,,,,medium,published,2026-01-02,s\n"
	fx := fixture(fxRegion, fxOffer)
	fx[catalog.FileServerless] = &fstest.MapFile{Data: []byte(hdr + row)}
	c, err := catalog.Load(fx)
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := c.ServerlessOffer("aws", "fn-h100", ""); !ok || s.Source != "test source" || !s.ColdStartBilled ||
		s.PriceInfo.Basis != catalog.PricePublished || s.PriceInfo.AsOf.Format("2006-01-02") != "2026-01-02" {
		t.Fatalf("serverless offer = %+v", s)
	}
	for _, tc := range []struct{ name, old, new, want string }{
		{"unknown region", "aws,,", "aws,us-east-9,", `serverless.csv line 2: serverless offer aws/fn-h100/us-east-9: region "us-east-9" of cloud "aws" has no metadata`},
		{"alias not canonical", ",H100,", ",h100-sxm,", `unknown accelerator "h100-sxm" (use a canonical ID)`},
		{"zero rate", ",0.001,", ",0,", `field "usd_per_gpu_second": must be > 0, got 0`},
		{"zero increment", ",0.001,1,", ",0.001,0,", `field "billing_increment_seconds": must be > 0`},
		{"bad bool", ",true,false,", ",yes,false,", `field "cold_start_billed": want true or false, got "yes"`},
		{"bad basis", ",published,", ",list,", `field "price_basis": must be one of "published", "derived" for a price, got "list"`},
		{"no date", ",2026-01-02,", ",,", `field "price_as_of": want the source's date as YYYY-MM-DD for a price, got ""`},
		{"duplicate", row, row + row, `serverless.csv line 3: serverless offer aws/fn-h100/: duplicate`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := fixture(fxRegion, fxOffer)
			fx[catalog.FileServerless] = &fstest.MapFile{Data: []byte(hdr + strings.Replace(row, tc.old, tc.new, 1))}
			if _, err := catalog.Load(fx); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v\nwant containing %s", err, tc.want)
			}
		})
	}
}
