// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package refresh

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/catalog/pricelist"
)

// The clouds the refresh reads, in the order it reads them.
const (
	CloudAWS    = "aws"
	CloudAzure  = "azure"
	CloudGCP    = "gcp"
	CloudRunPod = "runpod"
	CloudLambda = "lambda"
)

// Clouds lists every cloud the refresh can read.
var Clouds = []string{CloudAWS, CloudAzure, CloudGCP, CloudRunPod, CloudLambda}

// run is one refresh in progress.
type run struct {
	f         *fetcher
	cat       *catalog.Catalog
	endpoints map[string]string
	opts      *Options
}

// endpoint returns the URL of a named endpoint (an override, else
// refresh.json).
func (r *run) endpoint(name string) string {
	if u, ok := r.endpoints[name]; ok {
		return u
	}
	return r.f.policy.Endpoints[name].URL
}

// aws reads the region index, then the offer file of each region, as a
// stream into the reader.
func (r *run) aws(ctx context.Context) ([]*pricelist.Result, error) {
	indexURL, err := url.Parse(r.endpoint(pricelist.EndpointAWSRegionIndex))
	if err != nil {
		return nil, fmt.Errorf("aws: region index URL: %w", err)
	}
	data, _, err := r.f.readAll(ctx, &request{name: "aws/region_index.json", method: http.MethodGet, url: indexURL.String(), limit: r.f.policy.MaxPageBytes})
	if err != nil {
		return nil, err
	}
	idx, err := pricelist.ReadAWSRegionIndex("aws/region_index.json", strings.NewReader(string(data)))
	if err != nil {
		return nil, err
	}
	regions, err := r.awsRegions(idx)
	if err != nil {
		return nil, err
	}
	var out []*pricelist.Result
	for _, region := range regions {
		u := *indexURL
		u.Path, u.RawQuery = idx.Paths[region], ""
		res, err := r.awsRegion(ctx, region, u.String())
		if err != nil {
			return nil, err
		}
		out = append(out, res)
	}
	return out, nil
}

// awsRegions are the regions asked for (--aws-regions), else the regions
// of the catalog's AWS offers that the index lists.
func (r *run) awsRegions(idx *pricelist.AWSRegionIndex) ([]string, error) {
	if len(r.opts.AWSRegions) > 0 {
		for _, reg := range r.opts.AWSRegions {
			if _, ok := idx.Paths[reg]; !ok {
				return nil, fmt.Errorf("--aws-regions: %q is not in the AWS region index (regions: %s)", reg, strings.Join(idx.Regions(), ", "))
			}
		}
		return r.opts.AWSRegions, nil
	}
	var out []string
	for _, reg := range r.cat.RegionIDs(CloudAWS) {
		if _, ok := idx.Paths[reg]; ok && r.offersIn(CloudAWS, reg) > 0 {
			out = append(out, reg)
		}
	}
	return out, nil
}

// awsRegion streams one region's offer file into the reader, downloading
// it again when the download breaks off.
func (r *run) awsRegion(ctx context.Context, region, u string) (*pricelist.Result, error) {
	rq := &request{name: "aws/" + region + ".json", method: http.MethodGet, url: u, limit: r.f.policy.MaxOfferFileBytes}
	for attempt := 1; ; attempt++ {
		r.f.logf("aws: reading the EC2 offer file of %s", region)
		resp, err := r.f.open(ctx, rq)
		if err != nil {
			return nil, err
		}
		res, err := pricelist.ReadAWS(rq.name, newCapReader(resp.body, rq.limit, rq.name), r.cat)
		if cerr := resp.body.Close(); err == nil && cerr != nil {
			err = cerr
		}
		if err == nil {
			if n := r.offersIn(CloudAWS, region); len(res.Prices) == 0 && n > 0 {
				return nil, fmt.Errorf("%s: no price for any of the catalog's %d offers in %s: has the offer file's format changed?", rq.name, n, region)
			}
			return res, nil
		}
		var te *transportError
		if !errors.As(err, &te) || !te.retryable || r.f.replay != nil {
			return nil, err
		}
		if attempt >= r.f.policy.MaxAttempts {
			return nil, fmt.Errorf("%w (gave up after %d attempts, max_attempts in refresh.json)", te, attempt)
		}
		if err := r.f.wait(ctx, rq.name, attempt, 0); err != nil {
			return nil, err
		}
	}
}

