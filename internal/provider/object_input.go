// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// Object inputs (workload, constraints, storage, network, …) are Dynamic
// attributes read against one key table each (ARCHITECTURE.md, "Object
// inputs"). Terraform converts the value of an object-typed attribute to
// the schema's object type before the provider sees it, and that
// conversion drops the keys the type lacks (hashicorp/terraform#33570): a
// misspelled key was silently ignored. A Dynamic attribute's value reaches
// the provider with every key as written, inline, from a module variable
// typed `any`, from merge() or locals, so the key table reports a key it
// does not have, naming the closest one. The table is also the type of
// each key (accepting what Terraform's own conversion would: "5000" for a
// number, a tuple, list or set for a list), its input limit or allowed
// values, the conversion into the library's Go struct and the
// documentation of the attribute: adding a key is one row.

// valueKind is the Terraform type of a key.
type valueKind int

const (
	kindString valueKind = iota
	kindNumber
	kindStrings
	kindObject
)

// maxListProblems bounds the diagnostics of one list: the rest are counted
// in one more. With that count they fill the handful an answer shows for
// one attribute (maxDiagnosticsPerAttribute: the object input's problems
// beyond it are counted by Summarizing).
const maxListProblems = maxDiagnosticsPerAttribute - 1

// keyTable is a key table whatever the Go type it reads into.
type keyTable interface {
	// validate reports every problem of the object value v at p.
	validate(v tftypes.Value, p path.Path) diag.Diagnostics
	// markdown documents the keys as a Markdown list at indent.
	markdown(indent string) string
	// numberLimits lists the number keys ("a.b" for nested ones) and their limits.
	numberLimits(prefix string) map[string]inputLimit
	// names lists the keys, nested ones as "outer.inner".
	names(prefix string) []string
}

// objectKeys is the key table of an object input read into a T.
type objectKeys[T any] struct {
	keys []key[T]
}

// key is one key of an object input.
type key[T any] struct {
	name     string
	required bool
	doc      string // what it means, with an example
	def      string // its default, as the docs state it ("`4096`"); "" for none
	blank    string // a string key: what to write instead of "" or "  ", when more than its allowed values
	is       valueOf[T]
}

// valueOf is a key's type, its rule and where its value goes.
type valueOf[T any] struct {
	kind   valueKind
	limit  inputLimit // kindNumber
	enum   []string   // kindString, kindStrings: the allowed values (any case); nil for any
	empty  string     // kindStrings: what an empty list would do and what to write instead; "" allows one
	nested keyTable   // kindObject

	setString  func(*T, string)
	setNumber  func(*T, *big.Float)
	setStrings func(*T, []string)
	readObject func(*T, tftypes.Value, path.Path, *objectRead)
}

// text is a string key stored at at; enum lists its allowed values (nil
// for any), matched in any case and stored as listed.
func text[T any](enum []string, at func(*T) *string) valueOf[T] {
	return valueOf[T]{kind: kindString, enum: enum, setString: func(t *T, s string) { *at(t) = s }}
}

// number is a number key bounded by l, stored at at.
func number[T any](l inputLimit, at func(*T) *float64) valueOf[T] {
	return valueOf[T]{kind: kindNumber, limit: l, setNumber: func(t *T, f *big.Float) { *at(t), _ = f.Float64() }}
}

// whole is a whole-number key bounded by l, stored at at.
func whole[T any, I int | int64 | float64](l inputLimit, at func(*T) *I) valueOf[T] {
	l.l.Integer = true
	return valueOf[T]{kind: kindNumber, limit: l, setNumber: func(t *T, f *big.Float) {
		n, _ := f.Int64() // the limit bounds it
		*at(t) = I(n)
	}}
}

// names is a list of names passed to set; empty says what an empty list
// would do ("" allows one) and enum lists the allowed values (nil for any).
func names[T any](empty string, enum []string, set func(*T, []string)) valueOf[T] {
	return valueOf[T]{kind: kindStrings, empty: empty, enum: enum, setStrings: set}
}

// objectOf is a nested object read with its own key table into at.
func objectOf[T, U any](keys *objectKeys[U], at func(*T) *U) valueOf[T] {
	return valueOf[T]{kind: kindObject, nested: keys, readObject: func(t *T, v tftypes.Value, p path.Path, r *objectRead) {
		keys.readInto(at(t), v, p, r)
	}}
}

