// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package cost

import (
	"fmt"
	"math"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// Inputs are bounded by the limits of catalog input_limits.json (the same
// the provider's schema validators use), so the products and sums of the
// model stay finite; every computed figure is checked anyway before it is
// returned (NonFiniteError), so no NaN or ±Inf ever leaves this package.

// bound is one input checked against a catalog input limit.
type bound struct {
	field, key string // Terraform attribute (dotted) and map key ("" when none)
	summary    string
	limit      string // a catalog.Limit* name
	v          float64
	hint       string // a sentence on what the input is, with an example
}

// check returns an InputError naming the input, the value in plain
// notation and the allowed range, or nil.
func (b bound) check() *InputError {
	l, ok := catalog.InputLimit(b.limit)
	name := b.field
	if b.key != "" {
		name = fmt.Sprintf("%s[%q]", b.field, b.key)
	}
	if !ok {
		return keyErr(b.field, b.key, b.summary, "%s cannot be checked: no input limit %q (a provider bug, please report it).", name, b.limit)
	}
	err := l.Check(b.v)
	if err == nil {
		return nil
	}
	detail := fmt.Sprintf("%s %v.", name, err)
	if b.hint != "" {
		detail += " " + b.hint
	}
	return keyErr(b.field, b.key, b.summary, "%s", detail)
}

// providerBounds are the provider-level settings both models take.
func providerBounds(discount, carbonPrice float64) []bound {
	return []bound{
		{field: "discount", summary: "Invalid Discount", limit: catalog.LimitDiscountFraction, v: discount,
			hint: "A discount is the fraction off list price, for example 0.15."},
		{field: "carbon_price_usd_per_tonne", summary: "Invalid Carbon Price", limit: catalog.LimitCarbonPriceUSDPerTonne, v: carbonPrice,
			hint: "It is an internal carbon price in USD per tonne CO2e, for example 100."},
	}
}

// firstBad returns the error of the first input outside its limit.
func firstBad(bounds []bound) error {
	for _, b := range bounds {
		if ie := b.check(); ie != nil {
			return ie
		}
	}
	return nil
}

// NonFiniteError is a computed figure that is not a finite number. Inputs
// within their limits never produce one; it keeps NaN and ±Inf from
// reaching callers (a Terraform value cannot hold them) should a caller
// pass catalog figures beyond the limits.
type NonFiniteError struct {
	Figure string // e.g. "total_cost_usd", "comparison[spot].savings_vs_on_demand_usd"
	Value  float64
}

func (e *NonFiniteError) Error() string {
	return fmt.Sprintf("cost: %s came out as %s, not a finite number: the inputs or catalog figures are too large to price",
		e.Figure, catalog.FormatNumber(e.Value))
}

// figures collects named results and reports the first non-finite one.
type figures struct{ err *NonFiniteError }

func (f *figures) add(name string, v float64) {
	if f.err == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
		f.err = &NonFiniteError{Figure: name, Value: v}
	}
}

func (f *figures) result() error {
	if f.err == nil {
		return nil
	}
	return f.err
}

// checkFinite checks every number of a TCO result.
func (r *Result) checkFinite() error {
	var f figures
	f.add("total_cost_usd", r.TotalUSD)
	f.add("monthly_cost_usd", r.MonthlyUSD)
	f.add("cost_per_gpu_hour_usd", r.CostPerGPUHourUSD)
	for _, l := range r.Breakdown {
		f.add("breakdown["+l.Category+"]", l.USD)
	}
	for _, c := range r.Compute {
		p := "compute[" + string(c.PricingModel) + "]"
		f.add(p+".share", c.Share)
		f.add(p+".billed_instance_hours", c.BilledInstanceHours)
		f.add(p+".hourly_usd", c.HourlyUSD)
		f.add(p+".usd", c.USD)
	}
	for _, pm := range catalog.InstancePricingModels {
		if be, ok := r.BreakEven[pm]; ok {
			f.add("break_even_utilization["+string(pm)+"]", be.Utilization)
			f.add("break_even_months["+string(pm)+"]", be.Months)
		}
	}
	for _, v := range []struct {
		name string
		v    float64
	}{{"gpu_hours", r.GPUHours}, {"spot_risk_factor", r.SpotRiskFactor}, {"pue", r.PUE}, {"load_factor", r.LoadFactor},
		{"energy_kwh", r.EnergyKWh}, {"co2e_kg", r.CO2eKg}, {"carbon_cost_usd", r.CarbonCostUSD}} {
		f.add(v.name, v.v)
	}
	return f.result()
}

// checkFinite checks every number of a job result.
func (r *JobResult) checkFinite() error {
	var f figures
	for _, v := range []struct {
		name string
		v    float64
	}{{"hourly_usd", r.HourlyUSD}, {"billed_hours", r.BilledHours}, {"running_hours", r.RunningHours},
		{"compute_usd", r.ComputeUSD}, {"energy_kwh", r.EnergyKWh}, {"co2e_kg", r.CO2eKg}, {"carbon_cost_usd", r.CarbonCostUSD}} {
		f.add(v.name, v.v)
	}
	return f.result()
}