// offersIn counts the catalog's offers of a cloud in a region.
func (r *run) offersIn(cloud, region string) int {
	n := 0
	for _, o := range r.cat.Offers {
		if o.Cloud == cloud && o.Region == region {
			n++
		}
	}
	return n
}

// azureAPIVersion is the Retail Prices API version with savings-plan
// prices (Azure Retail Prices overview).
const azureAPIVersion = "2023-01-01-preview"

// azure asks the Retail Prices API for the Virtual Machines prices of each
// catalog Azure size, following NextPageLink.
func (r *run) azure(ctx context.Context) ([]*pricelist.Result, error) {
	pages, err := pricelist.NewPages(pricelist.FormatAzure, "Azure Retail Prices API")
	if err != nil {
		return nil, err
	}
	base, err := url.Parse(r.endpoint(pricelist.EndpointAzureRetail))
	if err != nil {
		return nil, fmt.Errorf("azure: endpoint: %w", err)
	}
	var missing []string
	for _, sku := range r.cat.InstanceTypes(CloudAzure) {
		q := url.Values{"api-version": {azureAPIVersion}, "currencyCode": {"'USD'"},
			"$filter": {fmt.Sprintf("serviceName eq 'Virtual Machines' and armSkuName eq '%s'", sku)}}
		u := *base
		u.RawQuery = encodeQuery(q)
		before := pages.Items()
		err := r.paged(ctx, "azure/"+sku, u.String(), func(name string, data []byte) (string, error) {
			next, err := pages.Add(name, data)
			if err != nil || next == "" {
				return "", err
			}
			return rebase(next, base, r.f.policy.Endpoints[pricelist.EndpointAzureRetail].URL)
		})
		if err != nil {
			return nil, err
		}
		if pages.Items() == before {
			missing = append(missing, sku)
		}
	}
	res, err := pages.Result(r.cat)
	if err != nil {
		return nil, err
	}
	if len(res.Prices) == 0 {
		return nil, errors.New("azure: the Retail Prices API priced none of the catalog's Azure sizes: has its format changed?")
	}
	for _, sku := range missing {
		res.Notes = append(res.Notes, sku+": the Retail Prices API lists no price (retired or renamed?); the catalog's prices stay")
	}
	return []*pricelist.Result{res}, nil
}

// paged reads a query page by page: add reads a page (named as in a
// recording) and returns the URL of the next one ("" after the last). A URL seen before, or more pages
// than max_pages, is an error.
func (r *run) paged(ctx context.Context, name, first string, add func(page string, data []byte) (string, error)) error {
	seen := map[string]bool{}
	next := first
	for page := 1; next != ""; page++ {
		if page > r.f.policy.MaxPages {
			return fmt.Errorf("%s: more than %d pages (max_pages in refresh.json)", name, r.f.policy.MaxPages)
		}
		if seen[next] {
			return fmt.Errorf("%s: page %d links to a page already read: the API's paging loops", name, page)
		}
		seen[next] = true
		rq := &request{name: fmt.Sprintf("%s/page-%04d.json", name, page), method: http.MethodGet, url: next,
			header: r.headers(name), limit: r.f.policy.MaxPageBytes}
		data, _, err := r.f.readAll(ctx, rq)
		if err != nil {
			return err
		}
		if next, err = add(rq.name, data); err != nil {
			return err
		}
	}
	return nil
}

// rebase keeps the query of a next-page link and sends it to the configured
// endpoint; the link must point at the endpoint's host or at the API's own
// (Azure writes it with the port, https://prices.azure.com:443/…, and an
// unencoded query).
func rebase(link string, base *url.URL, canonical string) (string, error) {
	u, err := url.Parse(link)
	if err != nil {
		// url.Error repeats the whole link: keep only its reason.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return "", fmt.Errorf("next-page link \"%s\": %w", clip(link), err)
	}
	c, _ := url.Parse(canonical)
	if u.Hostname() != base.Hostname() && (c == nil || u.Hostname() != c.Hostname()) {
		return "", fmt.Errorf("next-page link \"%s\" points at another host than the API", clip(link))
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return "", fmt.Errorf("next-page link \"%s\": %w", clip(link), err)
	}
	out := *base
	out.RawQuery = encodeQuery(q)
	return out.String(), nil
}

// encodeQuery encodes a query with %20 for spaces, as the Azure API
// writes its own links.
func encodeQuery(q url.Values) string { return strings.ReplaceAll(q.Encode(), "+", "%20") }

