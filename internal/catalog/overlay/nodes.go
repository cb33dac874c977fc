// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package overlay

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// Reading yaml.v3 nodes: both formats arrive as them (JSON entries are
// built as nodes with the tags YAML would give, read_json.go).

// scalar kinds of a node.
const (
	kindNull = iota
	kindBool
	kindNumber
	kindString
)

// resolve follows an alias to its anchored node and a document to its
// content.
func resolve(n *yaml.Node) *yaml.Node {
	for n != nil {
		switch {
		case n.Kind == yaml.AliasNode && n.Alias != nil:
			n = n.Alias
		case n.Kind == yaml.DocumentNode && len(n.Content) > 0:
			n = n.Content[0]
		default:
			return n
		}
	}
	return n
}

func scalarKind(n *yaml.Node) int {
	switch n.ShortTag() {
	case "!!null":
		return kindNull
	case "!!bool":
		return kindBool
	case "!!int", "!!float":
		return kindNumber
	}
	return kindString // !!str, !!timestamp, !!binary and user tags: the text as written
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && scalarKind(n) == kindNull }

// isPlain reports a YAML plain (unquoted, untagged) scalar: a string field
// accepts its text even when YAML reads it as a number or boolean
// (instance_type: 8). JSON numbers and booleans are built tagged.
func isPlain(n *yaml.Node) bool { return n.Style == 0 }

// kindOf names what a node is, for messages.
func kindOf(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.ScalarNode:
		return [...]string{"null", "a boolean", "a number", "a string"}[scalarKind(n)]
	}
	return "an empty document"
}

// boolValue is a !!bool node's value (yaml.v3 reads true/True/TRUE and
// false/False/FALSE as booleans, JSON true and false).
func boolValue(n *yaml.Node) bool { return strings.EqualFold(n.Value, "true") }

// numberText returns a number node in strconv.ParseFloat syntax; also a
// plain YAML scalar written as a number too large for YAML to read as one
// (1e400), so the field's range is reported instead of "got a string".
func numberText(n *yaml.Node) (string, bool) {
	switch scalarKind(n) {
	case kindNumber:
		return yamlNumber(n.Value)
	case kindString:
		if _, err := strconv.ParseFloat(n.Value, 64); isPlain(n) && errors.Is(err, strconv.ErrRange) {
			return n.Value, true
		}
	}
	return "", false
}

// yamlNumber returns a YAML number in strconv.ParseFloat syntax ("+Inf"
// and "NaN" for .inf and .nan; 0x1f, 0o17 and 0b101 in base 10).
func yamlNumber(text string) (string, bool) {
	v := strings.ReplaceAll(text, "_", "")
	switch strings.ToLower(strings.TrimLeft(v, "+")) {
	case ".inf":
		return "+Inf", true
	case "-.inf":
		return "-Inf", true
	case ".nan":
		return "NaN", true
	}
	if _, err := strconv.ParseFloat(v, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		return v, true
	}
	if i, ok := new(big.Int).SetString(v, 0); ok {
		return i.String(), true
	}
	return "", false
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
	if l, zeroOK, ok := catalog.FieldLimit(d.section, field); ok {
		if zeroOK {
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
		return catalog.FormatNumber(f) + " (YAML ." + strings.ToLower(strings.TrimPrefix(text, "+")) + ")"
	}
	f, ok := new(big.Float).SetString(text)
	if !ok {
		return strconv.Quote(text)
	}
	if v, acc := f.Float64(); !math.IsInf(v, 0) && (v != 0 || f.Sign() == 0) && acc == big.Exact {
		return catalog.FormatNumber(v)
	}
	s := f.Text('e', 3) // 1.000e+400
	mant, exp, _ := strings.Cut(s, "e")
	if strings.Contains(mant, ".") {
		mant = strings.TrimRight(strings.TrimRight(mant, "0"), ".")
	}
	e, _ := strconv.Atoi(exp)
	return fmt.Sprintf("%s × 10^%d", mant, e)
}

// clip quotes a scalar of the file for a message: an excerpt, always
// quoted.
func clip(s string) string {
	s, cut := cutText(s)
	q := strconv.Quote(s)
	if cut {
		q += "..."
	}
	return q
}

// lookup returns the value of a mapping's key and the key's line,
// following aliases and merge keys as the decoder does; nil when absent.
func lookup(n *yaml.Node, key string) (*yaml.Node, int) {
	return lookupDepth(resolve(n), key, 0)
}

func lookupDepth(n *yaml.Node, key string, depth int) (*yaml.Node, int) {
	if n == nil || n.Kind != yaml.MappingNode || depth > 8 {
		return nil, 0
	}
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := resolve(n.Content[i])
		switch {
		case k.Kind != yaml.ScalarNode:
		case k.ShortTag() == "!!merge":
			merges = append(merges, resolve(n.Content[i+1]))
		case k.Value == key:
			return n.Content[i+1], k.Line
		}
	}
	for _, m := range merges {
		srcs := []*yaml.Node{m}
		if m.Kind == yaml.SequenceNode {
			srcs = m.Content
		}
		for _, s := range srcs {
			if v, l := lookupDepth(resolve(s), key, depth+1); v != nil {
				return v, l
			}
		}
	}
	return nil, 0
}

// scalarText returns the text of a scalar mapping value ("" when absent,
// null or not a scalar).
func scalarText(n *yaml.Node, key string) string {
	v, _ := lookup(n, key)
	if v = resolve(v); v == nil || v.Kind != yaml.ScalarNode || isNull(v) {
		return ""
	}
	return v.Value
}

// lineOf returns the line of a field path inside an entry
// ("spot.notice_seconds", "egress_tiers[1].usd_per_gb"); the deepest line
// found, or the entry's line.
func lineOf(n *yaml.Node, path string) int {
	line, cur := n.Line, n
	for part := range strings.SplitSeq(path, ".") {
		key, idx, hasIdx := strings.Cut(part, "[")
		v, l := lookup(cur, key)
		if v == nil {
			return line
		}
		cur, line = resolve(v), l
		if hasIdx {
			i, err := strconv.Atoi(strings.TrimSuffix(idx, "]"))
			if err != nil || cur.Kind != yaml.SequenceNode || i < 0 || i >= len(cur.Content) {
				return line
			}
			cur = resolve(cur.Content[i])
			line = cur.Line
		}
	}
	return line
}

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
