// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/inputerr"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
	"github.com/gpuplan/terraform-provider-gpu/internal/planner"
)

// stackPlanner is the fixture planner plus T9, an 80 GB part of vendor
// Google (stack xla) at 3 TB/s, sold by gamma in ap-1 as g.t9 (1× T9) at
// $0.50 an hour on demand, far below the X100's $3; purpose sets T9's
// purpose ("" = both).
func stackPlanner(t *testing.T, purpose string) *planner.Planner {
	t.Helper()
	fsys := fixtureFS()
	acc := string(fsys[catalog.FileAccelerators].Data)
	acc = strings.Replace(acc, "\n]}", `,
{"id":"T9","name":"Test T9","vendor":"Google","purpose":"`+purpose+`","family":"tpu","aliases":[],"memory_gb":80,"memory_bandwidth_tbps":3,"peak_tflops":{"bf16":900,"fp8":1800},"tdp_watts":300,"interconnect":"ICI","interconnect_gbps":100,"interconnect_kind":"pcie","nvlink_domain_gpus":1}
]}`, 1)
	fsys[catalog.FileAccelerators].Data = []byte(acc)
	fsys[catalog.FileOffers].Data = append(fsys[catalog.FileOffers].Data,
		[]byte("gamma,ap-1,g.t9,T9,1,80,8,64,25,none,0.5,,,,false,USD,,,,,t\n")...)
	cat, err := catalog.Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	p, err := planner.New(cat, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

var serve16B = perf.Workload{Kind: "inference", ModelParametersB: 16, TokensPerSecond: 2000}

// TestStacksDefaultLeavesOutAndNamesTheCheaperPart: by default only CUDA
// parts are candidates; the cheaper xla part is rejected for
// software_stacks, and the best explanation says what it would cost and
// how to allow it.
func TestStacksDefaultLeavesOutAndNamesTheCheaperPart(t *testing.T) {
	p := stackPlanner(t, "")
	res, err := p.Recommend(fixtureRequest(serve16B, planner.Constraints{}, planner.ObjectiveCost))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Candidates {
		if c.SoftwareStack != "cuda" || c.Accelerator == "T9" {
			t.Errorf("candidate %s on %s (stack %s): only cuda parts are candidates by default", c.InstanceType, c.Accelerator, c.SoftwareStack)
		}
	}
	if !hasRejection(res.Rejected, planner.ReasonSoftwareStacks) {
		t.Errorf("rejected = %v, want software_stacks", res.Rejected)
	}
	l := res.LeftOut
	// One g.t9 ($0.50/h) serves 3,000 tok/s: $365 a month on demand.
	if l == nil || l.Accelerator != "T9" || l.SoftwareStack != "xla" || math.Abs(l.EstimatedCostUSD-365) > 1e-6 ||
		l.EstimatedCostUSD >= res.Best.EstimatedCostUSD {
		t.Fatalf("LeftOut = %+v, want the cheaper T9 on xla at $365 a month", l)
	}
	for _, want := range []string{"a cheaper candidate on software stack xla was left out: 1× T9 (1× g.t9, gamma ap-1, on_demand) at $",
		`allow it with constraints.software_stacks = ["cuda", "xla"]`} {
		if !strings.Contains(res.Best.Explanation, want) {
			t.Errorf("best explanation %q lacks %q", res.Best.Explanation, want)
		}
	}
	if sum := planner.Summary(res, planner.SummaryOptions{Inference: true}); !strings.Contains(sum,
		"Left out, software stack xla not allowed: gamma ap-1 g.t9 × 1, 1× T9, on_demand, 365.00 USD/MONTH") {
		t.Errorf("summary does not name the left-out candidate:\n%s", sum)
	}
	if len(res.Candidates) > 1 && strings.Contains(res.Candidates[1].Explanation, "left out") {
		t.Errorf("only the best names the left-out candidate: %q", res.Candidates[1].Explanation)
	}
}

// TestStacksOptIn: allowing xla (any case) makes the T9 the best, with
// nothing left out.
func TestStacksOptIn(t *testing.T) {
	p := stackPlanner(t, "")
	res, err := p.Recommend(fixtureRequest(serve16B, planner.Constraints{SoftwareStacks: []string{"CUDA", " Xla "}}, planner.ObjectiveCost))
	if err != nil {
		t.Fatal(err)
	}
	if res.Best.Accelerator != "T9" || res.Best.SoftwareStack != "xla" || res.LeftOut != nil {
		t.Errorf("best = %s (%s), left out %v; want T9 on xla and nothing left out", res.Best.Accelerator, res.Best.SoftwareStack, res.LeftOut)
	}
	if strings.Contains(res.Best.Explanation, "left out") {
		t.Errorf("explanation %q names a left-out candidate", res.Best.Explanation)
	}
}

// TestStacksNoLeftOutWhenDearer: a part on another stack that costs more
// than the best is not named.
func TestStacksNoLeftOutWhenDearer(t *testing.T) {
	p := stackPlanner(t, "")
	// Y10 (cuda, $0.80, 300 tok/s, 24 GB) holds 8B; 200 tok/s needs one.
	w := perf.Workload{Kind: "inference", ModelParametersB: 8, TokensPerSecond: 200}
	res, err := p.Recommend(fixtureRequest(w, planner.Constraints{Clouds: []string{"alpha", "gamma"}}, planner.ObjectiveCost))
	if err != nil {
		t.Fatal(err)
	}
	if res.LeftOut != nil && res.LeftOut.EstimatedCostUSD >= res.Best.EstimatedCostUSD {
		t.Errorf("LeftOut %+v costs no less than the best %+v", res.LeftOut, res.Best)
	}
}

// TestStacksMethodAndPrecisionAndPurpose: QLoRA does not run on xla, FP8
// training does not run on xla, an inference-only part never trains;
// each, when it binds, is a no-candidate error on the workload attribute.
func TestStacksMethodAndPrecisionAndPurpose(t *testing.T) {
	qlora := perf.Workload{Kind: "fine_tuning", ModelParametersB: 8, TrainingTokensB: 1, FineTuningMethod: "qlora"}
	fp8 := perf.Workload{Kind: "training", ModelParametersB: 1, TrainingTokensB: 1, Precision: "fp8"}
	lora := perf.Workload{Kind: "fine_tuning", ModelParametersB: 8, TrainingTokensB: 1}
	for _, tc := range []struct {
		name, purpose, reason, path string
		w                           perf.Workload
	}{
		{"qlora on xla", "", planner.ReasonStackMethod, "workload.fine_tuning_method", qlora},
		{"fp8 training on xla", "", planner.ReasonStackPrecision, "workload.precision", fp8},
		{"training on an inference part", catalog.PurposeInference, planner.ReasonInferenceOnly, "workload.kind", lora},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := stackPlanner(t, tc.purpose)
			c := planner.Constraints{SoftwareStacks: []string{"xla"}, Accelerators: []string{"T9"}}
			_, err := p.Recommend(fixtureRequest(tc.w, c, planner.ObjectiveCost))
			var nc *planner.NoCandidateError
			if !errors.As(err, &nc) || nc.Reason != tc.reason || nc.Path.String() != tc.path {
				t.Fatalf("err = %v, want a no-candidate error %s at %s", err, tc.reason, tc.path)
			}
			// With cuda allowed too, the X100 runs it.
			c = planner.Constraints{SoftwareStacks: []string{"xla", "cuda"}}
			res, err := p.Recommend(fixtureRequest(tc.w, c, planner.ObjectiveCost))
			if err != nil {
				t.Fatal(err)
			}
			if res.Best.Accelerator == "T9" || !hasRejection(res.Rejected, tc.reason) {
				t.Errorf("best %s, rejected %v: want a cuda part and %s counted", res.Best.Accelerator, res.Rejected, tc.reason)
			}
		})
	}
}

