// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/gpuplan/terraform-provider-gpu/internal/inputerr"
	"github.com/gpuplan/terraform-provider-gpu/internal/numfmt"
)

// Summarizing wraps the provider's protocol server (the framework's, made
// by providerserver.NewProtocol6; main serves it and the acceptance tests
// start it) so that the diagnostics of every answer are summarised
// (summarizeDiagnostics): a list of 10,000 mistakes (built with a for
// expression, say) gets a handful of diagnostics and a count, not 10,000
// that Terraform takes many minutes to print. It is the one place that
// sees every diagnostic, the framework's own (a validator of each list
// element) included. The framework's providerserver package is left to
// main: it links the gRPC server, and this package links no network code
// (TestProviderImportsNoNetwork).
func Summarizing(s tfprotov6.ProviderServer) tfprotov6.ProviderServer {
	return summarizingServer{s}
}

// summarizingServer summarises the diagnostics of the answers that carry
// the user's configuration; every other call goes to the framework as is.
type summarizingServer struct{ tfprotov6.ProviderServer }

func (s summarizingServer) ValidateProviderConfig(ctx context.Context, req *tfprotov6.ValidateProviderConfigRequest) (*tfprotov6.ValidateProviderConfigResponse, error) {
	resp, err := s.ProviderServer.ValidateProviderConfig(ctx, req)
	if resp != nil {
		resp.Diagnostics = summarizeDiagnostics(resp.Diagnostics)
	}
	return resp, err
}

func (s summarizingServer) ConfigureProvider(ctx context.Context, req *tfprotov6.ConfigureProviderRequest) (*tfprotov6.ConfigureProviderResponse, error) {
	resp, err := s.ProviderServer.ConfigureProvider(ctx, req)
	if resp != nil {
		resp.Diagnostics = summarizeDiagnostics(resp.Diagnostics)
	}
	return resp, err
}

func (s summarizingServer) ValidateResourceConfig(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	resp, err := s.ProviderServer.ValidateResourceConfig(ctx, req)
	if resp != nil {
		resp.Diagnostics = summarizeDiagnostics(resp.Diagnostics)
	}
	return resp, err
}

func (s summarizingServer) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	resp, err := s.ProviderServer.PlanResourceChange(ctx, req)
	if resp != nil {
		resp.Diagnostics = summarizeDiagnostics(resp.Diagnostics)
	}
	return resp, err
}

func (s summarizingServer) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	resp, err := s.ProviderServer.ApplyResourceChange(ctx, req)
	if resp != nil {
		resp.Diagnostics = summarizeDiagnostics(resp.Diagnostics)
	}
	return resp, err
}

func (s summarizingServer) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	resp, err := s.ProviderServer.ReadResource(ctx, req)
	if resp != nil {
		resp.Diagnostics = summarizeDiagnostics(resp.Diagnostics)
	}
	return resp, err
}

func (s summarizingServer) ImportResourceState(ctx context.Context, req *tfprotov6.ImportResourceStateRequest) (*tfprotov6.ImportResourceStateResponse, error) {
	resp, err := s.ProviderServer.ImportResourceState(ctx, req)
	if resp != nil {
		resp.Diagnostics = summarizeDiagnostics(resp.Diagnostics)
	}
	return resp, err
}

func (s summarizingServer) ValidateDataResourceConfig(ctx context.Context, req *tfprotov6.ValidateDataResourceConfigRequest) (*tfprotov6.ValidateDataResourceConfigResponse, error) {
	resp, err := s.ProviderServer.ValidateDataResourceConfig(ctx, req)
	if resp != nil {
		resp.Diagnostics = summarizeDiagnostics(resp.Diagnostics)
	}
	return resp, err
}

func (s summarizingServer) ReadDataSource(ctx context.Context, req *tfprotov6.ReadDataSourceRequest) (*tfprotov6.ReadDataSourceResponse, error) {
	resp, err := s.ProviderServer.ReadDataSource(ctx, req)
	if resp != nil {
		resp.Diagnostics = summarizeDiagnostics(resp.Diagnostics)
	}
	return resp, err
}

// maxDiagnosticsPerAttribute is the most diagnostics of one severity an
// answer shows for one attribute (its list elements and map values
// together); the rest are counted in one more diagnostic.
const maxDiagnosticsPerAttribute = inputerr.MaxShown

// lazyDetail is detail() for the first maxDiagnosticsPerAttribute
// problems of an attribute a loop counts in n, and a short detail naming
// at past them: those are only counted, so their "Closest:" suggestions
// are not searched for.
func lazyDetail(n *int, at string, detail func() string) string {
	if *n++; *n > maxDiagnosticsPerAttribute {
		return at + ": not known."
	}
	return detail()
}

