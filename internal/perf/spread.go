// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package perf

import "math"

// z99 is the 99th percentile of the standard normal distribution: the
// definition of a p99, not a fitted number.
const z99 = 2.3263478740408408

// inFlightOutputTokens is the mean final output length of the requests in
// flight when generated lengths have the given mean and 99th percentile.
// A long request holds its batch slot longer, so the requests in flight at
// any moment are a length-biased sample: their mean final length is
// E[L²]/E[L], not E[L]. The lengths are taken as log-normal with the given
// mean and p99 (σ from ln(p99/mean) = z99·σ − σ²/2, the smaller root);
// without a spread (p99 ≤ mean) every request has the mean length. The
// result never exceeds the p99: no log-normal has a p99 above e^(z99²/2)
// ≈ 15 times its mean, and an engine serving such a tail preempts the few
// longest requests rather than reserve room for them.
func inFlightOutputTokens(mean, p99 float64) float64 {
	if !(p99 > mean) || !(mean > 0) {
		return mean
	}
	d := z99*z99 - 2*math.Log(p99/mean)
	sigma := z99
	if d > 0 {
		sigma = z99 - math.Sqrt(d)
	}
	return math.Min(mean*math.Exp(sigma*sigma), p99)
}
