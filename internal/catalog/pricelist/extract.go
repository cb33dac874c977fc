// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package pricelist

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"time"
)

// FormatExtract is what `terraform-provider-gpu refresh --extract` writes
// for the built-in catalog's generator (make refresh): the results read
// from the clouds' answers — prices of catalog instance types with their
// source, date and notes — small enough to commit where the answers (an
// AWS offer file is gigabytes) are not.
const FormatExtract Format = "price-list extract of terraform-provider-gpu refresh (JSON)"

// extractVersion is the extract's format version.
const extractVersion = 1

type extractDoc struct {
	Version     int             `json:"price_extract_version"`
	Description string          `json:"description"`
	Results     []extractResult `json:"results"`
}

type extractResult struct {
	Cloud   string         `json:"cloud"`
	File    string         `json:"file"`
	Format  Format         `json:"format"`
	Date    string         `json:"date"`
	Source  string         `json:"source"`
	Prices  []extractPrice `json:"prices"`
	Unknown []string       `json:"unknown,omitempty"`
	Notes   []string       `json:"notes,omitempty"`
}

type extractPrice struct {
	InstanceType  string  `json:"instance_type"`
	Region        string  `json:"region"`
	OnDemandUSD   float64 `json:"on_demand_usd"`
	SpotUSD       float64 `json:"spot_usd,omitempty"`
	Reserved1YUSD float64 `json:"reserved_1y_usd,omitempty"`
	Reserved3YUSD float64 `json:"reserved_3y_usd,omitempty"`
}

// WriteExtract renders results as an extract, deterministically: the same
// results give the same bytes.
func WriteExtract(results []*Result) ([]byte, error) {
	doc := extractDoc{Version: extractVersion, Description: "Prices read by terraform-provider-gpu refresh from the clouds' price " +
		"lists (internal/catalog/pricelist), one result per answer read; the generator applies them (make refresh, ARCHITECTURE.md \"A price refresh\")."}
	for _, r := range results {
		er := extractResult{Cloud: r.Cloud, File: r.File, Format: r.Format, Date: r.Date, Source: r.Source, Unknown: r.Unknown, Notes: r.Notes}
		for _, p := range r.Prices {
			er.Prices = append(er.Prices, extractPrice{InstanceType: p.InstanceType, Region: p.Region, OnDemandUSD: p.OnDemandUSD,
				SpotUSD: p.SpotUSD, Reserved1YUSD: p.Reserved1YUSD, Reserved3YUSD: p.Reserved3YUSD})
		}
		doc.Results = append(doc.Results, er)
	}
	data, err := json.MarshalIndent(doc, "", " ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// ReadExtract reads an extract, checking what a reader of the clouds'
// formats guarantees: dated results of a known cloud format, finite
// positive prices of instance types k knows, spot and commitments below
// on-demand, no (instance type, region) twice in a result.
func ReadExtract(file string, in io.Reader, k Known) ([]*Result, error) {
	data, err := readDocument(file, in, mustPolicy().MaxPriceListFileBytes, "a price-list file (max_price_list_file_bytes)")
	if err != nil {
		return nil, err
	}
	var doc extractDoc
	if err := decodeAll(file, data, &doc); err != nil {
		return nil, err
	}
	if doc.Version != extractVersion {
		return nil, &FileError{File: file, Msg: fmt.Sprintf("price_extract_version %d: this build reads version %d", doc.Version, extractVersion)}
	}
	var out []*Result
	for i, er := range doc.Results {
		res, err := extractResultOf(er, k)
		if err != nil {
			return nil, &FileError{File: file, Msg: fmt.Sprintf("results[%d] (%s): %v", i, er.File, err)}
		}
		out = append(out, res)
	}
	return out, nil
}

// extractResultOf checks one result of an extract.
func extractResultOf(er extractResult, k Known) (*Result, error) {
	switch er.Format {
	case FormatAWS, FormatAzure, FormatGCP, FormatRunPod, FormatLambda:
	default:
		return nil, fmt.Errorf("format %q is not a price-list format", er.Format)
	}
	if _, err := time.Parse(time.DateOnly, er.Date); err != nil || er.Cloud == "" || er.Source == "" {
		return nil, fmt.Errorf("needs a cloud, a source and a date as YYYY-MM-DD (date %q)", er.Date)
	}
	res := &Result{File: er.File, Format: er.Format, Cloud: er.Cloud, Date: er.Date, Source: er.Source, Unknown: er.Unknown, Notes: er.Notes}
	seen := map[[2]string]bool{}
	for j, p := range er.Prices {
		key := [2]string{p.InstanceType, p.Region}
		switch {
		case seen[key]:
			return nil, fmt.Errorf("prices[%d]: %s in %s twice", j, p.InstanceType, p.Region)
		case !known(k, er.Cloud, p.InstanceType):
			return nil, fmt.Errorf("prices[%d]: %s is not a %s instance type of the catalog", j, p.InstanceType, er.Cloud)
		case !validPrices(p):
			return nil, fmt.Errorf("prices[%d] (%s in %s): prices must be finite, on-demand positive, spot and commitments below it", j, p.InstanceType, p.Region)
		}
		seen[key] = true
		res.Prices = append(res.Prices, Price{Cloud: er.Cloud, InstanceType: p.InstanceType, Region: p.Region, OnDemandUSD: p.OnDemandUSD,
			SpotUSD: p.SpotUSD, Reserved1YUSD: p.Reserved1YUSD, Reserved3YUSD: p.Reserved3YUSD})
	}
	return res, nil
}

func validPrices(p extractPrice) bool {
	for _, v := range []float64{p.OnDemandUSD, p.SpotUSD, p.Reserved1YUSD, p.Reserved3YUSD} {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return false
		}
	}
	return p.OnDemandUSD > 0 && p.SpotUSD < p.OnDemandUSD && p.Reserved1YUSD < p.OnDemandUSD && p.Reserved3YUSD < p.OnDemandUSD
}

// ReadAll reads a price-list file from disk: an extract gives its
// results, any other format one result (ReadFile with Read).
func ReadAll(path string, k Known) ([]*Result, error) {
	f, err := openRegular(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer f.Close()
	format, _, replay, err := sniff(path, f)
	if err != nil {
		return nil, err
	}
	if format == FormatExtract {
		return ReadExtract(path, replay, k)
	}
	res, err := Read(filepath.Base(path), replay, k)
	if err != nil {
		if fe, ok := err.(*FileError); ok {
			fe.File = path
			return nil, fe
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return []*Result{res}, nil
}
