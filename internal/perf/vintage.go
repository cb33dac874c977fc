// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package perf

import (
	"fmt"
	"maps"
	"math"
	"time"
)

// vintageParams is perf_model.json software_vintage: software on fixed
// hardware gets faster over time, so the constants describe the serving
// and training stacks as of one reference date and Model.AtStackDate
// scales them to the stack of another date.
type vintageParams struct {
	// ReferenceDate (YYYY-MM-DD) is the date of the stack the constants
	// describe; estimates are for that stack. ReferenceDateReason says
	// why that date.
	ReferenceDate       string `json:"reference_date"`
	ReferenceDateReason string `json:"reference_date_reason"`
	// ServingGainPerYear and TrainingGainPerYear are g of the law: the
	// software-bound speed of a stack d years after the reference date is
	// (1 + g)^d that of the reference stack (d < 0 before it), fitted
	// from repeated results of the same hardware, benchmark and scenario
	// across rounds (SOURCES.md).
	ServingGainPerYear  float64 `json:"serving_gain_per_year"`
	TrainingGainPerYear float64 `json:"training_gain_per_year"`
}

// dateLayout is the layout of software_vintage.reference_date.
const dateLayout = "2006-01-02"

// daysPerYear converts date differences into years.
const daysPerYear = 365.25

func (v *vintageParams) validate() (time.Time, error) {
	ref, err := time.Parse(dateLayout, v.ReferenceDate)
	if err != nil {
		return time.Time{}, fmt.Errorf("perf: software_vintage.reference_date %q is not a YYYY-MM-DD date", v.ReferenceDate)
	}
	if !(v.ServingGainPerYear > -1 && v.ServingGainPerYear < 10 && v.TrainingGainPerYear > -1 && v.TrainingGainPerYear < 10) {
		return time.Time{}, fmt.Errorf("perf: software_vintage gains per year must lie in (-1, 10)")
	}
	return ref, nil
}

// ReferenceDate is the date of the software stack the model's constants
// describe (perf_model.json software_vintage.reference_date).
func (m *Model) ReferenceDate() time.Time { return m.ref }

// VintageFactors are the speed factors of the serving and training stacks
// of date d relative to the reference stack: (1 + g)^(years from the
// reference date to d).
func (m *Model) VintageFactors(d time.Time) (serving, training float64) {
	years := d.Sub(m.ref).Hours() / 24 / daysPerYear
	v := &m.p.Vintage
	return math.Pow(1+v.ServingGainPerYear, years), math.Pow(1+v.TrainingGainPerYear, years)
}

// AtStackDate returns the model of the software stack as of date d: what
// software sets is scaled by the vintage law, what physics sets is not.
// The achieved fractions of the compute peak (prefill, compute-bound
// decode, training MFU) are multiplied by the factor, capped at the peak
// itself; the fixed software times (per-layer step overheads, the
// per-prompt overhead, the expert-parallel all-to-all latencies) and the
// grouped expert GEMM's loss (expert_gemm_ridge_factor) are divided by it.
// HBM efficiency, link rates and memory stay: bandwidth is the hardware's.
// The accuracy harness scores each published result with the stack of its
// own date; at the reference date the model is returned unchanged.
func (m *Model) AtStackDate(d time.Time) *Model {
	fs, ft := m.VintageFactors(d)
	if fs == 1 && ft == 1 {
		return m
	}
	p := m.p
	p.Families = maps.Clone(m.p.Families)
	for name, f := range p.Families {
		f.TrainMFU = math.Min(1, f.TrainMFU*ft)
		f.PrefillEfficiency = math.Min(1, f.PrefillEfficiency*fs)
		f.DecodeComputeEfficiency = math.Min(1, f.DecodeComputeEfficiency*fs)
		f.StepOverheadUSPerLayer /= fs
		p.Families[name] = f
	}
	ip := &p.Inference
	ip.StepOverheadUSPerLayer /= fs
	ip.MoEStepOverheadUSPerLayer /= fs
	ip.PrefillOverheadMs /= fs
	ip.ExpertParallel.LatencyUS /= fs
	ip.ExpertParallel.FabricLatencyUS /= fs
	ip.ExpertGEMMRidgeFactor /= fs
	out := *m
	out.p = p
	return &out
}
