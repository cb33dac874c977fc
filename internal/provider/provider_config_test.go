// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/numfmt"
)

// configureWith runs the provider's Configure with the given attribute
// values (others null) and a clock fixed at now.
func configureWith(t testing.TB, now time.Time, values map[string]tftypes.Value) diag.Diagnostics {
	t.Helper()
	_, diags := configure(t, now, values)
	return diags
}

// configure is configureWith that also returns the provider data.
func configure(t testing.TB, now time.Time, values map[string]tftypes.Value) (*providerData, diag.Diagnostics) {
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
	data, _ := resp.DataSourceData.(*providerData)
	return data, resp.Diagnostics
}

// TestConfigureCatalogAge: prices older than 90 days (price_age.json) warn
// by default, once; max_catalog_age_days lowers the threshold and never
// raises it; with a catalog_file the catalog's date is not checked (the
// answers check the prices that decide them).
func TestConfigureCatalogAge(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	maxAge := func(days float64) map[string]tftypes.Value {
		return map[string]tftypes.Value{"max_catalog_age_days": tftypes.NewValue(tftypes.Number, big.NewFloat(days))}
	}
	overlay := filepath.Join(t.TempDir(), "prices.yaml")
	if err := os.WriteFile(overlay, []byte("offers: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	withFile := map[string]tftypes.Value{"catalog_file": tftypes.NewValue(tftypes.String, overlay)}
	tests := []struct {
		name    string
		now     time.Time
		values  map[string]tftypes.Value
		summary string // "" = no warning
	}{
		{"fresh", cat.Date.AddDate(0, 0, 30), nil, ""},
		{"exactly at the default", cat.Date.AddDate(0, 0, 90), nil, ""},
		{"past the default", cat.Date.AddDate(0, 0, 91), nil, "Prices Older Than 90 Days"},
		{"max_catalog_age_days lowers it", cat.Date.AddDate(0, 0, 31), maxAge(30), "Prices Older Than max_catalog_age_days"},
		{"within max_catalog_age_days", cat.Date.AddDate(0, 0, 30), maxAge(30), ""},
		{"max_catalog_age_days does not raise it", cat.Date.AddDate(0, 0, 91), maxAge(365), "Prices Older Than 90 Days"},
		{"catalog_file: the answers check their prices", cat.Date.AddDate(1, 0, 0), withFile, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			diags := configureWith(t, tt.now, tt.values)
			if diags.HasError() {
				t.Fatalf("unexpected errors: %v", diags)
			}
			ws := diags.Warnings()
			switch {
			case tt.summary == "" && len(ws) != 0:
				t.Fatalf("unexpected warnings: %v", ws)
			case tt.summary != "" && (len(ws) != 1 || ws[0].Summary() != tt.summary ||
				!strings.Contains(ws[0].Detail(), "dated "+cat.Date.Format(time.DateOnly)) ||
				!strings.Contains(ws[0].Detail(), "terraform-provider-gpu refresh --out prices.yaml") ||
				!strings.Contains(ws[0].Detail(), olderWords(cat, tt.now, tt.summary))):
				t.Fatalf("warnings %v, want one %q naming the date, how many prices are old and the refresh", ws, tt.summary)
			}
		})
	}
}

// TestPriceAgeOncePerPlan: the catalog's warning and the warnings of the
// prices that decide answers are one warning per plan; a price without a
// date, or a fresh one, never warns.
func TestPriceAgeOncePerPlan(t *testing.T) {
	now := time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)
	d := &providerData{age: priceAge{days: 90, now: func() time.Time { return now }}}
	var diags diag.Diagnostics
	old := catalog.PriceInfo{Basis: catalog.PriceDerived, AsOf: now.AddDate(0, 0, -368)}
	d.warnPriceAge(&diags, "The on_demand price of a b in c", "x", catalog.PriceInfo{Basis: catalog.PricePublished})
	d.warnPriceAge(&diags, "The on_demand price of a b in c", "x", catalog.PriceInfo{AsOf: now.AddDate(0, 0, -90)})
	if diags.WarningsCount() != 0 {
		t.Fatalf("warned about a price without a date or within 90 days: %v", diags)
	}
	d.warnPriceAge(&diags, "The reserved_1y price of aws p5.48xlarge in us-east-1", "this gpu_recommendation's best candidate", old)
	d.warnPriceAge(&diags, "The spot price of gcp a3 in us-central1", "this gpu_tco", old)
	cat := &catalog.Catalog{Date: now.AddDate(0, 0, -200)}
	d.warnCatalogAge(cat, &diags)
	ws := diags.Warnings()
	if len(ws) != 1 || ws[0].Summary() != "Prices Older Than 90 Days" || !strings.Contains(ws[0].Detail(),
		"The reserved_1y price of aws p5.48xlarge in us-east-1, which decided this gpu_recommendation's best candidate, is dated 2025-11-30, 368 days ago, more than 90 days") {
		t.Fatalf("warnings %v, want the first one only", ws)
	}
}

