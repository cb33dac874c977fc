// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package perf

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/inputerr"
)

// HardwareRequest is gpu_estimate's hardware in the catalog's names.
type HardwareRequest struct {
	Accelerator string // an accelerator ID or alias of the catalog
	GPUs        int
	GPUsPerNode int     // 0 = min(GPUs, search.default_gpus_per_node)
	NetworkGbps float64 // 0 = the default scale-out network
	// Layout pins degrees of the parallel layout (gpu_estimate.parallelism);
	// zero degrees are searched.
	Layout Parallelism
}

// Warning is advice about an estimate, on the attribute it concerns
// (empty Path: the configuration as a whole).
type Warning struct {
	Path            inputerr.Path
	Summary, Detail string
}

// Report is gpu_estimate's answer: the estimate, the throughput curve of
// an inference workload that fits, and warnings: what would fit when it
// does not, latency limits or a throughput target the GPUs miss.
type Report struct {
	Estimate Estimate
	Curve    []CurvePoint
	Warnings []Warning
}

// Report estimates the prepared workload on hardware of the catalog. An
// unknown accelerator and a precision it cannot run are input errors on
// accelerator and workload.precision.
func (p *Prepared) Report(cat *catalog.Catalog, hr HardwareRequest) (Report, error) {
	acc, ok := cat.Accelerator(hr.Accelerator)
	if !ok {
		return Report{}, inputerr.New(inputerr.Root("accelerator"), "Unknown Accelerator", "%s",
			cat.UnknownAccelerator("accelerator", hr.Accelerator))
	}
	if err := p.m.CheckPrecision(p.given, acc); err != nil {
		return Report{}, err
	}
	h := Hardware{Accelerator: acc, GPUs: hr.GPUs, GPUsPerNode: hr.GPUsPerNode, NetworkGbps: hr.NetworkGbps, Layout: hr.Layout}
	est, err := p.Estimate(h)
	if err != nil {
		return Report{}, err
	}
	r := Report{Estimate: est}
	switch {
	case !est.Fits:
		r.Warnings = []Warning{{Summary: "Workload Does Not Fit", Detail: p.notFitAdvice(cat, h, est)}}
	case p.w.Kind == KindInference:
		if r.Curve, err = p.ThroughputCurve(h); err != nil {
			return Report{}, err
		}
		r.Warnings = p.inferenceWarnings(h, est)
	}
	return r, nil
}

// CheckPrecision is an input error on workload.precision when the
// workload's precision (as given, or its default: bf16 or the model
// preset's native precision) has no tensor throughput on the accelerator;
// nil otherwise (an unknown precision is Validate's error). w is the
// workload as given.
func (m *Model) CheckPrecision(w Workload, acc *catalog.Accelerator) error {
	d := m.WithDefaults(w, ValidateOptions{})
	p, note := d.Precision, ""
	if w.normalized().Precision == "" {
		note = " (the default)"
		if d.Model != "" {
			note = fmt.Sprintf(" (the native precision of model %q)", d.Model)
		}
	}
	if !slices.Contains(catalog.Precisions, p) || acc.PeakTFLOPS[p] > 0 {
		return nil
	}
	return inputerr.New(inputerr.Root("workload").Name("precision"), "Precision Not Supported By Accelerator",
		"workload.precision = %q%s cannot run on %s: it has no %s tensor throughput. %s supports: %s. "+
			"Choose one of those, or an accelerator that supports %s.",
		p, note, acc.ID, p, acc.ID, catalog.QuoteList(SupportedPrecisions(acc)), p)
}

