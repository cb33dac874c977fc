// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package refresh_test

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/catalog/overlay"
	"github.com/gpuplan/terraform-provider-gpu/internal/catalog/pricelist"
	"github.com/gpuplan/terraform-provider-gpu/internal/refresh"
)

const (
	gcpKey    = "test-gcp-key-123"
	lambdaKey = "test-lambda-key-456"
)

// options are the options of a refresh of every cloud against srv, with
// the fixture catalog, writing into a temporary directory.
func options(t *testing.T, srv *replayServer, sl *sleeps) refresh.Options {
	return refresh.Options{
		Out:       filepath.Join(t.TempDir(), "prices.yaml"),
		Clouds:    refresh.Clouds,
		GCPAPIKey: gcpKey, LambdaAPIKey: lambdaKey,
		Catalog:   fixtureCatalog(t),
		Endpoints: srv.endpoints(),
		Sleep:     sl.sleep,
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// TestRun: every cloud read from the server — AWS region index then offer
// files, Azure pages through NextPageLink, Google pages through
// nextPageToken, RunPod, Lambda — gives an overlay that loads, with the
// recorded prices, keys sent only in headers and never written.
func TestRun(t *testing.T) {
	srv := newReplayServer(t, nil)
	o := options(t, srv, &sleeps{})
	sum, err := refresh.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(o.Out)
	if err != nil {
		t.Fatal(err)
	}
	ov, err := overlay.Apply(o.Catalog, o.Out, overlay.Options{})
	if err != nil {
		t.Fatalf("the overlay does not load: %v\n%s", err, data)
	}
	c := ov.Catalog
	for _, tc := range []struct {
		cloud, it, region string
		od, spot, r1      float64
	}{
		{"aws", "p5.48xlarge", "us-east-1", 55.04, 0, 35.776},
		{"aws", "g6.xlarge", "us-west-2", 0.8048, 0, 0.507},
		// reserved_1y: the on-demand item's 1-year savings plan (the
		// catalog's Azure definition), not page 2's reservation
		{"azure", "Standard_ND96isr_H100_v5", "eastus", 98.32, 29.496, 81.84157},
		{"azure", "Standard_NC24ads_A100_v4", "eastus", 3.673, 0.444433, 0},
		{"runpod", "8x_A100-80GB_SECURE", "US-KS-2", 8 * 1.64, 8 * 0.82, 0},
		{"runpod", "1x_A100-80GB-SXM_SECURE", "EU-RO-1", 1.74, 0.87, 0},
		{"lambda", "gpu_8x_h100_sxm5", "us-east-1", 23.92, 0, 0},
	} {
		got, ok := c.Offer(tc.cloud, tc.it, tc.region)
		if !ok || !near(got.OnDemandUSD, tc.od) || (tc.spot > 0 && !near(got.SpotUSD, tc.spot)) || (tc.r1 > 0 && !near(got.Reserved1YUSD, tc.r1)) {
			t.Errorf("%s/%s/%s = %+v, want on-demand %v spot %v reserved_1y %v", tc.cloud, tc.it, tc.region, got, tc.od, tc.spot, tc.r1)
		}
	}
	// Google: the A3 SKUs are on page 1, the A2 ones on page 2.
	for _, it := range []string{"a3-highgpu-8g", "a2-highgpu-1g"} {
		if _, ok := c.Offer("gcp", it, "us-central1"); !ok || !strings.Contains(string(data), "instance_type: "+it) {
			t.Errorf("gcp %s not priced from the pages", it)
		}
	}
	for _, name := range []string{"azure/Standard_ND96isr_H100_v5/page-0002.json", "gcp/page-0002.json", "aws/us-west-2.json"} {
		if n := srv.hitsOf(name); n != 1 {
			t.Errorf("%s requested %d times, want once", name, n)
		}
	}
	if n := srv.hitsOf("aws/mx-central-1.json"); n != 0 {
		t.Errorf("the offer file of a region without catalog offers was read")
	}
	if k := srv.headers["gcp/page-0001.json"].Get("X-Goog-Api-Key"); k != gcpKey {
		t.Errorf("gcp key header %q", k)
	}
	if a := srv.headers["lambda/instance_types.json"].Get("Authorization"); a != "Bearer "+lambdaKey {
		t.Errorf("lambda authorization %q", a)
	}
	if strings.Contains(string(data), gcpKey) || strings.Contains(string(data), lambdaKey) {
		t.Error("an API key is in the overlay")
	}
	if !strings.HasPrefix(string(data), "# Catalog overlay written by `terraform-provider-gpu refresh`") || sum.Offers == 0 {
		t.Errorf("header or count: %d offers\n%.300s", sum.Offers, data)
	}
	var unknown []string
	for _, r := range sum.Results {
		unknown = append(unknown, r.Unknown...)
	}
	for _, u := range []string{"p6e-gb200.36xlarge", "NVIDIA H100 80GB HBM3", "gpu_8x_b300_sxm6"} {
		if !slices.Contains(unknown, u) {
			t.Errorf("unknown %v lacks %s", unknown, u)
		}
	}
}

// TestRateLimitRetry: a 429 with Retry-After waits what the server asks
// (more than the backoff), a 503 without it waits the doubling backoff,
// and the refresh then succeeds.
func TestRateLimitRetry(t *testing.T) {
	limited := func(status int, retryAfter string, times int) fault {
		return func(w http.ResponseWriter, _ []byte, hit int) bool {
			if hit > times {
				return false
			}
			if retryAfter != "" {
				w.Header().Set("Retry-After", retryAfter)
			}
			http.Error(w, "slow down", status)
			return true
		}
	}
	srv := newReplayServer(t, map[string]fault{
		"azure/Standard_ND96isr_H100_v5/page-0002.json": limited(http.StatusTooManyRequests, "7", 1),
		"runpod/gpu_types.json":                         limited(http.StatusServiceUnavailable, "", 2),
	})
	sl := &sleeps{}
	o := options(t, srv, sl)
	if _, err := refresh.Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	want := []time.Duration{7 * time.Second, 2 * time.Second, 4 * time.Second}
	if got := sl.all(); !slices.Equal(got, want) {
		t.Errorf("waits %v, want %v", got, want)
	}
	if n := srv.hitsOf("runpod/gpu_types.json"); n != 3 {
		t.Errorf("runpod asked %d times, want 3", n)
	}
}

// TestNothingWritten: a truncated download, a document cut short, a
// changed format, an error status or a too-long Retry-After is one clear
// error, and an earlier overlay stays as it was.
func TestNothingWritten(t *testing.T) {
	for _, tc := range []struct {
		name, answer string
		f            fault
		want         string
	}{
		{"truncated download", "aws/us-east-1.json", truncate,
			`aws/us-east-1.json: the download broke off after \d+ of \d+ bytes \(truncated download\).*gave up after 6 attempts`},
		{"document cut short", "gcp/page-0002.json", func(w http.ResponseWriter, b []byte, _ int) bool {
			_, _ = w.Write(b[:len(b)*2/3])
			return true
		}, `gcp/page-0002.json:\d+:\d+: the file ends in the middle of the JSON document \(truncated download\?\)`},
		{"azure format changed", "azure/Standard_NC24ads_A100_v4/page-0001.json", replace(`"unitPrice"`, `"unit_price"`),
			`azure/Standard_NC24ads_A100_v4/page-0001.json: item 0: a Virtual Machines price without unitPrice: has the API's format changed\?`},
		{"google format changed", "gcp/page-0001.json", replace(`"skus"`, `"skuList"`),
			`expected the format Google Cloud Billing Catalog SKU list \(JSON\) \(top-level fields: nextPageToken, skuList; has the API's format changed\?\)`},
		{"aws attributes renamed", "aws/us-west-2.json", replace(`"instanceType"`, `"instance_type"`),
			`aws/us-west-2.json: no price for any of the catalog's \d+ offers in us-west-2: has the offer file's format changed\?`},
		{"runpod format changed", "runpod/gpu_types.json", replace(`Price"`, `Cost"`),
			`no gpuTypes entry has securePrice or communityPrice: has the API's format changed\?`},
		{"lambda format changed", "lambda/instance_types.json", replace(`"price_cents_per_hour"`, `"price_usd"`),
			`no instance_type.price_cents_per_hour: has the API's format changed\?`},
		{"bad key", "gcp/page-0001.json", func(w http.ResponseWriter, _ []byte, _ int) bool {
			http.Error(w, `{"error": {"code": 400, "message": "API key not valid."}}`, http.StatusBadRequest)
			return true
		}, `gcp/page-0001.json: HTTP 400 Bad Request: .*API key not valid`},
		{"retry after too long", "lambda/instance_types.json", func(w http.ResponseWriter, _ []byte, _ int) bool {
			w.Header().Set("Retry-After", "3600")
			http.Error(w, "quota", http.StatusTooManyRequests)
			return true
		}, `asks to retry after 1h0m0s, longer than retry_after_max_seconds`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newReplayServer(t, map[string]fault{tc.answer: tc.f})
			o := options(t, srv, &sleeps{})
			before := []byte("# an earlier overlay\noffers: []\n")
			if err := os.WriteFile(o.Out, before, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := refresh.Run(context.Background(), o)
			if err == nil || !regexpMatch(tc.want, err.Error()) {
				t.Fatalf("err = %v\nwant matching %s", err, tc.want)
			}
			if got, _ := os.ReadFile(o.Out); string(got) != string(before) {
				t.Errorf("the earlier overlay changed:\n%s", got)
			}
			entries, _ := os.ReadDir(filepath.Dir(o.Out))
			if len(entries) != 1 {
				t.Errorf("files left next to the overlay: %v", entries)
			}
		})
	}
}

// TestRecordReplay: a recorded download replays offline to the same
// overlay; a recorded answer changed afterwards is an error; the committed
// recording replays to the overlay the server gives.
func TestRecordReplay(t *testing.T) {
	srv := newReplayServer(t, nil)
	o := options(t, srv, &sleeps{})
	o.Record = filepath.Join(t.TempDir(), "rec")
	if _, err := refresh.Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(o.Out)
	for _, dir := range []string{o.Record, recorded} {
		r := refresh.Options{Out: filepath.Join(t.TempDir(), "replayed.yaml"), Replay: dir, Catalog: o.Catalog,
			Endpoints: map[string]string{pricelist.EndpointAzureRetail: "http://127.0.0.1:1/unreachable"}}
		if _, err := refresh.Run(context.Background(), r); err != nil {
			t.Fatalf("replay %s: %v", dir, err)
		}
		if got, _ := os.ReadFile(r.Out); string(got) != string(want) {
			t.Errorf("replay of %s differs from the download:\n%s\nwant\n%s", dir, got, want)
		}
	}
	manifest, _ := os.ReadFile(filepath.Join(o.Record, "manifest.json"))
	if strings.Contains(string(manifest), gcpKey) || strings.Contains(string(manifest), lambdaKey) {
		t.Error("an API key is in the recording's manifest")
	}
	page := filepath.Join(o.Record, "gcp", "page-0002.json")
	b, _ := os.ReadFile(page)
	if err := os.WriteFile(page, b[:len(b)-10], 0o644); err != nil {
		t.Fatal(err)
	}
	r := refresh.Options{Out: filepath.Join(t.TempDir(), "x.yaml"), Replay: o.Record, Catalog: o.Catalog}
	if _, err := refresh.Run(context.Background(), r); err == nil || !strings.Contains(err.Error(), "the recorded answer was changed or truncated") {
		t.Errorf("replay of a changed recording: %v", err)
	}
}

// TestPaging: a next-page link that loops, or that leaves the API's host,
// is an error, not an endless or redirected download.
func TestPaging(t *testing.T) {
	for _, tc := range []struct{ link, want string }{
		{`https://prices.azure.com:443/api/retail/prices?api-version=2023-01-01-preview&currencyCode='USD'&$filter=serviceName eq 'Virtual Machines' and armSkuName eq 'Standard_ND96isr_H100_v5'`,
			"links to a page already read: the API's paging loops"},
		{`https://evil.example/api/retail/prices?$skip=4`, "points at another host than the API"},
	} {
		srv := newReplayServer(t, map[string]fault{"azure/Standard_ND96isr_H100_v5/page-0001.json": replace(
			`https://prices.azure.com:443/api/retail/prices?api-version=2023-01-01-preview&currencyCode='USD'&$filter=serviceName eq 'Virtual Machines' and armSkuName eq 'Standard_ND96isr_H100_v5'&$skip=4`, tc.link)})
		o := options(t, srv, &sleeps{})
		o.Clouds = []string{refresh.CloudAzure}
		if _, err := refresh.Run(context.Background(), o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("link %s: err = %v, want %q", tc.link, err, tc.want)
		}
	}
}

// TestStall: a body that stops arriving is abandoned after the stall
// timeout and retried.
func TestStall(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	srv := newReplayServer(t, map[string]fault{"lambda/instance_types.json": func(w http.ResponseWriter, b []byte, _ int) bool {
		w.Header().Set("Content-Length", fmt.Sprint(len(b)))
		_, _ = w.Write(b[:10])
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		select {
		case <-release:
		case <-time.After(5 * time.Second):
		}
		return true
	}})
	o := options(t, srv, &sleeps{})
	o.Clouds = []string{refresh.CloudLambda}
	p, err := pricelist.LoadPolicy()
	if err != nil {
		t.Fatal(err)
	}
	fast := *p
	fast.StallTimeout, fast.MaxAttempts = 100*time.Millisecond, 2
	o.Policy = &fast
	start := time.Now()
	_, err = refresh.Run(context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), "no data for 100ms after 10 bytes (stall_timeout_seconds") || time.Since(start) > 3*time.Second {
		t.Errorf("err = %v after %s", err, time.Since(start))
	}
}

// TestOptions: option mistakes are one message each, before any request.
func TestOptions(t *testing.T) {
	for _, tc := range []struct {
		o    refresh.Options
		want string
	}{
		{refresh.Options{Out: "prices.json"}, `--out must name a .yaml or .yml file`},
		{refresh.Options{Out: "p.yaml", Clouds: []string{"oracle"}}, `--clouds: "oracle" is not a cloud the refresh reads; allowed: aws, azure, gcp, runpod, lambda`},
		{refresh.Options{Out: "p.yaml", Clouds: []string{"aws", "aws"}}, `--clouds: "aws" is listed twice`},
		{refresh.Options{Out: "p.yaml", Clouds: []string{"gcp"}}, `needs an API key: --gcp-api-key or GCP_API_KEY`},
		{refresh.Options{Out: "p.yaml", Clouds: []string{"lambda"}}, `needs an API key: --lambda-api-key or LAMBDA_API_KEY`},
		{refresh.Options{Out: "p.yaml", Record: "a", Replay: "b"}, `--record and --replay exclude each other`},
		{refresh.Options{Out: "p.yaml", Replay: "testdata/none"}, `--replay testdata/none: testdata/none/manifest.json: no such file`},
	} {
		tc.o.Catalog = &catalog.Catalog{}
		if _, err := refresh.Run(context.Background(), tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err = %v, want %q", tc.o, err, tc.want)
		}
	}
}
