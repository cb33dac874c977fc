// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package pricelist

import (
	"bytes"
	"encoding/json"
	"fmt"
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
// SKU at a time.
type awsReader struct {
	file string
	data []byte
	dec  *json.Decoder
	k    Known
	res  *Result

	offerCode, version, published string
	keep                          map[string][2]string // sku -> instance type, region
	od, r1, r3                    map[string]float64   // sku -> hourly USD
	unknown                       map[string]bool
	notes                         map[string]bool
}

// ReadAWS reads an AWS Price List EC2 offer file (the per-region
// …/AmazonEC2/current/<region>/index.json or the whole-service file): the
// on-demand Linux price of shared-tenancy instances without pre-installed
// software and with capacitystatus Used, and the standard no-upfront
// 1- and 3-year reserved instance rates, of the instance types k knows.
// The offer file carries no spot prices.
func ReadAWS(file string, data []byte, k Known) (*Result, error) {
	if err := checkFormat(file, FormatAWS, data); err != nil {
		return nil, err
	}
	r := &awsReader{file: file, data: data, dec: json.NewDecoder(bytes.NewReader(data)), k: k,
		res:  &Result{File: file, Format: FormatAWS, Cloud: "aws"},
		keep: map[string][2]string{}, od: map[string]float64{}, r1: map[string]float64{}, r3: map[string]float64{},
		unknown: map[string]bool{}, notes: map[string]bool{}}
	if err := r.top(); err != nil {
		return nil, err
	}
	if r.offerCode != awsOfferCode {
		return nil, &FileError{File: file, Msg: fmt.Sprintf("offerCode %q: not the %s offer file (download the AmazonEC2 offer)", r.offerCode, awsOfferCode)}
	}
	r.collect()
	return r.res, nil
}

func (r *awsReader) fail(err error) error {
	return syntaxError(r.file, r.data, err, r.dec.InputOffset())
}

// expect reads a delimiter token.
func (r *awsReader) expect(d json.Delim) error {
	tok, err := r.dec.Token()
	if err != nil {
		return r.fail(err)
	}
	if tok != d {
		l, c := position(r.data, r.dec.InputOffset())
		return &FileError{File: r.file, Line: l, Column: c, Msg: fmt.Sprintf("expected %q, found %v", d, tok)}
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

func (r *awsReader) top() error {
	err := r.object(func(k string) error {
		switch k {
		case "offerCode":
			return r.decode(&r.offerCode)
		case "version":
			return r.decode(&r.version)
		case "publicationDate":
			return r.decode(&r.published)
		case "products":
			return r.object(func(string) error {
				var p awsProduct
				if err := r.decode(&p); err != nil {
					return err
				}
				r.product(&p)
				return nil
			})
		case "terms":
			return r.object(func(kind string) error {
				return r.object(func(sku string) error {
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
		var skip json.RawMessage
		return r.decode(&skip)
	})
	if err != nil {
		return err
	}
	if _, err := r.dec.Token(); err == nil {
		l, c := position(r.data, r.dec.InputOffset())
		return &FileError{File: r.file, Line: l, Column: c, Msg: "trailing data after the JSON document"}
	}
	return nil
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
		if err != nil || v < 0 {
			r.notes[fmt.Sprintf("SKU %s: price %q is not a number; skipped", sku, s)] = true
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
