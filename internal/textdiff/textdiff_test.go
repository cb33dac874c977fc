// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package textdiff

import "testing"

func TestFirst(t *testing.T) {
	for _, c := range []struct{ got, want, diff string }{
		{"a\nb", "a\nb", ""},
		{"a\nb", "a\nc", "line 2:\n got: b\nwant: c"},
		{"a", "a\nc", "line 2:\n got: \nwant: c"},
		{"x\nb", "a\nc", "line 1:\n got: x\nwant: a"},
	} {
		if d := First(c.got, c.want); d != c.diff {
			t.Errorf("First(%q, %q) = %q, want %q", c.got, c.want, d, c.diff)
		}
	}
}
