// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

// Package overlay applies a user catalog file (the provider's catalog_file,
// the output of `make overlay`) to a catalog: its clouds, accelerators,
// regions, discounts and offers are added or override the built-in ones.
// Its one function is Apply.
//
// A file is JSON or YAML. Both are read entry by entry into yaml.v3 nodes,
// which carry the line of every value: JSON with encoding/json's streaming
// Decoder (a node tree per entry, lines from the decoder's offsets), YAML
// with go.yaml.in/yaml/v3, a large file section by section and its lists
// in chunks of entries (read_yaml.go). One decoder turns an entry's node
// into its Go type (decode.go), reporting every problem with its field and
// line; run.go and merge.go validate and merge. Any problem rejects the
// whole file with an *Error listing every problem; the base catalog is
// never modified.
package overlay

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/safefile"
)

// MaxBytes is the largest catalog file read: 64 MiB, a thousand times a
// large real overlay (50,000 offers take about 15 MB of YAML).
const MaxBytes = 64 << 20

// Options tune Apply.
type Options struct {
	// Data, when not nil, is the file's content: nothing is read from disk,
	// and path only names the file in messages and gives its format by its
	// extension. An empty file is []byte{}.
	Data []byte
}

// Result is the catalog a file makes and the warnings about what it
// changed besides what it states (built-in prices rescaled, a discount
// that applies to nothing).
type Result struct {
	Catalog  *catalog.Catalog
	Warnings []Finding
	// Digest is the SHA-256 of the bytes read, in hex: what a plan records
	// to tell, at apply, that the file changed since (package provider).
	Digest string
}

// Apply returns base with the catalog file at path applied. The file is
// JSON (.json) or YAML (.yaml, .yml), a regular file of at most MaxBytes.
// A relative path is resolved against the process's working directory
// (under Terraform, the root module's directory); errors name the absolute
// path. Any problem rejects the whole file with an *Error listing every
// problem (file, line, entry, field); base is never modified.
func Apply(base *catalog.Catalog, path string, opts Options) (*Result, error) {
	data := opts.Data
	if data == nil {
		if abs, err := filepath.Abs(path); err == nil {
			path = abs
		}
		var err error
		if data, err = safefile.ReadFile(path, MaxBytes); err != nil {
			return nil, fileError(path, err)
		}
	} else if len(data) > MaxBytes {
		return nil, fileError(path, &safefile.TooLargeError{Max: MaxBytes})
	}
	res, err := apply(base, path, data, streamMinBytes)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	res.Digest = hex.EncodeToString(sum[:])
	return res, nil
}

// apply reads data by the format of name's extension; YAML files of at
// least streamMin bytes in chunks when their shape allows it.
func apply(base *catalog.Catalog, name string, data []byte, streamMin int) (*Result, error) {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".json":
		r := newRun(name, data)
		r.run(base, r.jsonSections(data))
		return r.result()
	case ".yaml", ".yml":
		// A large YAML file is read section by section, its lists in
		// chunks of entries, so memory follows the chunk, not the file. A
		// file whose shape does not allow it, or whose chunks do not parse
		// alone, is read whole below, with the same result.
		if len(data) >= streamMin {
			if secs, ok := splitYAML(data); ok {
				r := newRun(name, data)
				r.run(base, r.streamedSections(data, secs))
				if r.streamErr == nil {
					return r.result()
				}
			}
		}
		r := newRun(name, data)
		r.run(base, r.wholeYAML(data))
		return r.result()
	}
	return nil, fileError(name, errors.New("unknown catalog file format: use .json, .yaml or .yml"))
}

// fileError is the error about a file that cannot be read at all.
func fileError(path string, err error) error {
	var tl *safefile.TooLargeError
	msg := err.Error()
	switch {
	case errors.Is(err, safefile.ErrNotExist):
		msg = "no such file (a relative path is resolved against the directory Terraform runs in, the root module)"
	case errors.Is(err, safefile.ErrNotRegular):
		msg += ": catalog_file must name a .json, .yaml or .yml file"
	case errors.As(err, &tl):
		msg = fmt.Sprintf("is larger than %d MB, the most a catalog file may hold", tl.Max>>20)
	}
	return &Error{Path: path, Problems: []Finding{{File: filepath.Base(path), Msg: msg}}}
}

// Finding is one problem or warning about a catalog file.
type Finding struct {
	File  string // the file's base name
	Line  int    // 1-based line; 0 when it concerns the whole file
	Entry string // the entry, e.g. "offers[2] (onprem/dgx-h100/dc1)" or "discounts"; "" for the file
	// Field is the path inside the entry ("on_demand_usd",
	// "spot.notice_seconds", "egress_tiers[1].usd_per_gb"), or from the top
	// of the file when Entry is "" ("offerz"); "" when none.
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

// Error rejects a catalog file as a whole. It lists every problem found
// (up to maxProblems, in file order), so a user fixes the file in one run.
type Error struct {
	// Path is the absolute path of the file, or the name given with
	// Options.Data.
	Path     string
	Problems []Finding
	More     int // problems found beyond Problems
	// Stopped: reading stopped after maxProblemsRead problems, so More
	// counts those found until then.
	Stopped bool
}

func (e *Error) Error() string {
	if len(e.Problems) == 1 && e.More == 0 {
		p := e.Problems[0]
		p.File = e.Path
		return p.String()
	}
	var b strings.Builder
	n := fmt.Sprint(len(e.Problems) + e.More)
	if e.Stopped {
		n = "at least " + n
	}
	fmt.Fprintf(&b, "%s: %s problems:", e.Path, n)
	for _, p := range e.Problems {
		b.WriteString("\n  ")
		b.WriteString(p.String())
	}
	if e.More > 0 {
		fmt.Fprintf(&b, "\n  ... and %d more", e.More)
		if e.Stopped {
			b.WriteString(" (reading stopped there)")
		}
	}
	return b.String()
}
