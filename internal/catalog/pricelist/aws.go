// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package pricelist

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Attribute values of the AWS EC2 offer file that select the Linux list
// price of a shared-tenancy instance (AWS Price List docs).
const (
	awsOfferCode     = "AmazonEC2"
	awsComputeFamily = "Compute Instance"
	awsLinux         = "Linux"
	awsShared        = "Shared"
	awsNoSoftware    = "NA"
	awsUsed          = "Used" // not UnusedCapacityReservation / AllocatedCapacityReservation
	awsNoLicense     = "No License required"
	awsHours         = "Hrs"
	awsUSD           = "USD"
	awsStandard      = "standard"
	awsNoUpfront     = "No Upfront"
	awsOneYear       = "1yr"
	awsThreeYears    = "3yr"
)

// awsAcceleratorFamilies are the instanceFamily values of accelerator
// instances: unknown ones of these families are reported.
var awsAcceleratorFamilies = []string{"GPU instance", "Machine Learning ASIC Instances"}

type awsProduct struct {
	SKU           string `json:"sku"`
	ProductFamily string `json:"productFamily"`
	Attributes    struct {
		InstanceType    string `json:"instanceType"`
		InstanceFamily  string `json:"instanceFamily"`
		GPU             string `json:"gpu"`
		RegionCode      string `json:"regionCode"`
		OperatingSystem string `json:"operatingSystem"`
		Tenancy         string `json:"tenancy"`
		CapacityStatus  string `json:"capacitystatus"`
		PreInstalledSW  string `json:"preInstalledSw"`
		LicenseModel    string `json:"licenseModel"`
	} `json:"attributes"`
}

type awsTerm struct {
	PriceDimensions map[string]struct {
		Unit         string            `json:"unit"`
		PricePerUnit map[string]string `json:"pricePerUnit"`
	} `json:"priceDimensions"`
	TermAttributes struct {
		LeaseContractLength string `json:"LeaseContractLength"`
		OfferingClass       string `json:"OfferingClass"`
		PurchaseOption      string `json:"PurchaseOption"`
	} `json:"termAttributes"`
}

// awsReader streams an EC2 offer file: products and terms are decoded one
// SKU at a time, and only the SKUs of catalog instance types are kept.
type awsReader struct {
	file string
	t    *tracker
	dec  *json.Decoder
	k    Known
	res  *Result

	keys                          []string // top-level keys, for the format check
	offerCode, version, published string
	productsRead                  bool                 // products came before terms (as AWS writes them)
	keep                          map[string][2]string // sku -> instance type, region
	od, r1, r3                    map[string]float64   // sku -> hourly USD
	unknown                       map[string]bool
	notes                         map[string]bool
}

// ReadAWS reads an AWS Price List EC2 offer file (the per-region
// …/AmazonEC2/current/<region>/index.json or the whole-service file) as a
// stream, in memory proportional to the catalog's SKUs, not to the file:
// the on-demand Linux price of shared-tenancy instances without
// pre-installed software and with capacitystatus Used, and the standard
// no-upfront 1- and 3-year reserved instance rates, of the instance types
// k knows. The offer file carries no spot prices. At most
// max_offer_file_bytes (refresh.json) are read.
func ReadAWS(file string, in io.Reader, k Known) (*Result, error) {
	t := newTracker(newCapped(in, mustPolicy().MaxOfferFileBytes, "an AWS offer file (max_offer_file_bytes)"))
	r := &awsReader{file: file, t: t, dec: json.NewDecoder(t), k: k,
		res:  &Result{File: file, Format: FormatAWS, Cloud: "aws"},
		keep: map[string][2]string{}, od: map[string]float64{}, r1: map[string]float64{}, r3: map[string]float64{},
		unknown: map[string]bool{}, notes: map[string]bool{}}
	if err := r.top(); err != nil {
		return nil, err
	}
	sort.Strings(r.keys)
	if err := formatError(file, FormatAWS, r.keys, nil); err != nil {
		return nil, err
	}
	if r.offerCode != awsOfferCode {
		return nil, &FileError{File: file, Msg: fmt.Sprintf("offerCode %s: not the %s offer file (download the AmazonEC2 offer)", quoteClip(r.offerCode), awsOfferCode)}
	}
	r.collect()
	return r.res, nil
}