// objectRead is what reading an object input found besides its value:
// its diagnostics and which of its keys are not usable yet.
type objectRead struct {
	diags diag.Diagnostics
	// unknown holds the top-level keys whose value (or a value in it) is
	// not known yet; whole is set when the object itself is not.
	unknown map[string]bool
	whole   bool
	// rejected holds the top-level keys whose value was reported: rules
	// that involve them wait until they are fixed.
	rejected map[string]bool
	// top is the top-level key being read (nested objects report on it).
	top string
	// root is the object input's attribute.
	root path.Path
}

// known reports whether a top-level key's value is known and valid (an
// unset key is known: it takes its default).
func (r *objectRead) known(name string) bool {
	return !r.whole && !r.unknown[name] && !r.rejected[name]
}

func (r *objectRead) markUnknown(name string) { r.unknown[r.topOr(name)] = true }

// reject reports a problem with the key name (or the one being read) and
// marks it rejected.
func (r *objectRead) reject(name, summary, detail string) {
	r.rejected[r.topOr(name)] = true
	r.diags.AddAttributeError(r.at(name), summary, detail)
}

// at is the path a diagnostic about the key name (or the one being read)
// is reported on: the object input's top-level key as a map key of the
// attribute (workload["max_time_per_token_ms"]), which Terraform resolves
// to the key's value in an object written inline and to the attribute's
// expression otherwise; it cannot point deeper into an expression. The
// detail names the full path.
func (r *objectRead) at(name string) path.Path {
	if top := r.topOr(name); top != "" {
		return r.root.AtMapKey(top)
	}
	return r.root
}

func (r *objectRead) topOr(name string) string {
	if r.top != "" {
		return r.top
	}
	return name
}

func newObjectRead(root path.Path) *objectRead {
	return &objectRead{unknown: map[string]bool{}, rejected: map[string]bool{}, root: root}
}

// read converts the object input v at p into dst: the keys given
// overwrite dst's fields, the others keep their value (a zero value means
// the default).
func (t *objectKeys[T]) read(dst *T, v tftypes.Value, p path.Path) *objectRead {
	r := newObjectRead(p)
	if !v.IsKnown() {
		r.whole = true
		return r
	}
	t.readInto(dst, v, p, r)
	return r
}

func (t *objectKeys[T]) validate(v tftypes.Value, p path.Path) diag.Diagnostics {
	var dst T
	return t.read(&dst, v, p).diags
}

// readObject reads the object input d at p into dst with its key table,
// its problems on diags.
func readObject[T any](ctx context.Context, keys *objectKeys[T], d types.Dynamic, p path.Path, dst *T, diags *diag.Diagnostics) *objectRead {
	v, err := d.ToTerraformValue(ctx)
	if err != nil {
		addBug(diags, "reading "+p.String(), err)
		r := newObjectRead(p)
		r.whole = true
		return r
	}
	r := keys.read(dst, v, p)
	diags.Append(r.diags...)
	return r
}

// readInto reads the object value v at p into dst.
func (t *objectKeys[T]) readInto(dst *T, v tftypes.Value, p path.Path, r *objectRead) {
	if !v.IsKnown() {
		r.markUnknown("")
		return
	}
	if v.IsNull() {
		return
	}
	attrs, ok := objectAttributes(v)
	if !ok {
		r.whole = r.whole || r.top == ""
		r.reject("", "Invalid Attribute Type", fmt.Sprintf("%s must be an object such as { %s = … }, got %s.",
			p, t.keys[0].name, describeValue(v)))
		return
	}
	t.reportUnknownKeys(attrs, p, r)
	for i := range t.keys {
		k := &t.keys[i]
		kv, given := attrs[k.name]
		if !given || kv.IsNull() {
			if k.required {
				r.reject(k.name, "Missing Required Attribute",
					fmt.Sprintf("%s is required: %s", p.AtName(k.name), k.doc))
			}
			continue
		}
		outer := r.top
		if outer == "" {
			r.top = k.name
		}
		if blank, ok := blankString(kv); ok && k.is.kind == kindString {
			r.reject("", "Empty Value", k.blankProblem(p.AtName(k.name), blank))
		} else {
			k.is.read(dst, kv, p.AtName(k.name), r)
		}
		r.top = outer
	}
}

