// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package catalog_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// TestCountryCode: codes, names and aliases in any case and punctuation
// read as the ISO alpha-2 code; anything else comes back upper-cased.
func TestCountryCode(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"DE", "DE"}, {"de", "DE"}, {" DEU ", "DE"}, {"Germany", "DE"}, {"germany", "DE"},
		{"Federal Republic of Germany", "DE"}, {"UK", "GB"}, {"United Kingdom", "GB"}, {"Great Britain", "GB"},
		{"EL", "GR"}, {"USA", "US"}, {"U.S.", "US"}, {"United States of America", "US"}, {"the Netherlands", "NL"},
		{"South Korea", "KR"}, {"Korea, Republic of", "KR"}, {"Türkiye", "TR"}, {"Turkiye", "TR"}, {"Turkey", "TR"},
		{"Côte d'Ivoire", "CI"}, {"Cote dIvoire", "CI"}, {"Taiwan", "TW"}, {"Vietnam", "VN"}, {"Viet Nam", "VN"},
		{"xx", "XX"}, {"Germny", "GERMNY"},
	} {
		if got := catalog.CountryCode(tc.in); got != tc.want {
			t.Errorf("CountryCode(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestRegionCountriesAreKnown: every region's country is in the country
// table, so its name can be shown and matched.
func TestRegionCountriesAreKnown(t *testing.T) {
	cat := builtin(t)
	for _, r := range cat.Regions {
		if catalog.CountryName(r.Country) == r.Country {
			t.Errorf("%s/%s: country %q is not in %s", r.Cloud, r.ID, r.Country, catalog.FileCountries)
		}
	}
}

// TestUnknownCountry: a real country without a region says so; a typo
// gets the closest countries with a region, by name or code.
func TestUnknownCountry(t *testing.T) {
	codes := []string{"AE", "AU", "DE", "FR", "MY"}
	for _, tc := range []struct{ name, want string }{
		{"Germny", `"Germny" is not a country code or name. Closest: "DE" (Germany), `},
		{"Frnace", `Closest: "FR" (France)`},
		{"Portugal", `"Portugal" is Portugal (PT), which has no region in the catalog. Countries with regions: "AE" (United Arab Emirates), "AU" (Australia), "DE" (Germany)`},
		{"PRT", `is Portugal (PT), which has no region`},
	} {
		got := catalog.UnknownCountry("countries[0]", tc.name, codes)
		if !strings.Contains(got, tc.want) {
			t.Errorf("UnknownCountry(%q) = %s\nwant it to contain %s", tc.name, got, tc.want)
		}
	}
}

// TestLoadCountriesRejectsSharedNames: two countries may not share a name.
func TestLoadCountriesRejectsSharedNames(t *testing.T) {
	fsys := fstest.MapFS{catalog.FileCountries: {Data: []byte("code,alpha3,name,other_names,aliases\n" +
		"DE,DEU,Germany,,\nAT,AUT,Austria,,Germany\n")}}
	if _, err := catalog.LoadCountries(fsys); err == nil || !strings.Contains(err.Error(), `"Germany" is already a name of DE`) {
		t.Errorf("LoadCountries = %v, want the shared name named", err)
	}
}

// TestGeographiesCoverRegions: catalog.Geographies (the documented list)
// names every geography a built-in region has, and no other.
func TestGeographiesCoverRegions(t *testing.T) {
	used := map[string]bool{}
	for _, r := range builtin(t).Regions {
		used[r.Geography] = true
	}
	documented := map[string]bool{}
	for _, id := range catalog.GeographyIDs() {
		documented[id] = true
		if !used[id] {
			t.Errorf("catalog.Geographies lists %q, which no region has", id)
		}
	}
	for g := range used {
		if !documented[g] {
			t.Errorf("regions use geography %q, which catalog.Geographies does not document", g)
		}
	}
}
