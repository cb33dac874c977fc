// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

//go:build !unix

package safefile

import "os"

// openReadFlags: a plain read-only open where O_NONBLOCK does not exist;
// the Stat before the open refuses FIFOs and devices.
const openReadFlags = os.O_RDONLY
