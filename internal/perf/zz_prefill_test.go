package perf_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
)

func TestDevPrefill(t *testing.T) {
	if os.Getenv("DEVPF") == "" {
		t.Skip()
	}
	m := model(t)
	lookup := accuracyLookup(t)
	meas := map[string]float64{"H200 fp8 1024": 4000, "H200 fp8 8192": 3349, "B200 fp8 1024": 7411, "B200 fp8 8192": 6520, "B200 fp4 1024": 17778, "B200 fp4 8192": 16966,
		"GB200 fp4 1024": 19613, "GB200 fp4 8192": 18124, "GB200 fp8 1024": 9833, "GB200 fp8 8192": 10967, "MI355X fp4 1024": 11100, "MI355X fp4 8192": 13500, "MI355X fp8 1024": 3322, "MI355X fp8 8192": 5456, "H100 fp8 1024": 1032, "H100 fp8 8192": 1128}
	for _, hwn := range []string{"H100", "H200", "B200", "GB200", "MI355X"} {
		for _, prec := range []string{"fp8", "fp4"} {
			for _, isl := range []int{1024, 8192} {
				k := fmt.Sprintf("%s %s %d", hwn, prec, isl)
				if meas[k] == 0 {
					continue
				}
				a, _ := lookup(hwn)
				w := perf.Workload{Kind: "inference", Model: "deepseek-r1", Precision: prec, InputTokens: isl * 9 / 10, OutputTokens: 900}
				p, _ := m.Prepare(w, perf.ValidateOptions{})
				tp := 8
				if prec == "fp4" && hwn != "MI355X" {
					tp = 4
				}
				if hwn == "H100" {
					tp = 16
				}
				s := p.PrefillSeconds(perf.Hardware{Accelerator: a, GPUs: 16, GPUsPerNode: 8}, tp, true)
				rate := float64(w.InputTokens) / s / float64(tp)
				fmt.Printf("%-18s model %7.0f tok/s/GPU measured %7.0f ratio %.2f\n", k, rate, meas[k], rate/meas[k])
			}
		}
	}
}