// blankString is v when it is a string given empty or blank ("", "  ").
func blankString(v tftypes.Value) (string, bool) {
	if !v.IsKnown() || !v.Type().Is(tftypes.String) {
		return "", false
	}
	s, ok := stringOf(v)
	return s, ok && strings.TrimSpace(s) == ""
}

// blankProblem says that the string key at p is empty or blank, a value
// that would otherwise read as unset, and what to write instead.
func (k *key[T]) blankProblem(p path.Path, s string) string {
	give := "give a value"
	switch {
	case k.blank != "":
		return fmt.Sprintf("%s = %s is %s: %s.", p, catalog.QuoteName(s), blankOrEmpty(s), k.blank)
	case k.is.enum != nil:
		give = "give one of " + catalog.QuoteList(k.is.enum)
	}
	if !k.required {
		give += ", or leave " + k.name + " out (or null)"
		if k.def != "" {
			give += " for its default"
		}
	}
	return fmt.Sprintf("%s = %s is %s: %s.", p, catalog.QuoteName(s), blankOrEmpty(s), give)
}

// reportUnknownKeys reports each key of attrs the table does not have.
func (t *objectKeys[T]) reportUnknownKeys(attrs map[string]tftypes.Value, p path.Path, r *objectRead) {
	valid := make([]string, len(t.keys))
	for i, k := range t.keys {
		valid[i] = k.name
	}
	for _, name := range sortedKeys(attrs) {
		if slices.Contains(valid, name) {
			continue
		}
		r.diags.AddAttributeError(r.at(name), "Unknown Attribute", fmt.Sprintf(
			"%s is not an attribute of %s. Closest: %s. Attributes: %s. (A misspelled attribute is an error rather than "+
				"being ignored; from a module, pass the object in a variable typed `any`.)",
			p.AtName(name), p, closestKey(name, valid), strings.Join(valid, ", ")))
	}
}

// read converts the known, non-null value v of one key at p into dst.
func (is valueOf[T]) read(dst *T, v tftypes.Value, p path.Path, r *objectRead) {
	if !v.IsFullyKnown() {
		r.markUnknown(p.String())
		if is.kind == kindStrings {
			is.checkKnownElements(v, p, r) // report what is wrong already
		}
		if is.kind != kindObject {
			return
		}
	}
	switch is.kind {
	case kindString:
		if s, ok := is.stringAt(v, p, r); ok {
			is.setString(dst, s)
		}
	case kindNumber:
		if f, ok := is.numberAt(v, p, r); ok {
			is.setNumber(dst, f)
		}
	case kindStrings:
		if ss, ok := is.stringsAt(v, p, r); ok {
			is.setStrings(dst, ss)
		}
	case kindObject:
		is.readObject(dst, v, p, r)
	}
}

// stringAt reads a string key: what Terraform converts to a string, not
// blank, one of the enum's values when it has one (returned as listed).
func (is valueOf[T]) stringAt(v tftypes.Value, p path.Path, r *objectRead) (string, bool) {
	s, ok := stringOf(v)
	if !ok {
		r.reject("", "Invalid Attribute Type", fmt.Sprintf("%s must be a string, got %s.", p, describeValue(v)))
		return "", false
	}
	if problem := is.checkName(p.String(), s); problem != "" {
		r.reject("", "Invalid Value", problem)
		return "", false
	}
	return canonical(is.enum, s), true
}

// checkName is the problem with the string s at what, or "".
func (is valueOf[T]) checkName(what, s string) string {
	switch {
	case strings.TrimSpace(s) == "": // a list element (a blank key is reported by blankProblem)
		return fmt.Sprintf("%s = %s is %s: give a value or remove the element.", what, catalog.QuoteName(s), blankOrEmpty(s))
	case is.enum != nil && canonical(is.enum, s) == "":
		return fmt.Sprintf("%s = %s is not one of %s (any case). Closest: %q.", what, catalog.QuoteName(s), catalog.QuoteList(is.enum),
			catalog.Closest(catalog.NameKey(s), is.enum, 1)[0])
	}
	return ""
}

