// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package catalog

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// FieldError is a problem with one field of a catalog entry. Field is the
// path inside the entry ("on_demand_usd", "spot.notice_seconds",
// "egress_tiers[1].usd_per_gb", "peak_tflops.fp8"); "" for the entry.
type FieldError struct {
	Field string
	Msg   string
}

func (e *FieldError) Error() string {
	if e.Field == "" {
		return e.Msg
	}
	return fmt.Sprintf("field %q: %s", e.Field, e.Msg)
}

// FieldErrors is every problem found in one entry: the error of the
// validators, listing every problem at once.
type FieldErrors []*FieldError

func (es FieldErrors) Error() string {
	s := make([]string, len(es))
	for i, e := range es {
		s[i] = e.Error()
	}
	return strings.Join(s, "; ")
}

// problems collects the FieldErrors of one entry.
type problems FieldErrors

func (p *problems) add(field, format string, args ...any) {
	*p = append(*p, &FieldError{Field: field, Msg: fmt.Sprintf(format, args...)})
}

// bound checks v against the limit of a field (fieldLimits) and reports
// whether it is allowed.
func (p *problems) bound(section, field string, v float64) bool {
	if err := CheckField(section, field, v); err != nil {
		p.add(field, "%v", err)
		return false
	}
	return true
}

// names checks the text fields of an entry that show in plan output
// (IDs, names, aliases, sources) with NameProblem, in the order given as
// field, value pairs.
func (p *problems) names(fieldValues ...string) {
	for i := 0; i+1 < len(fieldValues); i += 2 {
		if problem := NameProblem(fieldValues[i+1]); problem != "" {
			p.add(fieldValues[i], "%s", problem)
		}
	}
}

// spelled reports a name that refers to a catalog entry in another case
// than the catalog's: names match in any case (NameKey), so two spellings
// would be one entry written two ways.
func (p *problems) spelled(field, got, catalogs string) {
	if got != catalogs {
		p.add(field, "%q is written %q in the catalog: names match in any case, so write it as the catalog does", got, catalogs)
	}
}

func (p problems) err() error {
	if len(p) == 0 {
		return nil
	}
	return FieldErrors(p)
}

// Sections of a catalog file, the first part of a fieldLimits key.
const (
	sectionClouds       = "clouds"
	sectionRegions      = "regions"
	sectionAccelerators = "accelerators"
	sectionOffers       = "offers"
	sectionDiscounts    = "discounts"
)

// fieldLimit ties a numeric field of a catalog entry to its input limit.
// zeroOK admits 0 ("unknown", "not sold", "the cloud's") besides the range.
type fieldLimit struct {
	limit  string
	zeroOK bool
}

// fieldLimits maps "section.field" (list indices removed, map keys as
// "*") to the limit of data/input_limits.json that bounds it: the one table
// of which limit applies where in a catalog file.
var fieldLimits = map[string]fieldLimit{
	"accelerators.memory_gb":             {limit: LimitAcceleratorMemoryGB},
	"accelerators.memory_bandwidth_tbps": {limit: LimitMemoryBandwidthTBps},
	"accelerators.peak_tflops.*":         {limit: LimitPeakTFLOPS},
	"accelerators.tdp_watts":             {limit: LimitTDPWatts},
	"accelerators.interconnect_gbps":     {limit: LimitInterconnectGBps},
	"accelerators.nvlink_domain_gpus":    {limit: LimitGPUsPerInstance},

	"clouds.pue":                             {limit: LimitPUE},
	"clouds.egress_tiers.up_to_gb":           {limit: LimitDataGB},
	"clouds.egress_tiers.usd_per_gb":         {limit: LimitTransferUSDPerGB},
	"clouds.inter_region_usd_per_gb":         {limit: LimitTransferUSDPerGB},
	"clouds.block_storage_usd_per_gb_month":  {limit: LimitStorageUSDPerGBMonth},
	"clouds.object_storage_usd_per_gb_month": {limit: LimitStorageUSDPerGBMonth},
	"clouds.reserved_1y_discount":            {limit: LimitDiscountFraction},
	"clouds.reserved_3y_discount":            {limit: LimitDiscountFraction},
	"clouds.spot.interruptions_per_day":      {limit: LimitSpotInterruptionsPerDay},
	"clouds.spot.notice_seconds":             {limit: LimitSpotNoticeSeconds},
	"clouds.spot.max_runtime_hours":          {limit: LimitSpotMaxRuntimeHours, zeroOK: true},

	"regions.grid_gco2e_per_kwh": {limit: LimitGridGCO2ePerKWh},
	"regions.grid_year":          {limit: LimitGridYear, zeroOK: true},
	"regions.pue":                {limit: LimitPUE, zeroOK: true},

	"offers.gpus":               {limit: LimitGPUsPerInstance},
	"offers.vcpus":              {limit: LimitHostVCPUs},
	"offers.memory_gb":          {limit: LimitHostMemoryGB},
	"offers.network_gbps":       {limit: LimitNetworkGbps},
	"offers.on_demand_usd":      {limit: LimitInstancePriceUSDPerHour},
	"offers.spot_usd":           {limit: LimitInstancePriceUSDPerHour, zeroOK: true},
	"offers.reserved_1y_usd":    {limit: LimitInstancePriceUSDPerHour, zeroOK: true},
	"offers.reserved_3y_usd":    {limit: LimitInstancePriceUSDPerHour, zeroOK: true},
	"offers.capacity_block_usd": {limit: LimitInstancePriceUSDPerHour, zeroOK: true},

	"discounts.*": {limit: LimitDiscountFraction},
}

var listIndex = regexp.MustCompile(`\[\d+\]`)

// FieldLimit returns the input limit of a numeric field of a catalog file
// ("offers", "spot_usd"; list indexes in the path are ignored) and whether
// the field also admits 0 ("not sold", "unknown"); ok is false for a
// field without a limit.
func FieldLimit(section, field string) (l Limit, zeroOK, ok bool) {
	fl, ok := lookupFieldLimit(section, field)
	if !ok {
		return Limit{}, false, false
	}
	return limit(fl.limit), fl.zeroOK, true
}

// lookupFieldLimit finds the limit of a field path of a section.
func lookupFieldLimit(section, field string) (fieldLimit, bool) {
	if strings.IndexByte(field, '[') >= 0 {
		field = listIndex.ReplaceAllString(field, "")
	}
	key := section + "." + field
	if fl, ok := fieldLimits[key]; ok {
		return fl, true
	}
	if i := strings.LastIndexByte(key, '.'); i > 0 {
		fl, ok := fieldLimits[key[:i]+".*"]
		return fl, ok
	}
	return fieldLimit{}, false
}

// CheckField checks v against the limit of a field of a catalog file; nil
// when allowed or when the field has no limit.
func CheckField(section, field string, v float64) error {
	fl, ok := lookupFieldLimit(section, field)
	if !ok || (fl.zeroOK && v == 0) {
		return nil
	}
	return limit(fl.limit).check(v, fl.zeroOK)
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
