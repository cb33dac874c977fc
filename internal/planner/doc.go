// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

// Package planner recommends GPU infrastructure for a workload: every
// catalog offer × node count × pricing model is checked against the user's
// constraints and against physics (memory fit, a scale-out fabric where a
// job spans nodes, the inference throughput and latency targets), priced,
// scored by an objective, ranked and explained. It is pure Go: no
// terraform-plugin imports.
//
// A request goes through the phases in the order of the files:
//
//	compile.go      validate the request, compile the constraints into filters
//	physics.go      per hardware shape: the node counts that hold the workload
//	price.go        per (offer, node count, pricing model): cost, hours, CO2e
//	evaluate.go     offer-level filters, then numeric limits; rejections counted
//	rank.go         score by the objective, keep the top N in tie-break order
//	explain.go      one sentence per candidate
//	nocandidate.go  when nothing survives: the binding constraint, nearest miss
//
// The offers are the catalog's instances and its serverless offers (one
// worker each, pricing model serverless, inference only): a serverless
// worker is a node of fabric none, billed by the cost model for the
// workload's duty cycle, while instances are billed around the clock.
//
// The benchmark model is reached through the Estimator interface, which
// *perf.Prepared implements; tests use a fake where physics is not the
// point. See ARCHITECTURE.md for the path of a request from HCL to answer.
package planner
