// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

// Package perf is the benchmark model: for a workload on a fixed hardware
// choice it estimates memory fit, training and fine-tuning time, and
// inference throughput and latency, from first principles with the fitted
// constants of internal/catalog/data/perf_model.json (provenance in
// SOURCES.md, measured accuracy in docs/guides/model-accuracy.md).
//
// A Workload is validated and given its defaults once by Model.Prepare;
// with Workload.Model the catalog's model preset fills the architecture
// (shape.go resolves it: parameters split into routed experts, attention
// and the rest; KV cache per token for GQA, MLA, sliding-window and
// linear-attention layers; attention FLOPs). The Prepared workload then
// estimates any number of hardware choices (the planner's Estimator).
//
// Training (training.go) searches tensor/pipeline/data-parallel layouts
// for the fastest step. Serving is split by what it computes:
//
//   - replica.go: replica layouts (TP inside the scale-up domain, which
//     may span nodes of an NVLink rack; pipeline stages beyond it; for a
//     mixture of experts, data-parallel attention with expert parallelism)
//     and their memory: weights, KV cache, batch capacity.
//   - step.go: one decode step (weight GEMMs, attention, communication,
//     per-layer overhead, each phase a roofline) and one prompt's prefill.
//   - speculative.go: speculative decoding and the p99 latency targets.
//   - serving.go: the aggregated search (the largest batch within the
//     latency limits, per layout) and the estimate on a given deployment.
//   - disagg.go: disaggregated prefill/decode splits.
//   - serving_result.go and curve.go: the Estimate, its explanation and
//     the throughput curve.
package perf
