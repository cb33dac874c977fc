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
	m *perf.Model
	w perf.Workload
}

// NewPerfEstimator returns the Estimator of the benchmark model for a
// workload, and the planner's view of that workload.
func NewPerfEstimator(m *perf.Model, w perf.Workload) (Estimator, Workload) {
	w = w.WithDefaults()
	return &perfEstimator{m: m, w: w}, Workload{
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
	pe, err := e.m.Estimate(e.w, perf.Hardware{
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
	return e.m.MinGPUsToFit(e.w, acc, gpusPerNode)
}
