// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// configureWith runs the provider's Configure with the given attribute
// values (others null) and a clock fixed at now.
func configureWith(t testing.TB, now time.Time, values map[string]tftypes.Value) diag.Diagnostics {
	t.Helper()
	ctx := context.Background()
	p := &gpuProvider{version: "test", now: func() time.Time { return now }, builtin: catalog.Builtin}
	var sresp provider.SchemaResponse
	p.Schema(ctx, provider.SchemaRequest{}, &sresp)
	objType, ok := sresp.Schema.Type().TerraformType(ctx).(tftypes.Object)
	if !ok {
		t.Fatal("provider schema is not an object")
	}
	vals := map[string]tftypes.Value{}
	for name, typ := range objType.AttributeTypes {
		if v, ok := values[name]; ok {
			vals[name] = v
		} else {
			vals[name] = tftypes.NewValue(typ, nil)
		}
	}
	req := provider.ConfigureRequest{Config: tfsdk.Config{Schema: sresp.Schema, Raw: tftypes.NewValue(objType, vals)}}
	var resp provider.ConfigureResponse
	p.Configure(ctx, req, &resp)
	return resp.Diagnostics
}

func TestConfigureCatalogAge(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	maxAge := map[string]tftypes.Value{"max_catalog_age_days": tftypes.NewValue(tftypes.Number, big.NewFloat(90))}
	tests := []struct {
		name     string
		now      time.Time
		wantWarn bool
	}{
		{"fresh", cat.Date.AddDate(0, 0, 30), false},
		{"exactly at the limit", cat.Date.AddDate(0, 0, 90), false},
		{"stale", cat.Date.AddDate(0, 0, 91), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			diags := configureWith(t, tt.now, maxAge)
			if diags.HasError() {
				t.Fatalf("unexpected errors: %v", diags)
			}
			warned := false
			for _, d := range diags.Warnings() {
				if strings.Contains(d.Summary(), "max_catalog_age_days") && strings.Contains(d.Detail(), cat.Date.Format(time.DateOnly)) {
					warned = true
				}
			}
			if warned != tt.wantWarn {
				t.Fatalf("warning = %v, want %v (diags: %v)", warned, tt.wantWarn, diags)
			}
		})
	}
	// Without max_catalog_age_days there is never a warning.
	if diags := configureWith(t, cat.Date.AddDate(10, 0, 0), nil); diags.WarningsCount() != 0 || diags.HasError() {
		t.Fatalf("unexpected diagnostics without max_catalog_age_days: %v", diags)
	}
}
