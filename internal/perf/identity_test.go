// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package perf_test

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
	"github.com/gpuplan/terraform-provider-gpu/internal/textdiff"
)

var updateIdentity = flag.Bool("update-identity", false, "rewrite testdata/identity.golden")

// identityWorkloads span what the layout search and the serving search
// choose between: pre-training of dense and MoE models, the three
// fine-tuning methods, long context, FP8/FP4, a pinned global batch, and
// dense, MoE, speculative and long-prompt serving.
var identityWorkloads = []perf.Workload{
	{Kind: "training", ModelParametersB: 8, TrainingTokensB: 100},
	{Kind: "training", ModelParametersB: 70, TrainingTokensB: 2000},
	{Kind: "training", ModelParametersB: 405, TrainingTokensB: 15000, Precision: "fp8"},
	{Kind: "training", ModelParametersB: 70, TrainingTokensB: 1000, Precision: "fp4"},
	{Kind: "training", ModelParametersB: 70, TrainingTokensB: 500, SequenceLength: 32768},
	{Kind: "training", Model: "llama-3.1-70b", TrainingTokensB: 10, GlobalBatchTokens: 4194304},
	{Kind: "training", Model: "deepseek-v3", TrainingTokensB: 1000},
	{Kind: "training", Model: "qwen3-30b-a3b", TrainingTokensB: 200},
	{Kind: "fine_tuning", ModelParametersB: 70, TrainingTokensB: 1, FineTuningMethod: "lora"},
	{Kind: "fine_tuning", ModelParametersB: 8, TrainingTokensB: 0.1, FineTuningMethod: "qlora"},
	{Kind: "fine_tuning", ModelParametersB: 70, TrainingTokensB: 1, FineTuningMethod: "full"},
	{Kind: "inference", ModelParametersB: 70, Precision: "fp8", TokensPerSecond: 5000, MaxTimePerOutputTokenMs: 50},
	{Kind: "inference", ModelParametersB: 8, TokensPerSecond: 5000, InputTokens: 9000, OutputTokens: 512},
	{Kind: "inference", Model: "deepseek-r1", Precision: "fp4", MaxTimePerOutputTokenMs: 40, SpeculativeDecoding: perf.SpeculativeDecoding{Method: "mtp"}},
	{Kind: "inference", Model: "qwen3-235b-a22b", TokensPerSecond: 20000, MaxTimePerOutputTokenMs: 50},
}

// identityHardware: every fixture accelerator on 1 to 4,096 GPUs (24: a
// count that is no power of two) on nodes of 8 (4 for the GB parts'
// trays) over the default network and a slow TCP one.
func identityHardware(t *testing.T, kind string) []perf.Hardware {
	var out []perf.Hardware
	counts := []int{1, 8, 24, 64, 512, 4096}
	if kind == "inference" {
		counts = []int{1, 8, 16, 72}
	}
	for _, a := range fixtureAccelerators(t) {
		gpn := 8
		if strings.HasPrefix(a.ID, "GB") {
			gpn = 4
		}
		for _, n := range counts {
			out = append(out, perf.Hardware{Accelerator: a, GPUs: n, GPUsPerNode: min(gpn, n)})
			if n > gpn && kind != "inference" {
				out = append(out, perf.Hardware{Accelerator: a, GPUs: n, GPUsPerNode: gpn, NetworkGbps: 100, Fabric: catalog.FabricNone})
			}
		}
	}
	return out
}

