// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package pricelist

import (
	"bytes"
	_ "embed"
	"encoding/csv"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// runpodGPUsCSV maps RunPod gpuTypes ids to the GPU part of the catalog's
// RunPod instance type names (source per row).
//
//go:embed runpod_gpus.csv
var runpodGPUsCSV []byte

// runpodInstance is the catalog's RunPod instance type name:
// <GPUs>x_<GPU>_<SECURE|COMMUNITY>.
var runpodInstance = regexp.MustCompile(`^([1-9][0-9]*)x_(.+)_(SECURE|COMMUNITY)$`)

type runpodAnswer struct {
	Data *struct {
		GPUTypes []runpodGPU `json:"gpuTypes"`
	} `json:"data"`
	Errors []struct {
		Message string `json:"message"`
	} `json:"errors"`
}

// runpodGPU is one gpuTypes entry: prices are USD per GPU-hour, null where
// the cloud type does not offer the GPU.
type runpodGPU struct {
	ID                 string   `json:"id"`
	SecurePrice        *float64 `json:"securePrice"`
	CommunityPrice     *float64 `json:"communityPrice"`
	SecureSpotPrice    *float64 `json:"secureSpotPrice"`
	CommunitySpotPrice *float64 `json:"communitySpotPrice"`
}

// ReadRunPod reads RunPod's GraphQL answer to a gpuTypes query (id,
// securePrice, communityPrice, secureSpotPrice, communitySpotPrice) into
// the prices of the catalog's RunPod instance types <n>x_<GPU>_<cloud>:
// on-demand = n x securePrice (SECURE) or communityPrice (COMMUNITY), spot
// = n x the matching spot price, the same in every data centre the
// catalog lists for the instance type (RunPod publishes one price per GPU
// type and cloud type). The answer carries no date.
func ReadRunPod(file string, in io.Reader, k Known) (*Result, error) {
	data, err := readDocument(file, in, mustPolicy().MaxPageBytes, "an API answer (max_page_bytes)")
	if err != nil {
		return nil, err
	}
	var ans runpodAnswer
	if err := decodeAll(file, data, &ans); err != nil {
		return nil, err
	}
	if len(ans.Errors) > 0 {
		return nil, &FileError{File: file, Msg: "the API answered with an error: " + clipText(ans.Errors[0].Message)}
	}
	if ans.Data == nil || ans.Data.GPUTypes == nil {
		return nil, formatError(file, FormatRunPod, nil, data)
	}
	byID, err := runpodCheck(file, ans.Data.GPUTypes)
	if err != nil {
		return nil, err
	}
	names, err := runpodNames()
	if err != nil {
		return nil, err
	}
	res := &Result{File: file, Format: FormatRunPod, Cloud: "runpod"}
	notes, used := map[string]bool{}, map[string]bool{}
	for _, it := range k.InstanceTypes(res.Cloud) {
		m := runpodInstance.FindStringSubmatch(it)
		id, ok := names[m2(m, 2)]
		if m == nil || !ok {
			continue
		}
		used[id] = true
		g, ok := byID[id]
		if !ok {
			notes[fmt.Sprintf("%s: the answer has no gpuType %q; left out", it, id)] = true
			continue
		}
		n, _ := strconv.Atoi(m[1])
		od, spot := g.SecurePrice, g.SecureSpotPrice
		if m[3] == "COMMUNITY" {
			od, spot = g.CommunityPrice, g.CommunitySpotPrice
		}
		if od == nil || *od <= 0 {
			notes[fmt.Sprintf("%s: %s not offered on %s cloud (no price); left out", it, id, strings.ToLower(m[3]))] = true
			continue
		}
		for _, o := range k.OffersOf(res.Cloud, it) {
			p := Price{Cloud: res.Cloud, InstanceType: it, Region: o.Region, OnDemandUSD: float64(n) * *od}
			if spot != nil && *spot > 0 {
				p.SpotUSD = belowOnDemand(float64(n)**spot, p.OnDemandUSD, &p, "spot", notes)
			}
			res.Prices = append(res.Prices, p)
		}
	}
	unknown := map[string]bool{}
	for id, g := range byID {
		if !used[id] && (g.SecurePrice != nil || g.CommunityPrice != nil) {
			unknown[id] = true
		}
	}
	sortPrices(res.Prices)
	res.Unknown, res.Notes = sortedKeys(unknown), sortedKeys(notes)
	res.Source = fmt.Sprintf("RunPod GraphQL API gpuTypes %s: on-demand = GPUs x securePrice (SECURE) or communityPrice (COMMUNITY), spot = GPUs x secureSpotPrice or communitySpotPrice; one price for every data centre", file)
	return res, nil
}

// runpodCheck indexes the gpuTypes by id; an entry without an id, or an
// answer where no entry has a price field, means the format changed.
func runpodCheck(file string, gs []runpodGPU) (map[string]runpodGPU, error) {
	byID := map[string]runpodGPU{}
	priced := false
	for i, g := range gs {
		if g.ID == "" {
			return nil, &FileError{File: file, Msg: fmt.Sprintf("gpuTypes[%d] has no id: has the API's format changed?", i)}
		}
		for _, v := range []*float64{g.SecurePrice, g.CommunityPrice, g.SecureSpotPrice, g.CommunitySpotPrice} {
			if v != nil && *v < 0 {
				return nil, &FileError{File: file, Msg: fmt.Sprintf("gpuTypes %q: a negative price %v", clipText(g.ID), *v)}
			}
		}
		priced = priced || g.SecurePrice != nil || g.CommunityPrice != nil
		byID[g.ID] = g
	}
	if len(gs) > 0 && !priced {
		return nil, &FileError{File: file, Msg: "no gpuTypes entry has securePrice or communityPrice: has the API's format changed?"}
	}
	return byID, nil
}

// m2 returns the i-th submatch, "" without a match.
func m2(m []string, i int) string {
	if m == nil {
		return ""
	}
	return m[i]
}

// runpodNames parses the embedded table: catalog GPU name -> RunPod id.
func runpodNames() (map[string]string, error) {
	rows, err := csv.NewReader(bytes.NewReader(runpodGPUsCSV)).ReadAll()
	if err != nil || len(rows) < 2 {
		return nil, fmt.Errorf("pricelist: runpod_gpus.csv: %v", err)
	}
	out := map[string]string{}
	for _, r := range rows[1:] {
		out[r[1]] = r[0]
	}
	return out, nil
}

// clipText shortens a server's message for an error, escaping control
// characters.
func clipText(s string) string {
	const most = 200
	if len(s) > most {
		s = s[:most] + "…"
	}
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}
