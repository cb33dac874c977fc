// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package catalog

import (
	"errors"
	"fmt"
	"iter"
	"maps"
	"path/filepath"
	"slices"
	"strings"
)

// overlayOffer is an offer in an overlay. cloud, instance_type and region
// identify it; when that offer exists the given fields override it (for
// example only on_demand_usd for a negotiated price), otherwise it is a new
// offer and accelerator, gpus (or gpu_fraction) and on_demand_usd (or
// capacity_block_usd) are required.
type overlayOffer struct {
	Cloud         string   `json:"cloud"`
	Region        string   `json:"region"`
	InstanceType  string   `json:"instance_type"`
	Accelerator   *string  `json:"accelerator"`
	GPUs          *int     `json:"gpus"`
	GPUFraction   *float64 `json:"gpu_fraction"`
	GPUMemoryGB   *float64 `json:"gpu_memory_gb"`
	VCPUs         *int     `json:"vcpus"`
	MemoryGB      *float64 `json:"memory_gb"`
	NetworkGbps   *float64 `json:"network_gbps"`
	Fabric        *Fabric  `json:"fabric"`
	OnDemandUSD   *float64 `json:"on_demand_usd"`
	SpotUSD       *float64 `json:"spot_usd"`
	Reserved1YUSD *float64 `json:"reserved_1y_usd"`
	Reserved3YUSD *float64 `json:"reserved_3y_usd"`
	CapacityBlock *float64 `json:"capacity_block_usd"`
	// PriceBasis and PriceAsOf describe the prices the entry gives.
	PriceBasis *PriceBasis `json:"price_basis"`
	PriceAsOf  *string     `json:"price_as_of"`
	Source     *string     `json:"source"`
}

// Finding is one problem or warning about a catalog file.
type Finding struct {
	File  string // the file's base name
	Line  int    // 1-based line; 0 when it concerns the whole file
	Entry string // the entry, e.g. "offers[2] (onprem/dgx-h100/dc1)" or "discounts"; "" for the file
	// Field is the path inside the entry ("on_demand_usd",
	// "spot.notice_seconds", "egress_tiers[1].usd_per_gb"), or from the top
	// of the file when Entry is "" ("offers[3].gpus"); "" when none.
	Field string
	Msg   string
}

// String renders the finding as one line:
// `catalog.yaml line 7: offers[2] (onprem/dgx-h100/dc1): field "on_demand_usd": must be ..., got -3`.
func (f Finding) String() string {
	var b strings.Builder
	b.WriteString(f.File)
	if f.Line > 0 {
		fmt.Fprintf(&b, " line %d", f.Line)
	}
	b.WriteString(": ")
	if f.Entry != "" {
		b.WriteString(f.Entry + ": ")
	}
	if f.Field != "" {
		fmt.Fprintf(&b, "field %q: ", f.Field)
	}
	b.WriteString(f.Msg)
	return b.String()
}

// maxProblems is the most problems an OverlayError lists, maxWarnings the
// most warnings returned (then one more says how many were left out).
const (
	maxProblems = 100
	maxWarnings = 20
)

// OverlayError rejects a catalog file as a whole. It lists every problem
// found (up to maxProblems, in file order), so a user fixes the file in
// one run.
type OverlayError struct {
	// Path is the absolute path of the file (WithOverlay) or the name given
	// to WithOverlayBytes.
	Path     string
	Problems []Finding
	More     int // problems found beyond Problems
}

