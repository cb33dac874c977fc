// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package pricelist

import (
	"fmt"
	"os"
	"path/filepath"
)

// Reader is one of ReadAWS, ReadAzure, ReadGCP.
type Reader func(file string, data []byte, k Known) (*Result, error)

// ReadFile reads a price-list file from disk with read; errors name the
// file.
func ReadFile(path string, read Reader, k Known) (*Result, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	res, err := read(filepath.Base(path), data, k)
	if err != nil {
		if fe, ok := err.(*FileError); ok {
			fe.File = path
			return nil, fe
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return res, nil
}

// Read reads a price-list file of any of the three formats, recognised by
// its top-level fields.
func Read(file string, data []byte, k Known) (*Result, error) {
	keys, err := topKeys(file, data)
	if err != nil {
		return nil, err
	}
	switch detect(keys) {
	case FormatAWS:
		return ReadAWS(file, data, k)
	case FormatAzure:
		return ReadAzure(file, data, k)
	case FormatGCP:
		return ReadGCP(file, data, k)
	}
	return nil, &FileError{File: file, Msg: fmt.Sprintf("not a price-list file: expected one of the formats %s, %s or %s",
		FormatAWS, FormatAzure, FormatGCP)}
}
