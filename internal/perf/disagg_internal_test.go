// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package perf

import (
	"math"
	"testing"
)

// TestBalancedPrefillWorkers checks the split arithmetic by hand: 72 GPUs,
// prefill workers of 4 GPUs, decode workers of 8, decode at 1,000 output
// tok/s per GPU and prefill at 3,000 (output tokens its prompts lead to)
// per GPU. A share 1,000 / (1,000 + 3,000) = 1/4 of the GPUs prefills:
// 18 GPUs, 4.5 prefill workers (4 or 5); the other 54 GPUs are 6.75
// decode workers, 6 or 7, which leave (72 − 48) / 4 = 6 or (72 − 56) / 4
// = 4 prefill workers. Candidates 4, 5, 6, 4: 4 × 4 × 3,000 = 48,000
// prefill vs 7 × 8 × 1,000 = 56,000 decode; 5 → 60,000 vs 6 × 8,000 =
// 48,000; 6 → 72,000 vs 48,000.
func TestBalancedPrefillWorkers(t *testing.T) {
	cases := []struct {
		g, rp, rd int
		od, op    float64
		want      [4]int
	}{
		{72, 4, 8, 1000, 3000, [4]int{4, 5, 6, 4}},
		{72, 8, 8, 1000, 1000, [4]int{4, 5, 5, 4}},   // 36 GPUs each side: 4.5 workers
		{16, 8, 8, 1000, 100000, [4]int{1, 1, 1, 1}}, // prefill nearly free: still one worker
		{64, 16, 16, 3000, 1000, [4]int{3, 3, 3, 3}}, // 3/4 of 64 = 48 GPUs = 3 workers exactly
		{12, 4, 4, 1000, 1000, [4]int{1, 2, 2, 1}},   // 6 GPUs = 1.5 workers each side
		{100, 4, 8, 1, 1e6, [4]int{1, 1, 1, 1}},      // decode-bound: one prefill worker; 12 or 13 decode workers leave 1 (or none)
	}
	for _, c := range cases {
		if got := balancedPrefillWorkers(c.g, c.rp, c.rd, c.od, c.op); got != c.want {
			t.Errorf("balancedPrefillWorkers(%d, %d, %d, %v, %v) = %v, want %v", c.g, c.rp, c.rd, c.od, c.op, got, c.want)
		}
	}
}

// TestMDOneWait99 checks the M/D/1 p99 wait against its defining
// equations at light and heavy load: the decay θ solves ρ(e^(θs) − 1) =
// θs and the tail ρ·e^(−θt) is 1% at the wait; 0 below one waiting
// request in a hundred.
func TestMDOneWait99(t *testing.T) {
	const s = 0.2
	for _, rho := range []float64{0.0105, 0.015, 0.02, 0.05, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99, 0.999} {
		w := mdOneWait99(rho, s)
		theta := math.Log(100*rho) / w
		if g := rho*math.Expm1(theta*s) - theta*s; math.Abs(g) > 1e-9*theta*s {
			t.Errorf("ρ %v: θs = %v leaves ρ(e^θs − 1) − θs = %v", rho, theta*s, g)
		}
		if tail := rho * math.Exp(-theta*w); math.Abs(tail-0.01) > 1e-12 {
			t.Errorf("ρ %v: tail at the wait %v", rho, tail)
		}
	}
	if w := mdOneWait99(0.009, s); w != 0 {
		t.Errorf("ρ 0.009: wait %v, want 0", w)
	}
}

// TestWaitMemo: the memo answers mdOneWait99's bits for every pair, asked
// again in another order after other pairs (collisions in its direct-
// mapped entries included: more pairs than entries), and a nil memo too.
func TestWaitMemo(t *testing.T) {
	var wm waitMemo
	var pairs [][2]float64
	for i := range 3 * waitMemoSize {
		pairs = append(pairs, [2]float64{0.005 + 0.99*float64(i%97)/97, 0.01 * float64(1+i/97)})
	}
	pairs = append(pairs, [2]float64{0, 0}, [2]float64{math.NaN(), 0.2}, [2]float64{0.5, 0})
	for round := range 3 {
		for j := range pairs {
			p := pairs[(j*7+round*13)%len(pairs)]
			want := mdOneWait99(p[0], p[1])
			for _, got := range []float64{wm.wait99(p[0], p[1]), (*waitMemo)(nil).wait99(p[0], p[1])} {
				if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
					t.Fatalf("ρ %v, s %v: memo %v, want %v", p[0], p[1], got, want)
				}
			}
		}
	}
}