func (e *OverlayError) Error() string {
	if len(e.Problems) == 1 && e.More == 0 {
		p := e.Problems[0]
		p.File = e.Path
		return p.String()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d problems:", e.Path, len(e.Problems)+e.More)
	for _, p := range e.Problems {
		b.WriteString("\n  ")
		b.WriteString(p.String())
	}
	if e.More > 0 {
		fmt.Fprintf(&b, "\n  ... and %d more", e.More)
	}
	return b.String()
}

// WithOverlay returns a new catalog: the receiver with the clouds, regions,
// accelerators, offers and discounts of the user catalog file at path
// added or overridden, and the warnings about what the file changed
// besides what it states (built-in prices rescaled, discounts that apply
// to nothing). The file is JSON (.json) or YAML (.yaml, .yml), a regular
// file of at most MaxOverlayBytes. A relative path is resolved against the
// process's working directory (under Terraform, the root module's
// directory); errors name the absolute path. Any problem rejects the whole
// file with an *OverlayError listing every problem; the receiver is never
// modified.
func (c *Catalog) WithOverlay(path string) (*Catalog, []Finding, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	data, err := readCatalogFile(abs)
	if err != nil {
		return nil, nil, &OverlayError{Path: abs, Problems: []Finding{{File: filepath.Base(abs), Msg: err.Error()}}}
	}
	return c.overlay(abs, data)
}

// WithOverlayBytes is WithOverlay for in-memory content; name gives the
// format (by extension) and is used in messages.
func (c *Catalog) WithOverlayBytes(name string, data []byte) (*Catalog, []Finding, error) {
	if len(data) > MaxOverlayBytes {
		return nil, nil, &OverlayError{Path: name, Problems: []Finding{{File: filepath.Base(name), Msg: tooLarge().Error()}}}
	}
	return c.overlay(name, data)
}

func (c *Catalog) overlay(path string, data []byte) (*Catalog, []Finding, error) {
	return c.overlayStreaming(path, data, streamMinBytes)
}

// overlayStreaming is overlay with YAML files of at least streamMin bytes
// read in chunks when they allow it.
func (c *Catalog) overlayStreaming(path string, data []byte, streamMin int) (*Catalog, []Finding, error) {
	ext := strings.ToLower(filepath.Ext(path))
	if (ext == ".yaml" || ext == ".yml") && len(data) >= streamMin {
		// A large YAML file is read section by section, its lists in chunks
		// of entries (overlay_stream.go), so memory follows the chunk, not
		// the file. A file whose shape does not allow it, or whose chunks
		// do not parse alone, is read whole below, with the same result.
		if secs, ok := splitYAML(data); ok {
			r := newRun(path, data)
			r.run(c, r.streamSections(data, secs))
			if r.streamErr == nil {
				return r.result(path)
			}
		}
	}
	r := newRun(path, data)
	var root *node
	var err error
	switch ext {
	case ".json":
		root, err = jsonTree(data, r.budget)
	case ".yaml", ".yml":
		root, err = yamlTree(data, r.budget)
	default:
		err = errors.New("unknown catalog file format: use .json, .yaml or .yml")
	}
	var te *treeError
	switch {
	case errors.As(err, &te):
		r.problem(te.line, "", te.path, "%s", te.msg)
	case err != nil:
		r.problem(0, "", "", "%v", err)
	default:
		r.runTree(c, root)
	}
	return r.result(path)
}

func newRun(path string, data []byte) *overlayRun {
	return &overlayRun{file: filepath.Base(path), budget: newBudget(len(data))}
}

// result is the catalog and warnings, or the error listing every problem.
func (r *overlayRun) result(path string) (*Catalog, []Finding, error) {
	if len(r.problems) > 0 {
		slices.SortStableFunc(r.problems, func(a, b Finding) int { return a.Line - b.Line })
		return nil, nil, &OverlayError{Path: path, Problems: r.problems, More: r.more}
	}
	slices.SortStableFunc(r.warnings, func(a, b Finding) int { return a.Line - b.Line })
	if r.moreWarnings > 0 {
		r.warnings = append(r.warnings, Finding{File: r.file,
			Msg: fmt.Sprintf("%d more warnings like these were left out", r.moreWarnings)})
	}
	return r.out, r.warnings, nil
}

// overlayRun applies one file: the working copy and what was found.
type overlayRun struct {
	file         string
	budget       *budget
	out          *Catalog
	problems     []Finding
	more         int
	warnings     []Finding
	moreWarnings int

	// What the file defines, by key, and where: entries defined twice are
	// errors, and discounts skip what the file sets itself.
	fileClouds map[string]int
	// cloudGiven: for a built-in cloud the file overrides, the top-level
	// fields the entry gives (the rest keep their built-in values).
	cloudGiven map[string]map[string]bool
	fileAccels map[string]int
	fileRegion map[string]int
	fileOffers map[string]int
	discounts  map[string]float64

	// streamErr stops a streamed reading whose chunk did not parse alone:
	// the file is then read whole.
	streamErr error
}

func (r *overlayRun) problem(line int32, entry, field, format string, args ...any) {
	r.problems = addFinding(r.problems, maxProblems, &r.more, r.file, line, entry, field, fmt.Sprintf(format, args...))
}

func (r *overlayRun) warn(line int32, entry, field, format string, args ...any) {
	r.warnings = addFinding(r.warnings, maxWarnings, &r.moreWarnings, r.file, line, entry, field, fmt.Sprintf(format, args...))
}

// addFinding appends a finding to list, or counts it in more past limit.
func addFinding(list []Finding, limit int, more *int, file string, line int32, entry, field, msg string) []Finding {
	if len(list) >= limit {
		*more++
		return list
	}
	return append(list, Finding{File: file, Line: int(line), Entry: clipName(entry), Field: clipName(field), Msg: msg})
}

// clipName cuts an entry or field name made of user text to 100 bytes.
func clipName(s string) string {
	if len(s) > 100 {
		return strings.ToValidUTF8(s[:97], "") + "..."
	}
	return s
}

// entry is one entry of a section list; named only when reported.
type entry struct {
	section string
	index   int // -1 for a section that is a mapping (discounts)
	node    *node
	idKeys  []string
}

// String names the entry from its identity fields: "offers[2] (onprem/dgx-h100/dc1)".
func (e entry) String() string {
	if e.index < 0 {
		return e.section
	}
	parts := make([]string, len(e.idKeys))
	for j, k := range e.idKeys {
		if parts[j] = e.node.scalarText(k); parts[j] == "" {
			parts[j] = "?"
		}
	}
	return fmt.Sprintf("%s[%d] (%s)", e.section, e.index, strings.Join(parts, "/"))
}

// entryProblems reports the decode problems and the validation errors of
// one entry, the latter at the line of their field. A field that could not
// be read is reported once: validation saw its zero value, not the file's.
func (r *overlayRun) entryProblems(e entry, decodeErrs []decodeProblem, err error) {
	if len(decodeErrs) == 0 && err == nil {
		return
	}
	n, name := e.node, e.String()
	entry := name
	unread := make(map[string]bool, len(decodeErrs))
	for _, p := range decodeErrs {
		r.problem(p.line, entry, p.field, "%s", p.msg)
		unread[p.field] = true
	}
	var fes fieldErrors
	switch {
	case errors.As(err, &fes):
		for _, fe := range fes {
			if unread[fe.Field] || (fe.Field == "" && len(unread) > 0) {
				continue
			}
			r.problem(n.lineOf(fe.Field), entry, fe.Field, "%s", fe.Msg)
		}
	case err != nil && len(unread) == 0:
		r.problem(n.line, entry, "", "%v", err)
	}
}

// sections of the top level, in the order they are applied.
var overlaySections = []string{sectionClouds, sectionAccelerators, sectionRegions, sectionDiscounts, sectionOffers}

// section is one top-level key of a file: its value read whole, or, for a
// list read in chunks, each chunk as a list node.
type section struct {
	key    string
	line   int32
	value  *node
	chunks iter.Seq[*node]
}

// runTree applies a file read whole.
func (r *overlayRun) runTree(base *Catalog, root *node) {
	if root.kind == nodeNull {
		r.warn(0, "", "", "the file is empty: nothing was added or changed")
		r.out = base
		return
	}
	if root.kind != nodeMap {
		r.problem(root.line, "", "", "the top level must be a mapping with the keys %s, got %s",
			QuoteList(overlaySections), root.kind)
		return
	}
	secs := make([]section, len(root.keys))
	for i, k := range root.keys {
		secs[i] = section{key: k, line: root.keyLines[i], value: root.vals[i]}
	}
	r.run(base, secs)
}

// run applies the sections of a file in the fixed order of overlaySections.
func (r *overlayRun) run(base *Catalog, secs []section) {
	sec := map[string]*section{}
	for i := range secs {
		s := &secs[i]
		k, v := s.key, s.value
		switch {
		case !slices.Contains(overlaySections, k):
			r.problem(s.line, "", k, "unknown field%s", didYouMeanN(k, overlaySections, 1))
		case v == nil: // streamed list
			sec[k] = s
		case v.kind == nodeNull:
		case k == sectionDiscounts && v.kind != nodeMap:
			r.problem(s.line, "", k, "must be a mapping of cloud to fraction (aws: 0.12), got %s", v.kind)
		case k != sectionDiscounts && v.kind != nodeList:
			r.problem(s.line, "", k, "must be a list, got %s", v.kind)
		default:
			sec[k] = s
		}
	}
	r.fileClouds, r.fileAccels, r.fileRegion, r.fileOffers = map[string]int{}, map[string]int{}, map[string]int{}, map[string]int{}
	r.cloudGiven = map[string]map[string]bool{}
	n := &Catalog{Date: base.Date, ExchangeRates: base.ExchangeRates,
		Accelerators: slices.Clone(base.Accelerators),
		Clouds:       slices.Clone(base.Clouds),
		Regions:      slices.Clone(base.Regions),
		Offers:       slices.Clone(base.Offers),
		Serverless:   base.Serverless}
	// While the file is applied, each map is rebuilt after the section that
	// changes it and offerByKey is kept current entry by entry: work in
	// proportion to the file, plus one pass over the offers at the end.
	n.accelByKey, n.cloudByID, n.regionByID = base.accelByKey, base.cloudByID, base.regionByID
	n.offerByKey = maps.Clone(base.offerByKey)
	r.out = n
	if c := sec[sectionClouds]; c != nil {
		r.clouds(c)
		n.indexClouds()
	}
	if a := sec[sectionAccelerators]; a != nil {
		r.accelerators(a)
		if err := n.checkUnique(); err != nil {
			r.problem(a.line, sectionAccelerators, "", "%v", err)
		}
		n.indexAccelerators()
	}
	if rg := sec[sectionRegions]; rg != nil {
		r.regions(rg)
		n.indexRegions()
	}
	if d := sec[sectionDiscounts]; d != nil {
		r.applyDiscounts(d.value)
		n.indexClouds()
	}
	r.offers(sec[sectionOffers])
	n.indexInstanceTypes()
}

// items yields the entries of a section list, read whole or in chunks.
func (r *overlayRun) items(s *section, idKeys ...string) iter.Seq[entry] {
	return func(yield func(entry) bool) {
		if s == nil {
			return
		}
		chunks := s.chunks
		if s.value != nil {
			chunks = func(y func(*node) bool) { y(s.value) }
		}
		i := 0
		for list := range chunks {
			for j, item := range list.vals {
				e := entry{section: s.key, index: i, node: item, idKeys: idKeys}
				i++
				if item.kind != nodeMap {
					r.problem(item.line, e.String(), "", "an entry must be a mapping, got %s", item.kind)
					continue
				}
				if !yield(e) {
					return
				}
				list.vals[j] = nil // applied: let the collector reclaim it
			}
		}
	}
}

// duplicate reports an entry whose key (its identity) an earlier entry of
// the file has.
func (r *overlayRun) duplicate(seen map[string]int, key string, e entry) bool {
	if prev, dup := seen[key]; dup {
		r.problem(e.node.line, e.String(), "", "defined twice in this file (also %s[%d] (%s))", e.section, prev, key)
		return true
	}
	seen[key] = e.index
	return false
}

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
	base func(*node) *T
}

