// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package pricelist

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// FileError is a problem with a price-list file, naming the file and, for
// malformed content, the position (1-based line and column).
type FileError struct {
	File   string
	Line   int // 0 when the error has no position
	Column int
	Msg    string
}

func (e *FileError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Msg)
	}
	return e.File + ": " + e.Msg
}

// position converts a byte offset of data into a 1-based line and column.
func position(data []byte, offset int64) (int, int) {
	if offset > int64(len(data)) {
		offset = int64(len(data))
	}
	prefix := data[:offset]
	line := bytes.Count(prefix, []byte{'\n'}) + 1
	col := int(offset) - (bytes.LastIndexByte(prefix, '\n') + 1) + 1
	return line, col
}

// syntaxError turns a decoding error into a FileError with the position in
// data; offset is where the decoder stood.
func syntaxError(file string, data []byte, err error, offset int64) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		l, c := position(data, offending(data, se))
		return &FileError{File: file, Line: l, Column: c, Msg: "malformed JSON: " + se.Error()}
	case errors.As(err, &te):
		l, c := position(data, te.Offset)
		field := te.Field
		if field == "" {
			field = "value"
		}
		return &FileError{File: file, Line: l, Column: c, Msg: fmt.Sprintf("field %q: a JSON %s where %s is expected", field, te.Value, te.Type)}
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		l, c := position(data, int64(len(data)))
		return &FileError{File: file, Line: l, Column: c, Msg: "the file ends in the middle of the JSON document (truncated download?)"}
	}
	l, c := position(data, offset)
	return &FileError{File: file, Line: l, Column: c, Msg: err.Error()}
}

// offending returns the offset of the character a syntax error complains
// about: the decoder's offset is at or just past it.
func offending(data []byte, se *json.SyntaxError) int64 {
	m := invalidChar.FindStringSubmatch(se.Error())
	if m == nil || se.Offset <= 0 {
		return se.Offset
	}
	ch, err := strconv.Unquote("'" + m[1] + "'")
	if err != nil {
		return se.Offset
	}
	end := min(se.Offset, int64(len(data)-1))
	if i := bytes.LastIndex(data[:end+1], []byte(ch)); i >= 0 && int64(i) >= se.Offset-1 {
		return int64(i)
	}
	return se.Offset
}

// invalidChar extracts the character of "invalid character 'x' …".
var invalidChar = regexp.MustCompile(`^invalid character '(.+?)' `)

// topKeys returns the keys of the top-level JSON object of data (of its
// first element when data is an array), for format detection; a malformed
// or truncated document is an error naming the position.
func topKeys(file string, data []byte) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	fail := func(err error) ([]string, error) { return nil, syntaxError(file, data, err, dec.InputOffset()) }
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
		return nil, nil
	}
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return fail(err)
		}
		keys = append(keys, fmt.Sprint(k))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return fail(err)
		}
	}
	if _, err := dec.Token(); err != nil {
		return fail(err)
	}
	sort.Strings(keys)
	return keys, nil
}

// checkFormat returns an error unless data is a well-formed document of
// the wanted format (judged by its top-level fields).
func checkFormat(file string, want Format, data []byte) error {
	keys, err := topKeys(file, data)
	if err != nil {
		return err
	}
	if got := detect(keys); got != want {
		msg := fmt.Sprintf("expected the format %s", want)
		switch {
		case got != "":
			msg += fmt.Sprintf("; this file looks like: %s", got)
		case len(keys) > 0:
			msg += fmt.Sprintf(" (top-level fields: %s)", strings.Join(keys, ", "))
		default:
			msg += " (not a JSON object)"
		}
		return &FileError{File: file, Msg: msg}
	}
	return nil
}

// detect names the format whose top-level keys data has, or "".
func detect(keys []string) Format {
	has := func(k string) bool {
		for _, x := range keys {
			if x == k {
				return true
			}
		}
		return false
	}
	switch {
	case has("products") && has("terms"):
		return FormatAWS
	case has("Items"):
		return FormatAzure
	case has("skus"):
		return FormatGCP
	}
	return ""
}

// pages decodes data, a JSON object or an array of such objects (one per
// API page), into a slice of pages.
func pages[P any](file string, data []byte) ([]P, error) {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var ps []P
		if err := decodeAll(file, data, &ps); err != nil {
			return nil, err
		}
		return ps, nil
	}
	var p P
	if err := decodeAll(file, data, &p); err != nil {
		return nil, err
	}
	return []P{p}, nil
}

// decodeAll decodes one JSON value and rejects trailing data; errors name
// the file and position.
func decodeAll(file string, data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return syntaxError(file, data, err, dec.InputOffset())
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		l, c := position(data, dec.InputOffset())
		return &FileError{File: file, Line: l, Column: c, Msg: "trailing data after the JSON document"}
	}
	return nil
}