// inferenceWarnings warn when the latency limits cannot be met or the GPUs
// do not reach the throughput target.
func (p *Prepared) inferenceWarnings(h Hardware, est Estimate) []Warning {
	w := p.w
	switch {
	case est.TokensPerSecond == 0:
		return []Warning{{Path: inputerr.Root("workload"), Summary: "Latency Limits Cannot Be Met",
			Detail: fmt.Sprintf("On %s: %s. Relax max_time_to_first_token_ms / max_time_per_output_token_ms, "+
				"or use a faster accelerator.", hardwareString(h), est.Explanation)}}
	case w.TokensPerSecond > 0 && !est.MeetsTarget:
		return []Warning{{Path: inputerr.Root("workload").Name("tokens_per_second"), Summary: "Throughput Target Not Met",
			Detail: fmt.Sprintf("workload.tokens_per_second = %v needs %d replicas of %d× %s (%d GPUs); gpu_count = %d holds %d "+
				"replica(s) sustaining %.0f output tokens/s.", w.TokensPerSecond, est.ReplicasNeeded, est.ReplicaGPUs, h.Accelerator.ID,
				est.ReplicasNeeded*est.ReplicaGPUs, h.GPUs, est.Replicas, est.TokensPerSecond)}}
	}
	return nil
}

func hardwareString(h Hardware) string {
	return fmt.Sprintf("%d× %s", h.GPUs, h.Accelerator.ID)
}

// notFitAdvice says how much memory is missing and what would fit: more
// GPUs of the same accelerator (in whole nodes of the default size when
// the node size was not given), or the same count of one of the three
// smallest larger-memory accelerators of the catalog that run the
// precision.
func (p *Prepared) notFitAdvice(cat *catalog.Catalog, h Hardware, est Estimate) string {
	w := p.w
	var b strings.Builder
	what := strings.TrimPrefix(fmt.Sprintf("%s%v B parameters", modelPrefix(w.Model), w.ModelParametersB), ", ")
	fmt.Fprintf(&b, "The %s workload (%s, %s) needs %.2f GB per GPU on %s but only %.2f GB is usable: "+
		"%.2f GB short per GPU. ", w.Kind, what, w.Precision, est.MemoryPerGPUGB, hardwareString(h),
		est.UsableMemoryPerGPUGB, est.MemoryShortfallGB)
	gpn := h.GPUsPerNode
	if gpn == 0 {
		gpn = p.m.p.Search.DefaultGPUsPerNode
	}
	if n := p.MinGPUsToFit(h.Accelerator, gpn); n > 0 {
		fmt.Fprintf(&b, "It fits on %d× %s (gpu_count = %d). ", n, h.Accelerator.ID, n)
	} else {
		fmt.Fprintf(&b, "It does not fit on any count of %s. ", h.Accelerator.ID)
	}
	if alts := p.largerThatFit(cat, h); len(alts) > 0 {
		fmt.Fprintf(&b, "With %d GPUs it fits on a larger-memory accelerator: %s. ", h.GPUs, strings.Join(alts, ", "))
	}
	if w.Kind == KindFineTuning && w.FineTuningMethod != MethodQLoRA {
		b.WriteString(`fine_tuning_method = "qlora" needs less memory. `)
	}
	return strings.TrimSpace(b.String())
}

// largerThatFit lists, as "ID (80 GB)", the three smallest accelerators of
// the catalog with more memory than h's that run the precision and hold
// the workload on h's GPU count (ties by ID).
func (p *Prepared) largerThatFit(cat *catalog.Catalog, h Hardware) []string {
	type alt struct {
		id  string
		mem float64
	}
	var alts []alt
	for _, a := range cat.Accelerators {
		if a.MemoryGB <= h.Accelerator.MemoryGB || a.PeakTFLOPS[p.w.Precision] <= 0 {
			continue
		}
		hh := h
		hh.Accelerator = a
		if e, err := p.EstimateBrief(hh); err == nil && e.Fits {
			alts = append(alts, alt{a.ID, a.MemoryGB})
		}
	}
	sort.Slice(alts, func(i, j int) bool {
		if alts[i].mem != alts[j].mem {
			return alts[i].mem < alts[j].mem
		}
		return alts[i].id < alts[j].id
	})
	ids := make([]string, 0, 3)
	for _, a := range alts[:min(3, len(alts))] {
		ids = append(ids, fmt.Sprintf("%s (%.0f GB)", a.id, a.mem))
	}
	return ids
}

// modelPrefix names a preset for messages ("model \"x\", "), "" without.
func modelPrefix(model string) string {
	if model == "" {
		return ""
	}
	return fmt.Sprintf("model %q, ", model)
}
