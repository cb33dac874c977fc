// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

// Package textable renders fixed-width text tables for plan output (the
// summary attributes of gpu_recommendation and gpu_tco): a header, a rule
// and rows, columns padded to their widest cell in runes and separated by
// two spaces, trailing spaces trimmed. Deterministic: the same rows give
// the same bytes.
package textable

import (
	"strings"
	"unicode/utf8"
)

// Align is a column's alignment.
type Align uint8

// Alignments: text left, numbers right.
const (
	Left Align = iota
	Right
)

// Column is a column's header and alignment.
type Column struct {
	Header string
	Align  Align
}

// Table is a fixed-width table under construction.
type Table struct {
	cols []Column
	rows [][]string
}

// gap separates columns.
const gap = "  "

// New returns an empty table with these columns.
func New(cols ...Column) *Table { return &Table{cols: cols} }

// Row appends a row. Missing cells are empty; cells beyond the columns
// are dropped.
func (t *Table) Row(cells ...string) {
	row := make([]string, len(t.cols))
	copy(row, cells)
	t.rows = append(t.rows, row)
}

// Len is the number of rows.
func (t *Table) Len() int { return len(t.rows) }

// String renders the header, a rule of dashes as wide as the table, and
// the rows, one per line, each ending in a newline.
func (t *Table) String() string {
	widths := make([]int, len(t.cols))
	for i, c := range t.cols {
		widths[i] = utf8.RuneCountInString(c.Header)
	}
	for _, r := range t.rows {
		for i, cell := range r {
			widths[i] = max(widths[i], utf8.RuneCountInString(cell))
		}
	}
	header := make([]string, len(t.cols))
	total := 0
	for i, c := range t.cols {
		header[i] = c.Header
		total += widths[i]
	}
	total += len(gap) * max(len(t.cols)-1, 0)
	var b strings.Builder
	t.line(&b, header, widths)
	b.WriteString(strings.Repeat("-", total))
	b.WriteByte('\n')
	for _, r := range t.rows {
		t.line(&b, r, widths)
	}
	return b.String()
}

func (t *Table) line(b *strings.Builder, cells []string, widths []int) {
	var l strings.Builder
	for i, cell := range cells {
		if i > 0 {
			l.WriteString(gap)
		}
		pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(cell))
		if t.cols[i].Align == Right {
			l.WriteString(pad + cell)
		} else {
			l.WriteString(cell + pad)
		}
	}
	b.WriteString(strings.TrimRight(l.String(), " "))
	b.WriteByte('\n')
}
