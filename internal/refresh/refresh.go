// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

// Package refresh downloads the clouds' public price lists — the AWS Price
// List bulk EC2 offer files, the Azure Retail Prices API, the Google Cloud
// Billing Catalog (with the user's API key), RunPod's GraphQL gpuTypes and
// Lambda's instance-types API (with the user's key) — and writes them as a
// catalog_file overlay, through the readers of internal/catalog/pricelist.
// It is the only code of the module that opens network connections, and
// only the hand-run `terraform-provider-gpu refresh` subcommand calls it:
// the provider never imports it.
//
// Network policy (refresh.json): timeouts on connecting, the TLS
// handshake, the response headers and a stalled body; retries with
// exponential backoff on 429, 5xx and broken downloads, honouring
// Retry-After; a size cap per answer. Any failure — a truncated download,
// an answer whose format changed — is an error and nothing is written: the
// overlay is checked by loading it, then written to a temporary file and
// renamed.
package refresh

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/catalog/overlay"
	"github.com/gpuplan/terraform-provider-gpu/internal/catalog/pricelist"
)

// Options of one refresh.
type Options struct {
	// Out is the overlay to write (.yaml or .yml).
	Out string
	// Extract, when set, also writes the prices read as a price-list
	// extract (.json) for the built-in catalog's generator (make refresh).
	// One of Out and Extract is required.
	Extract string
	// Clouds to read (Clouds); empty = every cloud that needs no key, plus
	// gcp and lambda when their key is given.
	Clouds []string
	// AWSRegions limits the AWS offer files read; empty = the regions of
	// the catalog's AWS offers.
	AWSRegions []string
	// API keys: GCP's is required for gcp and Lambda's for lambda; RunPod's
	// is optional.
	GCPAPIKey, RunPodAPIKey, LambdaAPIKey string
	// Record saves every answer under a directory (with manifest.json);
	// Replay answers every request from such a directory, offline.
	Record, Replay string
	// Log receives progress lines (nil = none).
	Log io.Writer

	// For tests and embedding: the catalog whose instance types are priced
	// (nil = catalog.Builtin), the network policy (nil = refresh.json),
	// endpoint URLs by refresh.json name, the HTTP client and the sleep
	// between retries.
	Catalog   *catalog.Catalog
	Policy    *pricelist.Policy
	Endpoints map[string]string
	Client    *http.Client
	Sleep     func(context.Context, time.Duration) error
}

// Summary is what a refresh did.
type Summary struct {
	Out     string
	Extract string
	Offers  int
	Results []*pricelist.Result
	// Notes are rows left out or changed, for the user to read.
	Notes []string
}

// Run downloads (or replays) the price lists and writes the overlay; on
// any error nothing is written.
func Run(ctx context.Context, o Options) (*Summary, error) {
	r, err := o.newRun()
	if err != nil {
		return nil, err
	}
	clouds, err := o.check(r.f.replay)
	if err != nil {
		return nil, err
	}
	var results []*pricelist.Result
	for _, c := range clouds {
		r.f.logf("%s: reading prices", c)
		res, err := r.cloud(ctx, c)
		if err != nil {
			return nil, err
		}
		results = append(results, res...)
	}
	sum, outputs, err := r.outputs(results)
	if err != nil {
		return nil, err
	}
	if r.f.record != nil {
		if err := r.f.record.finish(); err != nil {
			return nil, err
		}
	}
	for path, data := range outputs {
		if err := pricelist.WriteFileAtomic(path, data); err != nil {
			return nil, err
		}
	}
	return sum, nil
}

// outputs renders the overlay (checked by loading it onto the catalog)
// and the extract; nothing is written yet.
func (r *run) outputs(results []*pricelist.Result) (*Summary, map[string][]byte, error) {
	ov, notes := pricelist.BuildOverlay(results, r.cat)
	ov.Writer = "`terraform-provider-gpu refresh`"
	out := map[string][]byte{}
	if r.opts.Out != "" {
		data, err := ov.YAML()
		if err != nil {
			return nil, nil, err
		}
		if _, err := overlay.Apply(r.cat, r.opts.Out, overlay.Options{Data: data}); err != nil {
			return nil, nil, fmt.Errorf("the overlay does not load (nothing written): %w", err)
		}
		out[r.opts.Out] = data
	}
	if r.opts.Extract != "" {
		data, err := pricelist.WriteExtract(results)
		if err != nil {
			return nil, nil, err
		}
		out[r.opts.Extract] = data
	}
	for _, res := range results {
		for _, n := range res.Notes {
			notes = append(notes, res.File+": "+n)
		}
	}
	return &Summary{Out: r.opts.Out, Extract: r.opts.Extract, Offers: len(ov.Offers), Results: results, Notes: notes}, out, nil
}

