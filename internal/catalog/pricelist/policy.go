// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package pricelist

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// The endpoints of refresh.json.
const (
	EndpointAWSRegionIndex  = "aws_region_index"
	EndpointAzureRetail     = "azure_retail_prices"
	EndpointGCPBillingSKUs  = "gcp_billing_skus"
	EndpointRunPodGraphQL   = "runpod_graphql"
	EndpointLambdaInstances = "lambda_instance_types"
)

// Policy is internal/catalog/data/refresh.json: the price APIs' endpoints,
// the network policy of the refresh subcommand and the readers' size caps.
type Policy struct {
	Endpoints map[string]Endpoint

	ConnectTimeout        time.Duration
	TLSHandshakeTimeout   time.Duration
	ResponseHeaderTimeout time.Duration
	// StallTimeout ends a download when no byte arrives for this long.
	StallTimeout   time.Duration
	MaxAttempts    int
	BackoffInitial time.Duration
	BackoffMax     time.Duration
	RetryAfterMax  time.Duration
	MaxPages       int
	GCPPageSize    int
	// MaxPageBytes caps a document read into memory (an API page, a
	// response); MaxPriceListFileBytes a multi-page file of make overlay;
	// MaxOfferFileBytes a streamed AWS offer file.
	MaxPageBytes          int64
	MaxPriceListFileBytes int64
	MaxOfferFileBytes     int64
}

// Endpoint is an API address and where its format is documented.
type Endpoint struct {
	URL           string `json:"url"`
	Documentation string `json:"documentation"`
}

var (
	policyOnce sync.Once
	policy     *Policy
	policyErr  error
)

// LoadPolicy returns the embedded refresh.json, parsed once.
func LoadPolicy() (*Policy, error) {
	policyOnce.Do(func() {
		data, err := catalog.ReadDataFile("refresh.json")
		if err != nil {
			policyErr = fmt.Errorf("pricelist: %w", err)
			return
		}
		policy, policyErr = ParsePolicy(data)
	})
	return policy, policyErr
}

// mustPolicy is LoadPolicy for the readers: the embedded file is checked
// by the package's tests, so an error here is a build defect.
func mustPolicy() *Policy {
	p, err := LoadPolicy()
	if err != nil {
		panic(err)
	}
	return p
}

// ParsePolicy parses a policy in the refresh.json format; every number
// must be given and positive.
func ParsePolicy(data []byte) (*Policy, error) {
	var doc struct {
		Description string              `json:"description"`
		Endpoints   map[string]Endpoint `json:"endpoints"`
		Numbers     map[string]struct {
			Value  float64 `json:"value"`
			Unit   string  `json:"unit"`
			Source string  `json:"source"`
		} `json:"numbers"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("pricelist: refresh.json: %w", err)
	}
	p := &Policy{Endpoints: doc.Endpoints}
	seconds := func(v float64) time.Duration { return time.Duration(v * float64(time.Second)) }
	fields := map[string]func(v float64){
		"connect_timeout_seconds":         func(v float64) { p.ConnectTimeout = seconds(v) },
		"tls_handshake_timeout_seconds":   func(v float64) { p.TLSHandshakeTimeout = seconds(v) },
		"response_header_timeout_seconds": func(v float64) { p.ResponseHeaderTimeout = seconds(v) },
		"stall_timeout_seconds":           func(v float64) { p.StallTimeout = seconds(v) },
		"max_attempts":                    func(v float64) { p.MaxAttempts = int(v) },
		"backoff_initial_seconds":         func(v float64) { p.BackoffInitial = seconds(v) },
		"backoff_max_seconds":             func(v float64) { p.BackoffMax = seconds(v) },
		"retry_after_max_seconds":         func(v float64) { p.RetryAfterMax = seconds(v) },
		"max_pages":                       func(v float64) { p.MaxPages = int(v) },
		"gcp_page_size":                   func(v float64) { p.GCPPageSize = int(v) },
		"max_page_bytes":                  func(v float64) { p.MaxPageBytes = int64(v) },
		"max_price_list_file_bytes":       func(v float64) { p.MaxPriceListFileBytes = int64(v) },
		"max_offer_file_bytes":            func(v float64) { p.MaxOfferFileBytes = int64(v) },
	}
	var problems []string
	for name, set := range fields {
		n, ok := doc.Numbers[name]
		switch {
		case !ok:
			problems = append(problems, name+" is missing")
		case !(n.Value > 0) || n.Source == "":
			problems = append(problems, name+" needs a positive value and a source")
		default:
			set(n.Value)
		}
	}
	for name := range doc.Numbers {
		if fields[name] == nil {
			problems = append(problems, name+" is not a known number")
		}
	}
	for _, name := range []string{EndpointAWSRegionIndex, EndpointAzureRetail, EndpointGCPBillingSKUs, EndpointRunPodGraphQL, EndpointLambdaInstances} {
		if e := doc.Endpoints[name]; e.URL == "" || e.Documentation == "" {
			problems = append(problems, "endpoint "+name+" needs a url and its documentation")
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return nil, fmt.Errorf("pricelist: refresh.json: %v", problems)
	}
	return p, nil
}
