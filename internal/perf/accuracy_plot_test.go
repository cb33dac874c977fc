// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package perf_test

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"testing"
)

// The report's plot, docs/accuracy.png: every leave-one-source-out
// prediction against its published value on log-log axes (all units
// together: tokens/s, time ratios, GPU-hours, MFU), the diagonal where
// they agree and the ±35 % band around it. Inference is blue, training
// orange; decades are marked and labelled (10^k as "k").

const (
	plotPath = "../../docs/accuracy.png"
	plotSize = 720
	plotPad  = 48
)

var (
	plotInference = color.RGBA{31, 119, 180, 255}
	plotTraining  = color.RGBA{255, 127, 14, 255}
	plotGrid      = color.RGBA{225, 225, 225, 255}
	plotBand      = color.RGBA{170, 170, 170, 255}
	plotInk       = color.RGBA{0, 0, 0, 255}
)

// accuracyPlot draws the plot of cases.
func accuracyPlot(cases []refCase) []byte {
	img := image.NewRGBA(image.Rect(0, 0, plotSize, plotSize))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, c := range cases {
		for _, v := range []float64{c.published, c.predicted} {
			if v > 0 {
				lo, hi = math.Min(lo, math.Log10(v)), math.Max(hi, math.Log10(v))
			}
		}
	}
	lo, hi = math.Floor(lo), math.Ceil(hi)
	span := float64(plotSize - 2*plotPad)
	px := func(l float64) int { return plotPad + int((l-lo)/(hi-lo)*span) }
	py := func(l float64) int { return plotSize - plotPad - int((l-lo)/(hi-lo)*span) }
	for d := lo; d <= hi; d++ {
		for i := plotPad; i <= plotSize-plotPad; i++ {
			img.Set(px(d), i, plotGrid)
			img.Set(i, py(d), plotGrid)
		}
		drawNumber(img, int(d), px(d)-4, plotSize-plotPad+8)
		drawNumber(img, int(d), 8, py(d)-3)
	}
	for i := 0; i <= 4*int(span); i++ {
		l := lo + float64(i)/(4*span)*(hi-lo)
		img.Set(px(l), py(l), plotInk)
		if i%8 < 4 {
			img.Set(px(l), py(l+math.Log10(1.35)), plotBand)
			img.Set(px(l), py(l+math.Log10(0.65)), plotBand)
		}
	}
	for _, c := range cases {
		if !(c.published > 0 && c.predicted > 0) {
			continue
		}
		col := plotInference
		if c.group == "training" {
			col = plotTraining
		}
		x, y := px(math.Log10(c.published)), py(math.Log10(c.predicted))
		for dx := -2; dx <= 2; dx++ {
			for dy := -2; dy <= 2; dy++ {
				img.Set(x+dx, y+dy, col)
			}
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// digitGlyphs are 3×5 bitmaps of 0–9 and the minus sign, rows top down.
var digitGlyphs = map[rune][5]string{
	'0': {"###", "#.#", "#.#", "#.#", "###"}, '1': {".#.", "##.", ".#.", ".#.", "###"},
	'2': {"###", "..#", "###", "#..", "###"}, '3': {"###", "..#", "###", "..#", "###"},
	'4': {"#.#", "#.#", "###", "..#", "..#"}, '5': {"###", "#..", "###", "..#", "###"},
	'6': {"###", "#..", "###", "#.#", "###"}, '7': {"###", "..#", "..#", "..#", "..#"},
	'8': {"###", "#.#", "###", "#.#", "###"}, '9': {"###", "#.#", "###", "..#", "###"},
	'-': {"...", "...", "###", "...", "..."},
}

// drawNumber writes n at (x, y) in the 3×5 glyphs scaled by 2.
func drawNumber(img *image.RGBA, n, x, y int) {
	for _, r := range itoa(n) {
		g := digitGlyphs[r]
		for row, line := range g {
			for col, ch := range line {
				if ch == '#' {
					for sx := 0; sx < 2; sx++ {
						for sy := 0; sy < 2; sy++ {
							img.Set(x+2*col+sx, y+2*row+sy, plotInk)
						}
					}
				}
			}
		}
		x += 8
	}
}

func itoa(n int) string {
	if n < 0 {
		return "-" + itoa(-n)
	}
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// writeOrCheckPlot writes the plot with -update-report and otherwise
// fails when the committed one differs.
func writeOrCheckPlot(t *testing.T, cases []refCase) {
	png := accuracyPlot(cases)
	if *updateReport {
		if err := os.WriteFile(plotPath, png, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(plotPath)
	if err != nil || !bytes.Equal(got, png) {
		t.Errorf("%s is stale: run `make accuracy` and commit the result", plotPath)
	}
}
