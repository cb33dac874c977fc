// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package pricelist

import (
	"fmt"
)

// Pages reads a paged API answer one page at a time — the Azure Retail
// Prices API (NextPageLink) or the Google Cloud Billing Catalog
// (nextPageToken) — with the same rules as ReadAzure and ReadGCP read a
// file of those pages. Only the fields the readers use are kept between
// pages, not the pages' bytes.
type Pages struct {
	format Format
	file   string
	azure  []azurePage
	gcp    []gcpPage
}

// NewPages starts reading the pages of one query in the format FormatAzure
// or FormatGCP; file names the query in errors and in the result's source.
func NewPages(format Format, file string) (*Pages, error) {
	if format != FormatAzure && format != FormatGCP {
		return nil, fmt.Errorf("pricelist: %s is not a paged format", format)
	}
	return &Pages{format: format, file: file}, nil
}

// Add reads the next page and returns the link (Azure) or token (Google)
// of the page after it, "" after the last page.
func (p *Pages) Add(data []byte) (next string, err error) {
	name := fmt.Sprintf("%s page %d", p.file, p.Len()+1)
	if err := checkFormat(name, p.format, data); err != nil {
		return "", err
	}
	switch p.format {
	case FormatAzure:
		var pg azurePage
		if err := decodeAll(name, data, &pg); err != nil {
			return "", err
		}
		p.azure = append(p.azure, pg)
		if pg.NextPageLink != nil {
			next = *pg.NextPageLink
		}
	default:
		var pg gcpPage
		if err := decodeAll(name, data, &pg); err != nil {
			return "", err
		}
		p.gcp = append(p.gcp, pg)
		next = pg.NextPageToken
	}
	return next, nil
}

// Len is the number of pages read.
func (p *Pages) Len() int { return len(p.azure) + len(p.gcp) }

// Items is the number of price items (Azure) or SKUs (Google) read.
func (p *Pages) Items() int {
	n := 0
	for _, pg := range p.azure {
		n += len(pg.Items)
	}
	for _, pg := range p.gcp {
		n += len(pg.SKUs)
	}
	return n
}

// Result reads the prices of the pages.
func (p *Pages) Result(k Known) (*Result, error) {
	if p.format == FormatAzure {
		return azureResult(p.file, p.azure, k)
	}
	return gcpResult(p.file, p.gcp, k)
}
