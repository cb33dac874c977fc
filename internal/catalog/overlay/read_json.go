// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package overlay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// A JSON file is read with encoding/json's Decoder in two passes over its
// bytes. The first finds the top-level keys and the byte range of each
// value (the decoder scans a value without building it: this pass also
// finds any syntax error). The second reads a section's value when it is
// applied, entry by entry as tokens, building each entry as yaml.v3 nodes
// (the tags YAML would give, the line from the decoder's offset) for the
// one decoder of both formats. Memory follows the largest entry, not the
// file, and an entry may hold at most maxEntryValues values.

// maxEntryValues bounds the values of one entry (a few dozen in a real
// one: an offer has about 20 fields, a cloud with its egress tiers about
// 40), and maxEntryDepth its nesting (at most 3 in a real one).
const (
	maxEntryValues = 10_000
	maxEntryDepth  = 30
)

// maxTopKeys bounds the top-level keys read: a catalog file has at most
// the five sections, and every other key is a problem.
const maxTopKeys = maxProblemsRead

// jsonSections reads the top level of a JSON file into its sections; nil
// when the file cannot be read (reported).
func (r *run) jsonSections(data []byte) []section {
	lines := &lineIndex{data: data, line: 1}
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	switch {
	case errors.Is(err, io.EOF):
		r.problem(1, "", "", "malformed JSON: unexpected end of file, expected a value")
		return nil
	case err != nil:
		r.jsonSyntax(lines, 0, err)
		return nil
	case tok != json.Delim('{'):
		r.topLevelMapping(lines.at(int(dec.InputOffset())), jsonKind(tok))
		return nil
	}
	var secs []section
	for dec.More() {
		if len(secs) == maxTopKeys {
			r.problem(lines.at(int(dec.InputOffset())), "", "", "more than %d top-level keys: a catalog file has at most the %d sections %s",
				maxTopKeys, len(sectionOrder), catalog.QuoteList(sectionOrder))
			return nil
		}
		key, err := dec.Token()
		line := lines.at(int(dec.InputOffset()))
		var v span
		if err == nil {
			err = dec.Decode(&v)
		}
		if err != nil {
			r.jsonSyntax(lines, 0, err)
			return nil
		}
		end := int(dec.InputOffset())
		secs = append(secs, r.jsonSection(data, lines, key.(string), line, end-int(v), end)) //nolint:forcetypeassert // keys are strings
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		r.jsonSyntax(lines, 0, err)
		return nil
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		r.problem(lines.at(nextByte(data, int(dec.InputOffset()))), "", "", "malformed JSON: data after the top-level object")
		return nil
	}
	return secs
}

// span is a JSON value decoded to its length only.
type span int

func (s *span) UnmarshalJSON(b []byte) error { *s = span(len(b)); return nil }

// jsonSection is one top-level key whose value is data[start:end].
func (r *run) jsonSection(data []byte, lines *lineIndex, key string, line, start, end int) section {
	s := section{key: key, line: line}
	switch data[start] {
	case '[':
		s.shape, s.got = shapeList, "a list"
	case '{':
		s.shape, s.got = shapeMap, "a mapping"
	case 'n':
		s.shape, s.got = shapeNull, "null"
	case '"':
		var str string
		_ = json.Unmarshal(data[start:end], &str)
		s.got = "a string (" + clip(str) + ")"
	case 't', 'f':
		s.got = "a boolean (" + string(data[start:end]) + ")"
	default:
		s.got = "a number (" + clip(string(data[start:end])) + ")"
	}
	s.items = r.jsonItems(data[start:end], &lineIndex{data: data[:end], off: start, line: lines.at(start)}, s.shape)
	return s
}

// jsonItems yields the entries of a list value one at a time, or a
// mapping value as one item.
func (r *run) jsonItems(value []byte, lines *lineIndex, sh shape) iter.Seq[item] {
	return func(yield func(item) bool) {
		dec := json.NewDecoder(bytes.NewReader(value))
		dec.UseNumber()
		b := &jsonBuilder{dec: dec, lines: lines, base: lines.off, budget: r.budget}
		tok, err := dec.Token()
		if err == nil && sh == shapeMap {
			yield(b.entry(tok))
			return
		}
		for err == nil && dec.More() {
			if tok, err = dec.Token(); err == nil && !yield(b.entry(tok)) {
				return
			}
		}
		if err != nil {
			r.jsonSyntax(lines, b.base, err)
		}
	}
}

