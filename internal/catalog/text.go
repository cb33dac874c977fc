// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package catalog

import (
	"fmt"
	"strconv"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// NameProblem says what is wrong with a name or identifier a user gives
// (a catalog file's IDs, names and aliases, a cluster spec's name), or ""
// when nothing is. A name shows in plan output and in the state, so it
// must read as it is: valid UTF-8, no control characters, no invisible
// format characters (bidirectional overrides such as U+202E reorder what a
// terminal shows, so "aws" could display as another name; zero-width
// spaces hide), no U+FFFD (what an invalid byte or escape was replaced
// with), and in Unicode normalization form C, so that "é" written as one
// character and as "e" plus a combining accent are one name, not two that
// look alike.
func NameProblem(s string) string {
	if !utf8.ValidString(s) {
		return "is not valid UTF-8"
	}
	for _, r := range s {
		switch {
		case r == utf8.RuneError:
			return "contains U+FFFD, the replacement character (an invalid byte or escape was read as it)"
		case unicode.IsControl(r):
			return fmt.Sprintf("contains the control character %s", runeName(r))
		case unicode.Is(unicode.Bidi_Control, r):
			return fmt.Sprintf("contains %s, a bidirectional control character: it changes the order in which a name is "+
				"displayed, so plan output could show another name than the one written", runeName(r))
		case unicode.Is(unicode.Cf, r):
			return fmt.Sprintf("contains %s, an invisible formatting character: two names would look the same", runeName(r))
		}
	}
	if !norm.NFC.IsNormalString(s) {
		return fmt.Sprintf("is not in Unicode normalization form C (NFC): write it as %s, with composed characters, so "+
			"that names that look the same are the same", strconv.QuoteToASCII(norm.NFC.String(s)))
	}
	return ""
}

// maxQuotedRunes is the most characters of a name a message quotes: enough
// for any real name (the longest catalog ID has 26), short enough that a
// 20,000-character mistake does not fill the screen once per diagnostic.
const maxQuotedRunes = 64

// QuoteName quotes a name a user gave, for a message: escaped as
// strconv.Quote does (control, bidirectional and invisible characters
// never reach the terminal as such), and past maxQuotedRunes characters
// cut, with the length said: "xxxx…" (20,000 characters).
func QuoteName(s string) string {
	n := 0
	for i := range s {
		if n == maxQuotedRunes {
			return fmt.Sprintf("%s (%d characters)", strconv.Quote(s[:i]+"…"), utf8.RuneCountInString(s))
		}
		n++
	}
	return strconv.Quote(s)
}

// runeName is a character's code point: "U+202E".
func runeName(r rune) string { return fmt.Sprintf("U+%04X", r) }
