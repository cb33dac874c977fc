// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

//go:build unix

package safefile_test

import (
	"syscall"
	"testing"
)

// mkfifo makes a named pipe at path and returns path.
func mkfifo(t *testing.T, path string) string {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
