// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

// Package perf is the benchmark model: for a workload on a fixed hardware
// choice it says whether the workload fits in accelerator memory, how fast
// it trains or serves and what binds it. It is pure Go (no terraform-plugin
// imports); every efficiency constant comes from
// internal/catalog/data/perf_model.json, whose fit to the calibration data
// is reported by `make accuracy` (docs/accuracy.md).
//
// The files follow the model:
//
//	workload.go   the one Workload type: defaults, validation, architecture
//	prepared.go   a workload validated and defaulted once (Model.Prepare)
//	params.go     the constants of perf_model.json
//	estimate.go   hardware normalisation, Estimate, memory-fit search
//	training.go   training and fine-tuning: layouts, memory, MFU, hours
//	inference.go  serving: replica layouts, decode steps, batches, latency
//
// ARCHITECTURE.md describes how a request reaches the model.
package perf
