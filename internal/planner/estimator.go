// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner

import (
	"errors"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// Hardware is one hardware choice the planner asks the benchmark model about.
type Hardware struct {
	Accelerator *catalog.Accelerator
	GPUsPerNode int
	Nodes       int
	NetworkGbps float64 // per node scale-out bandwidth
	Fabric      catalog.Fabric
}

// Estimate is the benchmark model's answer for one hardware choice.
type Estimate struct {
	// Fits is false when the workload does not fit in the GPUs' memory.
	Fits           bool
	MemoryPerGPUGB float64
	// Hours is the wall-clock of a training or fine-tuning job.
	Hours float64
	// TokensPerSecond: training, tokens processed/s; inference, the most
	// output tokens/s the hardware sustains within the latency limits.
	TokensPerSecond float64
	// Replicas is the number of model replicas the hardware holds (inference).
	Replicas int
	TTFTMs   float64
	TPOTMs   float64
	// MeetsLatency is false when no batch meets the latency limits (inference).
	MeetsLatency bool
	MFU          float64
	// Bound names the binding resource in a short phrase, e.g. "compute",
	// "HBM bandwidth", "interconnect", "scale-out network".
	Bound string
}

// Estimator answers the benchmark questions for one workload.
type Estimator interface {
	// Estimate estimates the workload on one hardware choice.
	Estimate(hw Hardware) (Estimate, error)
	// MinGPUs returns the fewest accelerators of this kind (with
	// gpusPerNode per node) whose memory holds the workload, or 0 when the
	// estimator cannot tell (the planner then probes with Estimate).
	MinGPUs(acc *catalog.Accelerator, gpusPerNode int) int
}

// RejectError is an estimator error that rejects the hardware for a
// documented reason (for example ReasonPrecisionUnsupported) rather than
// failing the recommendation.
type RejectError struct {
	Reason string
	Detail string
}

func (e *RejectError) Error() string { return e.Reason + ": " + e.Detail }

func rejectReason(err error) string {
	var re *RejectError
	if errors.As(err, &re) {
		return re.Reason
	}
	return ReasonEstimateFailed
}
