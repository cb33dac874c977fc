// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package pricelist

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/gpuplan/terraform-provider-gpu/internal/safefile"
)

// Reader is one of ReadAWS, ReadAzure, ReadGCP, ReadRunPod, ReadLambda or
// Read. It reads one price-list document from in; file names it in errors
// and in the result's source.
type Reader func(file string, in io.Reader, k Known) (*Result, error)

// ReadFile reads a price-list file from disk with read; errors name the
// file. Only a regular file is read (a FIFO or a device such as /dev/zero
// is refused before any read), streamed, so memory does not grow with an
// AWS offer file, and every reader caps what it reads (refresh.json).
func ReadFile(path string, read Reader, k Known) (*Result, error) {
	f, err := openRegular(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer f.Close()
	res, err := read(filepath.Base(path), f, k)
	if err != nil {
		var fe *FileError
		if errors.As(err, &fe) {
			fe.File = path
			return nil, fe
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return res, nil
}

// openRegular opens a price list with the catalog file's guards
// (internal/safefile): a regular file only, at most max_offer_file_bytes
// (refresh.json; each reader caps its format further).
func openRegular(path string) (io.ReadCloser, error) {
	return safefile.Open(path, mustPolicy().MaxOfferFileBytes)
}

// Read reads a price-list document of any of the formats, recognised by
// its first distinctive top-level field, without holding an AWS offer file
// in memory.
func Read(file string, in io.Reader, k Known) (*Result, error) {
	format, keys, replay, err := sniff(file, in)
	if err != nil {
		return nil, err
	}
	switch format {
	case FormatAWS:
		return ReadAWS(file, replay, k)
	case FormatAzure:
		return ReadAzure(file, replay, k)
	case FormatGCP:
		return ReadGCP(file, replay, k)
	case FormatRunPod:
		return ReadRunPod(file, replay, k)
	case FormatLambda:
		return ReadLambda(file, replay, k)
	case FormatExtract:
		return nil, &FileError{File: file, Msg: "a price-list extract holds several results: read it with ReadAll"}
	}
	msg := fmt.Sprintf("not a price-list file: expected one of the formats %s, %s, %s, %s or %s",
		FormatAWS, FormatAzure, FormatGCP, FormatRunPod, FormatLambda)
	if format != "" {
		msg += "; this file is: " + string(format)
	} else if len(keys) > 0 {
		msg += fmt.Sprintf(" (top-level fields: %s)", describeKeys(keys))
	}
	return nil, &FileError{File: file, Msg: msg}
}

// sniff reads the start of a document up to its first distinctive
// top-level key and returns the format, the keys seen, and a reader that
// yields the whole document again. At most max_page_bytes are read ahead;
// a {"data": …} document (RunPod, Lambda) is read whole, within the same
// cap, to look inside data.
func sniff(file string, in io.Reader) (Format, []string, io.Reader, error) {
	var seen bytes.Buffer
	t := newTracker(io.TeeReader(newCapped(in, mustPolicy().MaxPageBytes, "the start of a price list (max_page_bytes)"), &seen))
	dec := json.NewDecoder(t)
	replay := func() io.Reader { return io.MultiReader(bytes.NewReader(seen.Bytes()), in) }
	fail := func(err error) (Format, []string, io.Reader, error) {
		return "", nil, nil, t.syntaxError(file, err, dec.InputOffset())
	}
	tok, err := dec.Token()
	if err != nil {
		return fail(err)
	}
	if tok == json.Delim('[') {
		if tok, err = dec.Token(); err != nil {
			return fail(err)
		}
	}
	if tok != json.Delim('{') {
		return "", nil, replay(), nil
	}
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return fail(err)
		}
		key := fmt.Sprint(k)
		keys = append(keys, key)
		switch key {
		case "offerCode", "products", "terms":
			return FormatAWS, keys, replay(), nil
		case "Items":
			return FormatAzure, keys, replay(), nil
		case "skus":
			return FormatGCP, keys, replay(), nil
		case "price_extract_version":
			return FormatExtract, keys, replay(), nil
		case "data":
			data, err := readDocument(file, replay(), mustPolicy().MaxPageBytes, "a RunPod or Lambda answer (max_page_bytes)")
			if err != nil {
				return "", nil, nil, err
			}
			return detectData(data), keys, bytes.NewReader(data), nil
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return fail(err)
		}
	}
	return detect(keys, nil), keys, replay(), nil
}
