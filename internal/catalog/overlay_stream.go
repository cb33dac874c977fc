// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package catalog

import (
	"bytes"
	"errors"
	"iter"
	"regexp"
	"slices"
	"unicode/utf8"
)

// A YAML parser builds the whole document before anything can be read
// from it: for a 50 MB file of offers, about a gigabyte of nodes. A large
// file of the usual shape, top-level keys at column 0 with block lists of
// entries under them, is therefore read section by section and its lists
// in chunks of entries, each chunk parsed, converted and applied before the
// next is read.
//
// Splitting is safe because every chunk must parse on its own: a quoted
// string or flow collection that ran across a chunk boundary leaves its
// chunk unterminated, a parse error, and the whole file is then read at
// once, so errors keep their exact wording and line. Anchors and aliases,
// directives, document markers and tabs, which could tie chunks together,
// send the file to the whole reading too. FuzzOverlayYAML checks that both
// readings give the same catalog.

// streamMinBytes is the size from which a YAML file is read in chunks.
const streamMinBytes = 1 << 20

// streamChunkBytes is about how much YAML is parsed at once.
const streamChunkBytes = 256 << 10

// yamlSection is one top-level key of a file split for streaming.
type yamlSection struct {
	key       string
	line      int    // 1-based line of the key
	start     int    // byte offset where the section's text starts (the key line; 0 for the first)
	startLine int    // 1-based line at start
	end       int    // byte offset after the section
	items     []item // block list entries; nil when the value is read whole
}

// item is one entry of a block list: its byte offset and 1-based line.
type item struct{ start, line int }