func (r *awsReader) fail(err error) error {
	return r.t.syntaxError(r.file, err, r.dec.InputOffset())
}

// expect reads a delimiter token.
func (r *awsReader) expect(d json.Delim) error {
	tok, err := r.dec.Token()
	if err != nil {
		return r.fail(err)
	}
	if tok != d {
		return r.t.fileError(r.file, r.dec.InputOffset(), fmt.Sprintf("expected %q, found %v", d, tok))
	}
	return nil
}

// key reads an object key.
func (r *awsReader) key() (string, error) {
	tok, err := r.dec.Token()
	if err != nil {
		return "", r.fail(err)
	}
	s, _ := tok.(string)
	return s, nil
}

// object calls fn for each key of the next JSON object.
func (r *awsReader) object(fn func(key string) error) error {
	if err := r.expect('{'); err != nil {
		return err
	}
	return r.members(fn)
}

// members calls fn for each key of an object whose '{' is read, then
// reads its '}'.
func (r *awsReader) members(fn func(key string) error) error {
	for r.dec.More() {
		k, err := r.key()
		if err != nil {
			return err
		}
		if err := fn(k); err != nil {
			return err
		}
	}
	return r.expect('}')
}

func (r *awsReader) decode(v any) error {
	if err := r.dec.Decode(v); err != nil {
		return r.fail(err)
	}
	return nil
}

// top reads the document: its scalars, products, then terms.
func (r *awsReader) top() error {
	tok, err := r.dec.Token()
	if err != nil {
		return r.fail(err)
	}
	switch tok {
	case json.Delim('['):
		return r.arrayTop()
	case json.Delim('{'):
	default:
		return &FileError{File: r.file, Msg: "expected the format " + string(FormatAWS) + " (not a JSON object)"}
	}
	err = r.members(func(k string) error {
		r.keys = append(r.keys, k)
		switch k {
		case "offerCode":
			return r.decode(&r.offerCode)
		case "version":
			return r.decode(&r.version)
		case "publicationDate":
			return r.decode(&r.published)
		case "products":
			err := r.object(func(string) error {
				var p awsProduct
				if err := r.decode(&p); err != nil {
					return err
				}
				r.product(&p)
				return nil
			})
			r.productsRead = true
			return err
		case "terms":
			return r.terms()
		}
		var skip json.RawMessage
		return r.decode(&skip)
	})
	if err != nil {
		return err
	}
	if _, err := r.dec.Token(); err == nil {
		return r.t.fileError(r.file, r.dec.InputOffset(), "trailing data after the JSON document")
	}
	return nil
}

// terms reads the terms object: kind -> SKU -> offer term code -> term.
func (r *awsReader) terms() error {
	return r.object(func(kind string) error {
		return r.object(func(sku string) error {
			if _, kept := r.keep[sku]; r.productsRead && !kept {
				var skip json.RawMessage // not a catalog SKU: nothing to keep
				return r.decode(&skip)
			}
			return r.object(func(string) error {
				var t awsTerm
				if err := r.decode(&t); err != nil {
					return err
				}
				r.term(kind, sku, &t)
				return nil
			})
		})
	})
}

