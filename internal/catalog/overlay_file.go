// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package catalog

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// MaxOverlayBytes is the largest catalog file read: 64 MiB, a thousand
// times a large real overlay (50,000 offers take about 15 MB of YAML).
const MaxOverlayBytes = 64 << 20

// readCatalogFile reads a user catalog file defensively: only a regular
// file (a FIFO would block the read for ever, a device such as /dev/zero
// never ends, a directory is a mistake), checked before it is opened and
// again on the open file, and at most MaxOverlayBytes, read through a limit.
func readCatalogFile(path string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, errors.New("no such file (a relative path is resolved against the directory Terraform runs in, the root module)")
		}
		return nil, fmt.Errorf("cannot read the file: %w", unwrapPathError(err))
	}
	if err := checkRegular(st); err != nil {
		return nil, err
	}
	// O_NONBLOCK (where the OS has it): should the path have become a FIFO
	// since the Stat, opening it returns at once instead of blocking.
	f, err := os.OpenFile(path, openReadFlags, 0)
	if err != nil {
		return nil, fmt.Errorf("cannot open the file: %w", unwrapPathError(err))
	}
	defer f.Close()
	if st, err = f.Stat(); err != nil {
		return nil, fmt.Errorf("cannot read the file: %w", unwrapPathError(err))
	}
	if err := checkRegular(st); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxOverlayBytes+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read the file: %w", unwrapPathError(err))
	}
	if len(data) > MaxOverlayBytes {
		return nil, tooLarge()
	}
	return data, nil
}

func checkRegular(st fs.FileInfo) error {
	m := st.Mode()
	if m.IsRegular() {
		if st.Size() > MaxOverlayBytes {
			return tooLarge()
		}
		return nil
	}
	what := "not a regular file"
	switch {
	case m.IsDir():
		what = "a directory"
	case m&fs.ModeNamedPipe != 0:
		what = "a named pipe (FIFO)"
	case m&fs.ModeCharDevice != 0:
		what = "a character device"
	case m&fs.ModeDevice != 0:
		what = "a device"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	}
	return fmt.Errorf("is %s, not a regular file: catalog_file must name a .json, .yaml or .yml file", what)
}

func tooLarge() error {
	return fmt.Errorf("is larger than %d MB, the most a catalog file may hold", MaxOverlayBytes>>20)
}

// unwrapPathError drops the path from an *fs.PathError: the caller names
// the file once, with its absolute path.
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
