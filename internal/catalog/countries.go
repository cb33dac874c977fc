// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package catalog

import (
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strings"
)

// FileCountries is the country table inside the data folder: every ISO
// 3166-1 country with its alpha-3 code, names and common aliases. It is
// hand-maintained, not generated (data/SOURCES.md says where it comes
// from), and read by Countries, not by Load: regions name their country by
// its alpha-2 code, and users may write a name instead ("Germany").
const FileCountries = "countries.csv"

// countryHeader is the header of FileCountries.
var countryHeader = []string{"code", "alpha3", "name", "other_names", "aliases"}

// Country is one ISO 3166-1 country.
type Country struct {
	Code       string   // alpha-2, upper case: "DE"
	Alpha3     string   // alpha-3: "DEU"
	Name       string   // ISO short name: "Germany"
	OtherNames []string // ISO common and official names: "Federal Republic of Germany"
	Aliases    []string // names and codes people also write: "UK", "USA", "Holland"
}

// Countries is the loaded country table, indexed by every code, name and
// alias in their folded form (countryKey). It is immutable after loading.
type Countries struct {
	list  []*Country // sorted by code
	byKey map[string]*Country
}

var builtinCountries = builtinData[*Countries]{what: "built-in countries", load: LoadCountries}

// BuiltinCountries returns the embedded country table, parsed on first use.
// The result is shared: callers must not modify it.
func BuiltinCountries() (*Countries, error) { return builtinCountries.get() }

var countryCodePattern = regexp.MustCompile(`^[A-Z]{2}$`)

