// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

//go:build !unix

package overlay_test

import "testing"

// mkfifo: no named pipes here.
func mkfifo(tb testing.TB, _ string) {
	tb.Skip("no named pipes on this OS")
}
