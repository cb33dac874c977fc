// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner

import (
	"fmt"

	"github.com/gpuplan/terraform-provider-gpu/internal/numfmt"
	"github.com/gpuplan/terraform-provider-gpu/internal/textable"
)

// BestMarker marks the best candidate's line of a summary, as SkyPilot's
// optimizer table marks the chosen resources.
const BestMarker = "✔"

// SummaryOptions shape a recommendation's summary table.
type SummaryOptions struct {
	// Inference labels the figures of a serving deployment (tokens/s, cost
	// and CO2e per month) instead of a job's (hours, cost and CO2e).
	Inference bool
	// Objective names the ranking in the title; "" is the default, cost.
	Objective Objective
	// Comparison, when set, adds a table of the best candidate of each
	// (cloud, pricing model) pair (Planner.Compare).
	Comparison []PairResult
}

// Summary renders a result as fixed-width text: a title line, then one
// line per candidate in rank order (the best marked with BestMarker):
// rank, cloud, region, instance type × nodes, GPUs in total (a fractional
// instance: its share of a GPU times nodes), pricing model, hours (a job)
// or output tokens/s (inference), cost and CO2e ("n/a" when unknown).
// Figures are rounded as the candidate attributes are (numfmt).
func Summary(res *Result, opts SummaryOptions) string {
	objective := opts.Objective
	if objective == "" {
		objective = ObjectiveCost
	}
	pace, costCol, co2Col := "HOURS", "COST USD", "CO2E KG"
	if opts.Inference {
		pace, costCol, co2Col = "TOK/S", "USD/MONTH", "CO2E KG/MONTH"
	}
	t := textable.New(
		textable.Column{},
		textable.Column{Header: "#", Align: textable.Right},
		textable.Column{Header: "CLOUD"},
		textable.Column{Header: "REGION"},
		textable.Column{Header: "INSTANCE × NODES"},
		textable.Column{Header: "GPUS"},
		textable.Column{Header: "PRICING"},
		textable.Column{Header: pace, Align: textable.Right},
		textable.Column{Header: costCol, Align: textable.Right},
		textable.Column{Header: co2Col, Align: textable.Right},
	)
	for i := range res.Candidates {
		c := &res.Candidates[i]
		marker := ""
		if i == 0 {
			marker = BestMarker
		}
		paceCell := numfmt.Thousands(numfmt.Hours(c.EstimatedHours), 2)
		if opts.Inference {
			paceCell = numfmt.Int(numfmt.Measure(c.TokensPerSecond))
		}
		co2 := "n/a"
		if c.CO2eKnown {
			co2 = numfmt.Thousands(numfmt.Measure(c.EstimatedCO2eKg), 2)
		}
		t.Row(marker, fmt.Sprint(i+1), c.Cloud, c.Region,
			fmt.Sprintf("%s × %d", c.InstanceType, c.Nodes), gpusCell(c), string(c.PricingModel),
			paceCell, numfmt.Thousands(numfmt.USD(c.EstimatedCostUSD), 2), co2)
	}
	noun := "candidates"
	if res.Feasible == 1 {
		noun = "candidate"
	}
	title := fmt.Sprintf("%d of %s feasible %s, ranked by %s (catalog %s)\n",
		len(res.Candidates), numfmt.Int(float64(res.Feasible)), noun, objective, res.CatalogDate)
	return title + t.String() + leftOutLine(res, costCol) + tradeOffSummary(res.TradeOffs) + comparisonTable(opts)
}

// leftOutLine names the cheaper candidate constraints.software_stacks left
// out, "" when none.
func leftOutLine(res *Result, costCol string) string {
	l := res.LeftOut
	if l == nil {
		return ""
	}
	return fmt.Sprintf("Left out, software stack %s not allowed: %s %s %s × %d, %s, %s, %s %s (constraints.software_stacks allows it)\n",
		l.SoftwareStack, l.Cloud, l.Region, l.InstanceType, l.Nodes, gpusCell(l), l.PricingModel,
		numfmt.Thousands(numfmt.USD(l.EstimatedCostUSD), 2), costCol)
}

// comparisonTable is the best candidate of each (cloud, pricing model)
// pair, "not available" for a pair without one ("" without a comparison).
func comparisonTable(opts SummaryOptions) string {
	if len(opts.Comparison) == 0 {
		return ""
	}
	costCol := "COST USD"
	if opts.Inference {
		costCol = "USD/MONTH"
	}
	t := textable.New(textable.Column{Header: "CLOUD"}, textable.Column{Header: "PRICING"}, textable.Column{Header: "REGION"},
		textable.Column{Header: "INSTANCE × NODES"}, textable.Column{Header: costCol, Align: textable.Right})
	for _, pr := range opts.Comparison {
		if c := pr.Best; c != nil {
			t.Row(pr.Cloud, string(pr.PricingModel), c.Region, fmt.Sprintf("%s × %d", c.InstanceType, c.Nodes),
				numfmt.Thousands(numfmt.USD(c.EstimatedCostUSD), 2))
			continue
		}
		t.Row(pr.Cloud, string(pr.PricingModel), "", "not available", "")
	}
	return "\nBest of each cloud and pricing model (comparison):\n" + t.String()
}

// gpusCell is a candidate's GPUs in total: "16× H100", or for a
// fractional instance its share of one GPU times the nodes, "0.5× A10".
func gpusCell(c *Candidate) string {
	if c.GPUFraction > 0 {
		return numfmt.Trim(c.GPUFraction*float64(c.Nodes), 4) + "× " + c.Accelerator
	}
	return fmt.Sprintf("%d× %s", c.TotalGPUs, c.Accelerator)
}
