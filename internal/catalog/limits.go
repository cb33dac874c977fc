// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package catalog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
)

// fileInputLimits is the data file of the bounds on user-given numbers.
const fileInputLimits = "input_limits.json"

// Names of the input limits in data/input_limits.json. The provider's
// schema validators, the overlay validator and the cost package use the
// same limits through InputLimit.
const (
	LimitInstancePriceUSDPerHour = "instance_price_usd_per_hour"
	LimitGPUsPerInstance         = "gpus_per_instance"
	LimitAcceleratorMemoryGB     = "accelerator_memory_gb"
	LimitMemoryBandwidthTBps     = "memory_bandwidth_tbps"
	LimitPeakTFLOPS              = "peak_tflops"
	LimitTDPWatts                = "tdp_watts"
	LimitInterconnectGBps        = "interconnect_gbytes_per_second"
	LimitHostVCPUs               = "host_vcpus"
	LimitHostMemoryGB            = "host_memory_gb"
	LimitNetworkGbps             = "network_gbps"
	LimitPUE                     = "pue"
	LimitGridGCO2ePerKWh         = "grid_gco2e_per_kwh"
	LimitGridYear                = "grid_year"
	LimitTransferUSDPerGB        = "transfer_usd_per_gb"
	LimitStorageUSDPerGBMonth    = "storage_usd_per_gb_month"
	LimitDataGB                  = "data_gb"
	LimitDiscountFraction        = "discount_fraction"
	LimitSpotInterruptionsPerDay = "spot_interruptions_per_day"
	LimitSpotNoticeSeconds       = "spot_notice_seconds"
	LimitSpotMaxRuntimeHours     = "spot_max_runtime_hours"
	LimitModelParametersB        = "model_parameters_b"
	LimitTrainingTokensB         = "training_tokens_b"
	LimitSequenceTokens          = "sequence_tokens"
	LimitModelLayers             = "model_layers"
	LimitModelHiddenSize         = "model_hidden_size"
	LimitModelKVHeads            = "model_kv_heads"
	LimitTokensPerSecond         = "tokens_per_second"
	LimitGlobalBatchTokens       = "global_batch_tokens"
	LimitConcurrency             = "concurrency"
	LimitParallelDegree          = "parallel_degree"
	LimitLatencyMs               = "latency_ms"
	LimitGPUCount                = "gpu_count"
	LimitNodeCount               = "node_count"
	LimitMonths                  = "months"
	LimitHours                   = "hours"
	LimitFraction                = "fraction"
	LimitDutyCycle               = "duty_cycle"
	LimitHourlyCostUSD           = "hourly_cost_usd"
	LimitTotalCostUSD            = "total_cost_usd"
	LimitMonthlyCostUSD          = "monthly_cost_usd"
	LimitCarbonPriceUSDPerTonne  = "carbon_price_usd_per_tonne"
	LimitCO2eKg                  = "co2e_kg"
	LimitCatalogAgeDays          = "catalog_age_days"
	LimitCatalogFileDefinitions  = "catalog_file_definitions"
)

// Limit is the allowed range of one kind of user-given number, with the
// reason it was chosen. Min and Max are inclusive unless MinExclusive or
// MaxExclusive is set; Integer requires a whole number.
type Limit struct {
	Name         string   `json:"-"`
	Min          float64  `json:"min"`
	Max          float64  `json:"max"`
	MinExclusive bool     `json:"min_exclusive"`
	MaxExclusive bool     `json:"max_exclusive"`
	Integer      bool     `json:"integer"`
	Unit         string   `json:"unit"`
	AppliesTo    []string `json:"applies_to"`
	Reason       string   `json:"reason"`
}

var (
	limitsOnce sync.Once
	limitsMap  map[string]Limit
	limitsErr  error
)

// InputLimits returns every input limit by name, read once from the
// embedded data/input_limits.json. The map is shared: do not modify it.
func InputLimits() (map[string]Limit, error) {
	limitsOnce.Do(func() {
		raw, err := ReadDataFile(fileInputLimits)
		if err != nil {
			limitsErr = fmt.Errorf("read %s: %w", fileInputLimits, err)
			return
		}
		limitsMap, limitsErr = parseLimits(raw)
	})
	return limitsMap, limitsErr
}

