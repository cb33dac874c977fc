// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestImportIDText: an import ID that is not UTF-8 is refused with where
// (Terraform's own client refuses it before the provider; another might
// not), and an ID quoted in a message is cut between characters, never
// inside one.
func TestImportIDText(t *testing.T) {
	_, _, _, err := splitImportID("aws:{\"metadata\":{\"name\":\"a\xffb\"}}")
	if err == nil || !strings.Contains(err.Error(), "not valid UTF-8 (an invalid byte at byte 26)") {
		t.Errorf("invalid UTF-8: %v", err)
	}
	long := strings.Repeat("é", 100) + ":x"
	_, _, _, err = splitImportID(long)
	if err == nil || !utf8.ValidString(err.Error()) || !strings.Contains(err.Error(), strings.Repeat("é", 60)+"…") {
		t.Errorf("a long ID of two-byte characters: %v", err)
	}
	if got := truncate("ab", 60); got != "ab" {
		t.Errorf("truncate of a short string = %q", got)
	}
}
