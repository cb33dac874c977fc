// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package cost_test

import (
	"encoding/csv"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/cost"
)

// TestNodePowerMatchesMeasurements checks the node power model (GPUs × TDP
// × (load factor + host share)) against every whole-system figure of
// testdata/node_power.csv (each row with its source): a measured training
// draw of 8× H100 nodes lies in the measured range, an MI300X inference node
// near its measured range, a rack-scale NVL72 near its reported power, and
// no system above its rated (nameplate) input while drawing at least half
// of it in training. Rows flagged SUSPECT in their source and systems of
// accelerators the catalog lacks are skipped.
func TestNodePowerMatchesMeasurements(t *testing.T) {
	t.Parallel()
	m, err := cost.DefaultModel()
	if err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	// The catalog accelerator of each system's accelerator column.
	ids := map[string]string{
		"A100 SXM4": "A100-80GB", "H100 / H200 SXM5": "H100", "H100 SXM5": "H100", "B200": "B200",
		"B300 (Blackwell Ultra)": "B300", "B300": "B300", "B200 (GB200 superchips)": "GB200", "B200 (GB200)": "GB200",
		"AMD MI300X": "MI300X",
	}
	f, err := os.Open("testdata/node_power.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	// ranges of measured draws per (system kind, workload), from the rows.
	type span struct{ lo, hi float64 }
	measured := map[string]*span{}
	checked := 0
	for _, r := range rows[1:] {
		id, ok := ids[r[col["accelerator"]]]
		if !ok || strings.Contains(r[col["confidence"]], "SUSPECT") {
			continue
		}
		acc, ok := cat.Accelerator(id)
		if !ok {
			t.Fatalf("catalog lacks %s", id)
		}
		n, _ := strconv.Atoi(r[col["accelerators_per_system"]])
		kw, _ := strconv.ParseFloat(r[col["kw"]], 64)
		metric := r[col["metric"]]
		kind := "training"
		if strings.Contains(r[col["system"]], "inference") {
			kind = "inference"
		}
		model := m.NodePowerKW(&catalog.Offer{GPUs: n}, acc, kind)
		checked++
		switch {
		case strings.HasPrefix(metric, "spec_max") || strings.Contains(metric, "rack_design") || strings.Contains(metric, "su_") ||
			strings.Contains(metric, "spec_system") || strings.Contains(metric, "planning"):
			// A rating: the model never exceeds it and draws at least half of it.
			if model > kw || model < kw/2 {
				t.Errorf("%s (%s, %d× %s): model %.2f kW in %s, rating %.2f kW", r[col["system"]], metric, n, id, model, kind, kw)
			}
		default:
			key := id + "/" + kind + "/" + strconv.Itoa(n)
			s := measured[key]
			if s == nil {
				s = &span{kw, kw}
				measured[key] = s
			}
			s.lo, s.hi = min(s.lo, kw), max(s.hi, kw)
		}
	}
	for key, s := range measured {
		parts := strings.Split(key, "/")
		acc, _ := cat.Accelerator(parts[0])
		n, _ := strconv.Atoi(parts[2])
		model := m.NodePowerKW(&catalog.Offer{GPUs: n}, acc, parts[1])
		// Measurements of one system kind bracket the model within 5 %.
		if model < 0.95*s.lo || model > 1.05*s.hi {
			t.Errorf("%s: model %.2f kW outside the measured %.2f–%.2f kW", key, model, s.lo, s.hi)
		}
	}
	if checked < 15 || len(measured) < 3 {
		t.Fatalf("only %d rows and %d measured systems checked", checked, len(measured))
	}
	// Energy per GPU-hour of an 8× H100 instance in training, before PUE:
	// within the measured nodes' 0.71–1.05 kWh.
	h100, _ := cat.Accelerator("H100")
	if per := m.NodePowerKW(&catalog.Offer{GPUs: 8}, h100, "training") / 8; per < 0.85 || per > 1.05 {
		t.Errorf("8× H100 training: %.3f kWh per GPU-hour before PUE", per)
	}
}