// TestConfigureUnknownArguments: a provider argument that changes answers
// and is not known at plan (wholly: an unknown element of a list or map
// counts) is an error in each object that reads it, never a default (every
// cloud, no discount, no carbon price) nor a Value Conversion Error; one
// it does not read is no error there.
func TestConfigureUnknownArguments(t *testing.T) {
	unknownList := tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, []tftypes.Value{
		tftypes.NewValue(tftypes.String, "aws"), tftypes.NewValue(tftypes.String, tftypes.UnknownValue)})
	unknownMapValue := tftypes.NewValue(tftypes.Map{ElementType: tftypes.Number}, map[string]tftypes.Value{
		"aws": tftypes.NewValue(tftypes.Number, big.NewFloat(0.1)), "gcp": tftypes.NewValue(tftypes.Number, tftypes.UnknownValue)})
	for _, tc := range []struct {
		name   string
		values map[string]tftypes.Value
		unread []string // arguments a reader of the others does not see
		want   string   // the argument named in the error
	}{
		{"clouds with an unknown element", map[string]tftypes.Value{"clouds": unknownList}, []string{argDiscounts, argCarbonPrice}, "clouds"},
		{"discounts with an unknown value", map[string]tftypes.Value{"discounts": unknownMapValue}, []string{argClouds, argCarbonPrice}, "discounts"},
		{"carbon price unknown", map[string]tftypes.Value{"carbon_price_usd_per_tonne": tftypes.NewValue(tftypes.Number, tftypes.UnknownValue)},
			[]string{argClouds, argDiscounts}, "carbon_price_usd_per_tonne"},
		{"catalog_file unknown", map[string]tftypes.Value{"catalog_file": tftypes.NewValue(tftypes.String, tftypes.UnknownValue)}, nil, "catalog_file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, diags := configure(t, time.Now(), tc.values)
			if diags.HasError() || data == nil {
				t.Fatalf("Configure: %v", diags)
			}
			var reads diag.Diagnostics
			if data.catalogKnown(&reads, argClouds, argDiscounts, argCarbonPrice) || reads.ErrorsCount() != 1 ||
				!strings.Contains(reads.Errors()[0].Detail(), tc.want+" is not known until apply") {
				t.Errorf("a reader of every argument: %v", reads)
			}
			if len(tc.unread) > 0 {
				var others diag.Diagnostics
				if !data.catalogKnown(&others, tc.unread...) || others.HasError() {
					t.Errorf("a reader of %v only: %v", tc.unread, others)
				}
			}
		})
	}
}

// olderWords is the count clause the catalog's age warning must carry:
// the number of prices older than the threshold, counted here from the
// offers themselves.
func olderWords(cat *catalog.Catalog, now time.Time, summary string) string {
	days := 90
	if strings.HasSuffix(summary, "max_catalog_age_days") {
		days = 30
	}
	old, dated := 0, 0
	for _, o := range cat.Offers {
		for _, pm := range catalog.InstancePricingModels {
			if _, ok := o.Price(pm); ok && !o.PriceInfos.Of(pm).AsOf.IsZero() {
				dated++
				if now.Sub(o.PriceInfos.Of(pm).AsOf) >= time.Duration(days+1)*24*time.Hour {
					old++
				}
			}
		}
	}
	for _, s := range cat.Serverless {
		if !s.PriceInfo.AsOf.IsZero() {
			dated++
			if now.Sub(s.PriceInfo.AsOf) >= time.Duration(days+1)*24*time.Hour {
				old++
			}
		}
	}
	return fmt.Sprintf("%s of its %s prices", numfmt.Thousands(float64(old), 0), numfmt.Thousands(float64(dated), 0))
}
