// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

//go:build !unix

package pricelist

import "os"

// openReadFlags: no O_NONBLOCK here; the Stat before the open refuses a
// FIFO.
const openReadFlags = os.O_RDONLY
