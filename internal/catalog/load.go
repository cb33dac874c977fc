// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package catalog

//go:generate go run ./internal/gencatalog

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Names of the catalog files inside a catalog file system (see data/README.md).
const (
	FileMeta         = "catalog.json"
	FileAccelerators = "accelerators.json"
	FileClouds       = "clouds.json"
	FileRegions      = "regions.csv"
	FileOffers       = "offers.csv"
	// FileServerless is optional: a catalog without it has no serverless
	// offers.
	FileServerless = "serverless.csv"
)

// dateLayout is the layout of catalog_date.
const dateLayout = "2006-01-02"

// ExchangeRate is a dated currency conversion used for non-USD sources.
type ExchangeRate struct {
	Currency    string  `json:"currency"`
	UnitsPerUSD float64 `json:"units_per_usd"`
	Date        string  `json:"date"`
	Source      string  `json:"source"`
}

// meta is catalog.json.
type meta struct {
	CatalogDate       string            `json:"catalog_date"`
	CatalogDateSource string            `json:"catalog_date_source"`
	ExchangeRates     []ExchangeRate    `json:"exchange_rates"`
	OfferSources      map[string]string `json:"offer_sources"`
}

var (
	builtinOnce sync.Once
	builtinCat  *Catalog
	builtinErr  error
)

// Builtin returns the embedded catalog, parsed, validated and indexed on
// first use. The returned Catalog is shared: callers must not modify it
// (overlays return a copy).
func Builtin() (*Catalog, error) {
	builtinOnce.Do(func() {
		sub, err := fs.Sub(dataFS, "data")
		if err != nil {
			builtinErr = err
			return
		}
		builtinCat, builtinErr = Load(sub)
		if builtinErr != nil {
			builtinErr = fmt.Errorf("built-in catalog: %w", builtinErr)
		}
	})
	return builtinCat, builtinErr
}

// BuiltinDate returns the snapshot date of the embedded catalog by reading
// only its metadata file. It is cheap, for callers such as the provider's
// schema that need the date on every plugin start but not the offers.
func BuiltinDate() (time.Time, error) {
	sub, err := fs.Sub(dataFS, "data")
	if err != nil {
		return time.Time{}, err
	}
	var m meta
	if err := readJSONFile(sub, FileMeta, &m); err != nil {
		return time.Time{}, err
	}
	d, err := time.Parse(time.DateOnly, m.CatalogDate)
	if err != nil {
		return time.Time{}, fmt.Errorf("%s: catalog_date %q: %w", FileMeta, m.CatalogDate, err)
	}
	return d, nil
}

// Load parses, validates and indexes a catalog from the files FileMeta,
// FileAccelerators, FileClouds, FileRegions and FileOffers at the root of
// fsys. Errors name the file, line and entry.
func Load(fsys fs.FS) (*Catalog, error) {
	if _, err := InputLimits(); err != nil {
		return nil, err
	}
	c := &Catalog{}
	var m meta
	if err := readJSONFile(fsys, FileMeta, &m); err != nil {
		return nil, err
	}
	d, err := time.Parse(dateLayout, m.CatalogDate)
	if err != nil {
		return nil, fmt.Errorf("%s: catalog_date %q: want YYYY-MM-DD", FileMeta, m.CatalogDate)
	}
	c.Date = d
	c.ExchangeRates = m.ExchangeRates
	var accs struct {
		Accelerators []*Accelerator `json:"accelerators"`
	}
	if err := readJSONFile(fsys, FileAccelerators, &accs); err != nil {
		return nil, err
	}
	c.Accelerators = accs.Accelerators
	var cls struct {
		Clouds []*Cloud `json:"clouds"`
	}
	if err := readJSONFile(fsys, FileClouds, &cls); err != nil {
		return nil, err
	}
	c.Clouds = cls.Clouds
	for i, a := range c.Accelerators {
		if err := ValidateAccelerator(a); err != nil {
			return nil, fmt.Errorf("%s: accelerators[%d] (%s): %w", FileAccelerators, i, a.ID, err)
		}
	}
	for i, cl := range c.Clouds {
		if err := ValidateCloud(cl); err != nil {
			return nil, fmt.Errorf("%s: clouds[%d] (%s): %w", FileClouds, i, cl.ID, err)
		}
	}
	if err := c.CheckUnique(); err != nil {
		return nil, err
	}
	c.index()
	if c.Regions, err = readRegions(fsys, c); err != nil {
		return nil, err
	}
	c.index()
	if c.Offers, err = readOffers(fsys, c, m.OfferSources); err != nil {
		return nil, err
	}
	if c.Serverless, err = readServerless(fsys, c, m.OfferSources); err != nil {
		return nil, err
	}
	c.index()
	return c, nil
}

