// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner

import "testing"

// TestBeforeTieBreaks: the documented order of candidates of equal score:
// lower CO2e as shown (unknown after every known figure), then a region
// in constraints.near (geography or country), then arrival order (name).
func TestBeforeTieBreaks(t *testing.T) {
	de := &offerInfo{geo: "eu", country: "DE"}
	us := &offerInfo{geo: "us", country: "US"}
	placed := &offerInfo{} // a serverless worker placed by its platform
	for _, tc := range []struct {
		name         string
		geo, country string
		a, b         priced
		want         bool
	}{
		{"lower score first", "", "", priced{score: 1, co2: 9, co2Known: true, offer: us}, priced{score: 2, offer: de}, true},
		{"higher score never first", "", "", priced{score: 2, offer: de}, priced{score: 1, offer: us}, false},
		{"tie: lower CO2e first", "", "", priced{score: 1, co2: 5, co2Known: true, offer: us}, priced{score: 1, co2: 6, co2Known: true, offer: de}, true},
		{"tie: CO2e equal as shown", "", "", priced{score: 1, co2: 5.001, co2Known: true, offer: us}, priced{score: 1, co2: 5.002, co2Known: true, offer: de}, false},
		{"tie: known before unknown", "", "", priced{score: 1, co2: 500, co2Known: true, offer: us}, priced{score: 1, offer: de}, true},
		{"tie: unknown never before known", "", "", priced{score: 1, offer: de}, priced{score: 1, co2: 500, co2Known: true, offer: us}, false},
		{"tie: near geography first", "eu", "", priced{score: 1, co2: 5, co2Known: true, offer: de}, priced{score: 1, co2: 5, co2Known: true, offer: us}, true},
		{"tie: near country first", "", "US", priced{score: 1, offer: us}, priced{score: 1, offer: de}, true},
		{"tie: not near keeps its place", "", "US", priced{score: 1, offer: de}, priced{score: 1, offer: us}, false},
		{"tie: a placed worker is near nothing", "eu", "", priced{score: 1, offer: placed}, priced{score: 1, offer: de}, false},
		{"full tie keeps arrival order", "", "", priced{score: 1, offer: us}, priced{score: 1, offer: us}, false},
	} {
		r := &run{f: filters{nearGeo: tc.geo, nearCountry: tc.country}}
		if got := r.before(&tc.a, &tc.b); got != tc.want {
			t.Errorf("%s: before = %v, want %v", tc.name, got, tc.want)
		}
	}
}
