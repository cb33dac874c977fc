// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package spec_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/spec"
)

// schemaFile is the published JSON Schema of the document.
const schemaFile = "../../docs/cluster-spec.schema.json"

func loadSchema(t *testing.T) map[string]any {
	t.Helper()
	b, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]any
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("%s: %v", schemaFile, err)
	}
	return s
}

// fullDocument renders a document with every optional field populated.
func fullDocument(t *testing.T) string {
	t.Helper()
	r, err := spec.Render(fixture(t), base(func(r *spec.Request) {
		r.Nodes = 4
		r.Region = "r-east"
		r.Storage = spec.Storage{BlockGB: 10, ObjectGB: 20}
		r.Labels = map[string]string{"team": "a"}
		r.Requirements = spec.Requirements{MinNetworkGbps: 1600, RDMA: true}
	}), opts())
	if err != nil {
		t.Fatal(err)
	}
	js, err := r.Document.JSON()
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// TestSchemaValidatesRenderedDocuments checks every rendered document
// against the published schema.
func TestSchemaValidatesRenderedDocuments(t *testing.T) {
	t.Parallel()
	s := loadSchema(t)
	cat := fixture(t)
	reqs := []spec.Request{
		base(nil),
		base(func(r *spec.Request) { r.PricingModel = catalog.Spot; r.Labels = map[string]string{"x": "y"} }),
		base(func(r *spec.Request) { r.Cloud = "gamma"; r.Accelerator = "Y10"; r.GPUsPerNode = 1 }),
		base(func(r *spec.Request) {
			r.Cloud = "beta"
			r.PricingModel = catalog.Reserved1Y
			r.Storage.ObjectGB = 1 << 30
		}),
	}
	for i, req := range reqs {
		r, err := spec.Render(cat, req, opts())
		if err != nil {
			t.Fatal(err)
		}
		js, _ := r.Document.JSON()
		var doc any
		if err := json.Unmarshal([]byte(js), &doc); err != nil {
			t.Fatal(err)
		}
		if err := validate(s, doc, "$"); err != nil {
			t.Errorf("document %d does not match %s: %v\n%s", i, schemaFile, err, js)
		}
	}
	// And the schema rejects what Parse rejects, for a sample of bad documents.
	for _, bad := range []string{
		strings.Replace(valid, `"gpusPerNode":8`, `"gpusPerNode":0`, 1),
		strings.Replace(valid, `"nodes":2`, `"nodes":2,"region":"x"`, 1),
		strings.Replace(valid, `gpuplan.io/v1"`, `gpuplan.io/v2"`, 1),
		strings.Replace(valid, `"on_demand"`, `"payg"`, 1),
		strings.Replace(valid, `"rdma-3200g"`, `"efa"`, 1),
		strings.Replace(valid, `"accelerator":"X100",`, ``, 1),
		strings.Replace(valid, `"gpuplan.io/cloud":"alpha",`, ``, 1),
	} {
		var doc any
		if err := json.Unmarshal([]byte(bad), &doc); err != nil {
			t.Fatal(err)
		}
		if _, perr := spec.Parse([]byte(bad)); perr == nil {
			t.Errorf("Parse accepted %s", bad)
		}
		if err := validate(s, doc, "$"); err == nil {
			t.Errorf("schema accepted %s", bad)
		}
	}
}

// TestSchemaHasExactlyTheDocumentsFields compares the schema's property
// tree with the fields of a fully populated rendered document, and the
// schema's required lists with what Parse requires.
func TestSchemaHasExactlyTheDocumentsFields(t *testing.T) {
	t.Parallel()
	s := loadSchema(t)
	var doc any
	full := fullDocument(t)
	if err := json.Unmarshal([]byte(full), &doc); err != nil {
		t.Fatal(err)
	}
	schemaPaths, required := map[string]bool{}, map[string]bool{}
	schemaProps(s, "", schemaPaths, required)
	docPaths := map[string]bool{}
	docProps(doc, "", s, docPaths)
	if !reflect.DeepEqual(schemaPaths, docPaths) {
		t.Errorf("schema properties and rendered fields differ:\n schema: %v\n    doc: %v", keys(schemaPaths), keys(docPaths))
	}
	// Removing a required field fails Parse; removing an optional one does not.
	for p := range schemaPaths {
		var d map[string]any
		_ = json.Unmarshal([]byte(full), &d)
		if !deletePath(d, p) {
			continue
		}
		b, _ := json.Marshal(d)
		_, err := spec.Parse(b)
		switch {
		case required[p] && err == nil:
			t.Errorf("schema requires %s but Parse accepts a document without it", p)
		case !required[p] && err != nil && !strings.Contains(p, "annotations"):
			t.Errorf("schema makes %s optional but Parse rejects a document without it: %v", p, err)
		}
	}
}

// schemaProps collects the dotted paths of the schema's named properties.
// Map-like objects (labels) stop at the object itself.
func schemaProps(s map[string]any, prefix string, out, required map[string]bool) {
	props, _ := s["properties"].(map[string]any)
	req, _ := s["required"].([]any)
	for name, sub := range props {
		p := join(prefix, name)
		out[p] = true
		if slices.Contains(req, any(name)) {
			required[p] = true
		}
		if m := asObject(sub); m != nil {
			schemaProps(m, p, out, required)
		}
	}
}

func docProps(v any, prefix string, s map[string]any, out map[string]bool) {
	obj, ok := v.(map[string]any)
	if !ok {
		return
	}
	props, _ := s["properties"].(map[string]any)
	if props == nil {
		return // a map (labels): its keys are data, not fields
	}
	for k, sub := range obj {
		p := join(prefix, k)
		out[p] = true
		ss, _ := props[k].(map[string]any)
		docProps(sub, p, ss, out)
	}
}

func deletePath(d map[string]any, p string) bool {
	parts := splitPath(p)
	for _, part := range parts[:len(parts)-1] {
		next, ok := d[part].(map[string]any)
		if !ok {
			return false
		}
		d = next
	}
	if _, ok := d[parts[len(parts)-1]]; !ok {
		return false
	}
	delete(d, parts[len(parts)-1])
	return true
}

// join and splitPath use "|" so annotation keys with dots stay whole.
func join(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "|" + name
}

func splitPath(p string) []string { return strings.Split(p, "|") }

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// validate is a JSON Schema validator for the keywords the published
// schema uses. An unsupported keyword is an error, so the schema cannot
// grow a rule this test does not check.
func validate(s map[string]any, v any, at string) error {
	for kw, arg := range s {
		var err error
		switch kw {
		case "$schema", "$id", "title", "description":
		case "type":
			err = checkType(asString(arg), v)
		case "const":
			if !reflect.DeepEqual(arg, v) {
				err = fmt.Errorf("want %v", arg)
			}
		case "enum":
			if !slices.ContainsFunc(asList(arg), func(e any) bool { return reflect.DeepEqual(e, v) }) {
				err = fmt.Errorf("%v not in %v", v, arg)
			}
		case "minLength", "maxLength", "pattern":
			str, ok := v.(string)
			if !ok {
				break
			}
			switch kw {
			case "minLength":
				if float64(len([]rune(str))) < asNumber(arg) {
					err = fmt.Errorf("shorter than %v", arg)
				}
			case "maxLength":
				if float64(len([]rune(str))) > asNumber(arg) {
					err = fmt.Errorf("longer than %v", arg)
				}
			case "pattern":
				if !regexp.MustCompile(asString(arg)).MatchString(str) {
					err = fmt.Errorf("%q does not match %s", str, arg)
				}
			}
		case "minimum", "maximum", "exclusiveMinimum":
			n, ok := v.(float64)
			if !ok {
				break
			}
			lim := asNumber(arg)
			if (kw == "minimum" && n < lim) || (kw == "maximum" && n > lim) || (kw == "exclusiveMinimum" && n <= lim) {
				err = fmt.Errorf("%v violates %s %v", n, kw, lim)
			}
		case "required", "properties", "additionalProperties", "maxProperties", "propertyNames", "dependentRequired":
			obj, ok := v.(map[string]any)
			if !ok {
				break
			}
			err = checkObject(kw, arg, obj, s, at)
		default:
			return fmt.Errorf("%s: schema keyword %q is not supported by this test's validator", at, kw)
		}
		if err != nil {
			return fmt.Errorf("%s: %s: %w", at, kw, err)
		}
	}
	return nil
}

func checkType(want string, v any) error {
	ok := false
	switch want {
	case "object":
		_, ok = v.(map[string]any)
	case "string":
		_, ok = v.(string)
	case "number":
		_, ok = v.(float64)
	case "integer":
		n, isNum := v.(float64)
		ok = isNum && n == math.Trunc(n)
	default:
		return fmt.Errorf("type %q not supported by this test's validator", want)
	}
	if !ok {
		return fmt.Errorf("want %s, got %T", want, v)
	}
	return nil
}

func checkObject(kw string, arg any, obj map[string]any, s map[string]any, at string) error {
	switch kw {
	case "required":
		for _, r := range asList(arg) {
			if _, ok := obj[asString(r)]; !ok {
				return fmt.Errorf("missing %q", r)
			}
		}
	case "properties":
		for name, sub := range asObject(arg) {
			if val, ok := obj[name]; ok {
				if err := validate(asObject(sub), val, at+"."+name); err != nil {
					return err
				}
			}
		}
	case "additionalProperties":
		props, _ := s["properties"].(map[string]any)
		for name, val := range obj {
			if _, named := props[name]; named {
				continue
			}
			switch a := arg.(type) {
			case bool:
				if !a {
					return fmt.Errorf("unexpected property %q", name)
				}
			case map[string]any:
				if err := validate(a, val, at+"."+name); err != nil {
					return err
				}
			}
		}
	case "maxProperties":
		if float64(len(obj)) > asNumber(arg) {
			return fmt.Errorf("more than %v properties", arg)
		}
	case "propertyNames":
		for name := range obj {
			if err := validate(asObject(arg), name, at+"."+name); err != nil {
				return err
			}
		}
	case "dependentRequired":
		for name, deps := range asObject(arg) {
			if _, ok := obj[name]; !ok {
				continue
			}
			for _, d := range asList(deps) {
				if _, ok := obj[asString(d)]; !ok {
					return fmt.Errorf("%q requires %q", name, d)
				}
			}
		}
	}
	return nil
}

// Schema accessors: a value of the wrong type reads as the zero value, which
// then fails the comparison it feeds.
func asString(v any) string         { s, _ := v.(string); return s }
func asNumber(v any) float64        { n, _ := v.(float64); return n }
func asList(v any) []any            { l, _ := v.([]any); return l }
func asObject(v any) map[string]any { m, _ := v.(map[string]any); return m }
