// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package pricelist

import (
	"fmt"
	"io"
	"net/url"
	"sort"
	"strings"
)

// AWSRegionIndex is the EC2 offer's region index
// (…/AmazonEC2/current/region_index.json): the path of each region's
// current offer file on the price-list host.
type AWSRegionIndex struct {
	PublicationDate string
	// Paths maps a region code to the path of its offer file, e.g.
	// "/offers/v1.0/aws/AmazonEC2/20261101000000/us-east-1/index.json".
	Paths map[string]string
}

// Regions lists the regions of the index, sorted.
func (x *AWSRegionIndex) Regions() []string {
	out := make([]string, 0, len(x.Paths))
	for r := range x.Paths {
		out = append(out, r)
	}
	sort.Strings(out)
	return out
}

// ReadAWSRegionIndex reads a region index (AWS Billing User Guide,
// "Service Region index file for AWS services"). Every region must name its
// offer file by a path on the same host (no scheme, no host, no "..").
func ReadAWSRegionIndex(file string, in io.Reader) (*AWSRegionIndex, error) {
	data, err := readDocument(file, in, mustPolicy().MaxPageBytes, "an API answer (max_page_bytes)")
	if err != nil {
		return nil, err
	}
	if err := checkFormat(file, FormatAWSRegionIndex, data); err != nil {
		return nil, err
	}
	var doc struct {
		PublicationDate string `json:"publicationDate"`
		Regions         map[string]struct {
			RegionCode        string `json:"regionCode"`
			CurrentVersionURL string `json:"currentVersionUrl"`
		} `json:"regions"`
	}
	if err := decodeAll(file, data, &doc); err != nil {
		return nil, err
	}
	x := &AWSRegionIndex{PublicationDate: doc.PublicationDate, Paths: map[string]string{}}
	for key, r := range doc.Regions {
		if r.RegionCode == "" || r.CurrentVersionURL == "" {
			return nil, &FileError{File: file, Msg: fmt.Sprintf("region %s: without regionCode or currentVersionUrl: has the index's format changed?", quoteClip(key))}
		}
		u, err := url.Parse(r.CurrentVersionURL)
		if err != nil || u.Scheme != "" || u.Host != "" || !strings.HasPrefix(u.Path, "/") || strings.Contains(u.Path, "..") {
			return nil, &FileError{File: file, Msg: fmt.Sprintf("region %s: currentVersionUrl %s is not a path on the price-list host", quoteClip(r.RegionCode), quoteClip(r.CurrentVersionURL))}
		}
		x.Paths[r.RegionCode] = u.Path
	}
	if len(x.Paths) == 0 {
		return nil, &FileError{File: file, Msg: "no regions: has the index's format changed?"}
	}
	return x, nil
}
