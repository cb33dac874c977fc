// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package perf

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestPrunedGPUs: the GPU count below which the search leaves layouts out
// is exactly the largest g whose layouts the search's own test,
// !(float64(g)·m > bar), prunes, for random and extreme per-GPU rates and
// bars (NaN and ±Inf included), and 0 for a rate that is not finite and
// positive.
func TestPrunedGPUs(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	specials := []float64{0, -1, math.NaN(), math.Inf(1), math.Inf(-1), 1e-300, 1e300}
	for i := range 20000 {
		m := math.Exp(rng.Float64()*20 - 5)
		bar := m * rng.Float64() * 5000
		limit := 1 + rng.IntN(4096)
		switch i % 10 {
		case 0:
			bar = specials[rng.IntN(len(specials))]
		case 1:
			m = specials[rng.IntN(len(specials))]
		case 2:
			bar = m * float64(rng.IntN(limit+2)) // on a product exactly
		}
		want := 0
		if m > 0 && !math.IsInf(m, 1) {
			for g := 1; g <= limit && !(float64(g)*m > bar); g++ {
				want = g
			}
		}
		if got := prunedGPUs(m, bar, limit); got != want {
			t.Fatalf("prunedGPUs(%v, %v, %d) = %d, want %d", m, bar, limit, got, want)
		}
	}
}
