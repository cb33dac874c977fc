// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package overlay

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// decoder fills a Go value from a node, like encoding/json with
// DisallowUnknownFields, but reports every problem (with its line) instead
// of the first, and refuses numbers that are not finite or not whole where
// a whole number is needed. Decoding follows the Go type: it never
// descends into a value where the type wants something else, so aliases
// cannot make it loop, and a merge key (<<) merges each mapping once.
type decoder struct {
	budget  *budget
	section string // secOffers, ...: finds the limit named in a message
	errs    []decodeProblem
	merging map[*yaml.Node]bool // mappings whose merge keys are being expanded
}

// decodeProblem is one problem of an entry: field path inside it, line.
type decodeProblem struct {
	field string
	line  int
	msg   string
}

func (d *decoder) fail(field string, line int, format string, args ...any) {
	d.errs = append(d.errs, decodeProblem{field: field, line: line, msg: fmt.Sprintf(format, args...)})
}

// decode fills v (a pointer) from n.
func (d *decoder) decode(n *yaml.Node, v any) {
	d.value(n, reflect.ValueOf(v).Elem(), "", n.Line)
}

func (d *decoder) value(n *yaml.Node, v reflect.Value, field string, line int) {
	if !d.budget.spend(1) {
		if len(d.errs) == 0 || d.errs[len(d.errs)-1].msg != errBudget.Error() {
			d.fail(field, line, "%v", errBudget)
		}
		return
	}
	n = resolve(n)
	if v.Kind() == reflect.Pointer {
		if isNull(n) {
			return
		}
		p := reflect.New(v.Type().Elem())
		d.value(n, p.Elem(), field, line)
		v.Set(p)
		return
	}
	if isNull(n) {
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
func (d *decoder) scalar(n *yaml.Node, v reflect.Value, field string, line int) {
	kind := scalarKind(n)
	switch v.Kind() {
	case reflect.String:
		if kind == kindString || (isPlain(n) && (kind == kindNumber || kind == kindBool)) {
			v.SetString(n.Value)
			return
		}
		d.wrongType(n, "a string", field, line)
	case reflect.Bool:
		if kind != kindBool {
			d.wrongType(n, "true or false", field, line)
			return
		}
		v.SetBool(boolValue(n))
	case reflect.Float64:
		text, ok := numberText(n)
		if !ok {
			d.wrongType(n, "a number", field, line)
			return
		}
		f, msg := d.float(text, field)
		if msg != "" {
			d.fail(field, line, "%s", msg)
			return
		}
		v.SetFloat(f)
	default: // whole numbers
		text, ok := numberText(n)
		if !ok {
			d.wrongType(n, "a whole number", field, line)
			return
		}
		i, msg := d.integer(text, field)
		if msg == "" && v.OverflowInt(i) {
			msg = "must be a whole number, got " + formatLiteral(text)
		}
		if msg != "" {
			d.fail(field, line, "%s", msg)
			return
		}
		v.SetInt(i)
	}
}

func (d *decoder) list(n *yaml.Node, v reflect.Value, field string, line int) {
	if n.Kind != yaml.SequenceNode {
		d.wrongType(n, "a list", field, line)
		return
	}
	s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	for i, item := range n.Content {
		d.value(item, s.Index(i), fmt.Sprintf("%s[%d]", field, i), item.Line)
	}
	v.Set(s)
}

func (d *decoder) mapping(n *yaml.Node, v reflect.Value, field string, line int) {
	if n.Kind != yaml.MappingNode {
		d.wrongType(n, "a mapping", field, line)
		return
	}
	m := reflect.MakeMapWithSize(v.Type(), len(n.Content)/2)
	d.pairs(n, field, func(k string, kl int, val *yaml.Node) {
		e := reflect.New(v.Type().Elem()).Elem()
		d.value(val, e, joinField(field, k), kl)
		m.SetMapIndex(reflect.ValueOf(k).Convert(v.Type().Key()), e)
	})
	v.Set(m)
}

// object decodes a mapping into a struct: only the keys given are set,
// so decoding over a copy of a built-in object overrides its fields.
func (d *decoder) object(n *yaml.Node, v reflect.Value, field string, line int) {
	if n.Kind != yaml.MappingNode {
		d.wrongType(n, "a mapping", field, line)
		return
	}
	info := structFields(v.Type())
	d.pairs(n, field, func(k string, kl int, val *yaml.Node) {
		idx, ok := info.byName[k]
		if !ok {
			d.fail(joinField(field, excerpt(k)), kl, "unknown field%s", catalog.DidYouMean(k, info.names, 1))
			return
		}
		d.value(val, v.Field(idx), joinField(field, k), kl)
	})
}

// pairs calls fn with each key of mapping n, its line and its value: the
// keys written in n first, then those of its merge keys (<<: *defaults)
// not written, first source first. A key given twice, a key that is not a
// plain name and a merge source that is not a mapping are reported.
func (d *decoder) pairs(n *yaml.Node, field string, fn func(key string, keyLine int, v *yaml.Node)) {
	var merges []*yaml.Node
	keys := keySet{seen: make([]keyLine, 0, len(n.Content)/2)}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := resolve(n.Content[i]), n.Content[i+1]
		switch {
		case k.Kind != yaml.ScalarNode:
			d.fail(field, k.Line, "a key must be a plain name, got %s", kindOf(k))
		case k.ShortTag() == "!!merge":
			merges = d.mergeSources(v, joinField(field, "<<"), merges)
		default:
			if first, dup := keys.add(k.Value, k.Line); dup {
				d.fail(joinField(field, excerpt(k.Value)), k.Line, "duplicate key (first at line %d)", first)
				continue
			}
			fn(k.Value, k.Line, v)
		}
	}
	if len(merges) == 0 {
		return
	}
	if d.merging == nil {
		d.merging = map[*yaml.Node]bool{}
	}
	for _, m := range merges {
		if d.merging[m] {
			d.fail(field, m.Line, "a merge key (<<) refers to the mapping it is inside of")
			continue
		}
		d.merging[m] = true
		d.pairs(m, field, func(k string, kl int, v *yaml.Node) {
			if _, dup := keys.add(k, kl); !dup {
				fn(k, kl, v)
			}
		})
		delete(d.merging, m)
	}
}

// mergeSources appends the mappings a merge key's value names: a mapping
// or a list of mappings.
func (d *decoder) mergeSources(v *yaml.Node, field string, merges []*yaml.Node) []*yaml.Node {
	v = resolve(v)
	srcs := []*yaml.Node{v}
	if v.Kind == yaml.SequenceNode {
		srcs = v.Content
	}
	for _, s := range srcs {
		if s = resolve(s); s.Kind != yaml.MappingNode {
			d.fail(field, s.Line, "a merge key (<<) takes a mapping or a list of mappings, got %s", kindOf(s))
			continue
		}
		if !d.budget.spend(len(s.Content)) {
			d.fail(field, s.Line, "%v", errBudget)
			return merges
		}
		merges = append(merges, s)
	}
	return merges
}

func (d *decoder) wrongType(n *yaml.Node, want, field string, line int) {
	got := kindOf(n)
	if n.Kind == yaml.ScalarNode && scalarKind(n) != kindNull {
		got += " (" + clip(n.Value) + ")"
	}
	d.fail(field, line, "must be %s, got %s", want, got)
}

// keySet finds duplicate keys of a mapping: a linear scan for small
// mappings, an index past 16 keys.
type keySet struct {
	seen []keyLine
	idx  map[string]int // key -> line
}

type keyLine struct {
	key  string
	line int
}

// add records key at line; when it was there, it returns the first line.
func (s *keySet) add(key string, line int) (int, bool) {
	if s.idx == nil && len(s.seen) > 16 {
		s.idx = make(map[string]int, 2*len(s.seen))
		for _, k := range s.seen {
			s.idx[k.key] = k.line
		}
	}
	if s.idx != nil {
		if l, ok := s.idx[key]; ok {
			return l, true
		}
		s.idx[key] = line
		return 0, false
	}
	for _, k := range s.seen {
		if k.key == key {
			return k.line, true
		}
	}
	s.seen = append(s.seen, keyLine{key, line})
	return 0, false
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
