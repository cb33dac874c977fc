// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner

import (
	"fmt"
	"math"
	"strings"

	"github.com/gpuplan/terraform-provider-gpu/internal/numfmt"
	"github.com/gpuplan/terraform-provider-gpu/internal/textable"
)

// dutyCycleDecimals: the break-even duty cycle is shown rounded down to
// 0.001, so serverless is still cheaper at the figure shown.
const dutyCycleDecimals = 1000

// ShownDutyCycle is the break-even duty cycle as reported: rounded down
// to 0.001.
func (b *BreakEven) ShownDutyCycle() float64 {
	return math.Floor(b.DutyCycle*dutyCycleDecimals) / dutyCycleDecimals
}

// tradeOffSummary renders the trade-offs under a recommendation's table:
// a title naming the request's limit, one line per factor with the
// cheapest answer there and its cost against the request's own, then the
// serverless break-even sentence. "" for nil.
func tradeOffSummary(t *TradeOffs) string {
	if t == nil || len(t.Rows) == 0 {
		return ""
	}
	var own *Candidate
	for i := range t.Rows {
		if t.Rows[i].Factor == 1 {
			own = t.Rows[i].Best
		}
	}
	limitCol, costCol := "DEADLINE", "COST USD"
	if t.Inference {
		limitCol, costCol = "P99 TTFT / TPOT", "USD/MONTH"
	}
	tab := textable.New(
		textable.Column{Header: limitCol, Align: textable.Right},
		textable.Column{Header: "CLOUD"},
		textable.Column{Header: "REGION"},
		textable.Column{Header: "INSTANCE × NODES"},
		textable.Column{Header: "GPUS"},
		textable.Column{Header: "PRICING"},
		textable.Column{Header: costCol, Align: textable.Right},
		textable.Column{Header: "VS YOURS", Align: textable.Right},
	)
	for i := range t.Rows {
		r := &t.Rows[i]
		limit := limitCell(t, r)
		c := r.Best
		if c == nil {
			tab.Row(limit, "none meets it ("+r.Reason+")", "", "", "", "", "", "")
			continue
		}
		vs := ""
		if own != nil && own.EstimatedCostUSD > 0 && r.Factor != 1 {
			vs = numfmt.SignedPercent(c.EstimatedCostUSD/own.EstimatedCostUSD - 1)
		}
		tab.Row(limit, c.Cloud, c.Region, fmt.Sprintf("%s × %d", c.InstanceType, c.Nodes), gpusCell(c), string(c.PricingModel),
			numfmt.Thousands(numfmt.USD(c.EstimatedCostUSD), 2), vs)
	}
	var b strings.Builder
	b.WriteString("\n" + tradeOffTitle(t) + "\n" + tab.String())
	if t.BreakEven != nil {
		b.WriteString(t.BreakEven.sentence() + "\n")
	}
	return b.String()
}

// tradeOffTitle names what the rows vary.
func tradeOffTitle(t *TradeOffs) string {
	switch {
	case t.Inference:
		return "Cheapest at other latency limits (p99 time to first token / per output token, ms):"
	case t.BaseFromBest:
		return "Cheapest at deadlines (no deadline set: tighter ones are fractions of the best's hours):"
	}
	return "Cheapest at other deadlines (hours):"
}

// limitCell is a row's limit with its factor: "360 h (×0.5)", "450 / 40
// ms (yours)", "none (yours)" for a job without a deadline.
func limitCell(t *TradeOffs, r *TradeOff) string {
	factor := "(×" + numfmt.Trim(r.Factor, 2) + ")"
	if r.Factor == 1 {
		factor = "(yours)"
	}
	switch {
	case t.Inference:
		return fmt.Sprintf("%s / %s ms %s", numfmt.Short(r.MaxTimeToFirstTokenMs), numfmt.Short(r.MaxTimePerOutputTokenMs), factor)
	case r.DeadlineHours == 0:
		return "none " + factor
	}
	return numfmt.Short(r.DeadlineHours) + " h " + factor
}

// sentence says where serverless stops being cheaper.
func (b *BreakEven) sentence() string {
	s, d := &b.Serverless, &b.Dedicated
	ded := fmt.Sprintf("%s %s %s × %d %s ($%s/month)", d.Cloud, d.Region, d.InstanceType, d.Nodes, d.PricingModel,
		numfmt.Thousands(numfmt.USD(d.EstimatedCostUSD), 2))
	srv := fmt.Sprintf("%s %s × %d serverless", s.Cloud, s.InstanceType, s.Nodes)
	switch b.DutyCycle {
	case 1:
		return fmt.Sprintf("Serverless break-even: %s costs less than the cheapest dedicated deployment, %s, even under constant load.", srv, ded)
	case 0:
		return fmt.Sprintf("Serverless break-even: none; the cheapest serverless deployment, %s, costs more than %s even at a duty cycle "+
			"of %s.", srv, ded, numfmt.Trim(b.MinDutyCycle, 3))
	}
	return fmt.Sprintf("Serverless break-even: below a duty cycle of %s (workload.duty_cycle, the share of the time the load is there), %s "+
		"costs less than the cheapest dedicated deployment, %s; above it the dedicated one does.", numfmt.Trim(b.ShownDutyCycle(), 3), srv, ded)
}