func parseLimits(raw []byte) (map[string]Limit, error) {
	var f struct {
		Description string           `json:"description"`
		Limits      map[string]Limit `json:"limits"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%s: %w", fileInputLimits, err)
	}
	for name, l := range f.Limits {
		switch {
		case l.Reason == "":
			return nil, fmt.Errorf("%s: %s: missing reason", fileInputLimits, name)
		case !(l.Min <= l.Max) || math.IsInf(l.Max, 0) || math.IsInf(l.Min, 0):
			return nil, fmt.Errorf("%s: %s: min %v must not exceed max %v, both finite", fileInputLimits, name, l.Min, l.Max)
		}
		l.Name = name
		f.Limits[name] = l
	}
	return f.Limits, nil
}

// InputLimit returns the limit of the given name (one of the Limit*
// constants) and whether it exists.
func InputLimit(name string) (Limit, bool) {
	m, err := InputLimits()
	if err != nil {
		return Limit{}, false
	}
	l, ok := m[name]
	return l, ok
}

// limit returns the named limit for the validators of this package. A
// missing name (a programming error caught by the tests) yields a limit
// that refuses every value with a message naming it, never a panic or a
// silent pass.
func limit(name string) Limit {
	if l, ok := InputLimit(name); ok {
		return l
	}
	return Limit{Name: name, Min: math.NaN(), Max: math.NaN()}
}

// Allows reports whether v is within the limit.
func (l Limit) Allows(v float64) bool {
	if math.IsNaN(v) || math.IsInf(v, 0) || math.IsNaN(l.Min) {
		return false
	}
	if v < l.Min || (l.MinExclusive && v == l.Min) || v > l.Max || (l.MaxExclusive && v == l.Max) {
		return false
	}
	return !l.Integer || v == math.Trunc(v)
}

// Check returns nil when v is within the limit, else an error stating what
// is allowed and the value in plain notation, for example
// "must be from 0.0001 to 1,000,000 USD/h, got 1 × 10^308". Callers prefix
// the field name.
func (l Limit) Check(v float64) error {
	return l.check(v, false)
}

// check is Check; orZero also admits 0 and says so.
func (l Limit) check(v float64, orZero bool) error {
	if l.Allows(v) || (orZero && v == 0) {
		return nil
	}
	if math.IsNaN(l.Min) {
		return fmt.Errorf("has no input limit %q (a provider bug, please report it), got %s", l.Name, FormatNumber(v))
	}
	what := "must be"
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		what = "must be a finite number"
	case l.Integer:
		what = "must be a whole number"
	}
	if orZero {
		what = strings.Replace(what, "must be", "must be 0 or", 1)
	}
	return fmt.Errorf("%s %s, got %s", what, l.Range(), FormatNumber(v))
}

// Range describes the allowed values in words: "from 1 to 65,536 GPUs",
// "at least 0 and less than 1", "more than 0 and at most 1,200 months".
func (l Limit) Range() string {
	unit := ""
	if l.Unit != "" {
		unit = " " + l.Unit
	}
	lo, hi := FormatNumber(l.Min), FormatNumber(l.Max)
	switch {
	case !l.MinExclusive && !l.MaxExclusive:
		return fmt.Sprintf("from %s to %s%s", lo, hi, unit)
	case l.MinExclusive && !l.MaxExclusive:
		return fmt.Sprintf("more than %s and at most %s%s", lo, hi, unit)
	case !l.MinExclusive && l.MaxExclusive:
		return fmt.Sprintf("at least %s and less than %s%s", lo, hi, unit)
	}
	return fmt.Sprintf("more than %s and less than %s%s", lo, hi, unit)
}

// FormatNumber renders a number for a message in plain notation: digits
// between 0.0001 and 10^15, with thousands separators from five digits on
// ("1,000,000", "86,400", "2024", "0.0025"), a short power of ten beyond ("1 × 10^308", "5 × 10^-324"),
// "infinity", "-infinity" or "NaN". Never "1e+308" and never hundreds of
// digits.
func FormatNumber(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "infinity"
	case math.IsInf(v, -1):
		return "-infinity"
	case v == 0:
		return "0"
	}
	a := math.Abs(v)
	if a < 1e-4 || a >= 1e15 {
		s := strconv.FormatFloat(v, 'e', 3, 64) // -1.235e+308
		mant, exp, _ := strings.Cut(s, "e")
		if strings.Contains(mant, ".") {
			mant = strings.TrimRight(strings.TrimRight(mant, "0"), ".")
		}
		e, _ := strconv.Atoi(exp)
		return fmt.Sprintf("%s × 10^%d", mant, e)
	}
	s := strconv.FormatFloat(v, 'f', -1, 64)
	sign := ""
	if s[0] == '-' {
		sign, s = "-", s[1:]
	}
	intPart, frac, hasFrac := strings.Cut(s, ".")
	var b strings.Builder
	b.WriteString(sign)
	for i, r := range intPart {
		if len(intPart) > 4 && i > 0 && (len(intPart)-i)%3 == 0 { // 1990, 8760, 86,400
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if hasFrac {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	return b.String()
}