// TestStacksDefaultBindsWithMessage: when only other stacks could run the
// workload, the error names the default, the stacks left and the fix.
func TestStacksDefaultBindsWithMessage(t *testing.T) {
	p := stackPlanner(t, "")
	_, err := p.Recommend(fixtureRequest(serve16B, planner.Constraints{Accelerators: []string{"T9"}}, planner.ObjectiveCost))
	var nc *planner.NoCandidateError
	if !errors.As(err, &nc) || nc.Reason != planner.ReasonSoftwareStacks || nc.Path.String() != "constraints.software_stacks" {
		t.Fatalf("err = %v, want software_stacks at constraints.software_stacks", err)
	}
	if want := "the default software stacks (cuda) run on none of the offers left, which run xla: add one to constraints.software_stacks"; !strings.Contains(nc.Detail, want) {
		t.Errorf("detail %q lacks %q", nc.Detail, want)
	}
}

// TestStacksUnknownName: a misspelled stack is an input error naming the
// closest one.
func TestStacksUnknownName(t *testing.T) {
	p := stackPlanner(t, "")
	_, err := p.Recommend(fixtureRequest(serve16B, planner.Constraints{SoftwareStacks: []string{"cuda", "cdua"}}, planner.ObjectiveCost))
	var errs inputerr.List
	if !errors.As(err, &errs) || len(errs) != 1 || errs[0].Path.String() != "constraints.software_stacks[1]" ||
		!strings.Contains(errs[0].Detail, `Closest: "cuda"`) {
		t.Fatalf("err = %v, want one error at constraints.software_stacks[1] suggesting cuda", err)
	}
}

