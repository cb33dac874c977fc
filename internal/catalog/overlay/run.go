// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package overlay

import (
	"errors"
	"fmt"
	"iter"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// maxProblems is the most problems an Error lists, maxWarnings the most
// warnings returned (then one more says how many were left out). Reading
// stops at maxProblemsRead problems: a file that is mostly mistakes (a
// 60 MB list of numbers) is rejected in seconds, not read to its end.
const (
	maxProblems     = 100
	maxWarnings     = 20
	maxProblemsRead = 1000
)

// The sections of a catalog file, in the order they are applied (the
// section names are also the first part of catalog.FieldLimit's keys).
const (
	secClouds       = "clouds"
	secAccelerators = "accelerators"
	secRegions      = "regions"
	secDiscounts    = "discounts"
	secOffers       = "offers"
)

var sectionOrder = []string{secClouds, secAccelerators, secRegions, secDiscounts, secOffers}

// shape is what a section's value is.
type shape uint8

const (
	shapeOther shape = iota
	shapeNull
	shapeList
	shapeMap
)

// section is one top-level key of a file and a reader of its value.
type section struct {
	key   string
	line  int
	shape shape
	got   string // the value's kind for a message ("a mapping", `a string ("x")`)
	// items yields the entries of a list one by one, or a mapping as one
	// item. A reader may read them lazily (streamed YAML, JSON).
	items iter.Seq[item]
}

// item is one entry of a section as read: its node, or why it was not
// read (an entry too large to build).
type item struct {
	node   *yaml.Node
	line   int
	unread string
}

// run applies one file: the catalog being built and what was found.
type run struct {
	path     string // the file as messages name it: the path given to Apply
	file     string // its base name
	budget   *budget
	problems []Finding
	more     int
	stopped  bool // maxProblemsRead reached: readers stop
	warnings []Finding
	moreWarn int
	empty    bool // the file holds no document

	// The lists being built from the base catalog, and the catalog of
	// them as of the last section applied (its lookups and validators).
	accels  []*catalog.Accelerator
	clouds  []*catalog.Cloud
	regions []*catalog.Region
	offers  []*catalog.Offer
	cur     *catalog.Catalog

	// What the file defines, by key, and where: entries defined twice are
	// errors, and discounts skip what the file sets itself.
	fileClouds  map[string]int
	fileAccels  map[string]int
	fileRegions map[string]int
	fileOffers  map[string]int
	// cloudGiven: for a built-in cloud the file overrides, the top-level
	// fields the entry gives (the rest keep their built-in values).
	cloudGiven map[string]map[string]bool

	// streamErr stops a streamed reading whose chunk did not parse alone:
	// the file is then read whole.
	streamErr error
}

func newRun(path string, data []byte) *run {
	return &run{path: path, file: filepath.Base(path), budget: newBudget(len(data))}
}

func (r *run) problem(line int, entry, field, format string, args ...any) {
	if len(r.problems)+r.more+1 >= maxProblemsRead {
		r.stopped = true
	}
	r.problems = addFinding(r.problems, maxProblems, &r.more, r.file, line, entry, field, fmt.Sprintf(format, args...))
}

func (r *run) warn(line int, entry, field, format string, args ...any) {
	r.warnings = addFinding(r.warnings, maxWarnings, &r.moreWarn, r.file, line, entry, field, fmt.Sprintf(format, args...))
}

// addFinding appends a finding to list, or counts it in more past limit.
func addFinding(list []Finding, limit int, more *int, file string, line int, entry, field, msg string) []Finding {
	if len(list) >= limit {
		*more++
		return list
	}
	return append(list, Finding{File: file, Line: line, Entry: entry, Field: field, Msg: msg})
}

// result is the catalog and warnings, or the error listing every problem.
func (r *run) result() (*Result, error) {
	byLine := func(a, b Finding) int { return a.Line - b.Line }
	if len(r.problems) > 0 {
		slices.SortStableFunc(r.problems, byLine)
		return nil, &Error{Path: r.path, Problems: r.problems, More: r.more, Stopped: r.stopped}
	}
	slices.SortStableFunc(r.warnings, byLine)
	if r.moreWarn > 0 {
		r.warnings = append(r.warnings, Finding{File: r.file,
			Msg: fmt.Sprintf("%d more warnings like these were left out", r.moreWarn)})
	}
	return &Result{Catalog: r.cur, Warnings: r.warnings}, nil
}

// run applies the sections of a file in the fixed order of sectionOrder.
func (r *run) run(base *catalog.Catalog, secs []section) {
	if r.empty {
		r.warn(0, "", "", "the file is empty: nothing was added or changed")
		r.cur = base
		return
	}
	if len(r.problems) > 0 {
		return // the file could not be read
	}
	bySec := r.sections(secs)
	r.accels, r.clouds = slices.Clone(base.Accelerators), slices.Clone(base.Clouds)
	r.regions, r.offers = slices.Clone(base.Regions), slices.Clone(base.Offers)
	r.cur = base
	r.fileClouds, r.fileAccels, r.fileRegions, r.fileOffers = map[string]int{}, map[string]int{}, map[string]int{}, map[string]int{}
	r.cloudGiven = map[string]map[string]bool{}
	steps := []struct {
		key   string
		apply func(base *catalog.Catalog, s *section)
	}{{secClouds, r.applyClouds}, {secAccelerators, r.applyAccelerators}, {secRegions, r.applyRegions},
		{secDiscounts, r.applyDiscounts}, {secOffers, r.applyOffers}}
	for _, st := range steps {
		if s := bySec[st.key]; s != nil {
			st.apply(base, s)
			// The clouds, accelerators and regions as they are now,
			// indexed: what the next sections validate against and look
			// up (offers are looked up by applyOffers' own index).
			r.cur = base.With(slices.Clone(r.accels), slices.Clone(r.clouds), slices.Clone(r.regions), nil)
		}
	}
	if len(r.problems) == 0 {
		r.cur = base.With(r.accels, r.clouds, r.regions, r.offers)
	}
}

// sections checks the top-level keys: known, given once, of the right
// shape; null sections are skipped.
func (r *run) sections(secs []section) map[string]*section {
	bySec := map[string]*section{}
	seen := map[string]int{}
	for i := range secs {
		s := &secs[i]
		first, dup := seen[s.key]
		switch {
		case dup:
			r.problem(s.line, "", excerpt(s.key), "duplicate key (first at line %d)", first)
		case !slices.Contains(sectionOrder, s.key):
			r.problem(s.line, "", excerpt(s.key), "unknown field%s", catalog.DidYouMean(s.key, sectionOrder, 1))
		case s.shape == shapeNull:
		case s.key == secDiscounts && s.shape != shapeMap:
			r.problem(s.line, "", s.key, "must be a mapping of cloud to fraction (aws: 0.12), got %s", s.got)
		case s.key != secDiscounts && s.shape != shapeList:
			r.problem(s.line, "", s.key, "must be a list, got %s", s.got)
		default:
			bySec[s.key] = s
		}
		if !dup {
			seen[s.key] = s.line
		}
	}
	return bySec
}

// topLevelMapping is the problem about a file whose top level is not a mapping.
func (r *run) topLevelMapping(line int, got string) {
	r.problem(line, "", "", "the top level must be a mapping with the keys %s, got %s", catalog.QuoteList(sectionOrder), got)
}

// entry is one entry of a section list; named only when reported.
type entry struct {
	section string
	index   int // -1 for a section that is a mapping (discounts)
	node    *yaml.Node
	idKeys  []string
	// overrides is set when the entry names a built-in entry, whose
	// fields it does not give it keeps.
	overrides bool
}

// String names the entry from its identity fields: "offers[2] (onprem/dgx-h100/dc1)".
func (e entry) String() string {
	if e.index < 0 {
		return e.section
	}
	parts := make([]string, len(e.idKeys))
	for j, k := range e.idKeys {
		if parts[j] = excerpt(scalarText(e.node, k)); parts[j] == "" {
			parts[j] = "?"
		}
	}
	return fmt.Sprintf("%s[%d] (%s)", e.section, e.index, strings.Join(parts, "/"))
}

// entries yields the mapping entries of a list section; any other entry
// is reported.
func (r *run) entries(s *section, idKeys ...string) iter.Seq[entry] {
	return func(yield func(entry) bool) {
		i := 0
		for it := range s.items {
			e := entry{section: s.key, index: i, node: resolve(it.node), idKeys: idKeys}
			i++
			switch {
			case it.unread != "":
				r.problem(it.line, fmt.Sprintf("%s[%d]", s.key, e.index), "", "%s", it.unread)
			case e.node.Kind != yaml.MappingNode:
				r.problem(e.node.Line, e.String(), "", "an entry must be a mapping, got %s", kindOf(e.node))
			case !yield(e):
				return
			}
			if r.stopped {
				return
			}
		}
	}
}

// entryProblems reports the decode problems and the validation errors of
// one entry, the latter at the line of their field. A field that could not
// be read is reported once: validation saw its zero value, not the file's.
func (r *run) entryProblems(e entry, decodeErrs []decodeProblem, err error) {
	if len(decodeErrs) == 0 && err == nil {
		return
	}
	name := e.String()
	unread := make(map[string]bool, len(decodeErrs))
	for _, p := range decodeErrs {
		r.problem(p.line, name, p.field, "%s", p.msg)
		unread[p.field] = true
	}
	var fes catalog.FieldErrors
	switch {
	case errors.As(err, &fes):
		for _, fe := range fes {
			if unread[fe.Field] || (fe.Field == "" && len(unread) > 0) {
				continue
			}
			if e.overrides && fe.Field != "" && !sets(e.node, fe.Field) {
				// A built-in value this entry overrides around: the problem
				// is the entry's, in what it sets, not a field it never wrote.
				r.problem(e.node.Line, name, "", "the built-in %s, which this entry does not set, %s: change what the "+
					"entry sets, or set %s too", fe.Field, fe.Msg, fe.Field)
				continue
			}
			if rule, zero := unsetRule(fe.Msg); zero && fe.Field != "" && !sets(e.node, fe.Field) {
				// The zero value of a field the entry never wrote: the
				// problem is that it is missing, not that it is 0.
				r.problem(e.node.Line, name, fe.Field, "not set, and required here: %s", rule)
				continue
			}
			r.problem(lineOf(e.node, fe.Field), name, fe.Field, "%s", fe.Msg)
		}
	case err != nil && len(unread) == 0:
		r.problem(e.node.Line, name, "", "%v", err)
	}
}

// gotZero ends a validation message about a zero value: ", got 0",
// ", got \"\"".
var gotZero = regexp.MustCompile(`, got (0|"")$`)

// unsetRule is a validation message about a zero value without its ", got
// 0", and whether it was one.
func unsetRule(msg string) (string, bool) {
	loc := gotZero.FindStringIndex(msg)
	if loc == nil {
		return msg, false
	}
	return msg[:loc[0]], true
}

// sets reports whether the entry n gives the top-level field of path
// ("spot.notice_seconds" is given by "spot", "egress_tiers[1].usd_per_gb"
// by "egress_tiers").
func sets(n *yaml.Node, path string) bool {
	top, _, _ := strings.Cut(path, ".")
	top, _, _ = strings.Cut(top, "[")
	v, _ := lookup(n, top)
	return v != nil
}

// duplicate reports an entry whose key (its identity) an earlier entry of
// the file has.
func (r *run) duplicate(seen map[string]int, key string, e entry) bool {
	if prev, dup := seen[key]; dup {
		r.problem(e.node.Line, e.String(), "", "defined twice in this file (also %s[%d] (%s))", e.section, prev, excerpt(key))
		return true
	}
	seen[key] = e.index
	return false
}

// excerptRunes is the most characters of the file's text a message
// echoes in one place.
const excerptRunes = 40

// excerpt is user text as a message may echo it: at most excerptRunes
// characters, and quoted with escapes when it holds anything but printable
// characters (control, bidirectional and other format characters), so a
// message neither reproduces a file's content at length nor can be
// spoofed by it.
func excerpt(s string) string {
	s, cut := cutText(s)
	if q := strconv.Quote(s); q[1:len(q)-1] != s {
		s = q
	}
	if cut {
		s += "..."
	}
	return s
}

// cutText cuts s to excerptRunes characters (the last three become "..."
// when the caller marks the cut).
func cutText(s string) (string, bool) {
	if utf8.RuneCountInString(s) <= excerptRunes {
		return s, false
	}
	return string([]rune(s)[:excerptRunes-3]), true
}
