// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/cost"
	"github.com/gpuplan/terraform-provider-gpu/internal/planner"
)

// TestSchemaNumbersFromData: the policy and cost-model numbers the
// registry docs quote are the data files' (planner_policy.json,
// cost_model.json), not copies that drift when the data changes.
func TestSchemaNumbersFromData(t *testing.T) {
	t.Parallel()
	pol, err := planner.BuiltinPolicy()
	if err != nil {
		t.Fatal(err)
	}
	cm, err := cost.DefaultModel()
	if err != nil {
		t.Fatal(err)
	}
	var resp datasource.SchemaResponse
	(&recommendationDataSource{}).Schema(context.Background(), datasource.SchemaRequest{}, &resp)
	doc := resp.Schema.MarkdownDescription
	w := pol.BalancedWeights
	n := catalog.FormatNumber
	for _, want := range []string{
		n(w.Cost) + "·cost/best cost + " + n(w.Time) + "·time/best time + " + n(w.Carbon) + "·CO2e/best CO2e",
		"(default " + n(float64(pol.DefaultMaxNodes)) + ")",
		"λ × " + n(cm.ServingReplacementHours) + " h to replace one",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("gpu_recommendation's description lacks %q", want)
		}
	}
	(&tcoDataSource{}).Schema(context.Background(), datasource.SchemaRequest{}, &resp)
	energy := resp.Schema.Attributes["energy_kwh"].GetMarkdownDescription()
	if want := "load factor " + n(cm.LoadFactor[cm.DefaultWorkload]) + " for " + cm.DefaultWorkload + " + " +
		n(cm.HostPowerPerGPUTDP) + " for the host"; !strings.Contains(energy, want) {
		t.Errorf("gpu_tco's energy_kwh lacks %q:\n%s", want, energy)
	}
}

// BenchmarkProviderSchema: the whole provider schema, as Terraform asks
// for it at every plugin start (the data files are parsed once per
// process; the first iteration pays for it).
func BenchmarkProviderSchema(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		srv, err := providerserver.NewProtocol6WithError(New("bench")())()
		if err != nil {
			b.Fatal(err)
		}
		resp, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
		if err != nil || len(resp.Diagnostics) > 0 {
			b.Fatalf("%v %v", err, resp.Diagnostics)
		}
	}
}
