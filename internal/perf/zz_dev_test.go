package perf_test

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
)

// TestDevIX prints, per frontier row, the model's mean TPOT at the row's concurrency (no limit) vs the measured median.
func TestDevIX(t *testing.T) {
	if os.Getenv("DEVIX") == "" {
		t.Skip()
	}
	m := model(t)
	lookup := accuracyLookup(t)
	filter := os.Getenv("DEVIX")
	groups := map[string][]*ixRow{}
	rows := readInferenceX(t)
	for i := range rows {
		groups[rows[i].group()] = append(groups[rows[i].group()], &rows[i])
	}
	var keys []string
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var ratios []float64
	for _, k := range keys {
		if filter != "all" && !strings.Contains(k, filter) {
			continue
		}
		for _, r := range paretoFrontier(groups[k]) {
			model := inferencexModel[r.model]
			if ixExclusion(r, model) != "" {
				continue
			}
			dep, ok := ixDeployment(r)
			if !ok {
				continue
			}
			a, _ := lookup(inferencexAccelerator[r.hardware])
			w := ixWorkload(r, model)
			p, _ := m.Prepare(w, perf.ValidateOptions{})
			est, _ := p.EstimateFixed(perf.Hardware{Accelerator: a, GPUs: r.gpus, GPUsPerNode: min(r.gpus, r.gpusPerNode)}, dep)
			lengths := float64(w.InputTokens+w.OutputTokens) / float64(w.OutputTokens)
			pred := est.TokensPerSecond * lengths / float64(r.gpus)
			ratio := est.TPOTMs / r.medTPOTMs
			ratios = append(ratios, ratio)
			b := est.Breakdown
			fmt.Printf("%-44s %-6s %-16s c=%-5d g=%-3d dep=%+v | tput pub %7.0f pred %7.0f (%+4.0f%%) | TPOT med %5.1f model %5.1f ratio %.2f | b=%d fits=%v shares exp %.2f att %.2f comm %.2f oth %.2f ttft %.0f\n",
				k, r.spec, servingLabel(r.raw), r.conc, r.gpus, dep, r.tputPerGPU, pred, (pred/r.tputPerGPU-1)*100, r.medTPOTMs, est.TPOTMs, ratio, est.Batch, est.Fits, b.ExpertTime, b.AttentionTime, b.CommunicationTime, b.OtherTime, est.TTFTMs)
		}
	}
	sort.Float64s(ratios)
	if len(ratios) > 0 {
		fmt.Printf("n=%d median TPOT ratio %.2f q10 %.2f q90 %.2f\n", len(ratios), ratios[len(ratios)/2], ratios[len(ratios)/10], ratios[len(ratios)*9/10])
	}
}
