// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// A catalog file is read into a small tree of nodes that remember their
// line, from YAML or from JSON, then decoded entry by entry (overlay_decode.go).
// Reading it this way rejects duplicate keys and non-finite numbers with
// the line, and keeps memory linear in the file.

type nodeKind uint8

const (
	nodeNull nodeKind = iota
	nodeBool
	nodeNumber
	nodeString
	nodeList
	nodeMap
)

// node is one value of a catalog file. Maps keep their keys in file order.
type node struct {
	kind nodeKind
	// plain marks a YAML plain (unquoted) scalar: a string field accepts
	// its text even when YAML reads it as a number or boolean (instance_type: 8).
	plain bool
	line  int32
	// text is the scalar: the string, "true"/"false", or the number in
	// strconv.ParseFloat syntax ("+Inf" and "NaN" for YAML .inf and .nan).
	text     string
	keys     []string // nodeMap
	keyLines []int32  // nodeMap: the line of each key
	vals     []*node  // nodeMap values, nodeList items
}

func (k nodeKind) String() string {
	switch k {
	case nodeNull:
		return "null"
	case nodeBool:
		return "a boolean"
	case nodeNumber:
		return "a number"
	case nodeString:
		return "a string"
	case nodeList:
		return "a list"
	}
	return "a mapping"
}

// get returns the value of a map key and the line of the key.
func (n *node) get(key string) (*node, int32) {
	if n == nil || n.kind != nodeMap {
		return nil, 0
	}
	for i, k := range n.keys {
		if k == key {
			return n.vals[i], n.keyLines[i]
		}
	}
	return nil, 0
}

// scalarText returns the text of a scalar map value ("" when absent or not a scalar).
func (n *node) scalarText(key string) string {
	v, _ := n.get(key)
	if v == nil || v.kind == nodeList || v.kind == nodeMap || v.kind == nodeNull {
		return ""
	}
	return v.text
}

// lineOf returns the line of a field path inside an entry
// ("spot.notice_seconds", "egress_tiers[1].usd_per_gb"); the deepest line
// found, or the entry's line.
func (n *node) lineOf(path string) int32 {
	line := n.line
	cur := n
	for part := range strings.SplitSeq(path, ".") {
		key, idx, hasIdx := strings.Cut(part, "[")
		v, l := cur.get(key)
		if v == nil {
			return line
		}
		cur, line = v, l
		if hasIdx {
			i, err := strconv.Atoi(strings.TrimSuffix(idx, "]"))
			if err != nil || cur.kind != nodeList || i < 0 || i >= len(cur.vals) {
				return line
			}
			cur = cur.vals[i]
			line = cur.line
		}
	}
	return line
}

// keySet finds duplicate keys while a map node is built: a linear scan
// for small maps, an index past 16 keys.
type keySet struct {
	n   *node
	idx map[string]int
}

func (s *keySet) find(key string) (int, bool) {
	if s.idx == nil && len(s.n.keys) > 16 {
		s.idx = make(map[string]int, 2*len(s.n.keys))
		for i, k := range s.n.keys {
			s.idx[k] = i
		}
	}
	if s.idx != nil {
		i, ok := s.idx[key]
		return i, ok
	}
	for i, k := range s.n.keys {
		if k == key {
			return i, true
		}
	}
	return 0, false
}

func (s *keySet) add(key string, line int32, v *node) {
	n := s.n
	n.keys, n.keyLines, n.vals = append(n.keys, key), append(n.keyLines, line), append(n.vals, v)
	if s.idx != nil {
		s.idx[key] = len(n.keys) - 1
	}
}

// treeError is a problem found while reading the file into nodes; path is
// the location from the top ("offers[3].gpus"), "" for the whole file.
type treeError struct {
	line int32
	path string
	msg  string
}

func (e *treeError) Error() string { return e.msg }

// budget bounds the work of reading a file whose aliases or merge keys
// would otherwise multiply it (a "billion laughs" file): every node built,
// merged or decoded spends one unit.
type budget struct{ left int }

func newBudget(size int) *budget { return &budget{left: 4*size + 1_000_000} }

func (b *budget) spend(n int) bool {
	b.left -= n
	return b.left >= 0
}

var errBudget = errors.New("the file expands to too many values through YAML aliases or merge keys")

// ---- YAML ----

// yamlTree reads a YAML document. The yaml.Node tree is taken apart while
// it is converted, so the garbage collector can reclaim it as it goes.
func yamlTree(data []byte, b *budget) (*node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return &node{kind: nodeNull, line: 1}, nil
		}
		return nil, yamlSyntaxError(err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		line := int32(extra.Line)
		if err != nil {
			return nil, yamlSyntaxError(err)
		}
		return nil, &treeError{line: line, msg: "a catalog file is one YAML document; remove the second \"---\" document"}
	}
	c := yamlConv{budget: b, memo: map[*yaml.Node]*node{}, open: map[*yaml.Node]bool{}}
	return c.conv(&doc)
}

