// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package perf_test

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
)

// InferenceX (SemiAnalysis) results: testdata/calibration/
// inferencex_calibration.csv, a column subset of the project's
// inferencex_calibration.csv (see SOURCES.md). Each row is one serving
// configuration at one client concurrency.

// inferencexModel maps InferenceX model names to preset IDs.
var inferencexModel = map[string]string{
	"DeepSeek-R1-0528":   "deepseek-r1",
	"DeepSeek-V4-Pro":    "deepseek-v4-pro",
	"GLM-5":              "glm-5",
	"Kimi-K2.5":          "kimi-k2.5",
	"MiniMax-M2.5":       "minimax-m2.5",
	"Qwen-3.5-397B-A17B": "qwen3.5-397b-a17b",
}

// inferencexAccelerator maps InferenceX hardware names to catalog IDs.
var inferencexAccelerator = map[string]string{
	"H100": "H100", "H200": "H200", "B200": "B200", "GB200 NVL72": "GB200",
	"MI300X": "MI300X", "MI355X": "MI355X", "B300": "B300", "GB300 NVL72": "GB300", "MI325X": "MI325X",
}

// inferencexLengthFraction: the client draws prompt and output lengths
// uniformly from [0.8·L, L] (inferencex_README.md §2), a mean of 0.9·L.
const inferencexLengthFraction = 0.9

// ixRow is one InferenceX result.
type ixRow struct {
	raw                     map[string]string
	model, hardware, prec   string
	spec                    string // "mtp" or "none"
	isl, osl, conc, gpus    int
	gpusPerNode             int
	tputPerGPU, interactive float64 // total tokens/s per GPU; median output tokens/s per user
	p99TPOTMs, medTPOTMs    float64
}

// group is the frontier a row belongs to.
func (r *ixRow) group() string {
	return fmt.Sprintf("%s|%s|%s|%d/%d|%s", r.model, r.hardware, r.prec, r.isl, r.osl, r.spec)
}

func readInferenceX(t testing.TB) []ixRow {
	var rows []ixRow
	for _, m := range readCSV(t, "testdata/calibration/inferencex_calibration.csv") {
		r := ixRow{raw: m, model: m["model"], hardware: m["hardware"], prec: m["precision"], spec: m["spec_method"],
			isl: int(num(m["isl"])), osl: int(num(m["osl"])), conc: int(num(m["conc"])),
			gpus: int(num(m["num_gpus_total"])), gpusPerNode: int(num(m["gpus_per_node_hw"]))}
		if r.spec == "" {
			r.spec = "none"
		}
		if r.gpus == 0 && m["disagg"] != "True" {
			r.gpus = int(num(m["tp"])) // blog rows that state TP only: TP GPUs (README caveat 2)
		}
		r.tputPerGPU, r.interactive = num(m["tput_per_gpu"]), num(m["median_intvty"])
		r.medTPOTMs, r.p99TPOTMs = num(m["median_tpot_s"])*1e3, num(m["p99_tpot_s"])*1e3
		if m["source_type"] == "blog_table" {
			r.tputPerGPU, r.interactive, r.medTPOTMs = num(m["blog_tok_s_gpu"]), num(m["blog_tok_s_user"]), num(m["blog_tpot_ms"])
		}
		if r.medTPOTMs == 0 && r.interactive > 0 {
			r.medTPOTMs = 1e3 / r.interactive
		}
		rows = append(rows, r)
	}
	return rows
}

// paretoFrontier returns the rows no other row of the group beats on both
// interactivity and throughput per GPU, by rising interactivity.
func paretoFrontier(rows []*ixRow) []*ixRow {
	var out []*ixRow
	for _, r := range rows {
		dominated := false
		for _, o := range rows {
			if o != r && o.interactive >= r.interactive && o.tputPerGPU >= r.tputPerGPU &&
				(o.interactive > r.interactive || o.tputPerGPU > r.tputPerGPU) {
				dominated = true
				break
			}
		}
		if !dominated {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].interactive < out[j].interactive })
	return out
}

// ixWorkload is the workload of a row: the preset, the precision, 0.9 of
// the nominal lengths, the client concurrency and MTP when the row used
// it. No latency limit: at the row's own deployment and concurrency the
// time per output token is a prediction (compared separately), not a
// constraint.
func ixWorkload(r *ixRow, model string) perf.Workload {
	w := perf.Workload{Kind: "inference", Model: model, Precision: r.prec,
		InputTokens:    int(math.Round(inferencexLengthFraction * float64(r.isl))),
		OutputTokens:   int(math.Round(inferencexLengthFraction * float64(r.osl))),
		MaxConcurrency: r.conc}
	if r.prec == "int4" {
		w.Precision = "" // the preset's native INT4 experts with 16-bit math
	}
	if r.spec == "mtp" {
		w.SpeculativeDecoding = perf.SpeculativeDecoding{Method: perf.SpeculativeMTP}
	}
	return w
}

// ixExclusion says why a frontier row cannot be compared, "" when it can.
func ixExclusion(r *ixRow, model string) string {
	switch {
	case model == "":
		return "model without a preset: " + r.model
	case model == "deepseek-v4-pro":
		return "DeepSeek-V4-Pro: compressed (CSA/HCA) attention whose KV-cache size the preset does not record"
	case r.gpus == 0:
		return "GPU count not stated (blog table without TP or worker counts; pre-v2 disaggregated rows)"
	case r.tputPerGPU <= 0 || r.medTPOTMs <= 0:
		return "no throughput or latency recorded"
	}
	return ""
}

