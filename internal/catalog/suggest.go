// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package catalog

import (
	"fmt"
	"math"
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
	return fmt.Sprintf("%s = %s is not a cloud in the catalog. Closest: %s. Allowed: %s.",
		at, QuoteName(name), QuoteList(Closest(name, c.CloudIDs(), 3)), QuoteList(c.CloudIDs()))
}

// UnknownRegion is the detail of every diagnostic about a region code the
// catalog does not know, at attribute at; regionIDs are the codes it may
// be (RegionIDs of the clouds in question).
func UnknownRegion(at, name string, regionIDs []string) string {
	return fmt.Sprintf("%s = %s is not a region in the catalog. Closest: %s.", at, QuoteName(name), QuoteList(Closest(name, regionIDs, 3)))
}

// UnknownAccelerator is the detail of every diagnostic about an
// accelerator name the catalog does not know, at attribute at.
func (c *Catalog) UnknownAccelerator(at, name string) string {
	return fmt.Sprintf("%s = %s is not an accelerator ID or alias in the catalog. Closest: %s.%s IDs: %s.",
		at, QuoteName(name), QuoteList(c.ClosestAccelerators(name, 3)), c.acceleratorVariantsNote(name), QuoteList(c.AcceleratorIDs()))
}

// modelNoise are words of released model names that do not change the
// architecture: instruction or chat tuning, the Hugging Face conversion,
// the base checkpoint, the publisher ("Meta-Llama-3.1-8B-Instruct").
var modelNoise = map[string]bool{"instruct": true, "chat": true, "hf": true, "it": true, "base": true, "meta": true}

// modelWords splits a model name as users write it into its lower-case
// words: the organisation of a Hugging Face ID dropped, split at - _ : and
// spaces, noise words left out.
func modelWords(s string) []string {
	s = strings.ToLower(strings.TrimSpace(s))
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		s = s[i+1:]
	}
	var out []string
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return r == '-' || r == '_' || r == ':' || r == ' ' }) {
		if !modelNoise[w] {
			out = append(out, w)
		}
	}
	return out
}

// modelKey is the loose form of a model name: its words joined without
// separators ("Llama-3.1-8B-Instruct" and "llama-3.1-8b" are "llama3.18b").
func modelKey(s string) string { return strings.Join(modelWords(s), "") }

// modelName is what a model name says: its family (the letters before the
// first digit, "llama", "deepseekr", "mixtral"), the version right after
// ("3.1"), and the size in billions when a word states one ("70b").
type modelName struct {
	family, version string
	sizeB           float64
}

func parseModelName(s string) modelName {
	words := modelWords(s)
	joined := strings.Join(words, "-")
	var n modelName
	i := strings.IndexAny(joined, "0123456789")
	if i < 0 {
		n.family = strings.ReplaceAll(joined, "-", "")
		return n
	}
	n.family = strings.ReplaceAll(joined[:i], "-", "")
	j := i
	for j < len(joined) && (joined[j] == '.' || (joined[j] >= '0' && joined[j] <= '9')) {
		j++
	}
	n.version = strings.TrimRight(joined[i:j], ".")
	for _, w := range words {
		if v, err := strconv.ParseFloat(strings.TrimSuffix(w, "b"), 64); err == nil && strings.HasSuffix(w, "b") && v > 0 {
			n.sizeB = v
			break
		}
	}
	return n
}

// modelSizeTolerance is how far a preset's published total may be from a
// size written in a name and still count as that size ("7b" for 6.7B).
// A matching heuristic for suggestions, not a model number.
const modelSizeTolerance = 0.1

// How ClosestModels matched a name: on its family, its size alone, or
// spelling alone.
const (
	MatchFamily   = "family"
	MatchSize     = "size"
	MatchSpelling = "spelling"
)

// ClosestModels returns up to n preset IDs a name that Lookup does not
// find may mean, best first, and how they were matched. Presets of
// the same family ("llama3-70b" and the llama presets) come first, ranked
// by a matching version prefix ("3" matches 3.1 and 3.3) and size, then by
// edit distance; without one, presets of the same size; without either,
// the nearest IDs by edit distance. A name of another family is never
// matched on spelling alone ("mistral-7b" is not "mixtral-8x7b").
func (p *ModelPresets) ClosestModels(name string, n int) (ids []string, matched string) {
	q := parseModelName(name)
	type scored struct {
		id          string
		score, edit int
	}
	var fam, size []scored
	for _, m := range p.list {
		mn := parseModelName(m.ID)
		versionOK := q.version != "" && (mn.version == q.version || strings.HasPrefix(mn.version, q.version+"."))
		sizeOK := q.sizeB > 0 && (mn.sizeB == q.sizeB || (mn.sizeB == 0 && math.Abs(m.TotalParametersB-q.sizeB) <= modelSizeTolerance*q.sizeB))
		s := scored{id: m.ID, edit: levenshtein(modelKey(name), modelKey(m.ID))}
		if versionOK {
			s.score++
		}
		if sizeOK {
			s.score++
		}
		switch {
		case q.family != "" && mn.family == q.family:
			fam = append(fam, s)
		case sizeOK:
			size = append(size, s)
		}
	}
	pick, matched := fam, MatchFamily
	if len(pick) == 0 {
		pick, matched = size, MatchSize
	}
	if len(pick) == 0 {
		return Closest(strings.ToLower(strings.TrimSpace(name)), p.IDs(), n), MatchSpelling
	}
	sort.SliceStable(pick, func(a, b int) bool {
		if pick[a].score != pick[b].score {
			return pick[a].score > pick[b].score
		}
		return pick[a].edit < pick[b].edit
	})
	for _, s := range pick[:min(n, len(pick))] {
		ids = append(ids, s.id)
	}
	return ids, matched
}

