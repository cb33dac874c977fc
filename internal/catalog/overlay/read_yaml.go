// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package overlay

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
	"runtime"
	"slices"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// yaml.v3 builds a whole document before anything can be read from it,
// about 170 bytes a value: for a 50 MB file of offers, about a gigabyte. A
// large file of the usual shape, top-level keys at column 0 with block
// lists of entries under them, is therefore read section by section and
// its lists in chunks of entries, each chunk parsed, decoded and applied
// before the next is read.
//
// Splitting is safe because every chunk must parse on its own: a quoted
// string or flow collection that ran across a chunk boundary leaves its
// chunk unterminated, a parse error, and the whole file is then read at
// once, so errors keep their exact wording and line. Anchors and aliases,
// directives, document markers and tabs, which could tie chunks together,
// send the file to the whole reading too. FuzzOverlayYAML checks that both
// readings give the same catalog.
//
// Whatever is parsed at once, a chunk or a whole file, may hold at most
// maxParseValues values (an estimate from its text, before parsing): a
// file of another shape (one long flow list, a top-level list) is refused
// in moments instead of taking gigabytes.

// streamMinBytes is the size from which a YAML file is read in chunks.
const streamMinBytes = 1 << 20

// streamChunkBytes is about how much YAML is parsed at once.
const streamChunkBytes = 256 << 10

// maxParseValues bounds the values parsed at once: about 350 MB of
// yaml.v3 nodes, the whole reading of 80,000 offers.
const maxParseValues = 2_000_000

// wholeYAML reads a YAML file at once into its sections; nil when it
// cannot be read (reported) or is empty.
func (r *run) wholeYAML(data []byte) []section {
	doc, err := r.parseYAML(data, 1, false)
	if err != nil {
		return nil
	}
	root := resolve(doc)
	switch {
	case root.Kind == yaml.DocumentNode || isNull(root):
		r.empty = true
		return nil
	case root.Kind != yaml.MappingNode:
		r.topLevelMapping(root.Line, kindOf(root))
		return nil
	}
	secs := make([]section, 0, len(root.Content)/2)
	for i := 0; i+1 < len(root.Content); i += 2 {
		k := resolve(root.Content[i])
		if k.Kind != yaml.ScalarNode {
			r.problem(k.Line, "", "", "a key must be a plain name, got %s", kindOf(k))
			continue
		}
		secs = append(secs, valueSection(k.Value, k.Line, root.Content[i+1]))
	}
	return secs
}

// valueSection is a section whose value has been parsed.
func valueSection(key string, line int, v *yaml.Node) section {
	s := section{key: key, line: line}
	n := resolve(v)
	switch {
	case n.Kind == yaml.SequenceNode:
		s.shape = shapeList
		// Applied entries are dropped from the list so the collector can
		// reclaim them, unless the list is shared through an alias.
		owned := v.Kind != yaml.AliasNode && n.Anchor == ""
		s.items = func(yield func(item) bool) {
			for i, e := range n.Content {
				if !yield(item{node: e, line: e.Line}) {
					return
				}
				if owned {
					n.Content[i] = nil
				}
			}
		}
	case n.Kind == yaml.MappingNode:
		s.shape = shapeMap
		s.items = func(yield func(item) bool) { yield(item{node: n, line: n.Line}) }
	case isNull(n):
		s.shape = shapeNull
	}
	s.got = kindOf(n)
	if n.Kind == yaml.ScalarNode && !isNull(n) {
		s.got += " (" + clip(n.Value) + ")"
	}
	return s
}

// parseYAML parses text, the part of the file from line first on, as one
// YAML document. The error is reported; for a chunk of a streamed reading
// it sets streamErr instead (the file is then read whole).
func (r *run) parseYAML(text []byte, first int, chunk bool) (*yaml.Node, error) {
	if chunk {
		doc, err := parseChunk(text, first)
		if err != nil {
			r.chunkFailed(err)
		}
		return doc, err
	}
	if n := estimateValues(text); n > maxParseValues {
		r.tooManyValues(text, first, n)
		return nil, errTooMany
	}
	doc, second, err := decodeOne(text, first)
	switch {
	case err != nil:
		return nil, r.yamlSyntax(err)
	case second > 0:
		r.problem(second, "", "", "a catalog file is one YAML document; remove the second \"---\" document")
		return nil, errSecondDoc
	}
	return doc, nil
}

// parseChunk parses a chunk of a streamed reading, the part of the file
// from line first on; it reports nothing, so chunks can be parsed on other
// goroutines (parseAhead).
func parseChunk(text []byte, first int) (*yaml.Node, error) {
	if estimateValues(text) > maxParseValues {
		return nil, errTooMany
	}
	doc, second, err := decodeOne(text, first)
	if err == nil && second > 0 {
		err = errSecondDoc
	}
	return doc, err
}

