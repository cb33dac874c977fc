// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner

import (
	"errors"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
)

// Estimator answers the benchmark questions for one workload.
// *perf.Prepared implements it; tests use fakes where physics is not the
// point.
type Estimator interface {
	// Workload is the workload, validated and with its defaults applied.
	Workload() perf.Workload
	// EstimateBrief estimates the workload on one hardware choice; the
	// planner shows none of the model's sentences, so Explanation may be
	// left empty.
	EstimateBrief(h perf.Hardware) (perf.Estimate, error)
	// MinGPUsToFit returns the fewest accelerators of this kind (with
	// gpusPerNode per node) whose memory holds the workload, or 0 when it
	// cannot tell (the planner then probes with EstimateBrief).
	MinGPUsToFit(acc *catalog.Accelerator, gpusPerNode int) int
	// ServingCeiling bounds the output tokens/s one accelerator of this
	// kind serves under any layout on any number of GPUs (inference;
	// +Inf when it cannot tell): the planner searches larger serving units
	// only where the bound leaves room to win.
	ServingCeiling(acc *catalog.Accelerator) float64
}

var _ Estimator = (*perf.Prepared)(nil)

// rejectReason is the rejection reason of an estimator error: the
// precision the accelerator cannot run, or a failed estimate.
func rejectReason(err error) string {
	if _, ok := errors.AsType[*perf.PrecisionError](err); ok {
		return ReasonPrecisionUnsupported
	}
	return ReasonEstimateFailed
}