// LoadCountries reads FileCountries at the root of fsys. Two countries
// that share a code, name or alias (after folding) are an error naming
// both.
func LoadCountries(fsys fs.FS) (*Countries, error) {
	cs := &Countries{byKey: map[string]*Country{}}
	err := csvRows(fsys, FileCountries, countryHeader, nil, nil, func(_ int, rec []string) error {
		c := &Country{Code: rec[0], Alpha3: rec[1], Name: rec[2], OtherNames: splitList(rec[3]), Aliases: splitList(rec[4])}
		if !countryCodePattern.MatchString(c.Code) || len(c.Alpha3) != 3 || c.Name == "" {
			return fmt.Errorf("want an upper-case alpha-2 code, an alpha-3 code and a name, got %q, %q, %q", c.Code, c.Alpha3, c.Name)
		}
		for _, n := range c.names() {
			k := countryKey(n)
			if other, dup := cs.byKey[k]; dup && other != c {
				return fmt.Errorf("%s: %q is already a name of %s", c.Code, n, other.Code)
			}
			cs.byKey[k] = c
		}
		cs.list = append(cs.list, c)
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(cs.list, func(a, b *Country) int { return strings.Compare(a.Code, b.Code) })
	return cs, nil
}

// names lists every string that names the country: codes, names, aliases.
func (c *Country) names() []string {
	out := append([]string{c.Code, c.Alpha3, c.Name}, c.OtherNames...)
	return append(out, c.Aliases...)
}

func splitList(s string) []string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	out := strings.Split(s, ";")
	for i := range out {
		out[i] = strings.TrimSpace(out[i])
	}
	return out
}

// diacritics folds the accented letters of ISO country names ("Türkiye",
// "Côte d'Ivoire", "Åland Islands", "Curaçao", "Réunion") to plain ones,
// so a name typed without them matches.
var diacritics = strings.NewReplacer("á", "a", "à", "a", "â", "a", "ä", "a", "ã", "a", "å", "a",
	"é", "e", "è", "e", "ê", "e", "ë", "e", "í", "i", "î", "i", "ï", "i", "ó", "o", "ô", "o", "ö", "o",
	"õ", "o", "ú", "u", "û", "u", "ü", "u", "ç", "c", "ñ", "n")

// countryKey folds a country name or code for matching: lower case,
// accents removed, a leading "the" dropped and everything but letters and
// digits removed ("the Netherlands", "U.S.", "Côte d'Ivoire").
func countryKey(s string) string {
	s = diacritics.Replace(strings.ToLower(strings.TrimSpace(s)))
	s = strings.TrimPrefix(s, "the ")
	var b strings.Builder
	for _, r := range s {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Lookup finds a country by alpha-2 or alpha-3 code, name or alias, in any
// case and punctuation ("de", "DEU", "Germany", "UK", "the Netherlands").
func (cs *Countries) Lookup(s string) (*Country, bool) {
	c, ok := cs.byKey[countryKey(s)]
	return c, ok
}

// All returns the countries sorted by code. The slice is a copy; the
// countries are shared and must not be modified.
func (cs *Countries) All() []*Country { return slices.Clone(cs.list) }

// CountryCode reads a country as users write it: an ISO 3166-1 alpha-2 or
// alpha-3 code or a name in any case ("de", "DEU", "Germany", "UK" are
// "DE", "DE", "DE", "GB"). A string that names no country comes back
// upper-cased and trimmed, for the caller to report with UnknownCountry.
func CountryCode(s string) string {
	if cs, err := BuiltinCountries(); err == nil {
		if c, ok := cs.Lookup(s); ok {
			return c.Code
		}
	}
	return strings.ToUpper(strings.TrimSpace(s))
}

// CountryName is the ISO short name of an alpha-2 code ("DE" is
// "Germany"), or the code itself when the table does not have it.
func CountryName(code string) string {
	if cs, err := BuiltinCountries(); err == nil {
		if c, ok := cs.Lookup(code); ok && c.Code == code {
			return c.Name
		}
	}
	return code
}

// UnknownCountry is the detail of every diagnostic about a country at
// attribute at that is not among codes, the alpha-2 codes of the countries
// that have a region (sorted). A name or code of a real country without a
// region says so; anything else gets the closest countries with a region,
// matched on codes and names alike, each as `"DE" (Germany)`.
func UnknownCountry(at, name string, codes []string) string {
	cs, err := BuiltinCountries()
	if err != nil {
		return fmt.Sprintf("%s = %s is not the ISO 3166-1 code of a country with a region in the catalog. Countries: %s.",
			at, QuoteName(name), QuoteList(codes))
	}
	if c, ok := cs.Lookup(name); ok {
		return fmt.Sprintf("%s = %s is %s (%s), which has no region in the catalog. Countries with regions: %s.",
			at, QuoteName(name), c.Name, c.Code, cs.describe(codes))
	}
	return fmt.Sprintf("%s = %s is not a country code or name. Closest: %s. Countries with regions: %s.",
		at, QuoteName(name), cs.describe(cs.closest(name, codes, 3)), QuoteList(codes))
}

// closest returns up to n of codes whose code or names are nearest to name.
func (cs *Countries) closest(name string, codes []string, n int) []string {
	var cands []string
	codeOf := map[string]string{}
	for _, code := range codes {
		c, ok := cs.Lookup(code)
		if !ok {
			cands, codeOf[code] = append(cands, code), code
			continue
		}
		for _, s := range c.names() {
			k := countryKey(s)
			if _, seen := codeOf[k]; !seen {
				cands, codeOf[k] = append(cands, k), c.Code
			}
		}
	}
	var out []string
	for _, k := range Closest(countryKey(name), cands, len(cands)) {
		if code := codeOf[k]; !slices.Contains(out, code) {
			out = append(out, code)
			if len(out) == n {
				break
			}
		}
	}
	return out
}

// describe renders codes as `"DE" (Germany), "FR" (France)`.
func (cs *Countries) describe(codes []string) string {
	parts := make([]string, len(codes))
	for i, code := range codes {
		parts[i] = fmt.Sprintf("%q", code)
		if c, ok := cs.Lookup(code); ok && c.Code == code {
			parts[i] += " (" + c.Name + ")"
		}
	}
	return strings.Join(parts, ", ")
}
