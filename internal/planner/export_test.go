// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner

// Exhaustive makes a request bill every candidate (no pruning) and keep
// every trade-off candidate (no streamed rows).
func Exhaustive(r *Request) { r.exhaustive = true }
