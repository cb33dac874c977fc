// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package catalog

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Closest returns up to n candidates nearest to name by edit distance
// (case-insensitive; a name containing the other counts half), nearest
// first, ties by plain edit distance, then in candidate order. Used by
// diagnostics to name the closest valid values.
func Closest(name string, candidates []string, n int) []string {
	type scored struct {
		s    string
		d    int
		i    int
		edit int // the plain edit distance, which breaks ties of d
	}
	lname := strings.ToLower(name)
	sc := make([]scored, 0, len(candidates))
	for i, c := range candidates {
		lc := strings.ToLower(c)
		edit := levenshtein(lname, lc)
		d := edit
		if strings.Contains(lc, lname) || strings.Contains(lname, lc) {
			d /= 2
		}
		sc = append(sc, scored{c, d, i, edit})
	}
	sort.SliceStable(sc, func(a, b int) bool {
		if sc[a].d != sc[b].d {
			return sc[a].d < sc[b].d
		}
		if sc[a].edit != sc[b].edit {
			return sc[a].edit < sc[b].edit
		}
		return sc[a].i < sc[b].i
	})
	out := make([]string, 0, n)
	for _, s := range sc {
		if len(out) == n {
			break
		}
		out = append(out, s.s)
	}
	return out
}

func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// QuoteList renders names as a comma-separated list of quoted strings
// (`"aws", "gcp"`), the form every diagnostic of the provider uses.
func QuoteList[S ~string](ss []S) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(string(s))
	}
	return strings.Join(q, ", ")
}

// ClosestAccelerators returns up to n accelerator IDs nearest to name,
// matching it against IDs and aliases alike (an alias stands for its
// accelerator's ID), nearest first, each ID once. Every "Closest:"
// suggestion for an accelerator comes from here.
func (c *Catalog) ClosestAccelerators(name string, n int) []string {
	names := make([]string, 0, len(c.Accelerators)*2)
	idOf := make(map[string]string, len(c.Accelerators)*2)
	for _, a := range c.Accelerators {
		for _, k := range append([]string{a.ID}, a.Aliases...) {
			names = append(names, k)
			idOf[k] = a.ID
		}
	}
	out := make([]string, 0, n)
	for _, k := range Closest(name, names, len(names)) {
		if id := idOf[k]; !slices.Contains(out, id) {
			out = append(out, id)
			if len(out) == n {
				break
			}
		}
	}
	return out
}

// UnknownCloud is the detail of every diagnostic about a cloud name the
// catalog does not know, at attribute at.
func (c *Catalog) UnknownCloud(at, name string) string {
	return fmt.Sprintf("%s = %q is not a cloud in the catalog. Closest: %s. Allowed: %s.",
		at, name, QuoteList(Closest(name, c.CloudIDs(), 3)), QuoteList(c.CloudIDs()))
}

// UnknownAccelerator is the detail of every diagnostic about an
// accelerator name the catalog does not know, at attribute at.
func (c *Catalog) UnknownAccelerator(at, name string) string {
	return fmt.Sprintf("%s = %q is not an accelerator ID or alias in the catalog. Closest: %s. IDs: %s.",
		at, name, QuoteList(c.ClosestAccelerators(name, 3)), QuoteList(c.AcceleratorIDs()))
}
