// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package safefile_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpuplan/terraform-provider-gpu/internal/safefile"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.yaml")
	if err := os.WriteFile(small, []byte("offers: []\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if data, err := safefile.ReadFile(small, 100); err != nil || string(data) != "offers: []\n" {
		t.Fatalf("regular file: %q, %v", data, err)
	}
	if _, err := safefile.ReadFile(small, 5); !errors.As(err, new(*safefile.TooLargeError)) {
		t.Errorf("over the limit: %v", err)
	}
	// Through a symbolic link: the file it names is what counts.
	link := filepath.Join(dir, "link.yaml")
	if err := os.Symlink(small, link); err == nil {
		if _, err := safefile.ReadFile(link, 100); err != nil {
			t.Errorf("symlink to a regular file: %v", err)
		}
	}
	for _, tc := range []struct {
		name, path string
		want       error
		msg        string
	}{
		{"missing", filepath.Join(dir, "missing.yaml"), safefile.ErrNotExist, "no such file"},
		{"directory", dir, safefile.ErrNotRegular, "is a directory, not a regular file"},
		{"device", os.DevNull, safefile.ErrNotRegular, "is a character device, not a regular file"},
		{"endless device", "/dev/zero", safefile.ErrNotRegular, "is a character device, not a regular file"},
		{"fifo", mkfifo(t, filepath.Join(dir, "pipe.yaml")), safefile.ErrNotRegular, "is a named pipe (FIFO), not a regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := os.Lstat(tc.path); err != nil && tc.want != safefile.ErrNotExist {
				t.Skipf("%s: not on this OS", tc.path)
			}
			done := make(chan error, 1)
			go func() {
				_, err := safefile.ReadFile(tc.path, 1<<20)
				done <- err
			}()
			select {
			case err := <-done:
				if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.msg) || strings.Contains(err.Error(), tc.path) {
					t.Errorf("err = %v, want %q (wrapping %v) without the path", err, tc.msg, tc.want)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("blocked")
			}
		})
	}
}
