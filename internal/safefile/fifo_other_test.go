// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

//go:build !unix

package safefile_test

import "testing"

// mkfifo: no named pipes here; the path stays missing and the case skips.
func mkfifo(_ *testing.T, path string) string { return path }
