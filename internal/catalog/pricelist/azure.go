// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package pricelist

import (
	"fmt"
	"io"
	"strings"
)

// Field values of the Azure Retail Prices API (learn.microsoft.com,
// "Azure Retail Prices overview").
const (
	azureVMService      = "Virtual Machines"
	azureConsumption    = "Consumption"
	azureReservation    = "Reservation"
	azureUSD            = "USD"
	azureHour           = "1 Hour"
	azureSpotSuffix     = " Spot"
	azureLowPriority    = "Low Priority"
	azureWindows        = "Windows"
	azureGPUSKUPrefix   = "Standard_N" // the N-series: GPU VMs, reported when unknown
	azureOneYearTerm    = "1 Year"
	azureThreeYearsTerm = "3 Years"
)

type azurePage struct {
	Items        []azureItem `json:"Items"`
	NextPageLink *string     `json:"NextPageLink"`
}

type azureItem struct {
	CurrencyCode       string   `json:"currencyCode"`
	UnitPrice          *float64 `json:"unitPrice"`
	ArmRegionName      string   `json:"armRegionName"`
	ArmSkuName         string   `json:"armSkuName"`
	SkuName            string   `json:"skuName"`
	MeterName          string   `json:"meterName"`
	ProductName        string   `json:"productName"`
	ServiceName        string   `json:"serviceName"`
	Type               string   `json:"type"`
	ReservationTerm    string   `json:"reservationTerm"`
	UnitOfMeasure      string   `json:"unitOfMeasure"`
	EffectiveStartDate string   `json:"effectiveStartDate"`
	// SavingsPlan lists the savings-plan rates of a Consumption item
	// (api-version 2023-01-01-preview): hourly, per term.
	SavingsPlan []azureSavingsPlan `json:"savingsPlan"`
}

// azureSavingsPlan is one term of an item's savings plan for compute.
type azureSavingsPlan struct {
	UnitPrice *float64 `json:"unitPrice"`
	Term      string   `json:"term"`
}

// ReadAzure reads Azure Retail Prices API responses — one page (an object
// with Items) or a JSON array of pages, at most max_price_list_file_bytes
// (refresh.json) — for the Linux prices of the VM SKUs k knows: type
// Consumption is on-demand, or spot when skuName ends in "Spot"; the
// on-demand item's savingsPlan rates ("1 Year", "3 Years", hourly) are
// reserved_1y/reserved_3y, the catalog's definition of Azure reserved
// prices (the savings plan for compute). Reservation items (Reserved VM
// Instances), Windows and Low Priority meters and DevTestConsumption are
// ignored. Prices must be USD.
func ReadAzure(file string, in io.Reader, k Known) (*Result, error) {
	data, err := readDocument(file, in, mustPolicy().MaxPriceListFileBytes, "a price-list file (max_price_list_file_bytes)")
	if err != nil {
		return nil, err
	}
	if err := checkFormat(file, FormatAzure, data); err != nil {
		return nil, err
	}
	ps, err := pages[azurePage](file, data)
	if err != nil {
		return nil, err
	}
	return azureResult(pageLabels{file: file}, ps, k)
}

// azureResult reads the prices of decoded pages.
func azureResult(l pageLabels, ps []azurePage, k Known) (*Result, error) {
	file := l.file
	res := &Result{File: file, Format: FormatAzure, Cloud: "azure"}
	prices := map[[2]string]*Price{}
	unknown, notes := map[string]bool{}, map[string]bool{}
	latest := ""
	for pi, p := range ps {
		for ii := range p.Items {
			it := &p.Items[ii]
			if it.ServiceName != azureVMService {
				continue
			}
			if err := azureItemCheck(l.of(pi), ii, it); err != nil {
				return nil, err
			}
			if !known(k, res.Cloud, it.ArmSkuName) {
				if strings.HasPrefix(it.ArmSkuName, azureGPUSKUPrefix) {
					unknown[it.ArmSkuName] = true
				}
				continue
			}
			if strings.Contains(it.ProductName, azureWindows) || strings.Contains(it.SkuName, azureLowPriority) ||
				strings.Contains(it.MeterName, azureLowPriority) {
				continue
			}
			key := [2]string{it.ArmSkuName, it.ArmRegionName}
			pr := prices[key]
			if pr == nil {
				pr = &Price{Cloud: res.Cloud, InstanceType: it.ArmSkuName, Region: it.ArmRegionName}
			}
			if !azureItemPrice(pr, it, notes) {
				continue
			}
			prices[key] = pr
			if d := dateOf(it.EffectiveStartDate); d > latest {
				latest = d
			}
		}
	}
	for _, p := range prices {
		if p.OnDemandUSD <= 0 {
			notes[fmt.Sprintf("%s in %s: no Linux on-demand price in the file; left out", p.InstanceType, p.Region)] = true
			continue
		}
		p.SpotUSD = belowOnDemand(p.SpotUSD, p.OnDemandUSD, p, "spot", notes)
		p.Reserved1YUSD = belowOnDemand(p.Reserved1YUSD, p.OnDemandUSD, p, "reserved_1y", notes)
		p.Reserved3YUSD = belowOnDemand(p.Reserved3YUSD, p.OnDemandUSD, p, "reserved_3y", notes)
		res.Prices = append(res.Prices, *p)
	}
	sortPrices(res.Prices)
	res.Unknown, res.Notes, res.Date = sortedKeys(unknown), sortedKeys(notes), latest
	res.Source = fmt.Sprintf("Azure Retail Prices API %s (latest effectiveStartDate %s): Linux Consumption = on-demand, skuName '… Spot' = spot, the on-demand item's savingsPlan '1 Year'/'3 Years' = reserved_1y/3y (savings plan for compute); Reservation items, Windows and Low Priority meters ignored", file, latest)
	return res, nil
}

