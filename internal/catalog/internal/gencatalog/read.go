// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package main

import (
	"encoding/csv"
	"encoding/json"
	"log"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// readCSV reads a whole CSV file; every row must have the header's width.
func readCSV(p string) ([]string, [][]string) {
	f, err := os.Open(p)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	rows, err := r.ReadAll()
	if err != nil {
		log.Fatalf("%s: %v", p, err)
	}
	for i, row := range rows[1:] {
		if len(row) != len(rows[0]) {
			log.Fatalf("%s line %d: %d fields, header has %d", p, i+2, len(row), len(rows[0]))
		}
	}
	return rows[0], rows[1:]
}

// rec is a CSV row by column name, values trimmed.
type rec map[string]string

// readRecs reads a CSV file into recs.
func readRecs(p string) []rec {
	h, rows := readCSV(p)
	out := make([]rec, len(rows))
	for i, row := range rows {
		m := rec{}
		for j, k := range h {
			m[k] = strings.TrimSpace(row[j])
		}
		out[i] = m
	}
	return out
}

// num parses a number; "" is 0.
func num(s string) float64 {
	if s == "" {
		return 0
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		log.Fatalf("bad number %q", s)
	}
	return v
}

// gpusOf parses a source GPU count: whole GPUs, or a share of one GPU
// (g6f: 0.25) returned as the fraction with 0 whole GPUs.
func gpusOf(s, where string) (int, float64) {
	v := num(s)
	switch {
	case v > 0 && v < 1:
		return 0, v
	case v != math.Trunc(v):
		log.Fatalf("%s: GPU count %q is neither whole nor a share of one GPU", where, s)
	}
	return int(v), 0
}

// mbpsPerGbps converts the Mbps of Azure size tables to Gbps.
const mbpsPerGbps = 1000

// fraction parses a GPU share written as "1/6" or as a decimal; "" is 0.
func fraction(s string) float64 {
	if n, d, ok := strings.Cut(s, "/"); ok {
		nv, dv := num(n), num(d)
		if dv <= 0 {
			log.Fatalf("bad fraction %q", s)
		}
		return nv / dv
	}
	return num(s)
}

// round rounds v to d decimals.
func round(v float64, d int) float64 {
	p := math.Pow(10, float64(d))
	return math.Round(v*p) / p
}

// median of v (0 when empty).
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// readJSON decodes a JSON file.
func readJSON(p string, v any) {
	b, err := os.ReadFile(p)
	if err != nil {
		log.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		log.Fatalf("%s: %v", p, err)
	}
}

// src and cur name a file of the sources and curated directories.
func src(name string) string { return filepath.Join(*srcDir, name) }
func cur(name string) string { return filepath.Join(*curatedDir, name) }