// inferencexCases compares the model with every frontier row: on the
// row's hardware and GPU count, at its concurrency and p99 TPOT, the
// total (input + output) tokens/s per GPU it sustains.
func inferencexCases(t testing.TB, m *perf.Model, lookup accLookup) ([]refCase, []skipped) {
	groups := map[string][]*ixRow{}
	rows := readInferenceX(t)
	for i := range rows {
		groups[rows[i].group()] = append(groups[rows[i].group()], &rows[i])
	}
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var cases []refCase
	var skips []skipped
	for _, k := range keys {
		for _, r := range paretoFrontier(groups[k]) {
			c, reason := inferencexCase(t, m, lookup, r)
			if reason != "" {
				skips = append(skips, skipped{"inference", "InferenceX: " + reason})
				continue
			}
			cases = append(cases, c)
		}
	}
	return cases, skips
}

func inferencexCase(t testing.TB, m *perf.Model, lookup accLookup, r *ixRow) (refCase, string) {
	model := inferencexModel[r.model]
	if reason := ixExclusion(r, model); reason != "" {
		return refCase{}, reason
	}
	a, ok := lookup(inferencexAccelerator[r.hardware])
	if !ok {
		return refCase{}, "accelerator not in catalog: " + r.hardware
	}
	dep, ok := ixDeployment(r)
	if !ok {
		return refCase{}, "deployment not stated (disaggregated blog row without prefill/decode worker counts)"
	}
	w := ixWorkload(r, model)
	p, err := atDate(t, m, r.raw["date"]).Prepare(w, perf.ValidateOptions{})
	if err != nil {
		t.Fatalf("InferenceX %s: %v", r.group(), err)
	}
	est, err := p.EstimateFixed(perf.Hardware{Accelerator: a, GPUs: r.gpus, GPUsPerNode: min(r.gpus, r.gpusPerNode)}, dep)
	if err != nil {
		t.Fatalf("InferenceX %s: %v", r.group(), err)
	}
	if !est.Fits {
		return refCase{}, fmt.Sprintf("the model says the row's deployment does not fit (%s on %s)", model, a.ID)
	}
	lengths := float64(w.InputTokens+w.OutputTokens) / float64(w.OutputTokens)
	c := refCase{group: "inference", unit: "tok/s/GPU", source: "inferencex", origin: "InferenceX", hw: strings.ToLower(a.Family), date: r.raw["date"],
		family: fmt.Sprintf("%s %s %d/%d", a.ID, r.prec, r.isl, r.osl),
		name: fmt.Sprintf("InferenceX %s %s %s %d/%d %s %s conc %d %d GPUs", r.model, r.hardware, r.prec, r.isl, r.osl,
			specLabel(r.spec), servingLabel(r.raw), r.conc, r.gpus),
		published: r.tputPerGPU, predicted: est.TokensPerSecond * lengths / float64(r.gpus),
		detail: fmt.Sprintf("%s TP=%d EP=%d ×%d batch %d prefill %d GPUs, TPOT %.1f ms (row p99 %.1f), %s: %s", est.ServingLayout,
			est.TensorParallel, est.Serving.ExpertParallel, est.Replicas, est.Batch, est.PrefillGPUs, est.TPOTMs, r.p99TPOTMs, est.Binding, est.Explanation)}
	c.err = c.predicted/c.published - 1
	return c, ""
}

func specLabel(s string) string {
	if s == "mtp" {
		return "MTP"
	}
	return "no-spec"
}

func servingLabel(m map[string]string) string {
	if m["disagg"] == "True" {
		return strings.ToLower(m["framework_key"]) + " disagg"
	}
	return strings.ToLower(m["framework_key"])
}

// ixDeployment is the row's own deployment: an aggregated replica of
// TP GPUs (data-parallel attention with expert parallelism when the row
// says dp_attention), or its prefill and decode workers. A worker whose
// GPUs outnumber its TP degree runs data-parallel attention.
func ixDeployment(r *ixRow) (perf.FixedServing, bool) {
	m := r.raw
	if m["disagg"] != "True" {
		return perf.FixedServing{TP: r.gpus, EP: m["dp_attention"] == "True" && num(m["ep"]) > 1, Replicas: 1}, true
	}
	pw, dw := int(num(m["prefill_num_workers"])), int(num(m["decode_num_workers"]))
	pg, dg := int(num(m["num_prefill_gpu_api"])), int(num(m["num_decode_gpu_api"]))
	if pw < 1 || dw < 1 || pg%pw != 0 || dg%dw != 0 || pg+dg != r.gpus {
		return perf.FixedServing{}, false
	}
	ep := func(role string, gpus int) bool {
		return m[role+"_dp_attention"] == "True" || int(num(m[role+"_tp"])) < gpus
	}
	return perf.FixedServing{TP: dg / dw, EP: ep("decode", dg/dw), Replicas: dw,
		PrefillTP: pg / pw, PrefillEP: ep("prefill", pg/pw), PrefillWorkers: pw}, true
}
