// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package catalog

import (
	"embed"
	"fmt"
	"io/fs"
	"sync"
)

// dataFS holds the built-in catalog and model-parameter files.
//
//go:embed data
var dataFS embed.FS

// ReadDataFile returns an embedded data file by its name inside data/
// (for example "perf_model.json"). Model packages (perf, cost) keep their
// fitted constants there so every number has one home with its source.
func ReadDataFile(name string) ([]byte, error) {
	return dataFS.ReadFile("data/" + name)
}

// builtinData is an embedded data table read by load from the data folder
// on first use and shared afterwards (model presets, countries).
type builtinData[T any] struct {
	what string // for errors: "built-in model presets"
	load func(fs.FS) (T, error)
	once sync.Once
	v    T
	err  error
}

func (b *builtinData[T]) get() (T, error) {
	b.once.Do(func() {
		sub, err := fs.Sub(dataFS, "data")
		if err == nil {
			b.v, err = b.load(sub)
		}
		if err != nil {
			b.err = fmt.Errorf("%s: %w", b.what, err)
		}
	})
	return b.v, b.err
}
