// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package perf

import "math"

// servingLayout is the shape of one inference replica (or of one prefill
// or decode worker): tp GPUs per pipeline stage and pp stages. With ep,
// the tp GPUs of a mixture-of-experts model run attention data-parallel
// (each GPU its own sequences, attention weights replicated) and the
// routed experts expert-parallel (each GPU a share of whole experts),
// exchanging tokens by all-to-all; without it every weight is
// tensor-parallel.
type servingLayout struct {
	tp, pp int
	ep     bool
}

func (l servingLayout) gpus() int { return l.tp * l.pp }

// maxServingLayouts bounds the layouts servingLayouts returns: TP degrees
// up to a 72-GPU scale-up domain (7), pipeline degrees (13) and
// expert-parallel widths up to 2^13 GPUs (13).
const maxServingLayouts = 7 + 13 + 13

// scaleUp is the number of GPUs one tensor-parallel group may span: the
// node, or the accelerator's NVLink domain when it spans nodes (GB200
// NVL72: 72 GPUs over 18 trays), at most the GPUs there are.
func (x *hw) scaleUp() int {
	return max(x.gpn, min(x.domain, x.gpus))
}

// servingLayouts enumerates replica shapes on the hardware: TP ∈
// {1,2,4,…} inside the scale-up domain; pipeline stages across domains
// with the widest TP; and, for a mixture of experts with known experts,
// expert-parallel widths {2,4,…} up to all GPUs (the all-to-all crosses
// the scale-out network beyond the domain). Appended to buf.
func (m *Model) servingLayouts(x *hw, s *shape, buf []servingLayout) []servingLayout {
	out := buf
	su := x.scaleUp()
	for tp := 1; tp <= su && tp <= x.gpus; tp *= 2 {
		out = append(out, servingLayout{tp: tp, pp: 1})
	}
	if len(out) == len(buf) {
		return out
	}
	tp := out[len(out)-1].tp
	for _, pp := range ppDegrees[1:] {
		if tp*pp > x.gpus || pp > s.arch.Layers {
			break
		}
		out = append(out, servingLayout{tp: tp, pp: pp})
	}
	if s.experts > 0 {
		for w := 2; w <= x.gpus && len(out) < cap(buf); w *= 2 {
			out = append(out, servingLayout{tp: w, pp: 1, ep: true})
		}
	}
	return out
}

// replicaMemory is the memory picture of one replica layout, per GPU.
type replicaMemory struct {
	weights float64 // weight bytes each GPU holds
	work    float64 // activation workspace of one prompt
	// kvShare is the fraction of one sequence's cache a GPU holds for a
	// sequence it serves; seqsPerGPU is 1/tp of the replica's sequences
	// under data-parallel attention, all of them otherwise.
	kvShare, seqsPerGPU float64
}

// memory is the per-GPU memory picture of layout l.
func (m *Model) memory(w *Workload, s *shape, l servingLayout) replicaMemory {
	r := float64(l.gpus())
	tp := float64(l.tp)
	act := m.p.Memory.InferenceActBytesPerTokenHd * float64(s.arch.Hidden) * float64(w.InputTokens)
	if l.ep {
		other := (s.params - s.expertParams - s.attnParams) * s.otherBytes
		return replicaMemory{
			weights:    s.expertTotal/tp + s.attnParams*s.attnBytes + math.Max(0, other)/tp,
			work:       act,
			kvShare:    1,
			seqsPerGPU: 1 / tp,
		}
	}
	// Tensor parallelism splits the cache by KV heads: MLA's single
	// latent (and GQA beyond its KV heads) is replicated on every rank.
	return replicaMemory{
		weights:    s.weightBytes / r,
		work:       act / tp,
		kvShare:    1 / (float64(l.pp) * math.Min(tp, float64(s.kvShards))),
		seqsPerGPU: 1,
	}
}

// requestKVBytes is the cache a request in flight reserves: its prompt
// plus every beam's continuation at its final length (beams share the
// prompt's blocks), the final length being the mean of the requests in
// flight, which the output spread lengthens (shape.outInFlight).
func (m *Model) requestKVBytes(w *Workload, s *shape, kvBytes float64) float64 {
	return s.kvElements(float64(w.InputTokens)+s.outInFlight*float64(w.BeamWidth)) * kvBytes
}

// minBytesPerGPU is the memory one GPU of layout l needs to serve a single
// request: its weights, the cache share of a request of the
// 99th-percentile output length and a prompt's activation workspace.
func (m *Model) minBytesPerGPU(w *Workload, s *shape, l servingLayout, kvBytes float64) float64 {
	mem := m.memory(w, s, l)
	longest := s.kvElements(float64(w.InputTokens)+s.outLongest*float64(w.BeamWidth)) * kvBytes
	return mem.weights + mem.work + longest*mem.kvShare
}

// batchCapacity is the most sequences (beams included) the replica's
// memory holds, and the engine cap on them.
func (m *Model) batchCapacity(w *Workload, s *shape, x *hw, l servingLayout, kvBytes float64) (memory, engine int) {
	mem := m.memory(w, s, l)
	free := x.usableGB*1e9 - mem.weights - mem.work
	perSeq := m.requestKVBytes(w, s, kvBytes) * mem.kvShare * mem.seqsPerGPU
	requests := math.Floor(free / perSeq)
	if math.IsInf(requests, 0) || requests > float64(math.MaxInt32) {
		requests = math.MaxInt32
	}
	engine = m.p.Inference.MaxBatch
	if l.ep {
		engine = min(engine, x.engine.MaxBatchPerDPRank) * l.tp
	}
	return int(requests) * w.BeamWidth, engine
}

// kvBytesPerElement is the cache element size: fp8 or wider (serving at
// FP8/FP4 keeps an FP8 cache), 16-bit when the weights are integer
// quantised (weight-only quantisation keeps activations in 16 bits).
func (m *Model) kvBytesPerElement(precision string) float64 {
	b := math.Max(m.p.Memory.KVMinBytesPerElement, m.bytesPer(precision))
	if isIntegerPrecision(precision) {
		b = math.Max(b, m.p.Memory.IntegerWeightKVBytes)
	}
	return b
}

func isIntegerPrecision(p string) bool { return p == "int8" || p == "int4" }
