// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package catalog

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"slices"
	"strings"
)

// FileSoftwareStacks is the data file of the software stacks.
const FileSoftwareStacks = "software_stacks.json"

// Accelerator purposes: what a part is built and sold for. A part for
// inference only is never a training or fine-tuning candidate.
const (
	PurposeBoth      = "both"
	PurposeTraining  = "training"
	PurposeInference = "inference"
)

// Purposes lists the accelerator purposes, in documentation order.
var Purposes = []string{PurposeBoth, PurposeTraining, PurposeInference}

// Trains reports whether the accelerator is for training (and so for
// fine-tuning): every purpose but inference only.
func (a *Accelerator) Trains() bool { return a.Purpose != PurposeInference }

// Serves reports whether the accelerator serves inference: every purpose
// but training only.
func (a *Accelerator) Serves() bool { return a.Purpose != PurposeTraining }

// Stack is one software stack: the compiler, runtime and kernels a part
// runs, with the frameworks on top.
type Stack struct {
	ID      string   `json:"id"`
	Name    string   `json:"name"`
	Vendors []string `json:"vendors"`
	Source  string   `json:"source"`
}

// SoftwareStacks is the stacks table of FileSoftwareStacks.
type SoftwareStacks struct {
	// Stacks in documentation order.
	Stacks []Stack
	// Default is the stacks a recommendation allows when
	// constraints.software_stacks is not set.
	Default []string
	// methods and trainingPrecisions map a fine-tuning method or a
	// training precision to the stacks that run it; one that is not listed
	// runs on every stack.
	methods, trainingPrecisions map[string][]string
	vendor                      map[string]string // lower-case vendor -> stack
}

type stackRule struct {
	Stacks []string `json:"stacks"`
	Source string   `json:"source"`
}

var builtinStacks = builtinData[*SoftwareStacks]{what: "built-in software stacks", load: LoadSoftwareStacks}

// BuiltinSoftwareStacks returns the embedded stacks table, parsed on first
// use. The result is shared: callers must not modify it.
func BuiltinSoftwareStacks() (*SoftwareStacks, error) { return builtinStacks.get() }

// LoadSoftwareStacks reads FileSoftwareStacks at the root of fsys: every
// stack, vendor and rule names its source, and every rule names known
// stacks.
func LoadSoftwareStacks(fsys fs.FS) (*SoftwareStacks, error) {
	raw, err := fs.ReadFile(fsys, FileSoftwareStacks)
	if err != nil {
		return nil, err
	}
	var f struct {
		Stacks  []Stack `json:"stacks"`
		Default struct {
			Value  []string `json:"value"`
			Source string   `json:"source"`
		} `json:"default_stacks"`
		Methods            map[string]stackRule `json:"fine_tuning_methods"`
		TrainingPrecisions map[string]stackRule `json:"training_precisions"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", FileSoftwareStacks, err)
	}
	s := &SoftwareStacks{Stacks: f.Stacks, Default: f.Default.Value, vendor: map[string]string{},
		methods: map[string][]string{}, trainingPrecisions: map[string][]string{}}
	var errs []string
	for _, st := range f.Stacks {
		if st.ID == "" || st.ID != strings.ToLower(st.ID) || st.Source == "" || len(st.Vendors) == 0 {
			errs = append(errs, fmt.Sprintf("stack %q: a lower-case id, vendors and a source are required", st.ID))
		}
		for _, v := range st.Vendors {
			if prev, dup := s.vendor[strings.ToLower(v)]; dup {
				errs = append(errs, fmt.Sprintf("vendor %q is in stacks %q and %q", v, prev, st.ID))
			}
			s.vendor[strings.ToLower(v)] = st.ID
		}
	}
	check := func(what string, ids []string, source string) {
		if len(ids) == 0 || source == "" {
			errs = append(errs, what+": stacks and a source are required")
		}
		for _, id := range ids {
			if !s.Known(id) {
				errs = append(errs, fmt.Sprintf("%s: unknown stack %q", what, id))
			}
		}
	}
	check("default_stacks", s.Default, f.Default.Source)
	for name, r := range f.Methods {
		check("fine_tuning_methods."+name, r.Stacks, r.Source)
		s.methods[name] = r.Stacks
	}
	for name, r := range f.TrainingPrecisions {
		check("training_precisions."+name, r.Stacks, r.Source)
		s.trainingPrecisions[name] = r.Stacks
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s: %s", FileSoftwareStacks, strings.Join(errs, "; "))
	}
	return s, nil
}

// IDs lists the stack IDs in documentation order.
func (s *SoftwareStacks) IDs() []string {
	out := make([]string, len(s.Stacks))
	for i, st := range s.Stacks {
		out[i] = st.ID
	}
	return out
}

// Known reports whether id (lower case) is a stack.
func (s *SoftwareStacks) Known(id string) bool {
	return slices.ContainsFunc(s.Stacks, func(st Stack) bool { return st.ID == id })
}

// OfVendor is the stack a vendor's parts run, "" for a vendor the table
// does not know.
func (s *SoftwareStacks) OfVendor(vendor string) string {
	return s.vendor[strings.ToLower(strings.TrimSpace(vendor))]
}

// Of is the stack an accelerator runs: its software_stack, else its
// vendor's; "" when neither is known (then no stack constraint allows it).
func (s *SoftwareStacks) Of(a *Accelerator) string {
	if a.SoftwareStack != "" {
		return a.SoftwareStack
	}
	return s.OfVendor(a.Vendor)
}

// RunsMethod reports whether a stack runs a fine-tuning method; a method
// the table does not list runs everywhere.
func (s *SoftwareStacks) RunsMethod(stack, method string) bool {
	ids, ok := s.methods[method]
	return !ok || slices.Contains(ids, stack)
}

// MethodStacks lists the stacks that run a fine-tuning method (every
// stack for one the table does not list).
func (s *SoftwareStacks) MethodStacks(method string) []string {
	if ids, ok := s.methods[method]; ok {
		return ids
	}
	return s.IDs()
}

// TrainsAt reports whether a stack trains at a precision; a precision the
// table does not list trains on every stack whose hardware runs it.
func (s *SoftwareStacks) TrainsAt(stack, precision string) bool {
	ids, ok := s.trainingPrecisions[precision]
	return !ok || slices.Contains(ids, stack)
}

// TrainingPrecisionStacks lists the stacks that train at a precision.
func (s *SoftwareStacks) TrainingPrecisionStacks(precision string) []string {
	if ids, ok := s.trainingPrecisions[precision]; ok {
		return ids
	}
	return s.IDs()
}
