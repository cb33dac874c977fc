// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package overlay

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
	"slices"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"go.yaml.in/yaml/v3"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// A JSON file is read with the streaming decoder of encoding/json/v2's
// jsontext (the module github.com/go-json-experiment/json mirrors it, and
// is the standard library's package from Go 1.27 on): tokens without
// allocation, the byte offset of each, strict UTF-8. Two passes over the
// bytes, both without copying them: the first finds the top-level keys and
// the byte range of each value (and any syntax error); the second reads a
// section's value when it is applied, entry by entry, building each entry
// as yaml.v3 nodes (the tags YAML would give, the line from the offset)
// for the one decoder of both formats. Memory follows the largest entry,
// not the file, and an entry may hold at most maxEntryValues values.

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

// jsonOptions: duplicate keys are reported by the decoder of entries, with
// the entry and the field; text must be UTF-8.
var jsonOptions = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(false)}

// jsonSections reads the top level of a JSON file into its sections; nil
// when the file cannot be read (reported).
func (r *run) jsonSections(data []byte) []section {
	lines := &lineIndex{data: data, line: 1}
	dec := jsontext.NewDecoder(bytes.NewBuffer(data), jsonOptions...)
	tok, err := dec.ReadToken()
	switch {
	case err != nil:
		r.jsonSyntax(lines, 0, err)
		return nil
	case tok.Kind() != '{':
		r.topLevelMapping(lines.at(int(dec.InputOffset())), jsonKind(tok.Kind()))
		return nil
	}
	var secs []section
	for dec.PeekKind() == '"' {
		if len(secs) == maxTopKeys {
			r.problem(lines.at(int(dec.InputOffset())), "", "", "more than %d top-level keys: a catalog file has at most the %d sections %s",
				maxTopKeys, len(sectionOrder), catalog.QuoteList(sectionOrder))
			return nil
		}
		tok, err := dec.ReadToken()
		key, line := tok.String(), lines.at(int(dec.InputOffset())) // before the next read voids tok
		var v jsontext.Value
		if err == nil {
			v, err = dec.ReadValue()
		}
		if err != nil {
			r.jsonSyntax(lines, 0, err)
			return nil
		}
		end := int(dec.InputOffset())
		secs = append(secs, r.jsonSection(data, lines, key, line, end-len(v), end))
	}
	if _, err := dec.ReadToken(); err != nil { // the closing brace
		r.jsonSyntax(lines, 0, err)
		return nil
	}
	if _, err := dec.ReadToken(); !errors.Is(err, io.EOF) {
		r.problem(lines.at(nextByte(data, int(dec.InputOffset()))), "", "", "malformed JSON: data after the top-level object")
		return nil
	}
	return secs
}

// jsonSection is one top-level key whose value is data[start:end].
func (r *run) jsonSection(data []byte, lines *lineIndex, key string, line, start, end int) section {
	s := section{key: key, line: line, got: jsonKind(jsontext.Kind(data[start]))}
	switch data[start] {
	case '[':
		s.shape = shapeList
	case '{':
		s.shape = shapeMap
	case 'n':
		s.shape = shapeNull
	case '"':
		s.got += " (" + clip(string(data[start+1:end-1])) + ")"
	default:
		s.got += " (" + clip(string(data[start:end])) + ")"
	}
	s.items = r.jsonItems(data[start:end], &lineIndex{data: data[:end], off: start, line: lines.at(start)}, s.shape)
	return s
}

