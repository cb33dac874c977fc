// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

// Package fuzzutil holds what the fuzz targets of the planning packages
// share (make fuzz): a bound on the time one input may take, fuzzed int64s
// as ints, and whether fuzzed numbers are within the input limits. Only
// tests import it.
package fuzzutil

import (
	"math"
	"testing"
	"time"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
)

// Within runs fn and fails the test with the problem fn returns, or when
// fn does not return within d: a hang is a failure the fuzzer must
// report, not a stalled run. A panic in fn crashes the fuzzing process,
// which the fuzzer reports with its stack, keeping the input.
func Within(t *testing.T, d time.Duration, fn func() string) {
	t.Helper()
	done := make(chan string, 1)
	go func() { done <- fn() }()
	select {
	case problem := <-done:
		if problem != "" {
			t.Fatal(problem)
		}
	case <-time.After(d):
		t.Fatalf("no answer within %v", d)
	}
}

// Int is v as an int; on 32-bit platforms the extremes saturate.
func Int(v int64) int {
	return int(max(min(v, math.MaxInt), math.MinInt))
}

// Set is a number given for an input and the catalog input limit
// (catalog.Limit*) the provider's schema holds it to.
type Set struct {
	Limit string
	V     float64
}

// WithinLimits reports whether every number given is within its limit; 0
// is an unset optional input (its default) and always passes. Fuzz targets
// require finite results only within the limits: the provider refuses the
// rest before any computation.
func WithinLimits(sets ...Set) bool {
	for _, s := range sets {
		if l, ok := catalog.InputLimit(s.Limit); s.V != 0 && (!ok || !l.Allows(s.V)) {
			return false
		}
	}
	return true
}

// WorkloadWithinLimits reports whether every number of w is within the
// limit the provider's workload schema applies to it.
func WorkloadWithinLimits(w perf.Workload) bool {
	sd := w.SpeculativeDecoding
	num := func(limit string, vs ...float64) []Set {
		out := make([]Set, len(vs))
		for i, v := range vs {
			out[i] = Set{Limit: limit, V: v}
		}
		return out
	}
	var sets []Set
	sets = append(sets, num(catalog.LimitModelParametersB, w.ModelParametersB, w.ActiveParametersB, sd.DraftModelParametersB)...)
	sets = append(sets, num(catalog.LimitSequenceTokens, float64(w.SequenceLength), float64(w.InputTokens), float64(w.OutputTokens))...)
	sets = append(sets, num(catalog.LimitLatencyMs, w.MaxTimeToFirstTokenMs, w.MaxTimePerOutputTokenMs)...)
	sets = append(sets, num(catalog.LimitTrainingTokensB, w.TrainingTokensB)...)
	sets = append(sets, num(catalog.LimitTokensPerSecond, w.TokensPerSecond)...)
	sets = append(sets, num(catalog.LimitModelLayers, float64(w.Layers))...)
	sets = append(sets, num(catalog.LimitModelHiddenSize, float64(w.HiddenSize))...)
	sets = append(sets, num(catalog.LimitModelKVHeads, float64(w.KVHeads))...)
	return WithinLimits(sets...) && sd.DraftTokens <= perf.MaxDraftTokens &&
		(sd.AcceptanceRate == 0 || (sd.AcceptanceRate > 0 && sd.AcceptanceRate < 1))
}
