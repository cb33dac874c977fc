// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package overlay

import (
	"go.yaml.in/yaml/v3"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// sectionType describes how the entries of one list become catalog objects.
type sectionType[T any] struct {
	name     string
	idKeys   []string
	key      func(*T) string // identity; "" = none (the entry is reported, not added)
	defaults func(*T)        // optional, before validation
	validate func(*T) error
	// base, optional, is the object an entry starts from: a copy of the
	// built-in one it names (then the entry overrides only the fields it
	// gives), or nil for a new object.
	base func(*yaml.Node) *T
}

// applySection decodes, validates and adds or replaces (by key) every
// entry of a section list. An entry is added even when invalid (the file
// is rejected anyway), so the entries that name it report their own
// problems, not "unknown cloud".
func applySection[T any](r *run, list *section, s []*T, sec sectionType[T], seen map[string]int) []*T {
	pos := indexBy(s, sec.key)
	limit, _ := catalog.InputLimit(catalog.LimitCatalogFileDefinitions)
	for e := range r.entries(list, sec.idKeys...) {
		if e.index >= int(limit.Max) {
			r.problem(e.node.Line, e.String(), "", "more than %s entries in %s, the most a catalog file may define (%s)",
				catalog.FormatNumber(limit.Max), sec.name, limit.Name)
			break
		}
		v := new(T)
		if sec.base != nil {
			if b := sec.base(e.node); b != nil {
				*v = *b // slices, maps and pointers the entry gives are replaced, never written through
				e.overrides = true
			}
		}
		d := decoder{budget: r.budget, section: sec.name}
		d.decode(e.node, v)
		if sec.defaults != nil {
			sec.defaults(v)
		}
		r.entryProblems(e, d.errs, sec.validate(v))
		if k := sec.key(v); k != "" && !r.duplicate(seen, k, e) {
			s = replaceOrAdd(s, pos, k, v)
		}
	}
	return s
}

// applyClouds adds new clouds and overrides fields of built-in ones: an
// entry naming a built-in cloud changes only the fields it gives (a
// negotiated spot interruption rate, a PUE), like an offer override.
func (r *run) applyClouds(base *catalog.Catalog, list *section) {
	r.clouds = applySection(r, list, r.clouds, sectionType[catalog.Cloud]{name: secClouds, idKeys: []string{"id"},
		key: func(x *catalog.Cloud) string { return x.ID }, validate: catalog.ValidateCloud,
		base: func(n *yaml.Node) *catalog.Cloud { return r.cloudBase(base, n) }}, r.fileClouds)
}

// cloudBase is the built-in cloud an entry overrides, with the sources of
// the fields the entry gives naming the file; nil for a new cloud.
func (r *run) cloudBase(base *catalog.Catalog, n *yaml.Node) *catalog.Cloud {
	cl, ok := base.Cloud(scalarText(n, "id"))
	if !ok {
		return nil
	}
	c := *cl
	given := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		given[resolve(n.Content[i]).Value] = true
	}
	r.cloudGiven[cl.ID] = given
	// Fields the entry gives come from the file: say so in the sources it
	// does not restate.
	over := r.sourcePrefix() + " over: "
	if spot, _ := lookup(n, "spot"); spot != nil && scalarText(spot, "source") == "" {
		c.Spot.Source = over + cl.Spot.Source
	}
	if scalarText(n, "pue") != "" && scalarText(n, "pue_source") == "" {
		c.PUESource = over + cl.PUESource
	}
	if scalarText(n, "source") == "" {
		c.Source = over + cl.Source
	}
	return &c
}

func (r *run) applyAccelerators(_ *catalog.Catalog, list *section) {
	r.accels = applySection(r, list, r.accels, sectionType[catalog.Accelerator]{name: secAccelerators, idKeys: []string{"id"},
		key: func(x *catalog.Accelerator) string { return x.ID }, validate: catalog.ValidateAccelerator}, r.fileAccels)
	// Accelerator IDs and aliases are unique across the built-in ones and
	// the file's (checked on the lists as they now are).
	if err := r.cur.With(r.accels, r.clouds, nil, nil).CheckUnique(); err != nil {
		r.problem(list.line, secAccelerators, "", "%v", err)
	}
}

func (r *run) applyRegions(_ *catalog.Catalog, list *section) {
	r.regions = applySection(r, list, r.regions, sectionType[catalog.Region]{name: secRegions, idKeys: []string{"cloud", "id"},
		key: func(x *catalog.Region) string {
			if x.ID == "" {
				return ""
			}
			return x.Cloud + "/" + x.ID
		},
		defaults: func(x *catalog.Region) {
			if x.Compliance == nil {
				x.Compliance = []string{}
			}
			if x.Partition == "" {
				x.Partition = catalog.PartitionCommercial
			}
		},
		validate: r.cur.ValidateRegion}, r.fileRegions)
}

// indexBy maps the key of each element to its position.
func indexBy[T any](s []*T, key func(*T) string) map[string]int {
	m := make(map[string]int, len(s))
	for i, x := range s {
		m[key(x)] = i
	}
	return m
}

// replaceOrAdd replaces the element with key k, else appends v: constant
// time with the position index pos, which it keeps current.
func replaceOrAdd[T any](s []*T, pos map[string]int, k string, v *T) []*T {
	if i, ok := pos[k]; ok {
		s[i] = v
		return s
	}
	pos[k] = len(s)
	return append(s, v)
}