// numberAt reads a number key: a number, or a string Terraform would
// convert to one, within the key's limit.
func (is valueOf[T]) numberAt(v tftypes.Value, p path.Path, r *objectRead) (*big.Float, bool) {
	f, ok := numberValueOf(v)
	if !ok {
		r.reject("", "Invalid Attribute Type", fmt.Sprintf("%s must be a number, got %s.%s", p, describeValue(v), is.limit.Doc()))
		return nil, false
	}
	if problem := is.limit.check(p.String(), f); problem != "" {
		r.reject("", "Invalid Number", problem+".")
		return nil, false
	}
	return f, true
}

// stringsAt reads a list of names: a list, tuple or set of strings, each
// given once and valid, and not empty unless the key allows it.
func (is valueOf[T]) stringsAt(v tftypes.Value, p path.Path, r *objectRead) ([]string, bool) {
	elems, ok := listElements(v)
	if !ok {
		r.reject("", "Invalid Attribute Type", fmt.Sprintf("%s must be a list of strings such as [\"a\", \"b\"], got %s.", p, describeValue(v)))
		return nil, false
	}
	if len(elems) == 0 && is.empty != "" {
		r.reject("", "Empty List", fmt.Sprintf("%s = []: %s", p, is.empty))
		return nil, false
	}
	out, problems := is.elements(elems, p)
	for _, d := range problems {
		r.reject("", d.summary, d.detail)
	}
	if len(problems) > 0 {
		return nil, false
	}
	return out, true
}

// checkKnownElements reports the problems of the known elements of a list
// that is not known in full yet.
func (is valueOf[T]) checkKnownElements(v tftypes.Value, p path.Path, r *objectRead) {
	if elems, ok := listElements(v); ok {
		_, problems := is.elements(elems, p)
		for _, d := range problems {
			r.reject("", d.summary, d.detail)
		}
	}
}

// duplicateDetail says that the list at p gives one value twice, at
// elements j and i, written a and b: names match in any case, so "aws"
// and "AWS" are one name given twice.
func duplicateDetail(p path.Path, a, b string, j, i int) string {
	if a == b {
		return fmt.Sprintf("%s lists %s twice (elements %d and %d): list each value once.", p, catalog.QuoteName(a), j, i)
	}
	return fmt.Sprintf("%s lists %s and %s (elements %d and %d), one name: names match in any case. List each value once.",
		p, catalog.QuoteName(a), catalog.QuoteName(b), j, i)
}

// problem is one diagnostic of a list element.
type problem struct{ summary, detail string }

// elements converts a list's elements (unknown ones skipped) and returns
// their problems, at most maxListProblems of them and then a count.
func (is valueOf[T]) elements(elems []tftypes.Value, p path.Path) ([]string, []problem) {
	var out []string
	var problems []problem
	type seen struct {
		index   int
		written string
	}
	first := map[string]seen{}
	for i, e := range elems {
		s, ok := stringOf(e)
		var pr *problem
		switch {
		case !e.IsKnown():
			continue
		case e.IsNull():
			pr = &problem{"Null List Element", fmt.Sprintf("%s[%d] is null: give a value or remove the element.", p, i)}
		case !ok:
			pr = &problem{"Invalid Attribute Type", fmt.Sprintf("%s[%d] must be a string, got %s.", p, i, describeValue(e))}
		default:
			if msg := is.checkName(fmt.Sprintf("%s[%d]", p, i), s); msg != "" {
				pr = &problem{"Invalid Value", msg}
				break
			}
			c := canonical(is.enum, s)
			if f, dup := first[catalog.NameKey(c)]; dup {
				pr = &problem{"Duplicate List Element", duplicateDetail(p, f.written, c, f.index, i)}
				break
			}
			first[catalog.NameKey(c)] = seen{i, c}
			out = append(out, c)
		}
		if pr != nil {
			problems = append(problems, *pr)
		}
	}
	if n := len(problems); n > maxListProblems {
		problems = append(problems[:maxListProblems], problem{"More Invalid List Elements",
			fmt.Sprintf("%s has %d more invalid elements like the ones above.", p, n-maxListProblems)})
	}
	return out, problems
}

// canonical is s as enum lists it (any case, surrounding spaces ignored:
// catalog.NameKey, as the pure packages read it), s itself without an enum,
// and "" when enum does not have it.
func canonical(enum []string, s string) string {
	if enum == nil {
		return s
	}
	for _, e := range enum {
		if catalog.NameKey(e) == catalog.NameKey(s) {
			return e
		}
	}
	return ""
}

