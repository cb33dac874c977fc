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

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// FileError is a problem with a price-list file, naming the file and, for
// malformed content, the position (1-based line and column).
type FileError struct {
	File   string
	Line   int // 0 when the error has no position
	Column int
	Msg    string
	// Err is the reader's error behind Msg when reading the stream failed
	// (a broken download), for errors.As; nil for a problem of the content.
	Err error
}

// Unwrap returns the stream's error behind a FileError, if any.
func (e *FileError) Unwrap() error { return e.Err }

func (e *FileError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Msg)
	}
	return e.File + ": " + e.Msg
}

// trackWindow is how many of the latest bytes of a stream a tracker keeps
// to place an error: a JSON decoder stands at most one value (an AWS
// product or term, an API page item) past the bytes it complains about.
const trackWindow = 1 << 20

// tracker reads a stream for a JSON decoder and counts its lines, keeping
// only the latest bytes, so an error near the decoder's offset gets a line
// and column without the whole stream in memory.
type tracker struct {
	r           io.Reader
	n           int64 // bytes read so far
	winStart    int64 // offset of win[0]
	linesBefore int   // newlines before winStart
	lastNL      int64 // offset of the last newline before winStart, or -1
	win         []byte
}

func newTracker(r io.Reader) *tracker { return &tracker{r: r, lastNL: -1} }

func (t *tracker) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	t.win = append(t.win, p[:n]...)
	t.n += int64(n)
	if len(t.win) > 2*trackWindow {
		cut := len(t.win) - trackWindow
		dropped := t.win[:cut]
		t.linesBefore += bytes.Count(dropped, []byte{'\n'})
		if i := bytes.LastIndexByte(dropped, '\n'); i >= 0 {
			t.lastNL = t.winStart + int64(i)
		}
		t.win = append(t.win[:0], t.win[cut:]...)
		t.winStart += int64(cut)
	}
	return n, err
}

// position converts a byte offset into a 1-based line and column; 0, 0
// when the offset is before the kept window.
func (t *tracker) position(offset int64) (int, int) {
	offset = min(offset, t.n)
	if offset < t.winStart {
		return 0, 0
	}
	prefix := t.win[:offset-t.winStart]
	line := t.linesBefore + bytes.Count(prefix, []byte{'\n'}) + 1
	lineStart := t.lastNL + 1
	if i := bytes.LastIndexByte(prefix, '\n'); i >= 0 {
		lineStart = t.winStart + int64(i) + 1
	}
	return line, int(offset-lineStart) + 1
}

// fileError is a FileError at offset.
func (t *tracker) fileError(file string, offset int64, msg string) *FileError {
	l, c := t.position(offset)
	return &FileError{File: file, Line: l, Column: c, Msg: msg}
}

// syntaxError turns a decoding error into a FileError with the position in
// the stream; offset is where the decoder stood.
func (t *tracker) syntaxError(file string, err error, offset int64) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	var le *tooLargeError
	switch {
	case errors.As(err, &le):
		return &FileError{File: file, Msg: le.Error()}
	case errors.As(err, &se):
		return t.fileError(file, t.offending(se), "malformed JSON: "+se.Error())
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			field = "value"
		}
		// te.Value holds the whole literal ("number 4444…"): a message
		// quotes a short excerpt of the file, never a 3,000-digit number.
		return t.fileError(file, te.Offset, fmt.Sprintf("field %s: a JSON %s where %s is expected",
			catalog.QuoteName(field), clipValue(te.Value), te.Type))
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return t.fileError(file, t.n, "the file ends in the middle of the JSON document (truncated download?)")
	}
	fe := t.fileError(file, offset, err.Error())
	fe.Err = err
	return fe
}

// maxKeysShown is how many of a document's top-level fields a message
// names.
const maxKeysShown = 10

// describeKeys names a document's top-level fields for a message: plain
// when they are plain names, else quoted and cut (catalog.QuoteName), at
// most maxKeysShown of them and a count of the others; a downloaded file's
// field names are not echoed whole.
func describeKeys(keys []string) string {
	shown := make([]string, 0, min(len(keys), maxKeysShown+1))
	for i, k := range keys {
		if i == maxKeysShown {
			shown = append(shown, fmt.Sprintf("and %d more", len(keys)-i))
			break
		}
		if q := catalog.QuoteName(k); plainKey.MatchString(k) && len(q) == len(k)+2 {
			shown = append(shown, k)
		} else {
			shown = append(shown, q)
		}
	}
	return strings.Join(shown, ", ")
}

// plainKey is a field name shown without quotes.
var plainKey = regexp.MustCompile(`^[A-Za-z0-9_.$-]+$`)

// quoteClip quotes text of a downloaded file for a message, cut to a
// short excerpt (catalog.QuoteName).
func quoteClip(s string) string { return catalog.QuoteName(s) }

// clipValue cuts what encoding/json says of a value ("number 1234…",
// "string") to its first maxValueRunes characters.
func clipValue(v string) string {
	const maxValueRunes = 48
	n := 0
	for i := range v {
		if n == maxValueRunes {
			return v[:i] + "…"
		}
		n++
	}
	return v
}