// decodeOne decodes the YAML document of text, the part of the file from
// line first on, its lines numbered as in the file (text of only comments
// or spaces is an empty document); second is the line of a second
// document, 0 when there is none.
func decodeOne(text []byte, first int) (doc *yaml.Node, second int, err error) {
	dec := yaml.NewDecoder(bytes.NewReader(text))
	doc = &yaml.Node{}
	if err := dec.Decode(doc); err != nil {
		if errors.Is(err, io.EOF) {
			return &yaml.Node{Kind: yaml.DocumentNode, Line: first}, 0, nil
		}
		return nil, 0, err
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		if err != nil {
			return nil, 0, err
		}
		return nil, extra.Line + first - 1, nil
	}
	shiftLines(doc, first-1)
	return doc, 0, nil
}

var (
	errTooMany   = errors.New("too many values to parse at once")
	errSecondDoc = errors.New("a second document")
)

// estimateValues is an upper estimate of the values parsing text builds:
// every value is set off by one of these bytes.
func estimateValues(text []byte) int {
	n := 1
	for _, c := range text {
		switch c {
		case ',', '[', '{', ':', '-', '\n':
			n++
		}
	}
	return n
}

// tooManyValues reports text that holds too many values to parse at once.
func (r *run) tooManyValues(text []byte, first, n int) {
	if line, ok := topLevelList(text); ok {
		r.topLevelMapping(line+first-1, "a list")
		return
	}
	r.problem(first, "", "", "this part of the file holds about %s values in a shape that cannot be read entry by entry, more than the %s "+
		"a catalog file may hold in that shape: write each section as a block list (\"- \" at the start of each entry, no anchors, "+
		"aliases or tabs), which is read in chunks of entries, or write the file as JSON",
		catalog.FormatNumber(float64(n)), catalog.FormatNumber(maxParseValues))
}

// topLevelList reports whether the first line of text with content starts
// a list at column 0, and that line.
func topLevelList(text []byte) (int, bool) {
	line := 0
	for rest := text; len(rest) > 0; {
		l, after, _ := bytes.Cut(rest, []byte{'\n'})
		line++
		rest = after
		t := bytes.TrimRight(l, " \r")
		if len(t) == 0 || t[0] == '#' || bytes.Equal(t, []byte("---")) || t[0] == '%' {
			continue
		}
		return line, t[0] == '[' || isItem(t)
	}
	return 0, false
}

// yamlSyntax reports a parse error of the whole file at its line.
func (r *run) yamlSyntax(err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if _, scanErr := fmt.Sscanf(msg, "line %d:", &line); scanErr == nil {
		_, msg, _ = strings.Cut(msg, ": ")
	}
	r.problem(line, "", "", "malformed YAML: %s", msg)
	return err
}

// chunkFailed ends a streamed reading whose chunk did not parse alone:
// the file is read whole instead, which reports what is wrong.
func (r *run) chunkFailed(err error) {
	r.streamErr, r.stopped = err, true
}

// shiftLines renumbers the lines of a part of the file as lines of the file.
func shiftLines(n *yaml.Node, by int) {
	if by == 0 {
		return
	}
	n.Line += by
	for _, c := range n.Content {
		shiftLines(c, by)
	}
}

// yamlSection is one top-level key of a file split for streaming.
type yamlSection struct {
	key       string
	line      int // 1-based line of the key
	start     int // byte offset where the section's text starts (the key line; 0 for the first)
	startLine int // 1-based line at start
	end       int // byte offset after the section
	// chunks are where the chunks of a block list start: every entry
	// at least streamChunkBytes after the previous chunk's start; nil when
	// the value is read whole.
	chunks []listItem
}

// listItem is one entry of a block list: its byte offset and 1-based line.
type listItem struct{ start, line int }

// addItem notes a block list entry: the start of a new chunk when it is
// the first or streamChunkBytes past the last chunk's start.
func (s *yamlSection) addItem(off, line int) {
	if n := len(s.chunks); n == 0 || off-s.chunks[n-1].start >= streamChunkBytes {
		s.chunks = append(s.chunks, listItem{start: off, line: line})
	}
}

func isKeyByte(c byte, first bool) bool {
	switch {
	case c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		return true
	case c == '-' || '0' <= c && c <= '9':
		return !first
	}
	return false
}

// unsafeByte marks what could tie chunks together: anchors (&), aliases
// (*), tabs, directives (%) and tags (!).
var unsafeByte = []byte("&*\t%!")

