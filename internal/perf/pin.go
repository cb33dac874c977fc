// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package perf

import (
	"fmt"
	"strings"

	"github.com/gpuplan/terraform-provider-gpu/internal/inputerr"
	"github.com/gpuplan/terraform-provider-gpu/internal/numfmt"
)

// A pinned layout (Hardware.Layout, gpu_estimate.parallelism) fixes the
// degrees it sets and leaves the others to the search. Degrees that cannot
// be run on the hardware, or a layout whose memory does not hold the
// model, are input errors on the parallelism attribute (or the degree at
// fault), never an estimate that silently ignores the pin.

const pinSummary = "Invalid Parallelism"

// pinPath is the path of the parallelism attribute, or of one degree.
func pinPath(degree string) inputerr.Path {
	p := inputerr.Root("parallelism")
	if degree != "" {
		p = p.Name(degree)
	}
	return p
}

// IsZero reports whether no degree is pinned.
func (p Parallelism) IsZero() bool { return p == Parallelism{} }

// String lists the pinned degrees as a user writes them: "{ tensor = 8,
// pipeline = 2 }".
func (p Parallelism) String() string {
	var parts []string
	for _, d := range []struct {
		name string
		v    int
	}{{"tensor", p.Tensor}, {"pipeline", p.Pipeline}, {"expert", p.Expert}, {"context", p.Context}, {"data", p.Data}} {
		if d.v != 0 {
			parts = append(parts, fmt.Sprintf("%s = %d", d.name, d.v))
		}
	}
	return "{ " + strings.Join(parts, ", ") + " }"
}

// product is the GPUs the pinned tensor, context, pipeline and data
// degrees take together (unpinned ones count 1); expert parallelism
// shares its GPUs with the data-parallel ranks in training and with the
// tensor GPUs of a replica in serving, so it is left out.
func (p Parallelism) product() int {
	n := 1
	for _, d := range []int{p.Tensor, p.Context, p.Pipeline, p.Data} {
		n *= max(1, d)
	}
	return n
}

// checkPin reports the degrees of pin that cannot run the workload on the
// hardware, whatever the rest of the layout: a negative degree, more GPUs
// than there are, more pipeline stages than layers, expert parallelism
// of a dense model or wider than its experts.
func (m *Model) checkPin(pin Parallelism, w *Workload, s *shape, x *hw) error {
	var errs inputerr.List
	for _, d := range []struct {
		name string
		v    int
	}{{"tensor", pin.Tensor}, {"pipeline", pin.Pipeline}, {"expert", pin.Expert}, {"context", pin.Context}, {"data", pin.Data}} {
		if d.v < 0 {
			errs.Add(pinPath(d.name), pinSummary, "parallelism.%s = %d: must be a positive degree (omit it to let the model choose).", d.name, d.v)
		}
	}
	if len(errs) > 0 {
		return errs
	}
	if n := pin.product(); n > x.gpus {
		errs.Add(pinPath(""), pinSummary, "parallelism = %s takes %d GPUs (tensor × context × pipeline × data), more than gpu_count = %d.",
			pin, n, x.gpus)
	}
	if pin.Pipeline > s.arch.Layers {
		errs.Add(pinPath("pipeline"), pinSummary, "parallelism.pipeline = %d: the model has %d layers, and a pipeline stage holds at least one.",
			pin.Pipeline, s.arch.Layers)
	}
	switch {
	case pin.Expert > 1 && !s.moe():
		errs.Add(pinPath("expert"), pinSummary, "parallelism.expert = %d: expert parallelism applies to a mixture of experts; this model is dense.", pin.Expert)
	case pin.Expert > 1 && s.experts > 0 && pin.Expert > s.experts && w.Kind != KindInference:
		errs.Add(pinPath("expert"), pinSummary, "parallelism.expert = %d: the model has %d routed experts per layer, so at most %d ranks can hold them.",
			pin.Expert, s.experts, s.experts)
	case pin.Expert > x.gpus:
		errs.Add(pinPath("expert"), pinSummary, "parallelism.expert = %d exceeds gpu_count = %d.", pin.Expert, x.gpus)
	}
	if w.Kind == KindInference {
		m.checkServingPin(pin, x, &errs)
	} else {
		m.checkTrainingPin(pin, w, x, &errs)
	}
	return errs.Err()
}

// checkTrainingPin: tensor parallelism stays in a node, context
// parallelism splits a sequence into at most its tokens, and every
// data-parallel rank needs a sequence of the global batch.
func (m *Model) checkTrainingPin(pin Parallelism, w *Workload, x *hw, errs *inputerr.List) {
	if pin.Tensor > x.gpn {
		errs.Add(pinPath("tensor"), pinSummary, "parallelism.tensor = %d: tensor parallelism stays inside a node, and a node has %d GPUs (gpus_per_node).",
			pin.Tensor, x.gpn)
	}
	if pin.Context > w.SequenceLength {
		errs.Add(pinPath("context"), pinSummary, "parallelism.context = %d: context parallelism splits each sequence of sequence_length = %d tokens; at most %d ranks.",
			pin.Context, w.SequenceLength, w.SequenceLength)
	}
	seqs := int(m.TrainingBatchTokens(*w, x.gpus) / float64(w.SequenceLength))
	if pin.Data > max(1, seqs) {
		errs.Add(pinPath("data"), pinSummary, "parallelism.data = %d: the global batch holds %d sequences (global_batch_tokens / sequence_length) and each data-parallel rank needs one; "+
			"set workload.global_batch_tokens to at least %s.", pin.Data, seqs, numfmt.Int(float64(pin.Data*w.SequenceLength)))
	}
}

