// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner

import (
	"slices"

	"github.com/gpuplan/terraform-provider-gpu/internal/numfmt"
)

// jobRowStream finds a job's trade-off rows as the scan prices the
// candidates, instead of keeping every one for cheapestEach: possible
// when the rows' deadlines are known before the scan (the request has a
// deadline) and no carbon price makes a selection's worst CO2e matter.
// Each row keeps what cheapestEach would pick, candidates being offered
// in the same (scan) order with the same rule.
type jobRowStream struct {
	on        bool
	deadlines []float64
	best      []priced
	have      []bool
	raw       []float64
	score     []float64
}

// startRows readies the stream for the run (off unless it applies).
func (r *run) startRows() {
	rs := &r.rows
	rs.on = !r.req.exhaustive && r.req.TradeOffs && !r.inference && r.req.Constraints.DeadlineHours > 0 && r.req.CarbonPriceUSDPerTonne == 0
	if !rs.on {
		return
	}
	// tradeOffFactors(false), sorted in place (no allocation), scaled.
	rs.deadlines = append(append(rs.deadlines[:0], 1), r.p.policy.TradeOffFactors...)
	slices.Sort(rs.deadlines)
	for k, f := range rs.deadlines {
		rs.deadlines[k] = r.req.Constraints.DeadlineHours * f
	}
	n := len(rs.deadlines)
	rs.best, rs.have, rs.raw, rs.score = resize(rs.best, n), resize(rs.have, n), resize(rs.raw, n), resize(rs.score, n)
	clear(rs.have)
}

// resize is s with length n, its elements unspecified.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// offerRows offers a trade-off candidate to every row whose deadline it
// meets, by cheapestEach's rule: cost plus carbon cost (no carbon price:
// the cost), more than a cent above a row's best skipped, else rounded
// and compared with the tie-breaks.
func (r *run) offerRows(c *priced) {
	rs := &r.rows
	none := axisBests{}
	for k, d := range rs.deadlines {
		if !(d == 0 || c.hours <= d) {
			continue
		}
		v := c.cost + r.carbonCost(c, &none)
		if rs.have[k] && v > rs.raw[k]+pruneMarginUSD {
			continue
		}
		if s := numfmt.USD(v); !rs.have[k] || r.beforeScored(c, s, &rs.best[k], rs.score[k]) {
			rs.best[k], rs.raw[k], rs.score[k], rs.have[k] = *c, v, s, true
		}
	}
}

// results is each row's best, its score set (nil: none), as cheapestEach
// returns them.
func (rs *jobRowStream) results() []*priced {
	out := make([]*priced, len(rs.deadlines))
	for k := range out {
		if rs.have[k] {
			cp := rs.best[k]
			cp.score = rs.score[k]
			out[k] = &cp
		}
	}
	return out
}