func yamlSyntaxError(err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	var line int
	if _, scanErr := fmt.Sscanf(msg, "line %d:", &line); scanErr == nil {
		_, msg, _ = strings.Cut(msg, ": ")
	}
	return &treeError{line: int32(line), msg: "malformed YAML: " + msg}
}

type yamlConv struct {
	budget *budget
	memo   map[*yaml.Node]*node // converted anchors, shared by their aliases
	open   map[*yaml.Node]bool  // anchors being converted
	path   []string
}

func (c *yamlConv) where() string { return pathString(c.path) }

// pathString joins path parts: offers, [3], gpus -> offers[3].gpus.
func pathString(path []string) string {
	var b strings.Builder
	for _, p := range path {
		if b.Len() > 0 && !strings.HasPrefix(p, "[") {
			b.WriteByte('.')
		}
		b.WriteString(p)
	}
	return b.String()
}

func (c *yamlConv) fail(line int, format string, args ...any) error {
	return &treeError{line: int32(line), path: c.where(), msg: fmt.Sprintf(format, args...)}
}

func (c *yamlConv) conv(y *yaml.Node) (*node, error) {
	if y == nil {
		return nil, c.fail(0, "unexpected empty YAML node (a provider bug, please report it)")
	}
	if !c.budget.spend(1) {
		return nil, c.fail(y.Line, "%v", errBudget)
	}
	if n, ok := c.memo[y]; ok {
		return n, nil
	}
	if y.Anchor != "" {
		// An alias inside the value of its own anchor (a: &a [1, *a]) would
		// recurse for ever.
		if c.open[y] {
			return nil, c.fail(y.Line, "the alias *%s refers to the value it is inside of, which would never end", y.Anchor)
		}
		c.open[y] = true
		defer delete(c.open, y)
	}
	var n *node
	var err error
	switch y.Kind {
	case yaml.DocumentNode:
		if len(y.Content) == 0 {
			return &node{kind: nodeNull, line: int32(y.Line)}, nil
		}
		return c.conv(y.Content[0])
	case yaml.AliasNode:
		return c.conv(y.Alias)
	case yaml.ScalarNode:
		n, err = c.scalar(y)
	case yaml.SequenceNode:
		n = &node{kind: nodeList, line: int32(y.Line), vals: make([]*node, 0, len(y.Content))}
		for i, item := range y.Content {
			c.path = append(c.path, "["+strconv.Itoa(i)+"]")
			v, err := c.conv(item)
			c.path = c.path[:len(c.path)-1]
			if err != nil {
				return nil, err
			}
			n.vals = append(n.vals, v)
			y.Content[i] = nil // let the collector reclaim the converted item (aliases hold their own pointer)
		}
	case yaml.MappingNode:
		n, err = c.mapping(y)
	default:
		return nil, c.fail(y.Line, "unsupported YAML node")
	}
	if err != nil {
		return nil, err
	}
	if y.Anchor != "" {
		c.memo[y] = n
	}
	return n, nil
}

func (c *yamlConv) scalar(y *yaml.Node) (*node, error) {
	n := &node{line: int32(y.Line), text: y.Value, plain: y.Style == 0}
	switch y.ShortTag() {
	case "!!null":
		n.kind = nodeNull
	case "!!bool":
		var v bool
		if err := y.Decode(&v); err != nil {
			return nil, c.fail(y.Line, "%q is not a boolean", y.Value)
		}
		n.kind, n.text = nodeBool, strconv.FormatBool(v)
	case "!!int", "!!float":
		n.kind = nodeNumber
		text, err := yamlNumber(y)
		if err != nil {
			return nil, c.fail(y.Line, "%v", err)
		}
		n.text = text
	default: // !!str, !!timestamp, !!binary and user tags: the text as written
		n.kind = nodeString
	}
	return n, nil
}

// yamlNumber returns a YAML number in strconv.ParseFloat syntax.
func yamlNumber(y *yaml.Node) (string, error) {
	v := strings.ReplaceAll(y.Value, "_", "")
	switch strings.ToLower(strings.TrimLeft(v, "+")) {
	case ".inf":
		return "+Inf", nil
	case "-.inf":
		return "-Inf", nil
	case ".nan":
		return "NaN", nil
	}
	if _, err := strconv.ParseFloat(v, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		return v, nil
	}
	// 0x1f, 0o17, 0b101: an integer in another base.
	if i, ok := new(big.Int).SetString(v, 0); ok {
		return i.String(), nil
	}
	return "", fmt.Errorf("%s is not a number", clip(y.Value))
}

