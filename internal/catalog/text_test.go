// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package catalog_test

import (
	"strings"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

func TestNameProblem(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string // want: "" or a part of the problem
	}{
		{"plain", "p5.48xlarge", ""},
		{"accented, composed", "caf\u00e9", ""},
		{"CJK", "华东1", ""},
		{"invalid UTF-8", "a\xffb", "not valid UTF-8"},
		{"replacement character", "a\ufffdb", "U+FFFD"},
		{"newline", "a\nb", "control character U+000A"},
		{"NUL", "a\x00b", "control character U+0000"},
		{"right-to-left override", "aws\u202e1-tsae-su", "U+202E, a bidirectional control character"},
		{"left-to-right mark", "a\u200eb", "U+200E, a bidirectional control character"},
		{"isolate", "a\u2067b", "U+2067, a bidirectional control character"},
		{"zero-width space", "a\u200bb", "U+200B, an invisible formatting character"},
		{"byte-order mark", "\ufeffaws", "U+FEFF, an invisible formatting character"},
		{"decomposed accent", "cafe\u0301", `normalization form C (NFC): write it as "caf\u00e9"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := catalog.NameProblem(tc.in)
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("NameProblem(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// One case rule: every lookup by name ignores case and surrounding spaces,
// and returns the catalog's entry, spelled as the catalog spells it.
func TestLookupsIgnoreCase(t *testing.T) {
	c, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	if cl, ok := c.Cloud(" AWS "); !ok || cl.ID != "aws" {
		t.Errorf("Cloud(\" AWS \") = %v, %v", cl, ok)
	}
	if r, ok := c.Region("AWS", "US-EAST-1"); !ok || r.ID != "us-east-1" {
		t.Errorf("Region(AWS, US-EAST-1) = %v, %v", r, ok)
	}
	if r, ok := c.Region("runpod", "eu-cz-1"); !ok || r.ID != "EU-CZ-1" {
		t.Errorf("Region(runpod, eu-cz-1) = %v, %v: an upper-case region found in lower case", r, ok)
	}
	if o, ok := c.Offer("Aws", "P5.48XLARGE", "Us-East-1"); !ok || o.InstanceType != "p5.48xlarge" {
		t.Errorf("Offer in another case = %v, %v", o, ok)
	}
	if got, want := len(c.OffersOf("AWS", "P5.48XLARGE")), len(c.OffersOf("aws", "p5.48xlarge")); got != want || got == 0 {
		t.Errorf("OffersOf in another case: %d offers, want %d", got, want)
	}
	var azure string
	for _, it := range c.InstanceTypes("azure") {
		if strings.ToLower(it) != it {
			azure = it
			break
		}
	}
	if azure == "" {
		t.Fatal("fixture: no mixed-case Azure instance type")
	}
	if len(c.OffersOf("AZURE", strings.ToLower(azure))) == 0 {
		t.Errorf("OffersOf(AZURE, %q) found nothing", strings.ToLower(azure))
	}
	for _, it := range c.InstanceTypes("AZURE") {
		if len(c.OffersOf("azure", it)) == 0 {
			t.Fatalf("InstanceTypes lists %q, which has no offers", it)
		}
	}
}
