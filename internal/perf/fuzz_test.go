// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package perf_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/fuzzutil"
	"github.com/gpuplan/terraform-provider-gpu/internal/inputerr"
	"github.com/gpuplan/terraform-provider-gpu/internal/numfmt"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
)

// estimateInput is one fuzzed gpu_estimate: a workload and the hardware,
// every number as the user (or a caller of the package) could give it.
type estimateInput struct {
	accelID                                string // seeds only: the accelerator by ID
	kind, model, method, accel             uint8
	params, active, tokens, tps, ttft, tpt float64
	seq, input, output                     int64
	layers, hidden, kv, draftTokens        int64
	acceptance, draftParams, network       float64
	gpus, gpusPerNode                      int64
}

// estimateSeeds are the examples' and tests' workloads, and the numbers
// that broke the model before (0, negatives, NaN, ±Inf, 1e308, 2^62).
func estimateSeeds() []estimateInput {
	nan, inf := math.NaN(), math.Inf(1)
	return []estimateInput{
		// examples/estimate: Llama 3 70B pre-training on 2,048 A100s.
		{kind: 0, accelID: "A100-80GB", params: 70, tokens: 2000, gpus: 2048},
		// Fine-tuning with QLoRA on one node; inference of a 70B model.
		{kind: 1, accelID: "H100", params: 70, tokens: 1, method: 3, gpus: 8, gpusPerNode: 8},
		{kind: 2, accelID: "H100", params: 70, tps: 5000, ttft: 2000, tpt: 50, input: 1024, output: 256, gpus: 8},
		// Presets with speculative decoding, one on a rack-scale domain.
		{kind: 2, model: 1, accelID: "GB200", tps: 20000, method: 1, acceptance: 0.7, draftTokens: 3, gpus: 72, gpusPerNode: 72},
		{kind: 2, model: 2, accelID: "B200", tps: 1000, method: 2, draftParams: 1, gpus: 16, network: 3200},
		// Architecture overrides that gave nonsense before the limits.
		{kind: 2, accelID: "H100", params: 70, tps: 100, layers: 3037000500, kv: 3037000500, hidden: 8192, gpus: 8},
		{kind: 0, accelID: "H100", params: 70, tokens: 10, seq: math.MaxInt64, gpus: 8},
		// The extremes.
		{kind: 0, accelID: "H100", params: 1e308, tokens: 1e308, gpus: 1 << 62, gpusPerNode: 1 << 62},
		{kind: 0, accelID: "H100", params: 7, tokens: 100, gpus: 1 << 40, network: 1e308},
		{kind: 0, accelID: "MI300X", params: 7, tokens: 100, gpus: 1 << 62, gpusPerNode: 8},
		{kind: 2, accelID: "H200", params: nan, tps: inf, ttft: -inf, tpt: nan, gpus: 8},
		{kind: 1, accelID: "L4", params: -1, active: -inf, tokens: 0, gpus: 0, gpusPerNode: -1, network: -1},
		{kind: 2, accelID: "A100-80GB", params: 5e-324, tps: 5e-324, input: 1 << 62, output: 1 << 62, gpus: 3, gpusPerNode: 2},
		{kind: 2, accelID: "H100", params: 1e5, tps: 1e9, ttft: 1e-300, tpt: 3.6e6, gpus: 1000000, gpusPerNode: 65536},
		{kind: 3, accelID: "H100", params: 1e5, tokens: 1e7, gpus: 1000000, gpusPerNode: 65536},
	}
}

// accelIndex is the position of the accelerator id in the catalog (0
// when it is not there).
func accelIndex(cat *catalog.Catalog, id string) uint8 {
	for i, a := range cat.Accelerators {
		if a.ID == id {
			return uint8(i % 256)
		}
	}
	return 0
}