// checkServingPin: a serving replica is tensor-parallel or runs
// data-parallel attention with its experts expert-parallel (tensor 1 or
// equal to expert), in one pipeline stage when expert-parallel; context
// parallelism is a training layout; the replicas must fill the GPUs.
func (m *Model) checkServingPin(pin Parallelism, x *hw, errs *inputerr.List) {
	if pin.Context > 1 {
		errs.Add(pinPath("context"), pinSummary, "parallelism.context = %d: context parallelism is a training layout; serving splits no sequence (omit it, or set 1).", pin.Context)
	}
	if pin.Expert > 1 && pin.Tensor > 1 && pin.Tensor != pin.Expert {
		errs.Add(pinPath("tensor"), pinSummary, "parallelism.tensor = %d with expert = %d: an expert-parallel replica runs attention data-parallel over its %d GPUs; "+
			"set tensor = 1 (or %d, the same GPUs), or omit expert for a tensor-parallel replica.", pin.Tensor, pin.Expert, pin.Expert, pin.Expert)
	}
	if pin.Expert > 1 && pin.Pipeline > 1 {
		errs.Add(pinPath("pipeline"), pinSummary, "parallelism.pipeline = %d with expert = %d: an expert-parallel replica is one pipeline stage; omit pipeline or expert.",
			pin.Pipeline, pin.Expert)
	}
	width := max(pin.Tensor, pin.Expert, 1)
	replica := width * max(1, pin.Pipeline)
	switch {
	case len(*errs) > 0 || pin.Pipeline == 0 && pin.Tensor == 0 && pin.Expert == 0:
	case pin.Data > 0 && replica*pin.Data > x.gpus:
		errs.Add(pinPath("data"), pinSummary, "parallelism.data = %d replicas of %d GPUs take %d GPUs, more than gpu_count = %d.", pin.Data, replica, replica*pin.Data, x.gpus)
	case pin.Data == 0 && (pin.Tensor > 0 || pin.Expert > 0) && x.gpus%replica != 0:
		errs.Add(pinPath(""), pinSummary, "parallelism = %s: replicas of %d GPUs do not divide gpu_count = %d; set data (the replicas) or a gpu_count that is a multiple of %d.",
			pin, replica, x.gpus, replica)
	}
}

// pinnedMiss is the error of a pinned layout whose memory does not hold
// the model: the least any layout with those degrees needs per GPU.
func pinnedMiss(pin Parallelism, est *Estimate) error {
	return inputerr.New(pinPath(""), "Pinned Layout Does Not Fit",
		"parallelism = %s cannot hold the model: it needs %s GB per GPU and %s GB are usable. Pin more tensor or pipeline parallelism "+
			"(or expert parallelism for a mixture of experts), use more GPUs, or omit parallelism to let the model choose.",
		pin, numfmt.Short(est.MemoryPerGPUGB), numfmt.Short(est.UsableMemoryPerGPUGB))
}

// pinnedEstimate estimates the prepared workload on a pinned layout: the
// pin is checked against the hardware first, and a layout that does not
// hold the model is an error rather than an estimate that does not fit.
func (m *Model) pinnedEstimate(p *Prepared, x hw, pin Parallelism, explain bool) (Estimate, error) {
	if err := m.checkPin(pin, &p.w, &p.shape, &x); err != nil {
		return Estimate{}, err
	}
	var est Estimate
	if p.w.Kind == KindInference {
		est = m.inferencePinned(p.w, x, &p.shape, p.speculation, pin, explain)
	} else {
		est = m.training(p.w, x, &p.shape, pin, explain, nil)
	}
	switch {
	case est.Fits:
		return est, nil
	case est.GPUsUsed == 0 && est.ReplicaGPUs == 0:
		return est, inputerr.New(pinPath(""), pinSummary,
			"parallelism = %s: no layout with these degrees runs on %d GPUs of %d per node (expert parallelism must divide the data-parallel "+
				"ranks in training; a serving replica must fit the GPUs); change a degree or omit it to let the model choose.", pin, x.gpus, x.gpn)
	}
	return est, pinnedMiss(pin, &est)
}

// pinnedServingLayouts are the replica shapes a pin allows: the pinned
// expert-parallel or tensor-parallel replica (one pipeline stage unless
// pipeline is pinned); with only pipeline pinned, every tensor degree
// inside the scale-up domain; otherwise the usual shapes, without expert
// parallelism when expert = 1.
func (m *Model) pinnedServingLayouts(x *hw, s *shape, pin Parallelism, buf []servingLayout) []servingLayout {
	switch {
	case pin.Expert > 1:
		return append(buf, servingLayout{tp: pin.Expert, pp: 1, ep: true})
	case pin.Tensor > 0:
		return append(buf, servingLayout{tp: pin.Tensor, pp: max(1, pin.Pipeline)})
	case pin.Pipeline > 0:
		for tp := 1; tp <= x.scaleUp() && tp*pin.Pipeline <= x.gpus; tp *= 2 {
			buf = append(buf, servingLayout{tp: tp, pp: pin.Pipeline})
		}
		return buf
	}
	out := m.servingLayouts(x, s, buf)
	if pin.Expert == 1 {
		n := 0
		for _, l := range out {
			if !l.ep {
				out[n] = l
				n++
			}
		}
		out = out[:n]
	}
	return out
}
