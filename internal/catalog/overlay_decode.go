// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package catalog

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// decoder fills a Go value from a node, like encoding/json with
// DisallowUnknownFields, but reports every problem (with its line) instead
// of the first, and refuses numbers that are not finite or not whole where
// a whole number is needed.
type decoder struct {
	budget  *budget
	section string // sectionOffers, ... : finds the limit named in a message
	errs    []decodeProblem
}

// decodeProblem is one problem of an entry: field path inside it, line.
type decodeProblem struct {
	field string
	line  int32
	msg   string
}

func (d *decoder) fail(field string, line int32, format string, args ...any) {
	d.errs = append(d.errs, decodeProblem{field: field, line: line, msg: fmt.Sprintf(format, args...)})
}

// decode fills v (a pointer) from n.
func (d *decoder) decode(n *node, v any) {
	d.value(n, reflect.ValueOf(v).Elem(), "", n.line)
}

func (d *decoder) value(n *node, v reflect.Value, field string, line int32) {
	if !d.budget.spend(1) {
		if len(d.errs) == 0 || d.errs[len(d.errs)-1].msg != errBudget.Error() {
			d.fail(field, line, "%v", errBudget)
		}
		return
	}
	if v.Kind() == reflect.Pointer {
		if n.kind == nodeNull {
			return
		}
		p := reflect.New(v.Type().Elem())
		d.value(n, p.Elem(), field, line)
		v.Set(p)
		return
	}
	if n.kind == nodeNull {
		return // absent, like encoding/json
	}
	switch v.Kind() {
	case reflect.String, reflect.Bool, reflect.Int, reflect.Int64, reflect.Int32, reflect.Float64:
		d.scalar(n, v, field, line)
	case reflect.Slice:
		d.list(n, v, field, line)
	case reflect.Map:
		d.mapping(n, v, field, line)
	case reflect.Struct:
		d.object(n, v, field, line)
	default:
		d.fail(field, line, "cannot be read (unsupported Go type %s: a provider bug, please report it)", v.Type())
	}
}

// scalar decodes a string, boolean, whole number or number.
func (d *decoder) scalar(n *node, v reflect.Value, field string, line int32) {
	switch v.Kind() {
	case reflect.String:
		if n.kind == nodeString || (n.plain && (n.kind == nodeNumber || n.kind == nodeBool)) {
			v.SetString(n.text)
			return
		}
		d.wrongType(n, "a string", field, line)
	case reflect.Bool:
		if n.kind != nodeBool {
			d.wrongType(n, "true or false", field, line)
			return
		}
		v.SetBool(n.text == "true")
	case reflect.Float64:
		if n.kind != nodeNumber {
			d.wrongType(n, "a number", field, line)
			return
		}
		f, msg := d.float(n.text, field)
		if msg != "" {
			d.fail(field, line, "%s", msg)
			return
		}
		v.SetFloat(f)
	default: // whole numbers
		if n.kind != nodeNumber {
			d.wrongType(n, "a whole number", field, line)
			return
		}
		i, msg := d.integer(n.text, field)
		if msg != "" {
			d.fail(field, line, "%s", msg)
			return
		}
		if v.OverflowInt(i) {
			d.fail(field, line, "must be a whole number, got %s", formatLiteral(n.text))
			return
		}
		v.SetInt(i)
	}
}

func (d *decoder) list(n *node, v reflect.Value, field string, line int32) {
	if n.kind != nodeList {
		d.wrongType(n, "a list", field, line)
		return
	}
	s := reflect.MakeSlice(v.Type(), len(n.vals), len(n.vals))
	for i, item := range n.vals {
		d.value(item, s.Index(i), fmt.Sprintf("%s[%d]", field, i), item.line)
	}
	v.Set(s)
}

func (d *decoder) mapping(n *node, v reflect.Value, field string, line int32) {
	if n.kind != nodeMap {
		d.wrongType(n, "a mapping", field, line)
		return
	}
	m := reflect.MakeMapWithSize(v.Type(), len(n.keys))
	for i, k := range n.keys {
		e := reflect.New(v.Type().Elem()).Elem()
		d.value(n.vals[i], e, joinField(field, k), n.keyLines[i])
		m.SetMapIndex(reflect.ValueOf(k).Convert(v.Type().Key()), e)
	}
	v.Set(m)
}