// arrayTop reports a document that is a JSON array (an Azure or Google
// file of several pages) by the keys of its first element.
func (r *awsReader) arrayTop() error {
	var first map[string]json.RawMessage
	if r.dec.More() {
		if err := r.decode(&first); err != nil {
			return err
		}
	}
	keys := make([]string, 0, len(first))
	for k := range first {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if err := formatError(r.file, FormatAWS, keys, nil); err != nil {
		return err
	}
	return &FileError{File: r.file, Msg: "expected the format " + string(FormatAWS) + " (a JSON object), found a JSON array"}
}

// product keeps a SKU when it is the Linux shared-tenancy list price of a
// known instance type.
func (r *awsReader) product(p *awsProduct) {
	a := &p.Attributes
	if p.ProductFamily != awsComputeFamily || a.InstanceType == "" {
		return
	}
	if !known(r.k, r.res.Cloud, a.InstanceType) {
		gpus, _ := strconv.Atoi(a.GPU)
		if gpus > 0 || containsString(awsAcceleratorFamilies, a.InstanceFamily) {
			r.unknown[a.InstanceType] = true
		}
		return
	}
	if a.OperatingSystem != awsLinux || a.Tenancy != awsShared || a.PreInstalledSW != awsNoSoftware ||
		a.CapacityStatus != awsUsed || a.LicenseModel != awsNoLicense {
		return // Windows/RHEL/SUSE, dedicated or host tenancy, SQL images, capacity reservations, BYOL
	}
	if a.RegionCode == "" {
		r.notes[a.InstanceType+": product "+p.SKU+" has no regionCode attribute; skipped"] = true
		return
	}
	r.keep[p.SKU] = [2]string{a.InstanceType, a.RegionCode}
}

// term records the hourly USD rate of an on-demand or standard no-upfront
// reserved term.
func (r *awsReader) term(kind, sku string, t *awsTerm) {
	var dst map[string]float64
	ta := &t.TermAttributes
	switch {
	case kind == "OnDemand":
		dst = r.od
	case kind == "Reserved" && ta.OfferingClass == awsStandard && ta.PurchaseOption == awsNoUpfront && ta.LeaseContractLength == awsOneYear:
		dst = r.r1
	case kind == "Reserved" && ta.OfferingClass == awsStandard && ta.PurchaseOption == awsNoUpfront && ta.LeaseContractLength == awsThreeYears:
		dst = r.r3
	default:
		return
	}
	for _, d := range t.PriceDimensions {
		if d.Unit != awsHours {
			continue
		}
		s, ok := d.PricePerUnit[awsUSD]
		if !ok {
			r.notes[fmt.Sprintf("SKU %s: no USD price (%v); skipped", sku, d.PricePerUnit)] = true
			continue
		}
		v, err := strconv.ParseFloat(s, 64)
		switch {
		case err != nil || math.IsNaN(v) || math.IsInf(v, 0):
			r.notes[fmt.Sprintf("SKU %s: price %q is not a finite number; skipped", sku, s)] = true
			continue
		case v < 0:
			r.notes[fmt.Sprintf("SKU %s: price %q is negative; skipped", sku, s)] = true
			continue
		case v == 0 && kind == "OnDemand":
			r.notes[fmt.Sprintf("SKU %s: on-demand price %q is zero (not sold at a list price); skipped", sku, s)] = true
			continue
		}
		dst[sku] = v
	}
}

// collect joins the kept products with their terms.
func (r *awsReader) collect() {
	byKey := map[[2]string]*Price{}
	for sku, it := range r.keep {
		od := r.od[sku]
		if od <= 0 {
			continue
		}
		p := &Price{Cloud: r.res.Cloud, InstanceType: it[0], Region: it[1], OnDemandUSD: od}
		p.Reserved1YUSD = belowOnDemand(r.r1[sku], od, p, "reserved_1y", r.notes)
		p.Reserved3YUSD = belowOnDemand(r.r3[sku], od, p, "reserved_3y", r.notes)
		if prev, dup := byKey[it]; dup && *prev != *p {
			r.notes[fmt.Sprintf("%s in %s: several Linux shared SKUs with different prices; kept the first", it[0], it[1])] = true
			continue
		}
		byKey[it] = p
	}
	for _, p := range byKey {
		r.res.Prices = append(r.res.Prices, *p)
	}
	sortPrices(r.res.Prices)
	r.res.Unknown = sortedKeys(r.unknown)
	r.res.Notes = sortedKeys(r.notes)
	r.res.Date = dateOf(r.published)
	r.res.Source = fmt.Sprintf("AWS Price List API %s offer file %s (version %s, published %s): on-demand Linux, shared tenancy, no pre-installed software, capacitystatus Used; reserved = standard no-upfront RI",
		r.offerCode, r.file, r.version, r.published)
}

// belowOnDemand returns a commitment or spot rate when it is below
// on-demand, else 0 with a note.
func belowOnDemand(v, od float64, p *Price, what string, notes map[string]bool) float64 {
	if v > 0 && v >= od {
		notes[fmt.Sprintf("%s in %s: %s %v is not below on-demand %v; left out", p.InstanceType, p.Region, what, v, od)] = true
		return 0
	}
	return v
}

// dateOf returns the YYYY-MM-DD part of an ISO-8601 timestamp.
func dateOf(ts string) string {
	if len(ts) >= len("2006-01-02") {
		return ts[:len("2006-01-02")]
	}
	return ts
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}
