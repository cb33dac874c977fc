// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

// Package safefile reads a file a user names (a catalog_file, a price list)
// defensively: only a regular file, refused at once when it is a FIFO (a
// read would block for ever), a device such as /dev/zero (it never ends),
// a directory or a socket, and at most a given size, read through a limit.
// Its errors leave the path out: the caller names the file once.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ErrNotRegular is wrapped by the error about a path that is not a
// regular file (a directory, a FIFO, a device, a socket).
var ErrNotRegular = errors.New("not a regular file")

// ErrNotExist is wrapped by the error about a path that does not exist.
var ErrNotExist = fs.ErrNotExist

// TooLargeError is the error about a file larger than the limit.
type TooLargeError struct{ Max int64 }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("is larger than %d MB, the most it may hold", e.Max>>20)
}

// ReadFile returns the content of the regular file at path, at most limit
// bytes. The file is checked before it is opened (a FIFO would block the
// open) and again once open, opened with O_NONBLOCK where the OS has it,
// and read through a limit of limit+1 bytes, so neither a file that grows
// nor a device is read past the limit.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := open(path, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read the file: %w", unwrapPathError(err))
	}
	if int64(len(data)) > limit {
		return nil, &TooLargeError{Max: limit}
	}
	return data, nil
}

// Open opens the regular file at path for a reader that streams it (an
// AWS price list of gigabytes), with ReadFile's checks; reading past limit
// bytes fails with a *TooLargeError.
func Open(path string, limit int64) (io.ReadCloser, error) {
	f, err := open(path, limit)
	if err != nil {
		return nil, err
	}
	return &limited{f: f, left: limit, limit: limit}, nil
}

// open checks path before it is opened (a FIFO would block the open) and
// again once open, and opens it with O_NONBLOCK where the OS has it.
func open(path string, limit int64) (*os.File, error) {
	st, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("no such file: %w", ErrNotExist)
		}
		return nil, fmt.Errorf("cannot read the file: %w", unwrapPathError(err))
	}
	if err := checkRegular(st, limit); err != nil {
		return nil, err
	}
	// O_NONBLOCK (where the OS has it): should the path have become a FIFO
	// since the Stat, opening it returns at once instead of blocking.
	f, err := os.OpenFile(path, openReadFlags, 0)
	if err != nil {
		return nil, fmt.Errorf("cannot open the file: %w", unwrapPathError(err))
	}
	if st, err = f.Stat(); err == nil {
		err = checkRegular(st, limit)
	} else {
		err = fmt.Errorf("cannot read the file: %w", unwrapPathError(err))
	}
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	return f, nil
}

// limited reads a file up to its limit, then fails with a TooLargeError
// if there is more.
type limited struct {
	f     *os.File
	left  int64
	limit int64
}

func (l *limited) Read(p []byte) (int, error) {
	if l.left <= 0 {
		var one [1]byte
		if n, _ := l.f.Read(one[:]); n > 0 {
			return 0, &TooLargeError{Max: l.limit}
		}
		return 0, io.EOF
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.f.Read(p)
	l.left -= int64(n)
	if err != nil && !errors.Is(err, io.EOF) {
		err = fmt.Errorf("cannot read the file: %w", unwrapPathError(err))
	}
	return n, err
}

func (l *limited) Close() error { return l.f.Close() }

func checkRegular(st fs.FileInfo, limit int64) error {
	m := st.Mode()
	if m.IsRegular() {
		if st.Size() > limit {
			return &TooLargeError{Max: limit}
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
	return fmt.Errorf("is %s, %w", what, ErrNotRegular)
}

// unwrapPathError drops the path from an *fs.PathError: the caller names
// the file once.
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