// diagnosticGroup is what summarised diagnostics share: a severity and an
// attribute without its list indexes and map keys, or, without an
// attribute, a summary.
type diagnosticGroup struct {
	severity  tfprotov6.DiagnosticSeverity
	attribute string
	summary   string
}

// summarizeDiagnostics keeps the first maxDiagnosticsPerAttribute
// diagnostics of each group, in order, and puts after the last one kept a
// diagnostic that counts the others by summary. Diagnostics at most that
// many per group come back unchanged.
func summarizeDiagnostics(diags []*tfprotov6.Diagnostic) []*tfprotov6.Diagnostic {
	if len(diags) <= maxDiagnosticsPerAttribute {
		return diags
	}
	counts := map[diagnosticGroup]int{}
	for _, d := range diags {
		counts[groupOf(d)]++
	}
	if !slices.ContainsFunc(slices.Collect(maps.Values(counts)), func(n int) bool { return n > maxDiagnosticsPerAttribute }) {
		return diags
	}
	seen := map[diagnosticGroup]int{}
	left := map[diagnosticGroup]map[string]int{}
	countAt := map[int]diagnosticGroup{} // index in out of each group's count
	out := make([]*tfprotov6.Diagnostic, 0, len(counts)*(maxDiagnosticsPerAttribute+1))
	for _, d := range diags {
		g := groupOf(d)
		seen[g]++
		if seen[g] > maxDiagnosticsPerAttribute {
			left[g][d.Summary]++
			continue
		}
		out = append(out, d)
		if seen[g] == maxDiagnosticsPerAttribute && counts[g] > maxDiagnosticsPerAttribute {
			countAt[len(out)] = g
			out = append(out, nil)
			left[g] = map[string]int{}
		}
	}
	for i, g := range countAt {
		out[i] = moreDiagnostic(out[i-1], g, left[g])
	}
	return out
}

// moreDiagnostic counts the diagnostics of a group left out after last,
// the last one shown.
func moreDiagnostic(last *tfprotov6.Diagnostic, g diagnosticGroup, left map[string]int) *tfprotov6.Diagnostic {
	total := 0
	kinds := make([]string, 0, len(left))
	for _, summary := range slices.Sorted(maps.Keys(left)) {
		total += left[summary]
		kinds = append(kinds, numfmt.Int(float64(left[summary]))+" "+summary)
	}
	what := "error"
	if g.severity == tfprotov6.DiagnosticSeverityWarning {
		what = "warning"
	}
	if total > 1 {
		what += "s"
	}
	where := g.attribute
	if where == "" {
		where = "this configuration"
	}
	d := &tfprotov6.Diagnostic{
		Severity: g.severity,
		Summary:  numfmt.Int(float64(total)) + " More " + strings.ToUpper(what[:1]) + what[1:],
		Detail: fmt.Sprintf("%s has %s more %s than the %d shown above, not listed one by one: %s. Fix the ones shown "+
			"(the others are likely the same mistake) and plan again.",
			where, numfmt.Int(float64(total)), what, maxDiagnosticsPerAttribute, strings.Join(kinds, ", ")),
	}
	if last.Attribute != nil {
		d.Attribute = attributeOnly(last.Attribute)
	}
	return d
}

// groupOf is the group a diagnostic is summarised in.
func groupOf(d *tfprotov6.Diagnostic) diagnosticGroup {
	if d.Attribute == nil || len(d.Attribute.Steps()) == 0 {
		return diagnosticGroup{severity: d.Severity, summary: d.Summary}
	}
	return diagnosticGroup{severity: d.Severity, attribute: attributeName(d.Attribute)}
}

// attributeOnly is p without its list indexes, map keys and set values.
func attributeOnly(p *tftypes.AttributePath) *tftypes.AttributePath {
	var steps []tftypes.AttributePathStep
	for _, s := range p.Steps() {
		if name, ok := s.(tftypes.AttributeName); ok {
			steps = append(steps, name)
		}
	}
	return tftypes.NewAttributePathWithSteps(steps)
}

// attributeName is the dotted name of p's attributes: constraints.regions.
func attributeName(p *tftypes.AttributePath) string {
	var names []string
	for _, s := range p.Steps() {
		if name, ok := s.(tftypes.AttributeName); ok {
			names = append(names, string(name))
		}
	}
	return strings.Join(names, ".")
}