// headers are the credentials and content type of a cloud's requests.
func (r *run) headers(name string) http.Header {
	h := http.Header{}
	switch {
	case strings.HasPrefix(name, CloudGCP):
		h.Set("X-Goog-Api-Key", r.opts.GCPAPIKey)
	case strings.HasPrefix(name, CloudRunPod):
		h.Set("Content-Type", "application/json")
		if r.opts.RunPodAPIKey != "" {
			h.Set("Authorization", "Bearer "+r.opts.RunPodAPIKey)
		}
	case strings.HasPrefix(name, CloudLambda):
		h.Set("Authorization", "Bearer "+r.opts.LambdaAPIKey)
	}
	return h
}

// gcp lists the Compute Engine SKUs of the Cloud Billing Catalog, page by
// page (nextPageToken).
func (r *run) gcp(ctx context.Context) ([]*pricelist.Result, error) {
	pages, err := pricelist.NewPages(pricelist.FormatGCP, "Google Cloud Billing Catalog Compute Engine SKUs")
	if err != nil {
		return nil, err
	}
	base, err := url.Parse(r.endpoint(pricelist.EndpointGCPBillingSKUs))
	if err != nil {
		return nil, fmt.Errorf("gcp: endpoint: %w", err)
	}
	pageURL := func(token string) string {
		q := url.Values{"currencyCode": {"USD"}, "pageSize": {strconv.Itoa(r.f.policy.GCPPageSize)}}
		if token != "" {
			q.Set("pageToken", token)
		}
		u := *base
		u.RawQuery = q.Encode()
		return u.String()
	}
	err = r.paged(ctx, "gcp", pageURL(""), func(name string, data []byte) (string, error) {
		token, err := pages.Add(name, data)
		if err != nil || token == "" {
			return "", err
		}
		return pageURL(token), nil
	})
	if err != nil {
		return nil, err
	}
	res, err := pages.Result(r.cat)
	if err != nil {
		return nil, err
	}
	if len(res.Prices) == 0 {
		return nil, fmt.Errorf("gcp: %d SKUs priced none of the catalog's GCP machine types: has the format changed?", pages.Items())
	}
	return []*pricelist.Result{res}, nil
}

// runpodQuery asks for every GPU type's prices (RunPod GraphQL spec,
// gpuTypes).
const runpodQuery = `query GpuTypes { gpuTypes { id displayName memoryInGb securePrice communityPrice secureSpotPrice communitySpotPrice } }`

// runpod asks RunPod's GraphQL API for its GPU types' prices.
func (r *run) runpod(ctx context.Context) ([]*pricelist.Result, error) {
	body, err := json.Marshal(map[string]string{"query": runpodQuery})
	if err != nil {
		return nil, err
	}
	rq := &request{name: "runpod/gpu_types.json", method: http.MethodPost, url: r.endpoint(pricelist.EndpointRunPodGraphQL),
		body: body, header: r.headers(CloudRunPod), limit: r.f.policy.MaxPageBytes}
	return r.single(ctx, rq, pricelist.ReadRunPod)
}

// lambda asks the Lambda Cloud API for its instance types.
func (r *run) lambda(ctx context.Context) ([]*pricelist.Result, error) {
	rq := &request{name: "lambda/instance_types.json", method: http.MethodGet, url: r.endpoint(pricelist.EndpointLambdaInstances),
		header: r.headers(CloudLambda), limit: r.f.policy.MaxPageBytes}
	return r.single(ctx, rq, pricelist.ReadLambda)
}

// single reads a one-answer API with read; the answer's HTTP date is the
// prices' date.
func (r *run) single(ctx context.Context, rq *request, read pricelist.Reader) ([]*pricelist.Result, error) {
	data, date, err := r.f.readAll(ctx, rq)
	if err != nil {
		return nil, err
	}
	res, err := read(rq.name, strings.NewReader(string(data)), r.cat)
	if err != nil {
		return nil, err
	}
	if len(res.Prices) == 0 {
		return nil, fmt.Errorf("%s: priced none of the catalog's %s offers: has the API's format changed?", rq.name, res.Cloud)
	}
	res.Date = date
	return []*pricelist.Result{res}, nil
}

// sortedClouds orders clouds as Clouds lists them.
func sortedClouds(cs []string) []string {
	pos := map[string]int{}
	for i, c := range Clouds {
		pos[c] = i
	}
	out := append([]string(nil), cs...)
	sort.SliceStable(out, func(i, j int) bool { return pos[out[i]] < pos[out[j]] })
	return out
}