var (
	// topKey is a top-level key line: key, colon, then a value on the same
	// line or nothing (a block value follows), perhaps a comment.
	topKey = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_-]*):(?:[ ]+(.*))?$`)
	// unsafeByte marks what could tie chunks together: anchors (&),
	// aliases (*), tabs, directives (%) and tags (!).
	unsafeByte = []byte("&*\t%!")
)

// splitYAML finds the sections and list entries of a file of the usual
// shape; ok is false when the file must be read whole.
func splitYAML(data []byte) (secs []yamlSection, ok bool) {
	if !streamable(data) {
		return nil, false
	}
	seen := map[string]bool{}
	var cur *yamlSection
	itemIndent := -1 // indentation of the current section's "- " lines; -1 before the first
	line := 0
	for off := 0; off < len(data); {
		end := bytes.IndexByte(data[off:], '\n')
		next := len(data)
		if end >= 0 {
			next = off + end + 1
		} else {
			end = len(data) - off
		}
		text := bytes.TrimRight(data[off:off+end], "\r")
		line++
		trimmed := bytes.TrimLeft(text, " ")
		indent := len(text) - len(trimmed)
		switch {
		case len(trimmed) == 0 || trimmed[0] == '#':
			// blank or comment: part of whatever it is in
		case bytes.HasPrefix(trimmed, []byte("---")) || bytes.HasPrefix(trimmed, []byte("...")):
			return nil, false // document markers
		case indent == 0 && !isItem(trimmed):
			// An unknown or repeated key is reported by the whole reading,
			// which also finds the syntax errors of its value.
			m := topKey.FindSubmatch(text)
			if m == nil || seen[string(m[1])] || !slices.Contains(overlaySections, string(m[1])) {
				return nil, false
			}
			seen[string(m[1])] = true
			if cur != nil {
				cur.end = off
			}
			secs = append(secs, yamlSection{key: string(m[1]), line: line, start: off, startLine: line})
			cur = &secs[len(secs)-1]
			itemIndent = -1
			if len(m[2]) > 0 && m[2][0] != '#' {
				itemIndent = -2 // a value on the key's line: the section is read whole
			}
		case cur == nil:
			return nil, false
		case itemIndent == -1:
			if !isItem(trimmed) || cur.key == sectionDiscounts {
				itemIndent = -2 // a block mapping, or anything under discounts: read whole
				break
			}
			itemIndent = indent
			cur.items = append(cur.items, item{start: off, line: line})
		case itemIndent == -2:
			// inside a section read whole
		case indent == itemIndent && isItem(trimmed):
			cur.items = append(cur.items, item{start: off, line: line})
		case indent <= itemIndent:
			return nil, false // less indented than the entries: not the usual shape
		}
		off = next
	}
	if cur == nil {
		return nil, false
	}
	cur.end = len(data)
	secs[0].start, secs[0].startLine = 0, 1 // the comments before the first key are parsed with it
	return secs, true
}

// streamable reports whether a file may be split: UTF-8 with "\n" or
// "\r\n" line breaks only (YAML also breaks lines at a lone "\r", U+0085,
// U+2028 and U+2029, which would shift line numbers), no control
// characters, no byte order mark, and none of unsafeByte.
func streamable(data []byte) bool {
	if !utf8.Valid(data) || bytes.ContainsAny(data, string(unsafeByte)) ||
		bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) || bytes.ContainsAny(data, "\u0085\u2028\u2029") {
		return false
	}
	for i, b := range data {
		if (b < 0x20 && b != '\n' && b != '\r') || b == 0x7f || (b == '\r' && (i+1 == len(data) || data[i+1] != '\n')) {
			return false
		}
	}
	return true
}

func isItem(trimmed []byte) bool {
	return len(trimmed) == 1 && trimmed[0] == '-' || bytes.HasPrefix(trimmed, []byte("- "))
}

var errChunk = errors.New("a chunk of the file does not parse alone")

// streamSections turns split sections into sections for run: lists as
// chunks of entries, other values read whole. A chunk that does not parse
// sets r.streamErr and ends the reading.
func (r *overlayRun) streamSections(data []byte, secs []yamlSection) []section {
	out := make([]section, 0, len(secs))
	for _, ys := range secs {
		s := section{key: ys.key, line: int32(ys.line)}
		if ys.items == nil {
			n, err := r.chunk(data[ys.start:ys.end], ys.startLine)
			if err != nil {
				return nil
			}
			s.value = &node{kind: nodeNull, line: int32(ys.line)}
			if n.kind == nodeMap && len(n.vals) == 1 {
				s.value = n.vals[0]
			}
		} else {
			// The key line and what precedes the first entry (comments):
			// parsed too, so every byte of the file passes the YAML reader.
			if _, err := r.chunk(data[ys.start:ys.items[0].start], ys.startLine); err != nil {
				return nil
			}
			s.chunks = r.listChunks(data, ys)
		}
		out = append(out, s)
	}
	return out
}

// listChunks yields the entries of a block list in chunks of about
// streamChunkBytes, each parsed alone with its lines numbered as in the file.
func (r *overlayRun) listChunks(data []byte, ys yamlSection) iter.Seq[*node] {
	return func(yield func(*node) bool) {
		for i := 0; i < len(ys.items); {
			j := i + 1
			for j < len(ys.items) && ys.items[j].start-ys.items[i].start < streamChunkBytes {
				j++
			}
			end := ys.end
			if j < len(ys.items) {
				end = ys.items[j].start
			}
			n, err := r.chunk(data[ys.items[i].start:end], ys.items[i].line)
			if err != nil {
				return
			}
			if n.kind != nodeList {
				r.streamErr = errChunk
				return
			}
			if !yield(n) {
				return
			}
			i = j
		}
	}
}

// chunk parses part of the file that starts at line first.
func (r *overlayRun) chunk(text []byte, first int) (*node, error) {
	n, err := yamlTree(text, r.budget)
	if err != nil {
		r.streamErr = err
		return nil, err
	}
	shiftLines(n, int32(first-1))
	return n, nil
}

// shiftLines renumbers the lines of a chunk's nodes as lines of the file.
func shiftLines(n *node, by int32) {
	n.line += by
	for i := range n.keyLines {
		n.keyLines[i] += by
	}
	for _, v := range n.vals {
		shiftLines(v, by)
	}
}
