// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package catalog

import "embed"

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