func hasRejection(rej []planner.Rejection, reason string) bool {
	for _, r := range rej {
		if r.Reason == reason && r.Count > 0 {
			return true
		}
	}
	return false
}

// TestUnknownCO2eRanksAsWorstKnown: without a carbon price the Z1 (no
// power figure, region of unknown grid intensity) is the cheapest for a
// small model; with one, its unknown CO2e counts as the worst known
// figure, never as zero, so a part of known CO2e wins, and the Z1's
// explanation says how it was ranked.
func TestUnknownCO2eRanksAsWorstKnown(t *testing.T) {
	p := fixturePlanner(t)
	w := perf.Workload{Kind: "inference", ModelParametersB: 4, TokensPerSecond: 150}
	req := fixtureRequest(w, planner.Constraints{}, planner.ObjectiveCost)
	res, err := p.Recommend(req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Best.Accelerator != "Z1" || res.Best.CO2eKnown {
		t.Fatalf("without a carbon price the best is %s (CO2e known %v), want the unknown-CO2e Z1", res.Best.Accelerator, res.Best.CO2eKnown)
	}
	req = fixtureRequest(w, planner.Constraints{}, planner.ObjectiveCost)
	req.CarbonPriceUSDPerTonne = 10000
	req.Top, req.DistinctBy = 100, planner.DistinctDeployment
	res, err = p.Recommend(req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Feasible > len(res.Candidates) {
		t.Fatalf("%d feasible, %d returned: the worst known CO2e is not among them", res.Feasible, len(res.Candidates))
	}
	if !res.Best.CO2eKnown {
		t.Errorf("with a carbon price the best %s has unknown CO2e: it ranked as zero carbon", res.Best.Accelerator)
	}
	worst := 0.0
	for _, c := range res.Candidates {
		if c.CO2eKnown {
			worst = max(worst, c.EstimatedCO2eKg)
		}
	}
	for _, c := range res.Candidates {
		if c.CO2eKnown {
			continue
		}
		want := c.EstimatedCostUSD + worst/1000*req.CarbonPriceUSDPerTonne
		if diff := c.Score - want; diff > 0.01 || diff < -0.01 {
			t.Errorf("%s %s: score %v, want cost + the worst known CO2e's carbon cost %v", c.Cloud, c.InstanceType, c.Score, want)
		}
		if !strings.Contains(c.Explanation, "ranked as the worst known CO2e") {
			t.Errorf("%s: explanation %q does not say how its unknown CO2e ranked", c.InstanceType, c.Explanation)
		}
	}
}
