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
	labels pageLabels
	azure  []azurePage
	gcp    []gcpPage
}

// pageLabels names the pages of a file or a query in errors: by their
// names when read one at a time, else "<file> page <n>".
type pageLabels struct {
	file  string
	names []string
}

func (l pageLabels) of(page int) string {
	if page < len(l.names) {
		return l.names[page]
	}
	return fmt.Sprintf("%s page %d", l.file, page+1)
}

// NewPages starts reading the pages of one query in the format FormatAzure
// or FormatGCP; file names the query in errors and in the result's source.
func NewPages(format Format, file string) (*Pages, error) {
	if format != FormatAzure && format != FormatGCP {
		return nil, fmt.Errorf("pricelist: %s is not a paged format", format)
	}
	return &Pages{format: format, labels: pageLabels{file: file}}, nil
}

// Add reads the next page, named name in errors, and returns the link
// (Azure) or token (Google) of the page after it, "" after the last page.
func (p *Pages) Add(name string, data []byte) (next string, err error) {
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
		p.labels.names = append(p.labels.names, name)
		if pg.NextPageLink != nil {
			next = *pg.NextPageLink
		}
	default:
		var pg gcpPage
		if err := decodeAll(name, data, &pg); err != nil {
			return "", err
		}
		p.gcp = append(p.gcp, pg)
		p.labels.names = append(p.labels.names, name)
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
		return azureResult(p.labels, p.azure, k)
	}
	return gcpResult(p.labels, p.gcp, k)
}