// offending returns the offset of the character a syntax error complains
// about: the decoder's offset is at or just past it.
func (t *tracker) offending(se *json.SyntaxError) int64 {
	m := invalidChar.FindStringSubmatch(se.Error())
	if m == nil || se.Offset <= t.winStart {
		return se.Offset
	}
	ch, err := strconv.Unquote("'" + m[1] + "'")
	if err != nil {
		return se.Offset
	}
	end := min(se.Offset, t.n-1) - t.winStart
	if i := bytes.LastIndex(t.win[:end+1], []byte(ch)); i >= 0 && t.winStart+int64(i) >= se.Offset-1 {
		return t.winStart + int64(i)
	}
	return se.Offset
}

// invalidChar extracts the character of "invalid character 'x' …".
var invalidChar = regexp.MustCompile(`^invalid character '(.+?)' `)

// tooLargeError is a document over its size cap.
type tooLargeError struct {
	limit int64
	what  string
}

func (e *tooLargeError) Error() string {
	return fmt.Sprintf("larger than %d bytes, the cap on %s (refresh.json): not a price list of the expected kind, or a download that never ends", e.limit, e.what)
}

// capped reads at most limit bytes of r, then fails with a tooLargeError.
type capped struct {
	r     io.Reader
	left  int64
	limit int64
	what  string
}

func newCapped(r io.Reader, limit int64, what string) *capped {
	return &capped{r: r, left: limit, limit: limit, what: what}
}

func (c *capped) Read(p []byte) (int, error) {
	if c.left <= 0 {
		// One byte more than the cap decides between "exactly the cap"
		// and "over it".
		var one [1]byte
		if n, _ := c.r.Read(one[:]); n > 0 {
			return 0, &tooLargeError{limit: c.limit, what: c.what}
		}
		return 0, io.EOF
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// readDocument reads a whole document of at most limit bytes.
func readDocument(file string, r io.Reader, limit int64, what string) ([]byte, error) {
	data, err := io.ReadAll(newCapped(r, limit, what))
	if err != nil {
		var le *tooLargeError
		if errors.As(err, &le) {
			return nil, &FileError{File: file, Msg: le.Error()}
		}
		return nil, &FileError{File: file, Msg: "cannot read: " + err.Error(), Err: err}
	}
	return data, nil
}

// topKeys returns the keys of the top-level JSON object of data (of its
// first element when data is an array), for format detection; a malformed
// or truncated document is an error naming the position.
func topKeys(file string, data []byte) ([]string, error) {
	t := newTracker(bytes.NewReader(data))
	dec := json.NewDecoder(t)
	fail := func(err error) ([]string, error) { return nil, t.syntaxError(file, err, dec.InputOffset()) }
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
	return formatError(file, want, keys, data)
}

// formatError reports a document whose top-level keys are not those of
// want; nil when they are.
func formatError(file string, want Format, keys []string, data []byte) error {
	got := detect(keys, data)
	if got == want {
		return nil
	}
	msg := fmt.Sprintf("expected the format %s", want)
	switch {
	case got != "":
		msg += fmt.Sprintf("; this file looks like: %s", got)
	case len(keys) > 0:
		msg += fmt.Sprintf(" (top-level fields: %s; has the API's format changed?)", describeKeys(keys))
	default:
		msg += " (not a JSON object)"
	}
	return &FileError{File: file, Msg: msg}
}

// detect names the format whose top-level keys a document has, or "".
// A GraphQL-style {"data": …} document is RunPod's or Lambda's, told apart
// by what data holds (data may be nil when only the keys are known).
func detect(keys []string, data []byte) Format {
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
	case has("regions") && has("publicationDate") && !has("products"):
		return FormatAWSRegionIndex
	case has("Items"):
		return FormatAzure
	case has("skus"):
		return FormatGCP
	case has("data") && data != nil:
		return detectData(data)
	}
	return ""
}

// detectData tells RunPod's gpuTypes answer from Lambda's instance types.
func detectData(data []byte) Format {
	var doc struct {
		Data json.RawMessage `json:"data"`
	}
	if json.Unmarshal(data, &doc) != nil {
		return ""
	}
	var gql struct {
		GPUTypes json.RawMessage `json:"gpuTypes"`
	}
	if json.Unmarshal(doc.Data, &gql) == nil && gql.GPUTypes != nil {
		return FormatRunPod
	}
	var lambda map[string]struct {
		InstanceType *json.RawMessage `json:"instance_type"`
	}
	if json.Unmarshal(doc.Data, &lambda) == nil {
		for _, v := range lambda {
			if v.InstanceType != nil {
				return FormatLambda
			}
		}
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
	t := newTracker(bytes.NewReader(data))
	dec := json.NewDecoder(t)
	if err := dec.Decode(v); err != nil {
		return t.syntaxError(file, err, dec.InputOffset())
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return t.fileError(file, dec.InputOffset(), "trailing data after the JSON document")
	}
	return nil
}
