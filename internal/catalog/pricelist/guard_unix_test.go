// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

//go:build unix

package pricelist_test

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog/pricelist"
)

// TestReadFileGuards: make overlay's inputs are regular files: a named
// pipe (which would block the read for ever), /dev/zero (which never
// ends) and a directory are refused at once, naming what they are, with
// every reader.
func TestReadFileGuards(t *testing.T) {
	c := builtin(t)
	fifo := filepath.Join(t.TempDir(), "prices.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{fifo, "is a named pipe (FIFO), not a regular file"},
		{"/dev/zero", "is a character device, not a regular file"},
		{t.TempDir(), "is a directory, not a regular file"},
	} {
		for _, read := range []pricelist.Reader{pricelist.ReadAWS, pricelist.ReadAzure, pricelist.ReadGCP, pricelist.Read} {
			start := time.Now()
			_, err := pricelist.ReadFile(tc.path, read, c)
			if err == nil || !strings.Contains(err.Error(), tc.want) || time.Since(start) > 5*time.Second {
				t.Errorf("%s: err = %v after %s, want %q at once", tc.path, err, time.Since(start), tc.want)
			}
		}
		if _, err := pricelist.ReadAll(tc.path, c); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ReadAll %s: err = %v", tc.path, err)
		}
	}
}