// applySection decodes, validates and adds or replaces (by key) every
// entry of a section list. An entry is added even when invalid (the file
// is rejected anyway), so the entries that name it report their own
// problems, not "unknown cloud".
func applySection[T any](r *overlayRun, list *section, s []*T, sec sectionType[T], seen map[string]int) []*T {
	pos := indexBy(s, sec.key)
	for e := range r.items(list, sec.idKeys...) {
		v := new(T)
		if sec.base != nil {
			if b := sec.base(e.node); b != nil {
				*v = *b // slices, maps and pointers the entry gives are replaced, never written through
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

// clouds adds new clouds and overrides fields of built-in ones: an entry
// naming a built-in cloud changes only the fields it gives (a negotiated
// spot interruption rate, a PUE), like an offer override.
func (r *overlayRun) clouds(list *section) {
	builtin := r.out.cloudByID
	r.out.Clouds = applySection(r, list, r.out.Clouds, sectionType[Cloud]{name: sectionClouds, idKeys: []string{"id"},
		key: func(x *Cloud) string { return x.ID }, validate: validateCloud,
		base: func(n *node) *Cloud {
			cl, ok := builtin[n.scalarText("id")]
			if !ok {
				return nil
			}
			c := *cl
			given := make(map[string]bool, len(n.keys))
			for _, k := range n.keys {
				given[k] = true
			}
			r.cloudGiven[cl.ID] = given
			// Fields the entry gives come from the file: say so in the
			// sources it does not restate.
			over := r.sourcePrefix() + " over: "
			if spot, _ := n.get("spot"); spot != nil && spot.scalarText("source") == "" {
				c.Spot.Source = over + cl.Spot.Source
			}
			if n.scalarText("pue") != "" && n.scalarText("pue_source") == "" {
				c.PUESource = over + cl.PUESource
			}
			if n.scalarText("source") == "" {
				c.Source = over + cl.Source
			}
			return &c
		}}, r.fileClouds)
}

func (r *overlayRun) accelerators(list *section) {
	r.out.Accelerators = applySection(r, list, r.out.Accelerators, sectionType[Accelerator]{name: sectionAccelerators, idKeys: []string{"id"},
		key: func(x *Accelerator) string { return x.ID }, validate: validateAccelerator}, r.fileAccels)
}

func (r *overlayRun) regions(list *section) {
	r.out.Regions = applySection(r, list, r.out.Regions, sectionType[Region]{name: sectionRegions, idKeys: []string{"cloud", "id"},
		key: func(x *Region) string {
			if x.ID == "" {
				return ""
			}
			return x.Cloud + "/" + x.ID
		},
		defaults: func(x *Region) {
			if x.Compliance == nil {
				x.Compliance = []string{}
			}
			if x.Partition == "" {
				x.Partition = "commercial"
			}
		},
		validate: r.out.validateRegion}, r.fileRegion)
}

func (r *overlayRun) offers(list *section) {
	n := r.out
	key := func(x *Offer) string { return x.Cloud + "/" + x.InstanceType + "/" + x.Region }
	var pos map[*Offer]int // position of each offer, built at the first override
	for e := range r.items(list, "cloud", "instance_type", "region") {
		var ov overlayOffer
		d := decoder{budget: r.budget, section: sectionOffers}
		d.decode(e.node, &ov)
		if ov.Cloud != "" && ov.InstanceType != "" && ov.Region != "" &&
			r.duplicate(r.fileOffers, ov.Cloud+"/"+ov.InstanceType+"/"+ov.Region, e) {
			r.entryProblems(e, d.errs, nil)
			continue
		}
		o, err := r.mergeOffer(&ov, e)
		if err == nil {
			err = n.validateOffer(o)
		}
		r.entryProblems(e, d.errs, err)
		if o == nil {
			continue
		}
		k := key(o)
		if prev, ok := n.offerByKey[k]; ok {
			if pos == nil {
				pos = make(map[*Offer]int, len(n.Offers))
				for i, x := range n.Offers {
					pos[x] = i
				}
			}
			n.Offers[pos[prev]] = o
			pos[o] = pos[prev]
		} else {
			n.Offers = append(n.Offers, o)
		}
		n.offerByKey[k] = o
	}
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
