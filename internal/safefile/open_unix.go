// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

//go:build unix

package safefile

import (
	"os"
	"syscall"
)

// openReadFlags opens without blocking on a FIFO.
const openReadFlags = os.O_RDONLY | syscall.O_NONBLOCK
