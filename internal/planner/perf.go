// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner

import (
	"errors"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
)

// perfEstimator binds the benchmark model of internal/perf to one workload.
type perfEstimator struct {
	p *perf.Prepared
	w perf.Workload // with defaults
}

// NewPerfEstimator returns the Estimator of the benchmark model for a
// workload, and the planner's view of that workload.
func NewPerfEstimator(m *perf.Model, w perf.Workload) (Estimator, Workload) {
	p := m.Prepare(w)
	w = p.Workload()
	return &perfEstimator{p: p, w: w}, Workload{
		Kind: w.Kind, TokensPerSecond: w.TokensPerSecond, TrainingTokensB: w.TrainingTokensB, ModelParametersB: w.ModelParamsB,
	}
}

// boundPhrase turns the model's binding resource into explanation words.
var boundPhrase = map[string]string{
	perf.BindCompute:   "compute",
	perf.BindHBM:       "HBM bandwidth",
	perf.BindNetwork:   "the scale-out network",
	perf.BindMemory:    "memory capacity",
	perf.BindLatency:   "the latency limits",
	perf.BindKVCapcity: "KV-cache memory",
}

func (e *perfEstimator) Estimate(hw Hardware) (Estimate, error) {
	// The planner shows none of the model's sentences: the brief path
	// skips building them (every other field is the same as Estimate's).
	pe, err := e.p.EstimateBrief(perf.Hardware{
		Accelerator: hw.Accelerator, GPUs: hw.Nodes * hw.GPUsPerNode, GPUsPerNode: hw.GPUsPerNode,
		NetworkGbps: hw.NetworkGbps, Fabric: hw.Fabric,
	})
	if err != nil {
		var pErr *perf.PrecisionError
		if errors.As(err, &pErr) {
			return Estimate{}, &RejectError{Reason: ReasonPrecisionUnsupported, Detail: err.Error()}
		}
		return Estimate{}, err
	}
	bound := boundPhrase[pe.Binding]
	if bound == "" {
		bound = pe.Binding
	}
	if e.w.Kind == perf.KindInference && pe.Binding == perf.BindNetwork {
		bound = "tensor-parallel communication"
	}
	return Estimate{
		Fits:            pe.Fits,
		MemoryPerGPUGB:  pe.MemoryPerGPUGB,
		Hours:           pe.Hours,
		TokensPerSecond: pe.TokensPerSecond,
		Replicas:        pe.Replicas,
		TTFTMs:          pe.TTFTMs,
		TPOTMs:          pe.TPOTMs,
		MeetsLatency:    pe.TokensPerSecond > 0,
		MFU:             pe.MFU,
		Bound:           bound,
	}, nil
}

func (e *perfEstimator) MinGPUs(acc *catalog.Accelerator, gpusPerNode int) int {
	return e.p.MinGPUsToFit(acc, gpusPerNode)
}