func readJSONFile(fsys fs.FS, name string, v any) error {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return fmt.Errorf("read %s: %w", name, err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// csvRows reads a CSV file and checks its header; fn gets each record, in
// header order, and its 1-based line number. Columns named in optional may
// be absent from the file (catalog files written before they existed): fn
// then sees them empty. onHeader, when not nil, is told first which columns
// of header the file has.
func csvRows(fsys fs.FS, name string, header []string, optional []string, onHeader func(present []bool) error,
	fn func(line int, rec []string) error) error {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return fmt.Errorf("read %s: %w", name, err)
	}
	r := csv.NewReader(bytes.NewReader(b))
	r.ReuseRecord = true
	h, err := r.Read()
	if err != nil {
		return fmt.Errorf("%s: header: %w", name, err)
	}
	pos, err := columnPositions(h, header, optional)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if onHeader != nil {
		present := make([]bool, len(header))
		for i := range present {
			present[i] = pos == nil || pos[i] >= 0
		}
		if err := onHeader(present); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	r.FieldsPerRecord = len(h)
	full := make([]string, len(header))
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		line, _ := r.FieldPos(0)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if pos != nil {
			for i, p := range pos {
				full[i] = ""
				if p >= 0 {
					full[i] = rec[p]
				}
			}
			rec = full
		}
		if err := fn(line, rec); err != nil {
			return fmt.Errorf("%s line %d: %w", name, line, err)
		}
	}
}

// columnPositions maps each column of header to its position in the file
// header got (-1 for an absent optional column); nil when got is header.
// The file must have the columns of header in the same order, optional ones
// possibly left out.
func columnPositions(got, header, optional []string) ([]int, error) {
	if slices.Equal(got, header) {
		return nil, nil
	}
	bad := fmt.Errorf("header %q, want %q", strings.Join(got, ","), strings.Join(header, ","))
	pos := make([]int, len(header))
	j := 0
	for i, col := range header {
		switch {
		case j < len(got) && got[j] == col:
			pos[i] = j
			j++
		case slices.Contains(optional, col):
			pos[i] = -1
		default:
			return nil, bad
		}
	}
	if j != len(got) {
		return nil, bad
	}
	return pos, nil
}

// fieldErr collects the first parse error of a record.
type fieldParser struct {
	rec []string
	hdr []string
	err error
}

func (p *fieldParser) float(i int) float64 {
	s := p.rec[i]
	if s == "" || p.err != nil {
		return 0
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		p.err = fmt.Errorf("field %q: not a number: %q", p.hdr[i], s)
	}
	return v
}

func (p *fieldParser) bool(i int) bool {
	switch p.rec[i] {
	case "true":
		return true
	case "false", "":
		return false
	}
	if p.err == nil {
		p.err = fmt.Errorf("field %q: want true or false, got %q", p.hdr[i], p.rec[i])
	}
	return false
}

func (p *fieldParser) int(i int) int {
	s := p.rec[i]
	if s == "" || p.err != nil {
		return 0
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		p.err = fmt.Errorf("field %q: not an integer: %q", p.hdr[i], s)
	}
	return v
}

// RegionHeader is the header of FileRegions.
var RegionHeader = []string{"cloud", "region", "city", "country", "geography", "partition", "compliance", "grid_gco2e_per_kwh", "grid_year", "pue", "source"}

func readRegions(fsys fs.FS, c *Catalog) ([]*Region, error) {
	var out []*Region
	err := csvRows(fsys, FileRegions, RegionHeader, nil, nil, func(_ int, rec []string) error {
		p := fieldParser{rec: rec, hdr: RegionHeader}
		r := &Region{Cloud: rec[0], ID: rec[1], City: rec[2], Country: rec[3], Geography: rec[4], Partition: Partition(rec[5]),
			GridGCO2ePerKWh: p.float(7), GridYear: p.int(8), PUE: p.float(9), Source: rec[10]}
		if rec[6] != "" {
			r.Compliance = strings.Split(rec[6], ";")
		} else {
			r.Compliance = []string{}
		}
		if p.err != nil {
			return fmt.Errorf("region %s/%s: %w", r.Cloud, r.ID, p.err)
		}
		if err := c.ValidateRegion(r); err != nil {
			return fmt.Errorf("region %s/%s: %w", r.Cloud, r.ID, err)
		}
		if _, dup := c.regionByID[regionKey(r.Cloud, r.ID)]; dup {
			return fmt.Errorf("region %s/%s: duplicate", r.Cloud, r.ID)
		}
		c.regionByID[regionKey(r.Cloud, r.ID)] = r
		out = append(out, r)
		return nil
	})
	return out, err
}

// Columns of FileOffers, in OfferHeader order.
const (
	ocCloud = iota
	ocRegion
	ocInstanceType
	ocAccelerator
	ocGPUs
	ocGPUFraction
	ocGPUMemoryGB
	ocVCPUs
	ocMemoryGB
	ocNetworkGbps
	ocFabric
	ocOnDemand
	ocSpot
	ocReserved1Y
	ocReserved3Y
	ocCapacityBlock
	ocReservedDerived
	ocOnDemandBasis
	ocOnDemandAsOf
	ocSpotBasis
	ocSpotAsOf
	ocReserved1YBasis
	ocReserved1YAsOf
	ocReserved3YBasis
	ocReserved3YAsOf
	ocCapacityBlockBasis
	ocCapacityBlockAsOf
	ocCurrency
	ocNativeOnDemand
	ocNativeSpot
	ocNativeReserved1Y
	ocNativeReserved3Y
	ocSource
)

// OfferHeader is the header of FileOffers.
var OfferHeader = []string{"cloud", "region", "instance_type", "accelerator", "gpus", "gpu_fraction", "gpu_memory_gb", "vcpus",
	"memory_gb", "network_gbps", "fabric", "on_demand_usd", "spot_usd", "reserved_1y_usd", "reserved_3y_usd", "capacity_block_usd",
	"reserved_derived", "on_demand_basis", "on_demand_as_of", "spot_basis", "spot_as_of", "reserved_1y_basis", "reserved_1y_as_of",
	"reserved_3y_basis", "reserved_3y_as_of", "capacity_block_basis", "capacity_block_as_of",
	"currency", "native_on_demand", "native_spot", "native_reserved_1y", "native_reserved_3y", "source"}

// priceInfoColumns are the <pricing model>_basis and _as_of columns of
// FileOffers, in OfferPricingModels order: a file has all of them or none.
var priceInfoColumns = OfferHeader[ocOnDemandBasis : ocCapacityBlockAsOf+1]

// offerOptional are the columns of FileOffers added after the first
// release; a file without them still loads (whole GPUs, no capacity block;
// price bases and dates as legacyPriceInfos gives them).
var offerOptional = append([]string{"gpu_fraction", "capacity_block_usd"}, priceInfoColumns...)

func readOffers(fsys fs.FS, c *Catalog, sources map[string]string) ([]*Offer, error) {
	out := make([]*Offer, 0, 2048)
	seen := make(map[string]bool, 2048)
	// Intern repeated strings so 2,000 offers share a few hundred strings.
	intern := map[string]string{}
	in := func(s string) string {
		if v, ok := intern[s]; ok {
			return v
		}
		s = strings.Clone(s)
		intern[s] = s
		return s
	}
	var withInfo bool
	onHeader := allOrNone(&withInfo, ocOnDemandBasis, priceInfoColumns)
	err := csvRows(fsys, FileOffers, OfferHeader, offerOptional, onHeader, func(_ int, rec []string) error {
		p := fieldParser{rec: rec, hdr: OfferHeader}
		o := &Offer{Cloud: in(rec[ocCloud]), Region: in(rec[ocRegion]), InstanceType: in(rec[ocInstanceType]),
			Accelerator: in(rec[ocAccelerator]), GPUs: p.int(ocGPUs), GPUFraction: p.float(ocGPUFraction),
			GPUMemoryGB: p.float(ocGPUMemoryGB), VCPUs: p.int(ocVCPUs), MemoryGB: p.float(ocMemoryGB),
			NetworkGbps: p.float(ocNetworkGbps), Fabric: Fabric(in(rec[ocFabric])), OnDemandUSD: p.float(ocOnDemand),
			SpotUSD: p.float(ocSpot), Reserved1YUSD: p.float(ocReserved1Y), Reserved3YUSD: p.float(ocReserved3Y),
			CapacityBlockUSD: p.float(ocCapacityBlock), Currency: in(rec[ocCurrency]),
			NativeOnDemand: p.float(ocNativeOnDemand), NativeSpot: p.float(ocNativeSpot),
			NativeReserved1Y: p.float(ocNativeReserved1Y), NativeReserved3Y: p.float(ocNativeReserved3Y)}
		switch rec[ocReservedDerived] {
		case "true":
			o.ReservedDerived = true
		case "false", "":
		default:
			p.err = fmt.Errorf("field %q: want true or false, got %q", "reserved_derived", rec[ocReservedDerived])
		}
		if withInfo {
			p.priceInfos(o, ocOnDemandBasis)
		} else {
			legacyPriceInfos(o, c.Date)
		}
		key := o.Cloud + "/" + o.InstanceType + "/" + o.Region
		if p.err != nil {
			return fmt.Errorf("offer %s: %w", key, p.err)
		}
		if s, ok := sources[rec[ocSource]]; ok {
			o.Source = s
		} else {
			o.Source = in(rec[ocSource])
		}
		if err := c.ValidateOffer(o); err != nil {
			return fmt.Errorf("offer %s: %w", key, err)
		}
		if seen[key] {
			return fmt.Errorf("offer %s: duplicate offer", key)
		}
		seen[key] = true
		out = append(out, o)
		return nil
	})
	return out, err
}

// ServerlessHeader is the header of FileServerless.
var ServerlessHeader = []string{"cloud", "region", "name", "product", "accelerator", "gpus", "gpu_memory_gb", "usd_per_gpu_second",
	"billing_increment_seconds", "min_billed_seconds", "idle_billed_seconds", "cold_start_seconds", "cold_start_billed",
	"always_on", "cpu_usd_per_core_second", "memory_usd_per_gib_second", "min_cpu_cores", "min_memory_gib", "confidence",
	"price_basis", "price_as_of", "source"}

// serverlessOptional are the columns of FileServerless added after the
// first release (legacy files: published, as of catalog_date).
var serverlessOptional = []string{"price_basis", "price_as_of"}

// Columns of FileServerless, in ServerlessHeader order.
const (
	scCloud = iota
	scRegion
	scName
	scProduct
	scAccelerator
	scGPUs
	scGPUMemoryGB
	scUSDPerGPUSecond
	scIncrement
	scMinBilled
	scIdleBilled
	scColdStart
	scColdStartBilled
	scAlwaysOn
	scCPURate
	scMemoryRate
	scMinCPU
	scMinMemory
	scConfidence
	scPriceBasis
	scPriceAsOf
	scSource
)

func readServerless(fsys fs.FS, c *Catalog, sources map[string]string) ([]*ServerlessOffer, error) {
	if _, err := fs.Stat(fsys, FileServerless); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	var out []*ServerlessOffer
	seen := map[string]bool{}
	var withInfo bool
	onHeader := allOrNone(&withInfo, scPriceBasis, serverlessOptional)
	err := csvRows(fsys, FileServerless, ServerlessHeader, serverlessOptional, onHeader, func(_ int, rec []string) error {
		p := fieldParser{rec: rec, hdr: ServerlessHeader}
		s := &ServerlessOffer{Cloud: rec[scCloud], Region: rec[scRegion], Name: rec[scName], Product: rec[scProduct],
			Accelerator: rec[scAccelerator], GPUs: p.int(scGPUs), GPUMemoryGB: p.float(scGPUMemoryGB),
			USDPerGPUSecond: p.float(scUSDPerGPUSecond), BillingIncrementSeconds: p.float(scIncrement),
			MinBilledSeconds: p.float(scMinBilled), IdleBilledSeconds: p.float(scIdleBilled), ColdStartSeconds: p.float(scColdStart),
			ColdStartBilled: p.bool(scColdStartBilled), AlwaysOn: p.bool(scAlwaysOn), CPUUSDPerCoreSecond: p.float(scCPURate),
			MemoryUSDPerGiBSecond: p.float(scMemoryRate), MinCPUCores: p.float(scMinCPU), MinMemoryGiB: p.float(scMinMemory),
			Confidence: rec[scConfidence], Source: rec[scSource]}
		s.PriceInfo = PriceInfo{Basis: PricePublished, AsOf: c.Date}
		if withInfo {
			s.PriceInfo = p.priceInfo(scPriceBasis, true)
		}
		key := s.Cloud + "/" + s.Name + "/" + s.Region
		if p.err != nil {
			return fmt.Errorf("serverless offer %s: %w", key, p.err)
		}
		if text, ok := sources[s.Source]; ok {
			s.Source = text
		}
		if err := c.validateServerless(s); err != nil {
			return fmt.Errorf("serverless offer %s: %w", key, err)
		}
		if seen[key] {
			return fmt.Errorf("serverless offer %s: duplicate", key)
		}
		seen[key] = true
		out = append(out, s)
		return nil
	})
	return out, err
}