// TestIdentityEstimates estimates identityWorkloads on identityHardware as
// the planner does (Prepared.EstimateBrief, MinGPUsToFit) and compares the
// chosen layouts and every number, to the last bit, with the golden file:
// the search's pruning and memos must not change an answer. Regenerate
// (-update-identity) only for a deliberate change of the model.
func TestIdentityEstimates(t *testing.T) {
	m := model(t)
	g := func(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
	var b strings.Builder
	for i, w := range identityWorkloads {
		p, err := m.Prepare(w, perf.ValidateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "== %d %s %s%s %s\n", i, w.Kind, w.Model, g(w.ModelParametersB), w.Precision)
		hws := identityHardware(t, w.Kind)
		sortHardware(hws)
		for _, h := range hws {
			fmt.Fprintf(&b, "%s %d/%d %s %s fit=%d: ", h.Accelerator.ID, h.GPUs, h.GPUsPerNode, g(h.NetworkGbps), h.Fabric, p.MinGPUsToFit(h.Accelerator, h.GPUsPerNode))
			e, err := p.EstimateBrief(h)
			if err != nil {
				var pe *perf.PrecisionError
				if errors.As(err, &pe) {
					b.WriteString("precision unsupported\n")
				} else {
					fmt.Fprintf(&b, "error %v\n", err)
				}
				continue
			}
			fmt.Fprintf(&b, "%t tp%d cp%d pp%d dp%d ep%d used%d nodes%d mfu=%s tps=%s h=%s mem=%s short=%s gp=%s gbt=%s %s",
				e.Fits, e.TensorParallel, e.ContextParallel, e.PipelineParallel, e.DataParallel, e.ExpertParallel, e.GPUsUsed, e.Nodes,
				g(e.MFU), g(e.TokensPerSecond), g(e.Hours), g(e.MemoryPerGPUGB), g(e.MemoryShortfallGB), g(e.Goodput), g(e.GlobalBatchTokens), e.Binding)
			if w.Kind == "inference" {
				fmt.Fprintf(&b, " ttft=%s tpot=%s p99=%s/%s reps=%d×%d batch=%d %s %d/%d", g(e.TTFTMs), g(e.TPOTMs), g(e.TTFTP99Ms), g(e.TPOTP99Ms),
					e.Replicas, e.ReplicaGPUs, e.Batch, e.ServingLayout, e.PrefillGPUs, e.DecodeGPUs)
			}
			b.WriteString("\n")
		}
	}
	const path = "testdata/identity.golden"
	if *updateIdentity {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if d := textdiff.First(b.String(), string(want)); d != "" {
		t.Fatalf("%s differs at %s", path, d)
	}
}

// sortHardware orders hardware by accelerator, GPUs and network (the
// fixture map's order is random).
func sortHardware(hws []perf.Hardware) {
	key := func(h perf.Hardware) string {
		return fmt.Sprintf("%s %08d %08d %g", h.Accelerator.ID, h.GPUs, h.GPUsPerNode, h.NetworkGbps)
	}
	for i := 1; i < len(hws); i++ {
		for j := i; j > 0 && key(hws[j]) < key(hws[j-1]); j-- {
			hws[j], hws[j-1] = hws[j-1], hws[j]
		}
	}
}

// TestPlannedSearchSameAnswer: a prepared workload searches a GPU count
// and node size from its layout plan from the second time on (the plan
// holds what does not depend on the accelerator or the network). Every
// estimate, explanation included, must equal the one a fresh Prepared
// computes by enumerating, whatever accelerator and network came first.
func TestPlannedSearchSameAnswer(t *testing.T) {
	m := model(t)
	accs := fixtureAccelerators(t)
	ids := []string{"H100", "A100-40GB", "MI300X", "TPU-V5P", "GB200", "L4"}
	nets := []perf.Hardware{{}, {NetworkGbps: 100, Fabric: catalog.FabricNone}, {NetworkGbps: 800, Fabric: catalog.FabricRoCE},
		{NetworkGbps: 3200, Fabric: catalog.FabricEFA}}
	for wi, w := range identityWorkloads {
		if w.Kind == "inference" {
			continue
		}
		shared, err := m.Prepare(w, perf.ValidateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		// Sizes interleaved: a size's plan is built on its second search
		// while others are searched between.
		for i := range 3 * len(ids) {
			for _, gpus := range []int{8, 16, 48, 256, 2048} {
				a, net := accs[ids[i%len(ids)]], nets[(i+wi)%len(nets)]
				h := perf.Hardware{Accelerator: a, GPUs: gpus, GPUsPerNode: 8, NetworkGbps: net.NetworkGbps, Fabric: net.Fabric}
				got, gotErr := shared.Estimate(h)
				fresh, err := m.Prepare(w, perf.ValidateOptions{})
				if err != nil {
					t.Fatal(err)
				}
				want, wantErr := fresh.Estimate(h)
				if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
					t.Fatalf("workload %d on %d× %s (%v Gbps %s), round %d:\n got %+v %v\nwant %+v %v",
						wi, gpus, a.ID, net.NetworkGbps, net.Fabric, i/len(ids)+1, got, gotErr, want, wantErr)
				}
			}
		}
	}
}

// TestMinGPUsToFitSharedAcrossAccelerators: a prepared workload memoizes
// the least memory per GPU of its layouts by GPU count and node size (or
// scale-up domain) and reads it for every accelerator; asked about every
// fixture accelerator in turn, on nodes of 1 to 8, it answers as a
// workload prepared afresh for each.
func TestMinGPUsToFitSharedAcrossAccelerators(t *testing.T) {
	m := model(t)
	for _, w := range identityWorkloads {
		shared, err := m.Prepare(w, perf.ValidateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range fixtureAccelerators(t) {
			for _, gpn := range []int{1, 2, 4, 8} {
				fresh, err := m.Prepare(w, perf.ValidateOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if got, want := shared.MinGPUsToFit(a, gpn), fresh.MinGPUsToFit(a, gpn); got != want {
					t.Errorf("%s %gB on %s, %d per node: shared %d, afresh %d", w.Kind, w.ModelParametersB, a.ID, gpn, got, want)
				}
			}
		}
	}
}