// FuzzEstimate (make fuzz): whatever the workload and hardware numbers,
// preparing and estimating the workload answers within seconds, never
// panics, and a workload at fault is input errors naming the attribute.
// Within the input limits the provider enforces (catalog.InputLimit; its
// schema refuses the rest), every number of the estimate is finite.
func FuzzEstimate(f *testing.F) {
	cat, err := catalog.Builtin()
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range estimateSeeds() {
		f.Add(s.kind, s.model, s.method, accelIndex(cat, s.accelID), s.params, s.active, s.tokens, s.tps, s.ttft, s.tpt, s.seq, s.input,
			s.output, s.layers, s.hidden, s.kv, s.draftTokens, s.acceptance, s.draftParams, s.network, s.gpus, s.gpusPerNode)
	}
	presets, err := catalog.BuiltinModelPresets()
	if err != nil {
		f.Fatal(err)
	}
	model, err := perf.Builtin()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, kind, preset, method, accel uint8, params, active, tokens, tps, ttft, tpt float64,
		seq, input, output, layers, hidden, kv, draftTokens int64, acceptance, draftParams, network float64, gpus, gpusPerNode int64) {
		in := estimateInput{"", kind, preset, method, accel, params, active, tokens, tps, ttft, tpt, seq, input, output,
			layers, hidden, kv, draftTokens, acceptance, draftParams, network, gpus, gpusPerNode}
		w := in.workload(presets.IDs())
		h := perf.Hardware{Accelerator: cat.Accelerators[int(accel)%len(cat.Accelerators)], GPUs: fuzzutil.Int(gpus),
			GPUsPerNode: fuzzutil.Int(gpusPerNode), NetworkGbps: network}
		fuzzutil.Within(t, 20*time.Second, func() string { return estimateOnce(model, w, h) })
	})
}

// workload builds the fuzzed workload; preset 0 is none.
func (in estimateInput) workload(presets []string) perf.Workload {
	w := perf.Workload{
		Kind:              []string{perf.KindTraining, perf.KindFineTuning, perf.KindInference, "mining"}[in.kind%4],
		ModelParametersB:  in.params,
		ActiveParametersB: in.active,
		SequenceLength:    fuzzutil.Int(in.seq),
		TrainingTokensB:   in.tokens,
		FineTuningMethod:  []string{"", perf.MethodFull, perf.MethodLoRA, perf.MethodQLoRA}[in.method%4],
		TokensPerSecond:   in.tps, InputTokens: fuzzutil.Int(in.input), OutputTokens: fuzzutil.Int(in.output),
		MaxTimeToFirstTokenMs: in.ttft, MaxTimePerOutputTokenMs: in.tpt,
		Layers: fuzzutil.Int(in.layers), HiddenSize: fuzzutil.Int(in.hidden), KVHeads: fuzzutil.Int(in.kv),
	}
	if n := int(in.model) % (len(presets) + 1); n > 0 {
		w.Model = presets[n-1]
	}
	if w.Kind == perf.KindInference && in.method%3 > 0 {
		w.SpeculativeDecoding = perf.SpeculativeDecoding{Method: perf.SpeculativeMethods[in.method%3-1],
			AcceptanceRate: in.acceptance, DraftTokens: fuzzutil.Int(in.draftTokens), DraftModelParametersB: in.draftParams}
	}
	return w
}

// estimateOnce prepares w and estimates it on h, the throughput curve too
// for inference, and returns what is wrong: an error without an attribute
// for a workload at fault, or a non-finite number ("" when nothing is).
func estimateOnce(model *perf.Model, w perf.Workload, h perf.Hardware) string {
	limited := withinLimits(w, h)
	prep, err := model.Prepare(w, perf.ValidateOptions{})
	if err != nil {
		errs := inputerr.From(err)
		if len(errs) == 0 {
			return fmt.Sprintf("Prepare: %v (%T), want input errors", err, err)
		}
		for _, e := range errs {
			if e.Path.IsEmpty() || e.Detail == "" {
				return fmt.Sprintf("Prepare: input error without attribute or detail: %v", e)
			}
		}
		return ""
	}
	est, err := prep.Estimate(h)
	if err != nil {
		return "" // hardware the provider's limits refuse (0 GPUs, negative sizes)
	}
	if p := numfmt.NonFinite(est, "Estimate"); p != "" && limited {
		return fmt.Sprintf("%+v on %d× %s (%d per node): %s", w, h.GPUs, h.Accelerator.ID, h.GPUsPerNode, p)
	}
	if !est.Fits || prep.Workload().Kind != perf.KindInference {
		return ""
	}
	curve, err := prep.ThroughputCurve(h)
	if err != nil {
		return ""
	}
	if p := numfmt.NonFinite(curve, "ThroughputCurve"); p != "" && limited {
		return fmt.Sprintf("%+v on %d× %s: %s", w, h.GPUs, h.Accelerator.ID, p)
	}
	return ""
}

// withinLimits reports whether every number of the workload and hardware
// is within the input limit the provider's schema applies to it.
func withinLimits(w perf.Workload, h perf.Hardware) bool {
	return fuzzutil.WorkloadWithinLimits(w) && fuzzutil.WithinLimits(
		fuzzutil.Set{Limit: catalog.LimitGPUCount, V: float64(h.GPUs)},
		fuzzutil.Set{Limit: catalog.LimitGPUsPerInstance, V: float64(h.GPUsPerNode)},
		fuzzutil.Set{Limit: catalog.LimitNetworkGbps, V: h.NetworkGbps},
	)
}
