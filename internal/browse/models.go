// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package browse

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/inputerr"
	"github.com/gpuplan/terraform-provider-gpu/internal/numfmt"
	"github.com/gpuplan/terraform-provider-gpu/internal/textable"
)

// ModelFilter selects model presets; a zero field selects everything.
type ModelFilter struct {
	// IDs are preset names as users write them (ID, alias, Hugging Face
	// ID); each must name a preset. The result follows their order.
	IDs []string
	// MaxParametersB and MinContextTokens bound the total size and the
	// context window.
	MaxParametersB   float64
	MinContextTokens int
	// Licenses keeps presets under one of these licences, any case.
	Licenses []string
	// MixtureOfExperts, when set, keeps only MoE (true) or dense (false)
	// presets.
	MixtureOfExperts *bool
}

// Models returns the presets f selects: in the order of f.IDs when given,
// else sorted by ID. An unknown ID or licence is an error on ids[i] or
// licenses[i] with the closest names.
func Models(p *catalog.ModelPresets, f ModelFilter) ([]*catalog.ModelPreset, inputerr.List) {
	var errs inputerr.List
	list := p.All()
	if f.IDs != nil {
		list = list[:0]
		for i, name := range f.IDs {
			m, ok := p.Lookup(name)
			if !ok {
				errs.AddLazy(inputerr.Root("ids").Index(i), "Unknown Model", func() string {
					return fmt.Sprintf("ids[%d] = %s is not a model preset ID or alias; %s. Presets: %s.",
						i, catalog.QuoteName(name), p.UnknownModel(name), catalog.QuoteList(p.IDs()))
				})
				continue
			}
			if !slices.Contains(list, m) {
				list = append(list, m)
			}
		}
	}
	licenses := Licenses(p)
	for i, l := range f.Licenses {
		if !slices.Contains(licenses, strings.ToLower(strings.TrimSpace(l))) {
			errs.AddLazy(inputerr.Root("licenses").Index(i), "Unknown License", func() string {
				return fmt.Sprintf("licenses[%d] = %s is not the licence of a preset. Closest: %s. Licences: %s.",
					i, catalog.QuoteName(l), catalog.QuoteList(catalog.Closest(l, licenses, 2)), catalog.QuoteList(licenses))
			})
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return slices.DeleteFunc(list, func(m *catalog.ModelPreset) bool { return !f.keeps(m) }), nil
}

func (f ModelFilter) keeps(m *catalog.ModelPreset) bool {
	switch {
	case f.MaxParametersB > 0 && m.TotalParametersB > f.MaxParametersB:
		return false
	case m.MaxContextTokens < f.MinContextTokens:
		return false
	case f.MixtureOfExperts != nil && m.IsMoE() != *f.MixtureOfExperts:
		return false
	case f.Licenses != nil && !slices.ContainsFunc(f.Licenses, func(l string) bool { return strings.EqualFold(strings.TrimSpace(l), m.License) }):
		return false
	}
	return true
}

// Licenses lists the licences of the presets, sorted, each once.
func Licenses(p *catalog.ModelPresets) []string {
	var out []string
	for _, m := range p.All() {
		if m.License != "" && !slices.Contains(out, m.License) {
			out = append(out, m.License)
		}
	}
	slices.Sort(out)
	return out
}

// ModelsSummary renders presets as a table: ID, total and active
// parameters, context window, attention, native weight precision, licence.
func ModelsSummary(ms []*catalog.ModelPreset) string {
	t := textable.New(
		textable.Column{Header: "MODEL"}, textable.Column{Header: "PARAMS (B)", Align: textable.Right},
		textable.Column{Header: "ACTIVE (B)", Align: textable.Right}, textable.Column{Header: "CONTEXT", Align: textable.Right},
		textable.Column{Header: "ATTENTION"}, textable.Column{Header: "WEIGHTS"}, textable.Column{Header: "LICENSE"})
	for _, m := range ms {
		t.Row(m.ID, numfmt.Trim(m.TotalParametersB, 2), numfmt.Trim(m.ActiveParameters(), 2), contextWindow(m.MaxContextTokens),
			m.Attention, m.WeightPrecision, m.License)
	}
	return fmt.Sprintf("%s\n%s", countOf(len(ms), "model preset"), t.String())
}

// contextWindow renders a token count as people quote context windows:
// 131072 is "128K", 1048576 "1M", 40960 "40K".
func contextWindow(tokens int) string {
	switch {
	case tokens >= 1<<20 && tokens%(1<<20) == 0:
		return fmt.Sprintf("%dM", tokens>>20)
	case tokens >= 1<<10 && tokens%(1<<10) == 0:
		return fmt.Sprintf("%dK", tokens>>10)
	}
	return numfmt.Int(float64(tokens))
}

// countOf is "1 model preset" or "3 model presets".
func countOf(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