// topKey reads a top-level key line: a name ([A-Za-z_][A-Za-z0-9_-]*), a
// colon, then nothing (a block value follows) or spaces and perhaps a
// value or a comment. ok is false for any other line.
func topKey(text []byte) (key string, hasValue, ok bool) {
	i := 0
	for i < len(text) && isKeyByte(text[i], i == 0) {
		i++
	}
	if i == 0 || i == len(text) || text[i] != ':' {
		return "", false, false
	}
	rest := text[i+1:]
	if len(rest) > 0 && rest[0] != ' ' {
		return "", false, false
	}
	rest = bytes.TrimLeft(rest, " ")
	return string(text[:i]), len(rest) > 0 && rest[0] != '#', true
}

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
			key, hasValue, ok := topKey(text)
			if !ok || seen[key] || !slices.Contains(sectionOrder, key) {
				return nil, false
			}
			seen[key] = true
			if cur != nil {
				cur.end = off
			}
			secs = append(secs, yamlSection{key: key, line: line, start: off, startLine: line})
			cur = &secs[len(secs)-1]
			itemIndent = -1
			if hasValue {
				itemIndent = -2 // a value on the key's line: the section is read whole
			}
		case cur == nil:
			return nil, false
		case itemIndent == -1:
			if !isItem(trimmed) || cur.key == secDiscounts {
				itemIndent = -2 // a block mapping, or anything under discounts: read whole
				break
			}
			itemIndent = indent
			cur.addItem(off, line)
		case itemIndent == -2:
			// inside a section read whole
		case indent == itemIndent && isItem(trimmed):
			cur.addItem(off, line)
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

// streamedSections turns split sections into sections whose lists are
// read in chunks of entries when applied; other values are parsed now.
func (r *run) streamedSections(data []byte, secs []yamlSection) []section {
	out := make([]section, 0, len(secs))
	for _, ys := range secs {
		if ys.chunks != nil {
			// The key line and what precedes the first entry (comments):
			// parsed too, so every byte of the file passes the YAML reader.
			if _, err := r.parseYAML(data[ys.start:ys.chunks[0].start], ys.startLine, true); err != nil {
				return nil
			}
			out = append(out, section{key: ys.key, line: ys.line, shape: shapeList, got: "a list", items: r.listChunks(data, ys)})
			continue
		}
		doc, err := r.parseYAML(data[ys.start:ys.end], ys.startLine, true)
		if err != nil {
			return nil
		}
		v := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Line: ys.line}
		if n := resolve(doc); n.Kind == yaml.MappingNode && len(n.Content) == 2 {
			v = n.Content[1]
		}
		out = append(out, valueSection(ys.key, ys.line, v))
	}
	return out
}

// listChunks yields the entries of a block list, parsed in chunks of
// about streamChunkBytes with their lines numbered as in the file. The
// chunks are parsed ahead on other goroutines (parseAhead) while the
// entries of the previous ones are applied, in order, here.
func (r *run) listChunks(data []byte, ys yamlSection) iter.Seq[item] {
	return func(yield func(item) bool) {
		done := make(chan struct{})
		defer close(done)
		for parsed := range parseAhead(done, data, ys) {
			p := <-parsed
			if p.err != nil {
				r.chunkFailed(p.err)
				return
			}
			list := resolve(p.doc)
			if list.Kind != yaml.SequenceNode {
				r.chunkFailed(errChunk)
				return
			}
			for k, e := range list.Content {
				if !yield(item{node: e, line: e.Line}) {
					return
				}
				list.Content[k] = nil // applied: let the collector reclaim it
			}
		}
	}
}

// parsedChunk is a chunk of a block list as parseChunk left it.
type parsedChunk struct {
	doc *yaml.Node
	err error
}

// parseAhead parses the chunks of ys on goroutines of their own, at most
// one per processor ahead of the one being applied, and sends, in the
// chunks' order, where each one's result will arrive. Closing done stops
// it: chunks being parsed finish into their buffered channel and are
// dropped, so memory holds a few chunks whatever the list's length.
func parseAhead(done <-chan struct{}, data []byte, ys yamlSection) <-chan chan parsedChunk {
	order := make(chan chan parsedChunk, runtime.GOMAXPROCS(0))
	go func() {
		defer close(order)
		for i, c := range ys.chunks {
			end := ys.end
			if i+1 < len(ys.chunks) {
				end = ys.chunks[i+1].start
			}
			result := make(chan parsedChunk, 1)
			select {
			case order <- result:
			case <-done:
				return
			}
			go func(text []byte, line int) {
				doc, err := parseChunk(text, line)
				result <- parsedChunk{doc, err}
			}(data[c.start:end], c.line)
		}
	}()
	return order
}

var errChunk = errors.New("a chunk of the file does not parse alone as a list")