// jsonItems yields the entries of a list value one at a time, or a
// mapping value as one item.
func (r *run) jsonItems(value []byte, lines *lineIndex, sh shape) iter.Seq[item] {
	return func(yield func(item) bool) {
		dec := jsontext.NewDecoder(bytes.NewBuffer(value), jsonOptions...)
		b := &jsonBuilder{dec: dec, lines: lines, base: lines.off, budget: r.budget}
		tok, err := dec.ReadToken()
		if err == nil && sh == shapeMap {
			yield(b.entry(tok))
			return
		}
		for err == nil && dec.PeekKind() != ']' {
			if tok, err = dec.ReadToken(); err == nil && !yield(b.entry(tok)) {
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
	var se *jsontext.SyntacticError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		r.problem(lines.at(len(lines.data)), "", "", "malformed JSON: unexpected end of file")
	case errors.As(err, &se):
		r.problem(lines.at(base+int(se.ByteOffset)), "", "", "malformed JSON: %s", strings.TrimPrefix(se.Err.Error(), "jsontext: "))
	default:
		r.problem(0, "", "", "malformed JSON: %v", err)
	}
}

// jsonBuilder builds the nodes of one entry from the decoder's tokens.
type jsonBuilder struct {
	dec    *jsontext.Decoder
	lines  *lineIndex
	base   int // offset of the decoder's input in the file
	budget *budget
	values int          // values of the current entry
	over   bool         // the entry holds too many values or nests too deep: tokens are read, not built
	slab   []yaml.Node  // nodes are taken from slabs: one allocation for many
	stack  []*yaml.Node // the children of the containers being read
}

// slabNodes is how many nodes one allocation holds (a dozen entries).
const slabNodes = 256

func (b *jsonBuilder) newNode() *yaml.Node {
	if len(b.slab) == 0 {
		b.slab = make([]yaml.Node, slabNodes)
	}
	n := &b.slab[0]
	b.slab = b.slab[1:]
	return n
}

// entry builds the entry that starts with tok.
func (b *jsonBuilder) entry(tok jsontext.Token) item {
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
func (b *jsonBuilder) node(tok jsontext.Token, depth int) *yaml.Node {
	b.values++
	if b.values > maxEntryValues || depth > maxEntryDepth || !b.budget.spend(1) {
		b.over = true
	}
	if b.over && tok.Kind() != '{' && tok.Kind() != '[' {
		return nil
	}
	n := b.newNode()
	n.Kind, n.Style, n.Line = yaml.ScalarNode, yaml.TaggedStyle, b.line()
	switch k := tok.Kind(); k {
	case '{', '[':
		n.Kind, n.Tag, n.Style = yaml.SequenceNode, "!!seq", 0
		if k == '{' {
			n.Kind, n.Tag = yaml.MappingNode, "!!map"
		}
		b.children(n, depth)
	case '"':
		n.Tag, n.Value, n.Style = "!!str", tok.String(), yaml.DoubleQuotedStyle
	case '0':
		n.Tag, n.Value = "!!int", tok.String()
		if strings.ContainsAny(n.Value, ".eE") {
			n.Tag = "!!float"
		}
	case 't', 'f':
		n.Tag, n.Value = "!!bool", tok.String()
	default:
		n.Tag, n.Value = "!!null", "null"
	}
	if b.over {
		return nil
	}
	return n
}

// children reads the keys and values of a mapping or the items of a list
// up to its closing delimiter; they are gathered on the builder's stack
// and copied into a Content of their exact number.
func (b *jsonBuilder) children(n *yaml.Node, depth int) {
	start := len(b.stack)
	defer func() {
		if !b.over {
			n.Content = slices.Clone(b.stack[start:])
		}
		clear(b.stack[start:])
		b.stack = b.stack[:start]
	}()
	for k := b.dec.PeekKind(); k != '}' && k != ']' && k != 0; k = b.dec.PeekKind() {
		tok, err := b.dec.ReadToken()
		if err != nil {
			return // reported by the section's reading
		}
		if n.Kind == yaml.MappingNode {
			key := b.newNode()
			key.Kind, key.Tag, key.Value, key.Style, key.Line = yaml.ScalarNode, "!!str", tok.String(), yaml.DoubleQuotedStyle, b.line()
			b.push(key)
			if tok, err = b.dec.ReadToken(); err != nil {
				return
			}
		}
		b.push(b.node(tok, depth+1))
	}
	_, _ = b.dec.ReadToken() // the closing delimiter
}

func (b *jsonBuilder) push(child *yaml.Node) {
	if !b.over {
		b.stack = append(b.stack, child)
	}
}

// jsonKind names the value a token kind starts, for messages.
func jsonKind(k jsontext.Kind) string {
	switch k {
	case '[':
		return "a list"
	case '{':
		return "a mapping"
	case 'n':
		return "null"
	case '"':
		return "a string"
	case 't', 'f':
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