func (c *yamlConv) mapping(y *yaml.Node) (*node, error) {
	pairs := len(y.Content) / 2
	n := &node{kind: nodeMap, line: int32(y.Line), keys: make([]string, 0, pairs),
		keyLines: make([]int32, 0, pairs), vals: make([]*node, 0, pairs)}
	keys := keySet{n: n}
	var merges []*node
	for i := 0; i+1 < len(y.Content); i += 2 {
		k, v := y.Content[i], y.Content[i+1]
		if k.Kind == yaml.AliasNode {
			k = k.Alias
		}
		if k.Kind != yaml.ScalarNode {
			return nil, c.fail(k.Line, "a key must be a plain name, got a %s", kindName(k.Kind))
		}
		if k.ShortTag() == "!!merge" {
			m, err := c.mergeSources(v)
			if err != nil {
				return nil, err
			}
			merges = append(merges, m...)
			continue
		}
		key := k.Value
		if j, dup := keys.find(key); dup {
			c.path = append(c.path, key)
			defer func() { c.path = c.path[:len(c.path)-1] }()
			return nil, c.fail(k.Line, "duplicate key %q (first at line %d)", key, n.keyLines[j])
		}
		c.path = append(c.path, key)
		val, err := c.conv(v)
		c.path = c.path[:len(c.path)-1]
		if err != nil {
			return nil, err
		}
		keys.add(key, int32(k.Line), val)
		y.Content[i+1] = nil
	}
	// Merge keys (<<: *defaults): keys not given explicitly, first source first.
	for _, m := range merges {
		if !c.budget.spend(len(m.keys)) {
			return nil, c.fail(y.Line, "%v", errBudget)
		}
		for j, key := range m.keys {
			if _, dup := keys.find(key); !dup {
				keys.add(key, m.keyLines[j], m.vals[j])
			}
		}
	}
	return n, nil
}

// mergeSources converts the value of a "<<" key: a mapping or a list of mappings.
func (c *yamlConv) mergeSources(v *yaml.Node) ([]*node, error) {
	c.path = append(c.path, "<<")
	defer func() { c.path = c.path[:len(c.path)-1] }()
	m, err := c.conv(v)
	if err != nil {
		return nil, err
	}
	srcs := []*node{m}
	if m.kind == nodeList {
		srcs = m.vals
	}
	for _, s := range srcs {
		if s.kind != nodeMap {
			return nil, c.fail(int(s.line), "a merge key (<<) takes a mapping or a list of mappings, got %s", s.kind)
		}
	}
	return srcs, nil
}

func kindName(k yaml.Kind) string {
	switch k {
	case yaml.SequenceNode:
		return "list"
	case yaml.MappingNode:
		return "mapping"
	}
	return "complex value"
}

// ---- JSON ----

// maxJSONDepth bounds nesting: a catalog file nests at most 5 levels
// (offers, an offer, a field; clouds, a cloud, egress_tiers, a tier).
const maxJSONDepth = 32

// jsonTree reads a JSON document (RFC 8259) with a small recursive-descent
// parser: duplicate keys are caught, every value knows its line, and it is
// several times faster than encoding/json's tokenizer on large files.
func jsonTree(data []byte, b *budget) (*node, error) {
	p := jsonParser{data: data, budget: b, line: 1}
	root, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.pos < len(p.data) {
		return nil, p.syntax("data after the top-level object")
	}
	return root, nil
}

type jsonParser struct {
	data   []byte
	pos    int
	line   int32
	budget *budget
	path   []string
}

func (p *jsonParser) fail(format string, args ...any) error {
	return &treeError{line: p.line, path: pathString(p.path), msg: fmt.Sprintf(format, args...)}
}

func (p *jsonParser) syntax(format string, args ...any) error {
	return &treeError{line: p.line, msg: "malformed JSON: " + fmt.Sprintf(format, args...)}
}

func (p *jsonParser) space() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case '\n':
			p.line++
		case ' ', '\t', '\r':
		default:
			return
		}
		p.pos++
	}
}

// next skips white space and returns the next byte (0 at the end).
func (p *jsonParser) next() byte {
	p.space()
	if p.pos >= len(p.data) {
		return 0
	}
	return p.data[p.pos]
}

func (p *jsonParser) unexpected(what string) error {
	if p.pos >= len(p.data) {
		return p.syntax("unexpected end of file, expected %s", what)
	}
	return p.syntax("unexpected %q, expected %s", p.data[p.pos], what)
}

