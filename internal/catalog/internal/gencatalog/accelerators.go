// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package main

import (
	"log"
	"strconv"
	"strings"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// accelCur is an entry of curated/accelerators.json: either a row of
// accelerators.csv (source_row) with corrections and extra precisions, or a
// part that file lacks, with its own datasheet figures and source.
type accelCur struct {
	ID         string             `json:"id"`
	SourceRow  string             `json:"source_row"`
	Family     string             `json:"family"`
	Aliases    []string           `json:"aliases"`
	Remove     []string           `json:"remove"`
	Add        map[string]float64 `json:"add"`
	AddNotes   string             `json:"add_notes"`
	Fix        map[string]float64 `json:"fix"`
	FixNotes   string             `json:"fix_notes"`
	Name       string             `json:"name"`
	Vendor     string             `json:"vendor"`
	MemoryGB   float64            `json:"memory_gb"`
	MemoryType string             `json:"memory_type"`
	BW         float64            `json:"memory_bandwidth_tbps"`
	Peak       map[string]float64 `json:"peak_tflops"`
	TDP        float64            `json:"tdp_watts"`
	IC         string             `json:"interconnect"`
	ICGBps     float64            `json:"interconnect_gbps"`
	Form       string             `json:"form_factor"`
	Confidence string             `json:"confidence"`
	Source     string             `json:"source"`
	// Kind and DomainGPUs are the structured scale-up link and its domain
	// size, with their source in DomainNotes.
	Kind        catalog.InterconnectKind `json:"interconnect_kind"`
	DomainGPUs  int                      `json:"nvlink_domain_gpus"`
	DomainNotes string                   `json:"domain_notes"`
	// PowerEstimate is a board power for a part whose vendor publishes
	// none (no TDP in the source row), with how it was estimated and from
	// what in PowerNotes.
	PowerEstimate float64 `json:"power_estimate_watts"`
	PowerNotes    string  `json:"power_notes"`
	// Purpose is what the part is for (catalog.Purposes; "" = both), with
	// its source in PurposeNotes.
	Purpose      string `json:"purpose"`
	PurposeNotes string `json:"purpose_notes"`
}

// loadAccelerators builds the accelerators from accelerators.csv and
// curated/accelerators.json, and the alias index used to map source names.
func (g *gen) loadAccelerators() {
	rows := readRecs(src("accelerators.csv"))
	byName := map[string]rec{}
	for _, r := range rows {
		byName[r["name"]] = r
	}
	var cur0 struct {
		Accelerators []accelCur `json:"accelerators"`
	}
	readJSON(cur("accelerators.json"), &cur0)
	used := map[string]bool{}
	g.accelKey = map[string]string{}
	g.accelMem = map[string]float64{}
	for _, c := range cur0.Accelerators {
		var a *catalog.Accelerator
		if c.SourceRow != "" {
			r, ok := byName[c.SourceRow]
			if !ok {
				log.Fatalf("accelerator %s: no row %q in accelerators.csv", c.ID, c.SourceRow)
			}
			used[c.SourceRow] = true
			a = accelFromRow(c, r)
		} else {
			a = accelFromCurated(c)
		}
		applyCorrections(a, c)
		applyPowerAndPurpose(a, c)
		g.addAccelerator(a)
	}
	for _, r := range rows {
		if !used[r["name"]] {
			log.Fatalf("accelerators.csv row %q not used", r["name"])
		}
	}
}

// accelFromRow is an accelerator read from its accelerators.csv row.
func accelFromRow(c accelCur, r rec) *catalog.Accelerator {
	a := &catalog.Accelerator{ID: c.ID, Family: c.Family, Aliases: c.Aliases}
	a.Name, a.Vendor, a.MemoryType = r["name"], r["vendor"], r["memory_type"]
	a.MemoryGB, a.MemoryBandwidthTBps = num(r["memory_gb"]), num(r["mem_bw_tbps"])
	a.TDPWatts = num(r["tdp_w"])
	a.Interconnect, a.InterconnectGBps = r["interconnect"], num(r["interconnect_bw_gbps_per_device"])
	a.FormFactor, a.Confidence = r["form_factor"], r["confidence"]
	a.PeakTFLOPS = map[string]float64{}
	set := func(k, col string) {
		if v := num(r[col]); v > 0 {
			a.PeakTFLOPS[k] = v
		}
	}
	set("bf16", "bf16_fp16_dense_tflops")
	set("fp16", "bf16_fp16_dense_tflops")
	set("fp8", "fp8_dense_tflops")
	set("fp32", "fp32_tflops")
	set("int8", "int8_dense_tops")
	a.Source = "accelerators.csv row " + strconv.Quote(r["name"]) + ": " + r["source_url"] + " (confidence: " + r["confidence"] + "; verified: " + r["verified_against_source"] + ")"
	return a
}

// accelFromCurated is an accelerator given whole in curated/accelerators.json.
func accelFromCurated(c accelCur) *catalog.Accelerator {
	a := &catalog.Accelerator{ID: c.ID, Family: c.Family, Aliases: c.Aliases}
	a.Name, a.Vendor, a.MemoryType = c.Name, c.Vendor, c.MemoryType
	a.MemoryGB, a.MemoryBandwidthTBps, a.TDPWatts = c.MemoryGB, c.BW, c.TDP
	a.Interconnect, a.InterconnectGBps, a.FormFactor, a.Confidence = c.IC, c.ICGBps, c.Form, c.Confidence
	a.PeakTFLOPS = map[string]float64{}
	for k, v := range c.Peak {
		a.PeakTFLOPS[k] = v
	}
	a.Source = "not in accelerators.csv; " + c.Source
	return a
}

// applyCorrections applies the curated entry's precision changes, fixes
// and scale-up domain, noting each in the source.
func applyCorrections(a *catalog.Accelerator, c accelCur) {
	for _, p := range c.Remove {
		delete(a.PeakTFLOPS, p)
	}
	for k, v := range c.Add {
		a.PeakTFLOPS[k] = v
	}
	for k, v := range c.Fix {
		switch k {
		case "tdp_watts":
			a.TDPWatts = v
		case "memory_gb":
			a.MemoryGB = v
		default:
			log.Fatalf("accelerator %s: unknown fix %q", c.ID, k)
		}
	}
	if c.AddNotes != "" {
		a.Source += "; precisions: " + c.AddNotes
	}
	if c.FixNotes != "" {
		a.Source += "; correction: " + c.FixNotes
	}
	if c.Kind == "" || c.DomainGPUs < 1 || c.DomainNotes == "" {
		log.Fatalf("accelerator %s: interconnect_kind, nvlink_domain_gpus and domain_notes (their source) are required", c.ID)
	}
	a.InterconnectKind, a.NVLinkDomainGPUs = c.Kind, c.DomainGPUs
	a.Source += "; interconnect_kind " + string(c.Kind) + ", scale-up domain " + strconv.Itoa(c.DomainGPUs) + ": " + c.DomainNotes
}

// addAccelerator indexes a by its ID and aliases (unique, lower case).
func (g *gen) addAccelerator(a *catalog.Accelerator) {
	for _, k := range append([]string{a.ID}, a.Aliases...) {
		lk := strings.ToLower(k)
		if prev, dup := g.accelKey[lk]; dup {
			log.Fatalf("alias %q of %s already names %s", k, a.ID, prev)
		}
		g.accelKey[lk] = a.ID
	}
	g.accelMem[a.ID] = a.MemoryGB
	g.accels = append(g.accels, a)
}

// accel maps a source accelerator name (with per-instance overrides) to a
// canonical ID; "" when the catalog has no such accelerator.
func (g *gen) accel(cloud, it, name string) string {
	if id, ok := g.instAcc[cloud+"/"+it]; ok {
		return id
	}
	return g.accelKey[strings.ToLower(strings.TrimSpace(name))]
}

// applyPowerAndPurpose sets a power estimate where the source has no TDP,
// the part's purpose and its software stack (its vendor's, from
// software_stacks.json), noting each in the source.
func applyPowerAndPurpose(a *catalog.Accelerator, c accelCur) {
	if c.PowerEstimate > 0 {
		if a.TDPWatts > 0 || c.PowerNotes == "" {
			log.Fatalf("accelerator %s: power_estimate_watts is for a part without a TDP, with its method in power_notes", c.ID)
		}
		a.TDPWatts = c.PowerEstimate
		a.Source += "; power: " + c.PowerNotes
	}
	a.Purpose = catalog.PurposeBoth
	if c.Purpose != "" {
		if c.PurposeNotes == "" {
			log.Fatalf("accelerator %s: purpose needs its source in purpose_notes", c.ID)
		}
		a.Purpose = c.Purpose
		a.Source += "; purpose " + c.Purpose + ": " + c.PurposeNotes
	}
	stacks, err := catalog.BuiltinSoftwareStacks()
	if err != nil {
		log.Fatal(err)
	}
	if a.SoftwareStack = stacks.OfVendor(a.Vendor); a.SoftwareStack == "" {
		log.Fatalf("accelerator %s: vendor %q has no stack in software_stacks.json", c.ID, a.Vendor)
	}
}