// object decodes a mapping into a struct: only the keys given are set,
// so decoding over a copy of a built-in object overrides its fields.
func (d *decoder) object(n *node, v reflect.Value, field string, line int32) {
	if n.kind != nodeMap {
		d.wrongType(n, "a mapping", field, line)
		return
	}
	info := structFields(v.Type())
	for i, k := range n.keys {
		idx, ok := info.byName[k]
		if !ok {
			d.fail(joinField(field, k), n.keyLines[i], "unknown field%s", didYouMeanN(k, info.names, 1))
			continue
		}
		d.value(n.vals[i], v.Field(idx), joinField(field, k), n.keyLines[i])
	}
}

func (d *decoder) wrongType(n *node, want, field string, line int32) {
	got := n.kind.String()
	if n.kind == nodeString || n.kind == nodeNumber || n.kind == nodeBool {
		got += " (" + clip(n.text) + ")"
	}
	d.fail(field, line, "must be %s, got %s", want, got)
}

// float parses a number; a non-empty message when it is not finite.
func (d *decoder) float(text, field string) (float64, string) {
	f, err := strconv.ParseFloat(text, 64)
	if err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
		return f, ""
	}
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Sprintf("%s is not a number", clip(text))
	}
	return 0, d.outOfRange(text, field, "a finite number")
}

// integer parses a whole number; a non-empty message when it is not one
// or does not fit in 64 bits.
func (d *decoder) integer(text, field string) (int64, string) {
	if i, err := strconv.ParseInt(text, 10, 64); err == nil {
		return i, ""
	}
	f, err := strconv.ParseFloat(text, 64)
	if err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<62 {
		return int64(f), "" // 8.0, 1e3
	}
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Sprintf("%s is not a number", clip(text))
	}
	return 0, d.outOfRange(text, field, "a whole number")
}

// outOfRange words a number the field cannot hold, with the field's limit
// when it has one.
func (d *decoder) outOfRange(text, field, what string) string {
	if fl, ok := lookupFieldLimit(d.section, field); ok {
		l := limit(fl.limit)
		if fl.zeroOK {
			return fmt.Sprintf("must be 0 or %s %s, got %s", what, l.Range(), formatLiteral(text))
		}
		return fmt.Sprintf("must be %s %s, got %s", what, l.Range(), formatLiteral(text))
	}
	return fmt.Sprintf("must be %s, got %s", what, formatLiteral(text))
}

// formatLiteral renders a number literal in plain notation, also one
// beyond the float64 range (1e400 -> "1 × 10^400").
func formatLiteral(text string) string {
	switch text {
	case "+Inf", "-Inf", "NaN":
		f, _ := strconv.ParseFloat(text, 64)
		return FormatNumber(f) + " (YAML ." + strings.ToLower(strings.TrimPrefix(text, "+")) + ")"
	}
	f, ok := new(big.Float).SetString(text)
	if !ok {
		return strconv.Quote(text)
	}
	if v, acc := f.Float64(); !math.IsInf(v, 0) && (v != 0 || f.Sign() == 0) && acc == big.Exact {
		return FormatNumber(v)
	}
	s := f.Text('e', 3) // 1.000e+400
	mant, exp, _ := strings.Cut(s, "e")
	if strings.Contains(mant, ".") {
		mant = strings.TrimRight(strings.TrimRight(mant, "0"), ".")
	}
	e, _ := strconv.Atoi(exp)
	return fmt.Sprintf("%s × 10^%d", mant, e)
}

func joinField(field, key string) string {
	if field == "" {
		return key
	}
	return field + "." + key
}

// structInfo maps the json names of a struct's fields to their index.
type structInfo struct {
	byName map[string]int
	names  []string // sorted, for suggestions
}

var structCache sync.Map // reflect.Type -> *structInfo

func structFields(t reflect.Type) *structInfo {
	if si, ok := structCache.Load(t); ok {
		return si.(*structInfo) //nolint:forcetypeassert // only *structInfo is stored
	}
	si := &structInfo{byName: map[string]int{}}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" || name == "" {
			continue
		}
		si.byName[name] = i
		si.names = append(si.names, name)
	}
	slices.Sort(si.names)
	structCache.Store(t, si)
	return si
}

// clip quotes user text for a message, cut to 40 bytes.
func clip(s string) string {
	if len(s) > 40 {
		return strconv.Quote(s[:37]) + "..."
	}
	return strconv.Quote(s)
}
