// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

// Package inputerr carries errors about user input, each tied to the
// Terraform attribute or function argument that holds the bad value. The
// path is structured (attribute names, list indexes, map keys), so
// internal/provider turns an error into a diagnostic on the right
// attribute without parsing text (see ARCHITECTURE.md, "Errors").
package inputerr

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

type stepKind uint8

const (
	stepName stepKind = iota
	stepIndex
	stepKey
)

// Step is one element of a Path: an attribute name, a list index or a map
// key. A provider-function argument is a root attribute of its name (the
// provider maps names to positions).
type Step struct {
	kind stepKind
	name string // attribute name or map key
	n    int    // list index
}

// AttributeName returns the attribute name and whether the step is one.
func (s Step) AttributeName() (string, bool) { return s.name, s.kind == stepName }

// ListIndex returns the list index and whether the step is one.
func (s Step) ListIndex() (int, bool) { return s.n, s.kind == stepIndex }

// MapKey returns the map key and whether the step is one.
func (s Step) MapKey() (string, bool) { return s.name, s.kind == stepKey }

// Path locates a value in the configuration. The zero Path is empty: an
// error about the configuration as a whole.
type Path struct{ steps []Step }

// Root is the path of a top-level attribute.
func Root(name string) Path { return Path{steps: []Step{{kind: stepName, name: name}}} }

func (p Path) with(s Step) Path {
	steps := make([]Step, len(p.steps), len(p.steps)+1)
	copy(steps, p.steps)
	return Path{steps: append(steps, s)}
}

// Name is the path of a nested attribute.
func (p Path) Name(name string) Path { return p.with(Step{kind: stepName, name: name}) }

// Index is the path of a list element.
func (p Path) Index(i int) Path { return p.with(Step{kind: stepIndex, n: i}) }

// Key is the path of a map element.
func (p Path) Key(k string) Path { return p.with(Step{kind: stepKey, name: k}) }

// Under returns p with prefix in front of it.
func (p Path) Under(prefix Path) Path {
	steps := make([]Step, 0, len(prefix.steps)+len(p.steps))
	return Path{steps: append(append(steps, prefix.steps...), p.steps...)}
}

// Steps returns the steps of the path, outermost first.
func (p Path) Steps() []Step { return p.steps }

// IsEmpty reports whether the path names nothing.
func (p Path) IsEmpty() bool { return len(p.steps) == 0 }

// String renders the path as a user writes it in messages:
// constraints.regions[2], extra_monthly_usd["support"], gpu_count.
func (p Path) String() string {
	var b strings.Builder
	for i, s := range p.steps {
		switch s.kind {
		case stepName:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.name)
		case stepIndex:
			b.WriteString("[" + strconv.Itoa(s.n) + "]")
		case stepKey:
			b.WriteString("[" + strconv.Quote(s.name) + "]")
		}
	}
	return b.String()
}

// Error is one bad input. Summary is a Title-Case headline ("Invalid
// Workload"); Detail says what is wrong with which value and what is
// allowed, naming the attribute.
type Error struct {
	Path    Path
	Summary string
	Detail  string
}

// New returns an Error whose detail is the formatted message.
func New(p Path, summary, format string, args ...any) *Error {
	return &Error{Path: p, Summary: summary, Detail: fmt.Sprintf(format, args...)}
}

func (e *Error) Error() string {
	if e.Path.IsEmpty() {
		return e.Detail
	}
	return e.Path.String() + ": " + e.Detail
}

// List is several input errors reported together, in the order found.
type List []*Error

// Add appends an error.
func (l *List) Add(p Path, summary, format string, args ...any) {
	*l = append(*l, New(p, summary, format, args...))
}

// MaxShown is how many errors of one attribute (its list elements and
// map values together) the provider shows in full; it counts the others
// in one more diagnostic. A mistake repeated 10,000 times (a list built
// with a for expression) is read in a moment, not printed for minutes.
const MaxShown = 5

// AddLazy appends an error whose detail is computed only when it will be
// shown: among the first MaxShown errors of its attribute at the end of
// the list (the errors of a list attribute are added one after another).
// Past them the detail is the path and the summary alone, so a loop over
// 10,000 unknown names does not search the catalog for 10,000 "Closest:"
// suggestions nobody reads.
func (l *List) AddLazy(p Path, summary string, detail func() string) {
	if l.crowded(p) {
		*l = append(*l, &Error{Path: p, Summary: summary, Detail: p.String() + ": " + strings.ToLower(summary) + "."})
		return
	}
	*l = append(*l, &Error{Path: p, Summary: summary, Detail: detail()})
}

// crowded reports whether the last MaxShown errors of l are all about the
// attribute of p.
func (l List) crowded(p Path) bool {
	if len(l) < MaxShown {
		return false
	}
	attr := p.Attribute()
	for _, e := range l[len(l)-MaxShown:] {
		if e.Path.Attribute() != attr {
			return false
		}
	}
	return true
}

// Attribute is the path's attribute without its list indexes and map
// keys: "constraints.regions" for constraints.regions[2].
func (p Path) Attribute() string {
	var b strings.Builder
	for _, s := range p.steps {
		if s.kind == stepName {
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.name)
		}
	}
	return b.String()
}

// Err returns the list as an error, or nil when it is empty.
func (l List) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

func (l List) Error() string {
	switch len(l) {
	case 0:
		return "no error"
	case 1:
		return l[0].Error()
	}
	return fmt.Sprintf("%s (and %d more)", l[0].Error(), len(l)-1)
}

// From returns the input errors err carries (an *Error, a List, or either
// wrapped), or nil when it carries none.
func From(err error) List {
	var l List
	if errors.As(err, &l) {
		return l
	}
	var e *Error
	if errors.As(err, &e) {
		return List{e}
	}
	return nil
}
