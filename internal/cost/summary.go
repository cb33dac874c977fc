// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package cost

import (
	"fmt"
	"strings"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/numfmt"
	"github.com/gpuplan/terraform-provider-gpu/internal/textable"
)

// SummaryRegions is what a TCO summary says besides the fleet's own TCO:
// whether the region was chosen as the cheapest (of Others plus itself),
// the other regions selling the instance under the mix, cheapest first,
// and the pricing-model comparison (FleetResult.Comparison; none: no
// comparison table).
type SummaryRegions struct {
	Cheapest   bool
	Others     []RegionTCO
	Comparison []ComparisonRow
}

// SummaryOtherRegions is how many other regions a summary lists; the rest
// are counted.
const SummaryOtherRegions = 5

// Summary renders a TCO as fixed-width text: a title line (fleet, place,
// horizon, utilization, mix), the breakdown with each line's share and the
// total, the pricing-model comparison (total, savings against on-demand,
// break-even, the mix's share), what the mix's prices are (published or
// derived, as of when) and, when there are any, the cheapest other
// regions. Money is rounded as gpu_tco's attributes are: lines to cents,
// the total as their sum (Result.ShownTotalUSD).
func Summary(in *Input, res *Result, regions SummaryRegions) string {
	var b strings.Builder
	b.WriteString(summaryTitle(in, regions))
	b.WriteString(breakdownTable(res))
	b.WriteString("\n")
	b.WriteString(comparisonTable(in, regions.Comparison))
	b.WriteString(pricesLine(in))
	if len(regions.Others) > 0 {
		b.WriteString("\n")
		b.WriteString(regionsTable(regions.Others, res.ShownTotalUSD()))
	}
	return b.String()
}

func summaryTitle(in *Input, regions SummaryRegions) string {
	where := in.Offer.Region
	if regions.Cheapest {
		where += fmt.Sprintf(" (the cheapest of %s)", regionCount(len(regions.Others)+1))
	}
	var mix []string
	for _, pm := range catalog.InstancePricingModels {
		if s := in.PricingMix[pm]; s > 0 {
			mix = append(mix, fmt.Sprintf("%s %s", pm, numfmt.Percent(s)))
		}
	}
	if len(mix) == 0 {
		mix = []string{string(catalog.OnDemand) + " " + numfmt.Percent(1)}
	}
	return fmt.Sprintf("%d× %s on %s %s, %s months at %s utilization, %s\n",
		in.InstanceCount, in.Offer.InstanceType, in.Offer.Cloud, where,
		numfmt.Trim(in.Months, 2), numfmt.Percent(in.Utilization), strings.Join(mix, " + "))
}

func breakdownTable(res *Result) string {
	t := textable.New(
		textable.Column{Header: "CATEGORY"},
		textable.Column{Header: "COST USD", Align: textable.Right},
		textable.Column{Header: "SHARE", Align: textable.Right},
	)
	total := res.ShownTotalUSD()
	share := func(usd float64) string {
		if total <= 0 {
			return ""
		}
		return numfmt.Percent(usd / total)
	}
	for _, l := range res.Breakdown {
		usd := numfmt.USD(l.USD)
		t.Row(l.Category, numfmt.Thousands(usd, 2), share(usd))
	}
	t.Row("total", numfmt.Thousands(total, 2), share(total))
	return t.String()
}

// comparisonTable is the pricing-model comparison: each row's total,
// savings against on-demand, a reservation's break-even and the mix's
// share; the region of each row when they differ from the fleet's; "not
// available" for a pricing model the fleet cannot be bought under
// (pricing_model_comparison says why).
func comparisonTable(in *Input, rows []ComparisonRow) string {
	if len(rows) == 0 {
		return ""
	}
	showRegion := false
	var od *ComparisonRow
	for i := range rows {
		r := &rows[i]
		if r.Available() && r.Region() != in.Offer.Region {
			showRegion = true
		}
		if r.PricingModel == catalog.OnDemand && r.Available() {
			od = r
		}
	}
	cols := []textable.Column{{Header: "PRICING MODEL"}}
	if showRegion {
		cols = append(cols, textable.Column{Header: "REGION"})
	}
	t := textable.New(append(cols, textable.Column{Header: "TOTAL USD", Align: textable.Right},
		textable.Column{Header: "SAVINGS USD", Align: textable.Right}, textable.Column{Header: "BREAK-EVEN"},
		textable.Column{Header: "IN MIX", Align: textable.Right})...)
	for i := range rows {
		r := &rows[i]
		cells := []string{string(r.PricingModel)}
		if showRegion {
			cells = append(cells, r.Region())
		}
		share := ""
		if s := mixShare(in, r.PricingModel); s > 0 {
			share = numfmt.Percent(s)
		}
		if !r.Available() {
			t.Row(append(cells, "not available", "", "", share)...)
			continue
		}
		total := r.Result.ShownTotalUSD()
		savings := "n/a"
		if od != nil {
			savings = numfmt.Thousands(numfmt.USD(od.Result.ShownTotalUSD()-total), 2)
		}
		t.Row(append(cells, numfmt.Thousands(total, 2), savings, breakEvenCell(&r.Result, r.PricingModel), share)...)
	}
	return t.String()
}

func mixShare(in *Input, pm catalog.PricingModel) float64 {
	if len(in.PricingMix) == 0 {
		if pm == catalog.OnDemand {
			return 1
		}
		return 0
	}
	return in.PricingMix[pm]
}

// breakEvenCell is a reservation's break-even: the utilization above
// which it beats on-demand over the horizon and the months of use one term
// needs to pay off ("never" when nothing runs).
func breakEvenCell(res *Result, pm catalog.PricingModel) string {
	be, ok := res.BreakEven[pm]
	if !ok {
		return ""
	}
	if be.Utilization > 1 {
		return "never within the horizon"
	}
	months := "never"
	if !be.Never {
		months = "after " + numfmt.Thousands(numfmt.Hours(be.Months), 2) + " months"
	}
	return fmt.Sprintf("utilization > %s, %s", numfmt.Trim(numfmt.Ratio(be.Utilization), 4), months)
}

func regionsTable(others []RegionTCO, total float64) string {
	t := textable.New(
		textable.Column{Header: "OTHER REGION"},
		textable.Column{Header: "COUNTRY"},
		textable.Column{Header: "TOTAL USD", Align: textable.Right},
		textable.Column{Header: "DIFFERENCE USD", Align: textable.Right},
	)
	for i, r := range others {
		if i == SummaryOtherRegions {
			break
		}
		country := ""
		if r.Region != nil {
			country = r.Region.Country
		}
		diff := numfmt.Thousands(numfmt.USD(r.TotalUSD-total), 2)
		if r.TotalUSD > total {
			diff = "+" + diff
		}
		t.Row(r.Offer.Region, country, numfmt.Thousands(r.TotalUSD, 2), diff)
	}
	s := t.String()
	if n := len(others) - SummaryOtherRegions; n > 0 {
		s += fmt.Sprintf("… and %d more (attribute regions)\n", n)
	}
	return s
}
