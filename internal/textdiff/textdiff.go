// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

// Package textdiff shows where two texts first differ, for the golden-file
// tests of the pure packages.
package textdiff

import (
	"fmt"
	"strings"
)

// First returns the first differing line of got and want, numbered from
// 1 ("line 3:\n got: …\nwant: …"), or "" when the texts are equal. A
// missing line compares as empty.
func First(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d:\n got: %s\nwant: %s", i+1, gl, wl)
		}
	}
	return ""
}