// closestKey names the key nearest to a misspelled one: the key sharing
// the most of its underscore-separated words, then the nearest by spelling.
func closestKey(name string, valid []string) string {
	words := strings.Split(strings.ToLower(name), "_")
	best, bestShared := "", 0
	for _, c := range catalog.Closest(name, valid, len(valid)) {
		shared := 0
		for _, w := range strings.Split(c, "_") {
			if slices.Contains(words, w) {
				shared++
			}
		}
		if shared > bestShared {
			best, bestShared = c, shared
		}
	}
	if bestShared*2 < len(words) || best == "" {
		return catalog.Closest(name, valid, 1)[0]
	}
	return best
}

// objectAttributes is the keys of an object or map value.
func objectAttributes(v tftypes.Value) (map[string]tftypes.Value, bool) {
	if !v.Type().Is(tftypes.Object{}) && !v.Type().Is(tftypes.Map{}) {
		return nil, false
	}
	var attrs map[string]tftypes.Value
	if err := v.As(&attrs); err != nil {
		return nil, false
	}
	return attrs, true
}

// listElements is the elements of a list, tuple or set value.
func listElements(v tftypes.Value) ([]tftypes.Value, bool) {
	t := v.Type()
	if !t.Is(tftypes.List{}) && !t.Is(tftypes.Tuple{}) && !t.Is(tftypes.Set{}) {
		return nil, false
	}
	var elems []tftypes.Value
	if err := v.As(&elems); err != nil {
		return nil, false
	}
	return elems, true
}

// stringOf converts a known value to a string as Terraform does: a string,
// a number in decimal, a bool as "true" or "false".
func stringOf(v tftypes.Value) (string, bool) {
	if !v.IsKnown() || v.IsNull() {
		return "", false
	}
	switch {
	case v.Type().Is(tftypes.String):
		var s string
		return s, v.As(&s) == nil
	case v.Type().Is(tftypes.Number):
		var f big.Float
		if v.As(&f) != nil {
			return "", false
		}
		return f.Text('f', -1), true
	case v.Type().Is(tftypes.Bool):
		var b bool
		return strconv.FormatBool(b), v.As(&b) == nil
	}
	return "", false
}

// numberValueOf converts a known value to a number as Terraform does: a number,
// or a string holding a decimal number.
func numberValueOf(v tftypes.Value) (*big.Float, bool) {
	var f big.Float
	switch {
	case v.Type().Is(tftypes.Number):
		if v.As(&f) != nil {
			return nil, false
		}
		return &f, true
	case v.Type().Is(tftypes.String):
		var s string
		if v.As(&s) != nil {
			return nil, false
		}
		g, _, err := big.ParseFloat(s, 10, 512, big.ToNearestEven)
		if err != nil || g.IsInf() {
			return nil, false
		}
		return g, true
	}
	return nil, false
}

// describeValue names the type of a value for a message: "a bool",
// "the string \"fast\"".
func describeValue(v tftypes.Value) string {
	t := v.Type()
	switch {
	case t.Is(tftypes.String):
		s, _ := stringOf(v)
		if len(s) > 40 {
			s = s[:40] + "…"
		}
		return "the string " + strconv.Quote(s)
	case t.Is(tftypes.Number):
		return "a number"
	case t.Is(tftypes.Bool):
		return "a bool"
	case t.Is(tftypes.Object{}), t.Is(tftypes.Map{}):
		return "an object"
	case t.Is(tftypes.List{}), t.Is(tftypes.Tuple{}), t.Is(tftypes.Set{}):
		return "a list"
	}
	return "a value of type " + t.String()
}

// sortedKeys is the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// objectValidator validates an object input against its key table at
// `terraform validate` and at each plan, for values known then.
type objectValidator struct{ keys keyTable }

var _ validator.Dynamic = objectValidator{}

func (objectValidator) Description(context.Context) string {
	return "every key is one of the object's attributes, of its type and within its limits"
}

func (v objectValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v objectValidator) ValidateDynamic(ctx context.Context, req validator.DynamicRequest, resp *validator.DynamicResponse) {
	tv, err := req.ConfigValue.ToTerraformValue(ctx)
	if err != nil {
		addBug(&resp.Diagnostics, "reading "+req.Path.String(), err)
		return
	}
	resp.Diagnostics.Append(v.keys.validate(tv, req.Path)...)
}