func (p *jsonParser) value(depth int) (*node, error) {
	if !p.budget.spend(1) {
		return nil, p.fail("%v", errBudget)
	}
	c := p.next()
	line := p.line
	switch {
	case c == '{' || c == '[':
		if depth >= maxJSONDepth {
			return nil, p.fail("nested more than %d levels deep; a catalog file nests at most 5", maxJSONDepth)
		}
		p.pos++
		if c == '[' {
			return p.array(depth, line)
		}
		return p.object(depth, line)
	case c == '"':
		s, err := p.str()
		return &node{kind: nodeString, line: line, text: s}, err
	case c == '-' || (c >= '0' && c <= '9'):
		t, err := p.number()
		return &node{kind: nodeNumber, line: line, text: t}, err
	}
	for _, lit := range []struct {
		word string
		kind nodeKind
	}{{"true", nodeBool}, {"false", nodeBool}, {"null", nodeNull}} {
		if bytes.HasPrefix(p.data[p.pos:], []byte(lit.word)) {
			p.pos += len(lit.word)
			return &node{kind: lit.kind, line: line, text: lit.word}, nil
		}
	}
	return nil, p.unexpected("a value")
}

func (p *jsonParser) array(depth int, line int32) (*node, error) {
	n := &node{kind: nodeList, line: line}
	if p.next() == ']' {
		p.pos++
		return n, nil
	}
	for i := 0; ; i++ {
		p.path = append(p.path, "["+strconv.Itoa(i)+"]")
		v, err := p.value(depth + 1)
		p.path = p.path[:len(p.path)-1]
		if err != nil {
			return nil, err
		}
		n.vals = append(n.vals, v)
		switch p.next() {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return n, nil
		default:
			return nil, p.unexpected(`"," or "]"`)
		}
	}
}

func (p *jsonParser) object(depth int, line int32) (*node, error) {
	n := &node{kind: nodeMap, line: line}
	keys := keySet{n: n}
	if p.next() == '}' {
		p.pos++
		return n, nil
	}
	for {
		if p.next() != '"' {
			return nil, p.unexpected("a key in double quotes")
		}
		kl := p.line
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		if p.next() != ':' {
			return nil, p.unexpected(`":"`)
		}
		p.pos++
		p.path = append(p.path, key)
		if i, dup := keys.find(key); dup {
			return nil, p.fail("duplicate key %q (first at line %d)", key, n.keyLines[i])
		}
		v, err := p.value(depth + 1)
		p.path = p.path[:len(p.path)-1]
		if err != nil {
			return nil, err
		}
		keys.add(key, kl, v)
		switch p.next() {
		case ',':
			p.pos++
		case '}':
			p.pos++
			return n, nil
		default:
			return nil, p.unexpected(`"," or "}"`)
		}
	}
}

// str reads a string at p.pos (at its opening quote).
func (p *jsonParser) str() (string, error) {
	start := p.pos
	p.pos++
	escaped := false
	for p.pos < len(p.data) {
		switch c := p.data[p.pos]; {
		case c == '"':
			p.pos++
			raw := p.data[start:p.pos]
			if !escaped {
				return string(raw[1 : len(raw)-1]), nil
			}
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return "", p.syntax("invalid escape sequence in a string (JSON allows \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)")
			}
			return s, nil
		case c == '\\':
			escaped = true
			p.pos += 2
		case c < 0x20:
			return "", p.syntax("control character %q inside a string", c)
		default:
			p.pos++
		}
	}
	return "", p.syntax("unexpected end of file inside a string")
}

// number reads a number at p.pos: -?(0|[1-9]d*)(.d+)?([eE][+-]?d+)?
func (p *jsonParser) number() (string, error) {
	start := p.pos
	d := p.data
	digits := func() int {
		n := 0
		for p.pos < len(d) && d[p.pos] >= '0' && d[p.pos] <= '9' {
			p.pos++
			n++
		}
		return n
	}
	if d[p.pos] == '-' {
		p.pos++
	}
	lead := p.pos
	if n := digits(); n == 0 || (n > 1 && d[lead] == '0') {
		return "", p.syntax("invalid number %s", clip(string(d[start:p.pos])))
	}
	if p.pos < len(d) && d[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return "", p.syntax("invalid number %s", clip(string(d[start:p.pos])))
		}
	}
	if p.pos < len(d) && (d[p.pos] == 'e' || d[p.pos] == 'E') {
		p.pos++
		if p.pos < len(d) && (d[p.pos] == '+' || d[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return "", p.syntax("invalid number %s", clip(string(d[start:p.pos])))
		}
	}
	return string(d[start:p.pos]), nil
}
