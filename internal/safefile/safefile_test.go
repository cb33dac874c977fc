// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package safefile_test

import (
	"errors"
	"io"
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

// TestOpen: the streaming variant keeps ReadFile's checks and fails past
// the limit with a TooLargeError; a file of exactly the limit reads whole.
func TestOpen(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ec2.json")
	if err := os.WriteFile(path, []byte("0123456789"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		limit   int64
		content string
	}{{10, "0123456789"}, {100, "0123456789"}} {
		f, err := safefile.Open(path, tc.limit)
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(f)
		_ = f.Close()
		if err != nil || string(data) != tc.content {
			t.Errorf("limit %d: %q, %v", tc.limit, data, err)
		}
	}
	if _, err := safefile.Open(path, 5); !errors.As(err, new(*safefile.TooLargeError)) {
		t.Errorf("a file larger than the limit opened: %v", err)
	}
	for _, p := range []string{dir, "/dev/zero", mkfifo(t, filepath.Join(dir, "pipe.json"))} {
		if _, err := os.Lstat(p); err != nil {
			continue // not on this OS
		}
		if f, err := safefile.Open(p, 1<<20); !errors.Is(err, safefile.ErrNotRegular) {
			t.Errorf("%s: %v", p, err)
			if f != nil {
				_ = f.Close()
			}
		}
	}
}
