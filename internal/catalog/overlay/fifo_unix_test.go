// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

//go:build unix

package overlay_test

import (
	"syscall"
	"testing"
)

// mkfifo makes a named pipe at path.
func mkfifo(tb testing.TB, path string) {
	tb.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		tb.Fatal(err)
	}
}
