// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package pricelist

import (
	"bytes"
	_ "embed"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// gcpMachinesCSV maps GCP machine families to the SKU names their price is
// composed of (source per row).
//
//go:embed gcp_machines.csv
var gcpMachinesCSV []byte

// GCP usage types (Cloud Billing Catalog API, category.usageType).
const (
	gcpOnDemand    = "OnDemand"
	gcpPreemptible = "Preemptible" // Spot VMs
	gcpCommit1Y    = "Commit1Yr"
	gcpCommit3Y    = "Commit3Yr"
	gcpUSD         = "USD"
	gcpHour        = "h"
	gcpGiBHour     = "GiBy.h"
	gcpGPUGroup    = "GPU"
)

// nanosPerUnit converts a Money value's nanos to units.
const nanosPerUnit = 1e9

// gcpResource strips the usage wording from a SKU description, leaving the
// resource: "Spot Preemptible A3 Instance Core running in Americas" → "A3
// Instance Core"; "Commitment v1: Nvidia L4 GPU in Frankfurt for 1 Year" →
// "Nvidia L4 GPU"; "Nvidia H100 80GB GPU attached to Spot Preemptible VMs
// running in Americas" → "Nvidia H100 80GB GPU".
var gcpResource = regexp.MustCompile(`^(?:Commitment v1: )?(?:Spot Preemptible |Preemptible |Spot )?(.+?)(?: attached to (?:Spot Preemptible |Preemptible )?VMs)?(?: running)? in .+$`)

type gcpPage struct {
	SKUs          []gcpSKU `json:"skus"`
	NextPageToken string   `json:"nextPageToken"`
}

type gcpSKU struct {
	SKUID       string `json:"skuId"`
	Description string `json:"description"`
	Category    struct {
		ResourceGroup string `json:"resourceGroup"`
		UsageType     string `json:"usageType"`
	} `json:"category"`
	ServiceRegions []string `json:"serviceRegions"`
	PricingInfo    []struct {
		EffectiveTime     string `json:"effectiveTime"`
		PricingExpression struct {
			UsageUnit   string `json:"usageUnit"`
			TieredRates []struct {
				StartUsageAmount float64  `json:"startUsageAmount"`
				UnitPrice        gcpMoney `json:"unitPrice"`
			} `json:"tieredRates"`
		} `json:"pricingExpression"`
	} `json:"pricingInfo"`
}

// gcpMoney is a price of the Billing Catalog: whole units plus nanos.
type gcpMoney struct {
	CurrencyCode string `json:"currencyCode"`
	Units        string `json:"units"`
	Nanos        int64  `json:"nanos"`
}

// gcpUnitPrice is a price in USD; any other currency, or units that are
// not an integer, is an error naming the page and SKU.
func gcpUnitPrice(page, sku string, m gcpMoney) (float64, error) {
	if m.CurrencyCode == "" {
		return 0, &FileError{File: page, Msg: fmt.Sprintf("SKU %s: a unitPrice without currencyCode: has the API's format changed?", clipText(sku))}
	}
	if m.CurrencyCode != gcpUSD {
		return 0, &FileError{File: page, Msg: fmt.Sprintf("SKU %s: prices in %s; list the SKUs with currencyCode=USD", clipText(sku), clipText(m.CurrencyCode))}
	}
	var units int64
	if m.Units != "" {
		var err error
		if units, err = strconv.ParseInt(m.Units, 10, 64); err != nil {
			return 0, &FileError{File: page, Msg: fmt.Sprintf("SKU %s: units %q is not an integer", clipText(sku), clipText(m.Units))}
		}
	}
	if units < 0 || m.Nanos < 0 || m.Nanos >= nanosPerUnit {
		return 0, errNegativeMoney
	}
	return float64(units) + float64(m.Nanos)/nanosPerUnit, nil
}

// errNegativeMoney: a Money value that is negative or whose nanos are out
// of range (google.type.Money: 0 <= nanos < 1e9 for a positive amount).
var errNegativeMoney = errors.New("negative or malformed amount")

// gcpMachine is a row of gcp_machines.csv.
type gcpMachine struct{ prefix, host, gpu string }

// gcpRate is one SKU's price of a resource in a region for a usage type.
type gcpRate struct {
	usd  float64
	unit string
}

// ReadGCP reads Google Cloud Billing Catalog SKU lists of the Compute
// Engine service — one page (an object with skus) or a JSON array of pages —
// and composes the hourly price of each machine type k knows from its
// family's SKUs (gcp_machines.csv): vCPUs x the host core SKU + GiB x the
// host RAM SKU + GPUs x the GPU SKU, per region in serviceRegions and usage
// type (OnDemand = on-demand, Preemptible = spot, Commit1Yr/Commit3Yr =
// reserved). A price is units + nanos / 1e9 of the first tier.
func ReadGCP(file string, in io.Reader, k Known) (*Result, error) {
	data, err := readDocument(file, in, mustPolicy().MaxPriceListFileBytes, "a price-list file (max_price_list_file_bytes)")
	if err != nil {
		return nil, err
	}
	if err := checkFormat(file, FormatGCP, data); err != nil {
		return nil, err
	}
	ps, err := pages[gcpPage](file, data)
	if err != nil {
		return nil, err
	}
	return gcpResult(pageLabels{file: file}, ps, k)
}

// gcpResult composes the machine prices of decoded pages.
func gcpResult(l pageLabels, ps []gcpPage, k Known) (*Result, error) {
	file := l.file
	machines, err := gcpMachines()
	if err != nil {
		return nil, err
	}
	res := &Result{File: file, Format: FormatGCP, Cloud: "gcp"}
	sk, err := readGCPRates(l, ps)
	if err != nil {
		return nil, err
	}
	notes := sk.notes
	regions := map[string]bool{}
	for key := range sk.rates {
		regions[key[strings.LastIndexByte(key, '|')+1:]] = true
	}
	usedGPU := map[string]bool{}
	for _, it := range k.InstanceTypes(res.Cloud) {
		mach, ok := machineOf(machines, it)
		if !ok {
			continue // TPUs and families without a row: their prices are not composed here
		}
		usedGPU[strings.ToLower(mach.gpu)] = true
		tmpl := k.OffersOf(res.Cloud, it)[0]
		for _, region := range sortedKeys(regions) {
			p := Price{Cloud: res.Cloud, InstanceType: it, Region: region}
			get := func(usage string) float64 {
				return composeGCP(sk.rates, mach, usage, region, float64(tmpl.VCPUs), tmpl.MemoryGB, tmpl.GPUCount(), notes)
			}
			p.OnDemandUSD = get(gcpOnDemand)
			if p.OnDemandUSD <= 0 {
				continue
			}
			p.SpotUSD = belowOnDemand(get(gcpPreemptible), p.OnDemandUSD, &p, "spot", notes)
			p.Reserved1YUSD = belowOnDemand(get(gcpCommit1Y), p.OnDemandUSD, &p, "reserved_1y", notes)
			p.Reserved3YUSD = belowOnDemand(get(gcpCommit3Y), p.OnDemandUSD, &p, "reserved_3y", notes)
			res.Prices = append(res.Prices, p)
		}
	}
	unknown := map[string]bool{}
	for g := range sk.gpuNames {
		if !usedGPU[strings.ToLower(g)] {
			unknown[g] = true
		}
	}
	sortPrices(res.Prices)
	res.Unknown, res.Notes, res.Date = sortedKeys(unknown), sortedKeys(notes), sk.latest
	res.Source = fmt.Sprintf("Google Cloud Billing Catalog SKUs %s (latest effectiveTime %s): machine price = vCPUs x host core SKU + GiB x host RAM SKU + GPUs x GPU SKU; OnDemand = on-demand, Preemptible = spot, Commit1Yr/Commit3Yr = reserved", file, sk.latest)
	return res, nil
}

// gcpSKURates are the rates read from the SKU pages: by
// "resource|usage type|region", the GPU resources seen, the latest
// effective date.
type gcpSKURates struct {
	rates    map[string]gcpRate
	gpuNames map[string]bool
	latest   string
	notes    map[string]bool
}

// readGCPRates reads the first tier of every priced SKU, in USD.
func readGCPRates(l pageLabels, ps []gcpPage) (gcpSKURates, error) {
	sk := gcpSKURates{rates: map[string]gcpRate{}, gpuNames: map[string]bool{}, notes: map[string]bool{}}
	for pi, p := range ps {
		for si := range p.SKUs {
			s := &p.SKUs[si]
			if s.SKUID == "" || s.Description == "" || s.Category.UsageType == "" {
				return sk, &FileError{File: l.of(pi), Msg: fmt.Sprintf("SKU %d: without skuId, description or category.usageType: has the API's format changed?", si)}
			}
			m := gcpResource.FindStringSubmatch(s.Description)
			if m == nil || len(s.PricingInfo) == 0 {
				continue
			}
			resource := m[1]
			if s.Category.ResourceGroup == gcpGPUGroup {
				sk.gpuNames[resource] = true
			}
			info := s.PricingInfo[len(s.PricingInfo)-1]
			if len(info.PricingExpression.TieredRates) == 0 {
				continue
			}
			usd, err := gcpUnitPrice(l.of(pi), s.SKUID, info.PricingExpression.TieredRates[0].UnitPrice)
			if errors.Is(err, errNegativeMoney) {
				sk.notes[fmt.Sprintf("SKU %s (%s): a negative or malformed price; skipped", s.SKUID, resource)] = true
				continue
			}
			if err != nil {
				return sk, err
			}
			for _, region := range s.ServiceRegions {
				sk.rates[rateKey(resource, s.Category.UsageType, region)] = gcpRate{usd, info.PricingExpression.UsageUnit}
			}
			if d := dateOf(info.EffectiveTime); d > sk.latest {
				sk.latest = d
			}
		}
	}
	return sk, nil
}

// rateKey indexes a SKU's rate by resource (in any case: Google writes
// "Nvidia L4 GPU" and "NVIDIA L4 GPU"), usage type and region.
func rateKey(resource, usage, region string) string {
	return strings.ToLower(resource) + "|" + usage + "|" + region
}

// composeGCP prices one machine for one usage type in one region; 0 when a
// component SKU is missing.
func composeGCP(rates map[string]gcpRate, m gcpMachine, usage, region string, vcpus, memGiB, gpus float64, notes map[string]bool) float64 {
	find := func(unit string, names ...string) (float64, bool) {
		for _, n := range names {
			if r, ok := rates[rateKey(n, usage, region)]; ok {
				if r.unit != unit {
					notes[fmt.Sprintf("SKU %q in %s: unit %q, want %q; not used", n, region, r.unit, unit)] = true
					return 0, false
				}
				return r.usd, true
			}
		}
		return 0, false
	}
	core, ok1 := find(gcpHour, m.host+" Instance Core", m.host+" Cpu")
	ram, ok2 := find(gcpGiBHour, m.host+" Instance Ram", m.host+" Ram")
	gpu, ok3 := find(gcpHour, m.gpu)
	if !ok1 || !ok2 || !ok3 {
		return 0
	}
	return vcpus*core + memGiB*ram + gpus*gpu
}

// machineOf returns the family row of a machine type.
func machineOf(ms []gcpMachine, it string) (gcpMachine, bool) {
	for _, m := range ms {
		if strings.HasPrefix(it, m.prefix) {
			return m, true
		}
	}
	return gcpMachine{}, false
}

// gcpMachines parses the embedded family table.
func gcpMachines() ([]gcpMachine, error) {
	rows, err := csv.NewReader(bytes.NewReader(gcpMachinesCSV)).ReadAll()
	if err != nil || len(rows) < 2 {
		return nil, fmt.Errorf("pricelist: gcp_machines.csv: %v", err)
	}
	var out []gcpMachine
	for _, r := range rows[1:] {
		out = append(out, gcpMachine{r[0], r[1], r[2]})
	}
	// Longer prefixes first, so the most specific family wins.
	sort.SliceStable(out, func(i, j int) bool { return len(out[i].prefix) > len(out[j].prefix) })
	return out, nil
}
