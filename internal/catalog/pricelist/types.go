// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package pricelist

import (
	"sort"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// Format names a price-list file format.
type Format string

// The formats the package reads.
const (
	FormatAWS   Format = "AWS Price List EC2 offer file (JSON)"
	FormatAzure Format = "Azure Retail Prices API response (JSON)"
	FormatGCP   Format = "Google Cloud Billing Catalog SKU list (JSON)"
	// FormatAWSRegionIndex is the EC2 offer's region index: where each
	// region's offer file is (ReadAWSRegionIndex); it holds no prices.
	FormatAWSRegionIndex Format = "AWS Price List EC2 region index (JSON)"
	FormatRunPod         Format = "RunPod GraphQL gpuTypes response (JSON)"
	FormatLambda         Format = "Lambda Cloud API instance-types response (JSON)"
)

// Known is what the readers need from the catalog: the offers of an
// instance type (any region), to keep only instance types the catalog knows
// and to compose GCP machine prices from their vCPUs, RAM and GPUs.
// *catalog.Catalog satisfies it.
type Known interface {
	OffersOf(cloud, instanceType string) []*catalog.Offer
	InstanceTypes(cloud string) []string
}

// Price is the hourly USD price of one instance type in one region, as a
// price-list file gives it; 0 = the file has no such price.
type Price struct {
	Cloud, InstanceType, Region string
	OnDemandUSD                 float64
	SpotUSD                     float64
	Reserved1YUSD               float64
	Reserved3YUSD               float64
}

// Result is what one file yields.
type Result struct {
	File   string // base name of the file
	Format Format
	Cloud  string
	// Date is the file's own date (YYYY-MM-DD): AWS publicationDate, the
	// latest Azure effectiveStartDate or GCP effectiveTime of the prices
	// used. RunPod's and Lambda's answers carry no date: their readers
	// leave it empty for the caller (the refresh sets the answer's HTTP
	// Date).
	Date   string
	Source string // provenance text for the overlay's source fields
	Prices []Price
	// Unknown lists accelerator instance types (or GPU SKUs) the file prices
	// and the catalog does not know; they are not imported.
	Unknown []string
	// Notes are rows left out for a reason a user should see (a non-USD
	// price, a rate at or above on-demand, ...).
	Notes []string
}

// sortPrices orders prices by instance type and region.
func sortPrices(p []Price) {
	sort.Slice(p, func(i, j int) bool {
		if p[i].InstanceType != p[j].InstanceType {
			return p[i].InstanceType < p[j].InstanceType
		}
		return p[i].Region < p[j].Region
	})
}

// sortedKeys returns the keys of a set, sorted.
func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// known reports whether the catalog has an offer of the instance type.
func known(k Known, cloud, it string) bool { return len(k.OffersOf(cloud, it)) > 0 }