// jsonSyntax reports a syntax error of a decoder whose input starts at
// offset base of the file, at its line.
func (r *run) jsonSyntax(lines *lineIndex, base int, err error) {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		r.problem(lines.at(base+int(se.Offset)), "", "", "malformed JSON: %s", se.Error())
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		r.problem(lines.at(len(lines.data)), "", "", "malformed JSON: unexpected end of file")
	default:
		r.problem(0, "", "", "malformed JSON: %v", err)
	}
}

// jsonBuilder builds the nodes of one entry from the decoder's tokens.
type jsonBuilder struct {
	dec    *json.Decoder
	lines  *lineIndex
	base   int // offset of the decoder's input in the file
	budget *budget
	values int  // values of the current entry
	over   bool // the entry holds too many values or nests too deep: tokens are read, not built
}

// entry builds the entry that starts with tok.
func (b *jsonBuilder) entry(tok json.Token) item {
	b.values, b.over = 0, false
	line := b.line()
	n := b.node(tok, 0)
	if b.over {
		return item{line: line, unread: fmt.Sprintf("holds more than %d values or nests more than %d levels deep; a catalog entry holds a few dozen",
			maxEntryValues, maxEntryDepth)}
	}
	return item{node: n, line: line}
}

func (b *jsonBuilder) line() int { return b.lines.at(b.base + int(b.dec.InputOffset())) }

// node builds the value that starts with tok and reads its tokens to its
// end; nil once the entry is over its limits.
func (b *jsonBuilder) node(tok json.Token, depth int) *yaml.Node {
	b.values++
	if b.values > maxEntryValues || depth > maxEntryDepth || !b.budget.spend(1) {
		b.over = true
	}
	n := &yaml.Node{Kind: yaml.ScalarNode, Style: yaml.TaggedStyle, Line: b.line()}
	switch t := tok.(type) {
	case json.Delim:
		n.Kind, n.Tag, n.Style = yaml.SequenceNode, "!!seq", 0
		if t == '{' {
			n.Kind, n.Tag = yaml.MappingNode, "!!map"
		}
		b.children(n, depth)
	case string:
		n.Tag, n.Value, n.Style = "!!str", t, yaml.DoubleQuotedStyle
	case json.Number:
		n.Tag, n.Value = "!!int", string(t)
		if strings.ContainsAny(string(t), ".eE") {
			n.Tag = "!!float"
		}
	case bool:
		n.Tag, n.Value = "!!bool", fmt.Sprint(t)
	default:
		n.Tag, n.Value = "!!null", "null"
	}
	if b.over {
		return nil
	}
	return n
}

// children reads the keys and values of a mapping or the items of a list
// up to its closing delimiter.
func (b *jsonBuilder) children(n *yaml.Node, depth int) {
	for b.dec.More() {
		if n.Kind == yaml.MappingNode {
			k, err := b.dec.Token()
			if err != nil {
				return // reported by the section's reading
			}
			key, _ := k.(string)
			b.add(n, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key, Style: yaml.DoubleQuotedStyle, Line: b.line()})
		}
		tok, err := b.dec.Token()
		if err != nil {
			return
		}
		b.add(n, b.node(tok, depth+1))
	}
	_, _ = b.dec.Token() // the closing delimiter
}

func (b *jsonBuilder) add(n, child *yaml.Node) {
	if !b.over {
		n.Content = append(n.Content, child)
	}
}

// jsonKind names the value a token starts, for messages.
func jsonKind(tok json.Token) string {
	switch tok {
	case json.Delim('['):
		return "a list"
	case nil:
		return "null"
	}
	switch tok.(type) {
	case string:
		return "a string"
	case bool:
		return "a boolean"
	}
	return "a number"
}

// lineIndex turns byte offsets of a file into 1-based lines, counting
// forward from the last offset asked (offsets mostly grow).
type lineIndex struct {
	data      []byte
	off, line int
}

func (l *lineIndex) at(off int) int {
	off = min(max(off, 0), len(l.data))
	if off < l.off {
		l.off, l.line = 0, 1
	}
	l.line += bytes.Count(l.data[l.off:off], []byte{'\n'})
	l.off = off
	return l.line
}

// nextByte is the offset of the first byte at or after off that is not
// JSON white space.
func nextByte(data []byte, off int) int {
	for off < len(data) && bytes.IndexByte([]byte(" \t\r\n"), data[off]) >= 0 {
		off++
	}
	return off
}
