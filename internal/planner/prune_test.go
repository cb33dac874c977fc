// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/planner"
)

// TestPruningKeepsAnswers: the cost objective's pruning (candidates that
// cannot enter the top N go unbilled) and the left-out offers' (those that
// cannot be cheaper than the left-out one) change no answer, counts and
// the left-out candidate included:
// every identity case, at a top of 1 and 3 (the smaller the top N, the
// more is pruned), against the same request billing every candidate.
func TestPruningKeepsAnswers(t *testing.T) {
	p, m := builtin(t)
	_, pol := models(t)
	for _, tc := range identityCases {
		prep, err := m.Prepare(tc.w, pol.WorkloadOptions())
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for _, top := range []int{1, 3} {
			var got, want strings.Builder
			for i, b := range []*strings.Builder{&got, &want} {
				req := planner.Request{Estimator: prep, Constraints: tc.c, Objective: tc.obj}
				if tc.req != nil {
					tc.req(&req)
				}
				req.Top = top
				if i == 1 {
					planner.Exhaustive(&req)
				}
				res, err := p.Recommend(req)
				writeExact(b, res, err)
				if err == nil && res.LeftOut != nil {
					lo := *res.LeftOut
					if lo.Serving != nil {
						fmt.Fprintf(b, "left out serving: %+v\n", *lo.Serving)
						lo.Serving = nil
					}
					fmt.Fprintf(b, "left out: %+v\n", lo)
				}
			}
			if got.String() != want.String() {
				t.Errorf("%s, top %d: pruned\n%s\nbilling every candidate\n%s", tc.name, top, got.String(), want.String())
			}
		}
	}
}

// TestStreamedRowsKeepAnswers: a job's trade-off rows streamed during the
// scan (a deadline, no carbon price) are the rows cheapestEach picks from
// every kept candidate, and the recommendation is unchanged (pruning
// included: a tight row's best may rank far below the top N), for every
// job among the identity cases at three deadlines, and two at a top of 1.
func TestStreamedRowsKeepAnswers(t *testing.T) {
	p, m := builtin(t)
	_, pol := models(t)
	for _, tc := range identityCases {
		if tc.w.Kind == "inference" {
			continue
		}
		prep, err := m.Prepare(tc.w, pol.WorkloadOptions())
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for _, run := range [][2]float64{{24, 0}, {100, 0}, {1000, 0}, {24, 1}, {100, 1}} {
			deadline, top := run[0], int(run[1])
			var got, want strings.Builder
			for i, b := range []*strings.Builder{&got, &want} {
				req := planner.Request{Estimator: prep, Constraints: tc.c, Objective: tc.obj, TradeOffs: true}
				if tc.req != nil {
					tc.req(&req)
				}
				req.Constraints.DeadlineHours = deadline
				if top > 0 {
					req.Top = top
				}
				if i == 1 {
					planner.Exhaustive(&req)
				}
				res, err := p.Recommend(req)
				writeExact(b, res, err)
				if err != nil || res.TradeOffs == nil {
					continue
				}
				for _, row := range res.TradeOffs.Rows {
					fmt.Fprintf(b, "row ×%v %v h: %s\n", row.Factor, row.DeadlineHours, row.Reason)
					if row.Best != nil {
						c := *row.Best
						c.Serving = nil
						fmt.Fprintf(b, "  %+v\n", c)
					}
				}
			}
			if got.String() != want.String() {
				t.Errorf("%s, deadline %v h, top %d: streamed\n%s\nfrom every candidate\n%s", tc.name, deadline, top, got.String(), want.String())
			}
		}
	}
}