// UnknownModel says, for a message about a name that is no preset, which
// presets it may mean: `closest: "llama-3.1-70b", ...`, or, when no preset
// is of its family, `no preset of the "mistral" family; closest in size:
// "llama-2-7b"`.
func (p *ModelPresets) UnknownModel(name string) string {
	ids, matched := p.ClosestModels(name, 3)
	family := parseModelName(name).family
	switch {
	case matched == MatchFamily || family == "":
		return "closest: " + QuoteList(ids)
	case matched == MatchSize:
		return fmt.Sprintf("no preset of the %s family; closest in size: %s", QuoteName(family), QuoteList(ids))
	}
	return fmt.Sprintf("no preset of the %s family; closest: %s", QuoteName(family), QuoteList(ids))
}

// acceleratorVendorWords are words of accelerator names that do not pick a
// part ("NVIDIA Tesla A100" is "a100").
var acceleratorVendorWords = []string{"nvidia", "tesla", "amd", "instinct", "intel", "geforce"}

// acceleratorStem is the part an accelerator ID names before its first
// variant suffix, lower case ("A100-80GB-PCIE" is "a100"); "" when that
// part has no digit (TPU-V5E's "tpu" names a family, not a part).
func acceleratorStem(id string) string {
	stem, _, _ := strings.Cut(strings.ToLower(id), "-")
	if !strings.ContainsAny(stem, "0123456789") {
		return ""
	}
	return stem
}

// compactAcceleratorName is a name with vendor words, spaces and
// punctuation removed, lower case ("NVIDIA Tesla A100" is "a100").
func compactAcceleratorName(name string) string {
	s := strings.ToLower(name)
	for _, w := range acceleratorVendorWords {
		s = strings.ReplaceAll(s, w, "")
	}
	var b strings.Builder
	for _, r := range s {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// AcceleratorVariants lists the accelerators that share a part with the
// one named by stem ("a100": A100-40GB, A100-80GB, A100-80GB-PCIE), in
// catalog order; nil when fewer than two do.
func (c *Catalog) AcceleratorVariants(stem string) []*Accelerator {
	var out []*Accelerator
	for _, a := range c.Accelerators {
		if s := acceleratorStem(a.ID); s != "" && s == stem {
			out = append(out, a)
		}
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

// describeAccelerators renders accelerators as `"A100-40GB" (40 GB),
// "A100-80GB" (80 GB)`.
func describeAccelerators(as []*Accelerator) string {
	parts := make([]string, len(as))
	for i, a := range as {
		parts[i] = fmt.Sprintf("%q (%s GB)", a.ID, FormatNumber(a.MemoryGB))
	}
	return strings.Join(parts, ", ")
}

// AmbiguousAccelerator is the detail of a warning about an accelerator
// name at attribute at that is an alias of one part while the catalog has
// other memory or form-factor variants of it ("a100" is read as
// A100-40GB; A100-80GB and A100-80GB-PCIE exist too). It is "" when the
// name is a canonical ID, names the variant, or is not an accelerator.
func (c *Catalog) AmbiguousAccelerator(at, name string) string {
	a, ok := c.Accelerator(name)
	if !ok || strings.EqualFold(strings.TrimSpace(name), a.ID) {
		return ""
	}
	stem := acceleratorStem(a.ID)
	variants := c.AcceleratorVariants(stem)
	if variants == nil || compactAcceleratorName(name) != stem {
		return ""
	}
	others := slices.DeleteFunc(slices.Clone(variants), func(v *Accelerator) bool { return v == a })
	return fmt.Sprintf("%s = %q is read as %s; the catalog also has %s. Name the part (for example %q) to choose another.",
		at, name, describeAccelerators([]*Accelerator{a}), describeAccelerators(others), others[0].ID)
}

// acceleratorVariantsNote is the sentence UnknownAccelerator adds when a
// name starts with a part that has variants ("a100-40" → the A100 parts).
func (c *Catalog) acceleratorVariantsNote(name string) string {
	compact := compactAcceleratorName(name)
	seen := map[string]bool{}
	for _, a := range c.Accelerators {
		stem := acceleratorStem(a.ID)
		if stem == "" || seen[stem] || !strings.HasPrefix(compact, stem) {
			continue
		}
		seen[stem] = true
		if v := c.AcceleratorVariants(stem); v != nil {
			return fmt.Sprintf(" %s parts: %s.", strings.ToUpper(stem), describeAccelerators(v))
		}
	}
	return ""
}