// azureItemCheck rejects a Virtual Machines item without the fields the
// reader relies on (the API's format changed) or priced in another
// currency.
func azureItemCheck(page string, item int, it *azureItem) error {
	var missing []string
	for _, f := range []struct {
		name string
		ok   bool
	}{{"armSkuName", it.ArmSkuName != ""}, {"armRegionName", it.ArmRegionName != ""}, {"type", it.Type != ""},
		{"unitPrice", it.UnitPrice != nil}, {"currencyCode", it.CurrencyCode != ""}} {
		if !f.ok {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return &FileError{File: page, Msg: fmt.Sprintf("item %d: a Virtual Machines price without %s: has the API's format changed?",
			item, strings.Join(missing, ", "))}
	}
	if it.CurrencyCode != azureUSD {
		return &FileError{File: page, Msg: fmt.Sprintf("item %d (%s): prices in %s; download with currencyCode='USD'", item, clipText(it.ArmSkuName), clipText(it.CurrencyCode))}
	}
	return nil
}

// azureItemPrice sets the price an item carries; false when the item is
// not one of the prices read.
func azureItemPrice(p *Price, it *azureItem, notes map[string]bool) bool {
	if v := *it.UnitPrice; v <= 0 && (it.Type == azureConsumption || it.Type == azureReservation) {
		notes[fmt.Sprintf("%s in %s: %s unitPrice %v is not a positive price; skipped", it.ArmSkuName, it.ArmRegionName, it.Type, v)] = true
		return false
	}
	switch it.Type {
	case azureConsumption:
		if it.UnitOfMeasure != azureHour {
			notes[fmt.Sprintf("%s in %s: unit %q, not %q; skipped", it.ArmSkuName, it.ArmRegionName, it.UnitOfMeasure, azureHour)] = true
			return false
		}
		if strings.HasSuffix(it.SkuName, azureSpotSuffix) {
			p.SpotUSD = *it.UnitPrice
			return true
		}
		p.OnDemandUSD = *it.UnitPrice
		azureSavingsPlans(p, it, notes)
	case azureReservation:
		notes[fmt.Sprintf("%s in %s: Reserved VM Instance (%s) skipped: the catalog's Azure reserved prices are the savings plan for compute",
			it.ArmSkuName, it.ArmRegionName, it.ReservationTerm)] = true
		return false
	default:
		return false // DevTestConsumption and others
	}
	return true
}

// azureSavingsPlans sets reserved_1y/reserved_3y from an on-demand item's
// savings-plan rates (hourly); another term or a non-positive rate is
// noted and skipped.
func azureSavingsPlans(p *Price, it *azureItem, notes map[string]bool) {
	for _, sp := range it.SavingsPlan {
		if sp.UnitPrice == nil || *sp.UnitPrice <= 0 {
			notes[fmt.Sprintf("%s in %s: savings plan %q without a positive unitPrice; skipped", it.ArmSkuName, it.ArmRegionName, sp.Term)] = true
			continue
		}
		switch sp.Term {
		case azureOneYearTerm:
			p.Reserved1YUSD = *sp.UnitPrice
		case azureThreeYearsTerm:
			p.Reserved3YUSD = *sp.UnitPrice
		default:
			notes[fmt.Sprintf("%s in %s: savings plan term %q; skipped", it.ArmSkuName, it.ArmRegionName, sp.Term)] = true
		}
	}
}
