// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package pricelist_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog/pricelist"
)

// TestExtract: the results of the three file formats survive an extract
// unchanged and in order; ReadAll reads an extract as its results and any
// other file as one; an extract that breaks a reader's guarantees is
// refused with the result and price named.
func TestExtract(t *testing.T) {
	c := builtin(t)
	var results []*pricelist.Result
	for _, f := range []string{"testdata/aws_ec2_offer.json", "testdata/azure_retail_prices.json", "testdata/gcp_billing_skus.json"} {
		rs, err := pricelist.ReadAll(f, c)
		if err != nil || len(rs) != 1 {
			t.Fatalf("%s: %v results, %v", f, len(rs), err)
		}
		results = append(results, rs[0])
	}
	data, err := pricelist.WriteExtract(results)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "refresh.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	back, err := pricelist.ReadAll(path, c)
	if err != nil {
		t.Fatal(err)
	}
	for _, rs := range [][]*pricelist.Result{back, results} {
		for _, r := range rs { // an empty list is not written
			if len(r.Notes) == 0 {
				r.Notes = nil
			}
			if len(r.Unknown) == 0 {
				r.Unknown = nil
			}
		}
	}
	if !reflect.DeepEqual(back, results) {
		t.Errorf("the extract changed the results:\n%+v\nwant\n%+v", back[0], results[0])
	}
	again, _ := pricelist.WriteExtract(back)
	if string(again) != string(data) {
		t.Error("writing the same results twice differs")
	}
	for _, tc := range []struct{ old, new, want string }{
		{`"price_extract_version": 1`, `"price_extract_version": 2`, "price_extract_version 2: this build reads version 1"},
		{`"instance_type": "p5.48xlarge"`, `"instance_type": "p9.96xlarge"`, "results[0] (aws_ec2_offer.json): prices[1]: p9.96xlarge is not a aws instance type of the catalog"},
		{`"on_demand_usd": 0.8048`, `"on_demand_usd": -1`, "prices must be finite, on-demand positive"},
		{`"date": "2026-08-01"`, `"date": "August"`, `needs a cloud, a source and a date as YYYY-MM-DD (date "August")`},
	} {
		bad := strings.Replace(string(data), tc.old, tc.new, 1)
		if bad == string(data) {
			t.Fatalf("the extract lacks %s", tc.old)
		}
		if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := pricelist.ReadAll(path, c); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.new, err, tc.want)
		}
	}
}