// cloud reads one cloud.
func (r *run) cloud(ctx context.Context, c string) ([]*pricelist.Result, error) {
	switch c {
	case CloudAWS:
		return r.aws(ctx)
	case CloudAzure:
		return r.azure(ctx)
	case CloudGCP:
		return r.gcp(ctx)
	case CloudRunPod:
		return r.runpod(ctx)
	default:
		return r.lambda(ctx)
	}
}

// check validates the options and returns the clouds to read, in order:
// by default every cloud that needs no key and those whose key is given,
// or, replaying, every cloud of the recording.
func (o *Options) check(rp *replayer) ([]string, error) {
	clouds := o.Clouds
	switch {
	case len(clouds) > 0:
	case rp != nil:
		clouds = rp.clouds()
	default:
		clouds = []string{CloudAWS, CloudAzure, CloudRunPod}
		if o.GCPAPIKey != "" {
			clouds = append(clouds, CloudGCP)
		}
		if o.LambdaAPIKey != "" {
			clouds = append(clouds, CloudLambda)
		}
	}
	seen := map[string]bool{}
	for _, c := range clouds {
		if !containsString(Clouds, c) {
			return nil, fmt.Errorf("--clouds: %q is not a cloud the refresh reads; allowed: %s", c, strings.Join(Clouds, ", "))
		}
		if seen[c] {
			return nil, fmt.Errorf("--clouds: %q is listed twice", c)
		}
		seen[c] = true
	}
	if o.Replay == "" {
		if seen[CloudGCP] && o.GCPAPIKey == "" {
			return nil, errors.New("gcp: the Cloud Billing Catalog API needs an API key: --gcp-api-key or GCP_API_KEY (a key of any project with the Cloud Billing API enabled)")
		}
		if seen[CloudLambda] && o.LambdaAPIKey == "" {
			return nil, errors.New("lambda: the Lambda Cloud API needs an API key: --lambda-api-key or LAMBDA_API_KEY")
		}
	}
	return sortedClouds(clouds), nil
}

// newRun checks the output and the recording options and sets up the
// fetcher and the catalog.
func (o *Options) newRun() (*run, error) {
	if ext := strings.ToLower(filepath.Ext(o.Out)); o.Out != "" && ext != ".yaml" && ext != ".yml" {
		return nil, fmt.Errorf("--out must name a .yaml or .yml file (the catalog_file overlay), got %q", o.Out)
	}
	if ext := strings.ToLower(filepath.Ext(o.Extract)); o.Extract != "" && ext != ".json" {
		return nil, fmt.Errorf("--extract must name a .json file, got %q", o.Extract)
	}
	if o.Out == "" && o.Extract == "" {
		return nil, errors.New("--out is required: the overlay to write (or --extract, for make refresh)")
	}
	if o.Record != "" && o.Replay != "" {
		return nil, errors.New("--record and --replay exclude each other: record a download, or replay a recording")
	}
	p := o.Policy
	var err error
	if p == nil {
		if p, err = pricelist.LoadPolicy(); err != nil {
			return nil, err
		}
	}
	f := &fetcher{client: o.Client, policy: p, sleep: o.Sleep, log: o.Log}
	if f.client == nil {
		f.client = newClient(p)
	}
	if f.sleep == nil {
		f.sleep = sleepContext
	}
	if o.Record != "" {
		if f.record, err = newRecorder(o.Record); err != nil {
			return nil, err
		}
	}
	if o.Replay != "" {
		if f.replay, err = newReplayer(o.Replay, p.MaxPageBytes); err != nil {
			return nil, err
		}
	}
	cat := o.Catalog
	if cat == nil {
		if cat, err = catalog.Builtin(); err != nil {
			return nil, err
		}
	}
	return &run{f: f, cat: cat, endpoints: o.Endpoints, opts: o}, nil
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
