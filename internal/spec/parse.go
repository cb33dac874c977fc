// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package spec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// FieldError is a problem with one field of a document. Field is the JSON
// path of the field, e.g. "spec.gpusPerNode" or "metadata.labels.team";
// "" for the document as a whole.
type FieldError struct {
	Field string
	Msg   string
}

func (e *FieldError) Error() string {
	if e.Field == "" {
		return e.Msg
	}
	return e.Field + ": " + e.Msg
}

func fieldErr(field, format string, args ...any) *FieldError {
	return &FieldError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// Limits of the document.
const (
	MaxNameLength  = 253
	MaxGPUsPerNode = 1024
	MaxNodes       = 100000
	MaxLabels      = 64
	// MaxDocumentBytes bounds the text Parse reads (an import ID): a valid
	// document with 64 long labels is a few kilobytes.
	MaxDocumentBytes = 1 << 20
	// MaxDepth bounds nesting: a document nests 3 levels (spec.interconnect.scaleUp).
	MaxDepth = 10
)

// ScaleOutPattern is the regular expression a scale-out class matches.
const ScaleOutPattern = `^(rdma|ethernet)(-[1-9][0-9]*g)?$`

var scaleOutRE = regexp.MustCompile(ScaleOutPattern)

// Parse reads a GPUCluster document strictly: unknown fields, duplicate
// keys, a wrong apiVersion or kind, missing required fields and values of
// the wrong type or range are errors naming the field (a *FieldError).
// It checks the form only; Resolve checks the document against a catalog.
// Memory and time are linear in the input: it is at most MaxDocumentBytes
// and nests at most MaxDepth levels.
func Parse(data []byte) (*Document, error) {
	if len(data) > MaxDocumentBytes {
		return nil, fieldErr("", "the document is %d bytes; at most %d are allowed (a GPUCluster document is a few kilobytes)",
			len(data), MaxDocumentBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	r := reader{dec: dec}
	root, err := r.value()
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fieldErr("", "invalid JSON: unexpected data after the document")
	}
	obj, ok := root.(object)
	if !ok {
		return nil, fieldErr("", "a GPUCluster document must be a JSON object, got %s", typeName(root))
	}
	var d Document
	if err := obj.only("", "apiVersion", "kind", "metadata", "spec"); err != nil {
		return nil, err
	}
	if d.APIVersion, err = obj.str("", "apiVersion"); err != nil {
		return nil, err
	}
	if d.APIVersion != APIVersion {
		return nil, fieldErr("apiVersion", "unsupported version %q: this provider reads %q", d.APIVersion, APIVersion)
	}
	if d.Kind, err = obj.str("", "kind"); err != nil {
		return nil, err
	}
	if d.Kind != Kind {
		return nil, fieldErr("kind", "must be %q, got %q", Kind, d.Kind)
	}
	meta, err := obj.obj("", "metadata", true)
	if err != nil {
		return nil, err
	}
	if d.Metadata, err = parseMetadata(meta); err != nil {
		return nil, err
	}
	sp, err := obj.obj("", "spec", true)
	if err != nil {
		return nil, err
	}
	if d.Spec, err = parseCluster(sp); err != nil {
		return nil, err
	}
	return &d, nil
}

func parseMetadata(meta object) (Metadata, error) {
	var m Metadata
	var err error
	if err = meta.only("metadata", "name", "labels", "annotations"); err != nil {
		return m, err
	}
	if m.Name, err = meta.str("metadata", "name"); err != nil {
		return m, err
	}
	if fe := checkName("metadata.name", m.Name); fe != nil {
		return m, fe
	}
	if m.Labels, err = meta.strMap("metadata", "labels"); err != nil {
		return m, err
	}
	if len(m.Labels) > MaxLabels {
		return m, fieldErr("metadata.labels", "at most %d labels are allowed, got %d", MaxLabels, len(m.Labels))
	}
	for _, k := range slices.Sorted(maps.Keys(m.Labels)) {
		if fe := checkLabelKey("metadata.labels", k); fe != nil {
			return m, fe
		}
	}
	if m.Annotations, err = meta.strMap("metadata", "annotations"); err != nil {
		return m, err
	}
	for _, k := range slices.Sorted(maps.Keys(m.Annotations)) {
		v := m.Annotations[k]
		f := "metadata.annotations." + k
		switch k {
		case AnnotationCloud, AnnotationRegion:
			if v == "" || strings.TrimSpace(v) != v {
				return m, fieldErr(f, "must be a non-empty identifier without surrounding spaces, got %q", v)
			}
		default:
			return m, fieldErr(f, "unknown annotation; allowed: %q (the cloud this copy is placed on) and %q (its region)",
				AnnotationCloud, AnnotationRegion)
		}
	}
	if _, hasRegion := m.Annotations[AnnotationRegion]; hasRegion {
		if _, hasCloud := m.Annotations[AnnotationCloud]; !hasCloud {
			return m, fieldErr("metadata.annotations."+AnnotationRegion, "a region needs the cloud it belongs to: add %q", AnnotationCloud)
		}
	}
	return m, nil
}

func parseCluster(sp object) (Cluster, error) {
	var c Cluster
	var err error
	const p = "spec"
	if err = sp.only(p, "accelerator", "gpusPerNode", "nodes", "gpuMemoryGB", "interconnect", "pricingModel", "storage"); err != nil {
		return c, err
	}
	if c.Accelerator, err = sp.str(p, "accelerator"); err != nil {
		return c, err
	}
	if strings.TrimSpace(c.Accelerator) == "" {
		return c, fieldErr("spec.accelerator", "must name an accelerator, e.g. \"H100\"")
	}
	if c.GPUsPerNode, err = sp.integer(p, "gpusPerNode", true, 1, MaxGPUsPerNode); err != nil {
		return c, err
	}
	if c.Nodes, err = sp.integer(p, "nodes", true, 1, MaxNodes); err != nil {
		return c, err
	}
	if c.GPUMemoryGB, err = sp.number(p, "gpuMemoryGB"); err != nil {
		return c, err
	}
	if _, present := sp.get("gpuMemoryGB"); present && !(c.GPUMemoryGB > 0) {
		return c, fieldErr("spec.gpuMemoryGB", "must be a number > 0 (the memory of one GPU in GB), got %s", catalog.FormatNumber(c.GPUMemoryGB))
	}
	ic, err := sp.obj(p, "interconnect", false)
	if err != nil {
		return c, err
	}
	if ic != nil {
		const ip = "spec.interconnect"
		if err = ic.only(ip, "scaleUp", "scaleOut"); err != nil {
			return c, err
		}
		if c.Interconnect.ScaleUp, err = ic.str(ip, "scaleUp"); err != nil {
			return c, err
		}
		if !slices.Contains(ScaleUpClasses, c.Interconnect.ScaleUp) {
			return c, fieldErr(ip+".scaleUp", "unknown class %q; allowed: %s", c.Interconnect.ScaleUp, catalog.QuoteList(ScaleUpClasses))
		}
		if c.Interconnect.ScaleOut, err = ic.str(ip, "scaleOut"); err != nil {
			return c, err
		}
		if !scaleOutRE.MatchString(c.Interconnect.ScaleOut) {
			return c, fieldErr(ip+".scaleOut", "unknown class %q; allowed: \"rdma\", \"ethernet\", or either with the node bandwidth such as \"rdma-3200g\"", c.Interconnect.ScaleOut)
		}
	}
	pm, err := sp.str(p, "pricingModel")
	if err != nil {
		return c, err
	}
	if !slices.Contains(catalog.PricingModels, catalog.PricingModel(pm)) {
		return c, fieldErr("spec.pricingModel", "unknown pricing model %q; allowed: %s", pm, catalog.QuoteList(catalog.PricingModelNames(catalog.PricingModels)))
	}
	c.PricingModel = pm
	st, err := sp.obj(p, "storage", false)
	if err != nil {
		return c, err
	}
	if st != nil {
		const sp2 = "spec.storage"
		if err = st.only(sp2, "blockGB", "objectGB"); err != nil {
			return c, err
		}
		bg, err := st.integer(sp2, "blockGB", false, 0, math.MaxInt32)
		if err != nil {
			return c, err
		}
		og, err := st.integer(sp2, "objectGB", false, 0, math.MaxInt32)
		if err != nil {
			return c, err
		}
		c.Storage = Storage{BlockGB: int64(bg), ObjectGB: int64(og)}
	}
	return c, nil
}

func checkName(field, name string) *FieldError {
	if problem := NameProblem(name); problem != "" {
		return fieldErr(field, "%s", problem)
	}
	return nil
}

// NameProblem says what is wrong with a cluster name, or "" when nothing
// is: 1 to MaxNameLength characters (counted as characters, not bytes),
// and catalog.NameProblem's rules for text that shows in plan output.
func NameProblem(name string) string {
	if strings.TrimSpace(name) == "" {
		return "must not be empty"
	}
	if n := utf8.RuneCountInString(name); n > MaxNameLength {
		return fmt.Sprintf("must be at most %d characters, got %d", MaxNameLength, n)
	}
	return catalog.NameProblem(name)
}

func checkLabelKey(field, k string) *FieldError {
	if k == "" {
		return fieldErr(field, "label keys must not be empty")
	}
	for _, r := range k {
		if unicode.IsSpace(r) {
			return fieldErr(field+"."+k, "label keys must not contain spaces")
		}
	}
	if problem := catalog.NameProblem(k); problem != "" {
		return fieldErr(field+"."+strconv.QuoteToASCII(k), "the label key %s", problem)
	}
	return nil
}

// ---- a small JSON reader that keeps key order and rejects duplicates ----

type member struct {
	key string
	val any
}

// object is a JSON object with its members in document order.
type object []member

// reader reads JSON values keeping the path to the current one as a stack
// of parts, joined only for an error message, so memory stays linear in
// the input whatever its nesting.
type reader struct {
	dec  *json.Decoder
	path []string // keys and "[i]" from the top
}

func (r *reader) where() string {
	var b strings.Builder
	for _, p := range r.path {
		if b.Len() > 0 && !strings.HasPrefix(p, "[") {
			b.WriteByte('.')
		}
		b.WriteString(p)
	}
	return b.String()
}

func (r *reader) value() (any, error) {
	tok, err := r.dec.Token()
	if err != nil {
		return nil, jsonErr(r.where(), err)
	}
	t, isDelim := tok.(json.Delim)
	if !isDelim {
		return tok, nil
	}
	if len(r.path) >= MaxDepth {
		return nil, fieldErr(r.where(), "nested more than %d levels deep; a GPUCluster document nests 3 (spec.interconnect.scaleUp)", MaxDepth)
	}
	if t == '[' {
		var arr []any
		for i := 0; r.dec.More(); i++ {
			r.path = append(r.path, "["+strconv.Itoa(i)+"]")
			v, err := r.value()
			r.path = r.path[:len(r.path)-1]
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		if _, err := r.dec.Token(); err != nil {
			return nil, jsonErr(r.where(), err)
		}
		return arr, nil
	}
	obj := object{}
	seen := map[string]bool{}
	for r.dec.More() {
		kt, err := r.dec.Token()
		if err != nil {
			return nil, jsonErr(r.where(), err)
		}
		k, _ := kt.(string)
		r.path = append(r.path, k)
		if seen[k] {
			return nil, fieldErr(r.where(), "duplicate key")
		}
		seen[k] = true
		v, err := r.value()
		r.path = r.path[:len(r.path)-1]
		if err != nil {
			return nil, err
		}
		obj = append(obj, member{k, v})
	}
	if _, err := r.dec.Token(); err != nil {
		return nil, jsonErr(r.where(), err)
	}
	return obj, nil
}

func jsonErr(path string, err error) error {
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return fieldErr(path, "invalid JSON: %v", err)
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case object:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	}
	return fmt.Sprintf("%T", v)
}

func (o object) get(key string) (any, bool) {
	for _, m := range o {
		if m.key == key {
			return m.val, true
		}
	}
	return nil, false
}

// only rejects members other than the allowed ones, naming the first
// unknown one in document order and listing the allowed names.
func (o object) only(path string, allowed ...string) error {
	for _, m := range o {
		if !slices.Contains(allowed, m.key) {
			return fieldErr(join(path, m.key), "unknown field; allowed here: %s", strings.Join(allowed, ", "))
		}
	}
	return nil
}

func (o object) lookup(path, key string, required bool) (any, bool, error) {
	v, ok := o.get(key)
	if !ok {
		if required {
			return nil, false, fieldErr(join(path, key), "required field is missing")
		}
		return nil, false, nil
	}
	if v == nil {
		return nil, false, fieldErr(join(path, key), "must not be null")
	}
	return v, true, nil
}

// str reads a required string field.
func (o object) str(path, key string) (string, error) {
	v, ok, err := o.lookup(path, key, true)
	if err != nil || !ok {
		return "", err
	}
	s, isStr := v.(string)
	if !isStr {
		return "", fieldErr(join(path, key), "must be a string, got %s", typeName(v))
	}
	return s, nil
}

func (o object) obj(path, key string, required bool) (object, error) {
	v, ok, err := o.lookup(path, key, required)
	if err != nil || !ok {
		return nil, err
	}
	ob, isObj := v.(object)
	if !isObj {
		return nil, fieldErr(join(path, key), "must be an object, got %s", typeName(v))
	}
	return ob, nil
}

func (o object) integer(path, key string, required bool, lo, hi int) (int, error) {
	v, ok, err := o.lookup(path, key, required)
	if err != nil || !ok {
		return 0, err
	}
	f := join(path, key)
	n, isNum := v.(json.Number)
	if !isNum {
		return 0, fieldErr(f, "must be a whole number, got %s", typeName(v))
	}
	i, perr := strconv.ParseInt(n.String(), 10, 64)
	if perr != nil {
		return 0, fieldErr(f, "must be a whole number, got %s", n)
	}
	if i < int64(lo) || i > int64(hi) {
		return 0, fieldErr(f, "must be between %d and %d, got %d", lo, hi, i)
	}
	return int(i), nil
}

func (o object) number(path, key string) (float64, error) {
	v, ok, err := o.lookup(path, key, false)
	if err != nil || !ok {
		return 0, err
	}
	n, isNum := v.(json.Number)
	if !isNum {
		return 0, fieldErr(join(path, key), "must be a number, got %s", typeName(v))
	}
	x, perr := n.Float64()
	if perr != nil || math.IsInf(x, 0) || math.IsNaN(x) {
		return 0, fieldErr(join(path, key), "must be a finite number, got %s", n)
	}
	return x, nil
}

// strMap reads an optional object of string values; an empty object reads as nil.
func (o object) strMap(path, key string) (map[string]string, error) {
	ob, err := o.obj(path, key, false)
	if err != nil || len(ob) == 0 {
		return nil, err
	}
	m := make(map[string]string, len(ob))
	for _, mem := range ob {
		s, isStr := mem.val.(string)
		if !isStr {
			return nil, fieldErr(join(join(path, key), mem.key), "must be a string, got %s", typeName(mem.val))
		}
		m[mem.key] = s
	}
	return m, nil
}
