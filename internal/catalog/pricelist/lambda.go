// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package pricelist

import (
	"fmt"
	"io"
	"strings"
)

// centsPerDollar converts Lambda's price_cents_per_hour.
const centsPerDollar = 100

type lambdaAnswer struct {
	Data  map[string]lambdaEntry `json:"data"`
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

type lambdaEntry struct {
	InstanceType *struct {
		Name              string   `json:"name"`
		PriceCentsPerHour *float64 `json:"price_cents_per_hour"`
	} `json:"instance_type"`
}

// ReadLambda reads the Lambda Cloud API's answer to GET
// /api/v1/instance-types: the on-demand price (price_cents_per_hour / 100)
// of each instance type the catalog knows, the same in every region the
// catalog lists for it (Lambda publishes one price per instance type).
// Lambda sells no spot or reserved instances by the hour. The answer
// carries no date.
func ReadLambda(file string, in io.Reader, k Known) (*Result, error) {
	data, err := readDocument(file, in, mustPolicy().MaxPageBytes, "an API answer (max_page_bytes)")
	if err != nil {
		return nil, err
	}
	var ans lambdaAnswer
	if err := decodeAll(file, data, &ans); err != nil {
		return nil, err
	}
	if ans.Error != nil {
		return nil, &FileError{File: file, Msg: fmt.Sprintf("the API answered with an error: %s: %s", clipText(ans.Error.Code), clipText(ans.Error.Message))}
	}
	if ans.Data == nil {
		return nil, formatError(file, FormatLambda, nil, data)
	}
	res := &Result{File: file, Format: FormatLambda, Cloud: "lambda"}
	unknown, notes := map[string]bool{}, map[string]bool{}
	for _, name := range sortedKeys(keysOf(ans.Data)) {
		e := ans.Data[name]
		if e.InstanceType == nil || e.InstanceType.PriceCentsPerHour == nil {
			return nil, &FileError{File: file, Msg: fmt.Sprintf("data[%q]: no instance_type.price_cents_per_hour: has the API's format changed?", clipText(name))}
		}
		offers := k.OffersOf(res.Cloud, name)
		if len(offers) == 0 {
			if strings.HasPrefix(name, "gpu_") {
				unknown[name] = true
			}
			continue
		}
		usd := *e.InstanceType.PriceCentsPerHour / centsPerDollar
		if usd <= 0 {
			notes[fmt.Sprintf("%s: price_cents_per_hour %v is not a positive price; left out", name, *e.InstanceType.PriceCentsPerHour)] = true
			continue
		}
		for _, o := range offers {
			res.Prices = append(res.Prices, Price{Cloud: res.Cloud, InstanceType: name, Region: o.Region, OnDemandUSD: usd})
		}
	}
	sortPrices(res.Prices)
	res.Unknown, res.Notes = sortedKeys(unknown), sortedKeys(notes)
	res.Source = fmt.Sprintf("Lambda Cloud API instance-types %s: on-demand = price_cents_per_hour / 100, one price for every region", file)
	return res, nil
}

func keysOf[V any](m map[string]V) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}
