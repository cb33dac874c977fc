// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

func TestSummarizeDiagnostics(t *testing.T) {
	regions := tftypes.NewAttributePath().WithAttributeName("constraints").WithAttributeName("regions")
	errAt := func(p *tftypes.AttributePath, summary string) *tfprotov6.Diagnostic {
		return &tfprotov6.Diagnostic{Severity: tfprotov6.DiagnosticSeverityError, Summary: summary, Detail: "d", Attribute: p}
	}
	many := func(n int, summary string, at func(i int) *tftypes.AttributePath) []*tfprotov6.Diagnostic {
		var out []*tfprotov6.Diagnostic
		for i := range n {
			out = append(out, errAt(at(i), summary))
		}
		return out
	}
	regionAt := func(i int) *tftypes.AttributePath { return regions.WithElementKeyInt(i) }
	discountAt := func(i int) *tftypes.AttributePath {
		return tftypes.NewAttributePath().WithAttributeName("discounts").WithElementKeyString(fmt.Sprint("c", i))
	}
	noAttr := func(int) *tftypes.AttributePath { return nil }

	tests := []struct {
		name string
		in   []*tfprotov6.Diagnostic
		// want lists the summaries out, in order.
		want []string
		// count is the detail's start of the count diagnostic, if any.
		count string
	}{
		{"a handful is kept as is", many(5, "Unknown Region", regionAt),
			[]string{"Unknown Region", "Unknown Region", "Unknown Region", "Unknown Region", "Unknown Region"}, ""},
		{"10,000 list elements: five, then a count on the attribute", many(10000, "Unknown Region", regionAt),
			[]string{"Unknown Region", "Unknown Region", "Unknown Region", "Unknown Region", "Unknown Region", "9,995 More Errors"},
			"constraints.regions has 9,995 more errors than the 5 shown above, not listed one by one: 9,995 Unknown Region."},
		{"map values and another attribute: each summarised on its own",
			append(append(many(7, "Invalid Number", discountAt), errAt(tftypes.NewAttributePath().WithAttributeName("top"), "Invalid Top")),
				many(6, "Duplicate List Element", regionAt)...),
			[]string{"Invalid Number", "Invalid Number", "Invalid Number", "Invalid Number", "Invalid Number", "2 More Errors",
				"Invalid Top", "Duplicate List Element", "Duplicate List Element", "Duplicate List Element", "Duplicate List Element",
				"Duplicate List Element", "1 More Error"}, "discounts has 2 more errors"},
		{"without an attribute: grouped by summary", append(many(8, "Unknown Cloud", noAttr), many(1, "Other", noAttr)...),
			[]string{"Unknown Cloud", "Unknown Cloud", "Unknown Cloud", "Unknown Cloud", "Unknown Cloud", "3 More Errors", "Other"},
			"this configuration has 3 more errors"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := summarizeDiagnostics(tc.in)
			var got []string
			for _, d := range out {
				got = append(got, d.Summary)
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Fatalf("summaries:\n got %q\nwant %q", got, tc.want)
			}
			if tc.count == "" {
				return
			}
			var count *tfprotov6.Diagnostic
			for _, d := range out {
				if strings.HasSuffix(d.Summary, "More Errors") {
					count = d
					break
				}
			}
			if !strings.HasPrefix(count.Detail, tc.count) {
				t.Errorf("count detail: %q, want it to start with %q", count.Detail, tc.count)
			}
			if tc.in[0].Attribute != nil && count.Attribute.String() != attributeOnly(tc.in[0].Attribute).String() {
				t.Errorf("count attribute: %s, want the attribute without element steps", count.Attribute)
			}
		})
	}
}
