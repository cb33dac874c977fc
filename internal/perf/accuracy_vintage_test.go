// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package perf_test

import (
	"math"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
)

// The software vintage of the reference results: each is scored with the
// stack of its own publication date (perf.Model.AtStackDate), and the
// law's gain per year is fitted from repeated results of the same
// hardware, benchmark and scenario across rounds, which isolate software.

// originDates are the publication dates of the source families whose rows
// carry no date of their own: MLPerf rounds (MLCommons' results
// announcements) and papers (first arXiv version). InferenceX rows carry
// their run's date.
var originDates = map[string]string{
	"MLPerf Inference v4.0": "2024-03-27",
	"MLPerf Inference v4.1": "2024-08-28",
	"MLPerf Inference v5.0": "2025-04-02",
	"MLPerf Training v3.1":  "2023-11-08",
	"MLPerf Training v4.0":  "2024-06-12",
	"MLPerf Training v4.1":  "2024-11-13",
	"MLPerf Training v5.0":  "2025-06-04",
	"Megatron-LM paper":     "2021-04-09", // arXiv 2104.04473
	"PaLM paper":            "2022-04-05", // arXiv 2204.02311
	"Llama 2 paper":         "2023-07-18", // arXiv 2307.09288
	"MegaScale paper":       "2024-02-23", // arXiv 2402.15627
	"Llama 3 paper":         "2024-07-31", // arXiv 2407.21783
}

func originDate(t testing.TB, origin string) string {
	d, ok := originDates[origin]
	if !ok {
		t.Fatalf("no publication date for source family %q (originDates)", origin)
	}
	return d
}

// atDate is m with the software stack of date (YYYY-MM-DD).
func atDate(t testing.TB, m *perf.Model, date string) *perf.Model {
	d, err := time.Parse("2006-01-02", date)
	if err != nil {
		t.Fatalf("result date %q: %v", date, err)
	}
	return m.AtStackDate(d)
}

// repeatPoint is one configuration's best result of one date.
type repeatPoint struct {
	date   string
	origin string
	speed  float64 // throughput, or 1 / time per trained token
}

// repeatSeries is the results of one configuration (hardware, benchmark,
// scenario, system size; for InferenceX also engine, layout and
// concurrency) over dates; platform is the hardware and source it counts
// under, kind "inference" or "training".
type repeatSeries struct {
	kind, platform string
	points         []repeatPoint
}

// add keeps the best result per date: a lower one the same day is another
// submitter's untuned or power-capped system, not the stack of that day.
func (s *repeatSeries) add(p repeatPoint) {
	for i := range s.points {
		if s.points[i].date == p.date {
			s.points[i].speed = math.Max(s.points[i].speed, p.speed)
			return
		}
	}
	s.points = append(s.points, p)
}

// slope is the least-squares slope of ln(speed) over years, and its
// weight Σ(t − t̄)² (long spans and more dates weigh more); ok is false
// with fewer than two dates.
func (s *repeatSeries) slope(exclude string) (b, weight float64, ok bool) {
	var ts, ys []float64
	for _, p := range s.points {
		if p.origin == exclude {
			continue
		}
		d, err := time.Parse("2006-01-02", p.date)
		if err != nil {
			continue
		}
		ts = append(ts, float64(d.Unix())/86400/365.25)
		ys = append(ys, math.Log(p.speed))
	}
	if len(ts) < 2 {
		return 0, 0, false
	}
	var tm, ym float64
	for i := range ts {
		tm += ts[i] / float64(len(ts))
		ym += ys[i] / float64(len(ts))
	}
	var sxy, sxx float64
	for i := range ts {
		sxy += (ts[i] - tm) * (ys[i] - ym)
		sxx += (ts[i] - tm) * (ts[i] - tm)
	}
	if sxx <= 0 {
		return 0, 0, false
	}
	return sxy / sxx, sxx, true
}

type weighted struct{ v, w float64 }

// weightedMedian is the value at half the total weight (by rising value).
func weightedMedian(xs []weighted) float64 {
	sort.Slice(xs, func(i, j int) bool { return xs[i].v < xs[j].v })
	var total, acc float64
	for _, x := range xs {
		total += x.w
	}
	for _, x := range xs {
		acc += x.w
		if acc >= total/2 {
			return x.v
		}
	}
	return 0
}

// vintageGain fits g of one kind from the series without the points of
// origin exclude: within each platform (hardware × source) the
// weighted median of its configurations' slopes, so the many concurrency
// points of one platform are one piece of evidence; across platforms the
// median weighted by √(the platform's weight), so one young stack that
// gains 200 % a year (MI355X in early 2026) does not set the rate of all.
func vintageGain(series []*repeatSeries, kind, exclude string) float64 {
	byPlatform := map[string][]weighted{}
	for _, s := range series {
		if s.kind != kind {
			continue
		}
		if b, w, ok := s.slope(exclude); ok {
			byPlatform[s.platform] = append(byPlatform[s.platform], weighted{b, w})
		}
	}
	var platforms []weighted
	for _, xs := range byPlatform {
		var w float64
		for _, x := range xs {
			w += x.w
		}
		platforms = append(platforms, weighted{weightedMedian(xs), math.Sqrt(w)})
	}
	if len(platforms) == 0 {
		return 0
	}
	return math.Exp(weightedMedian(platforms)) - 1
}

// repeatedResults gathers the repeated configurations of the calibration
// data: MLPerf Inference (benchmark, scenario, accelerator, count, nodes),
// InferenceX (the row's whole configuration at one concurrency), MLPerf
// Training (benchmark, accelerator, count, nodes; speed = trained tokens
// per minute, or 1 / minutes when the logs give no tokens) and the one
// published model trained on the same GPU years apart (GPT-3 175B on A100:
// Megatron-LM's 2021 MFU and MegaScale's 2024 one).
func repeatedResults(t testing.TB, lookup accLookup) []*repeatSeries {
	byKey := map[string]*repeatSeries{}
	add := func(kind, platform, key string, p repeatPoint) {
		s, ok := byKey[key]
		if !ok {
			s = &repeatSeries{kind: kind, platform: platform}
			byKey[key] = s
		}
		if p.speed > 0 {
			s.add(p)
		}
	}
	for _, f := range mlperfInferenceFiles {
		for _, r := range readCSV(t, f) {
			shape, ok := llmShapes[r["benchmark"]]
			if !ok {
				continue
			}
			id := mlperfID(lookup, r["accelerator"], r["accelerator_raw"])
			v := num(r["result"])
			if r["unit"] == "Samples/s" {
				v *= float64(shape.out)
			}
			origin := "MLPerf Inference " + r["version"]
			add("inference", "MLPerf "+id, strings.Join([]string{"mi", r["benchmark"], r["scenario"], id, r["accelerator_count"], r["nodes"]}, "|"),
				repeatPoint{date: originDate(t, origin), origin: origin, speed: v})
		}
	}
	for _, r := range readInferenceX(t) {
		key := []string{"ix"}
		for _, c := range inferencexConfigColumns {
			key = append(key, r.raw[c])
		}
		add("inference", "InferenceX "+r.hardware, strings.Join(key, "|"),
			repeatPoint{date: r.raw["date"], origin: "InferenceX", speed: r.tputPerGPU})
	}
	for _, f := range mlperfTrainingFiles {
		for _, r := range readCSV(t, f) {
			if !trainingBenchmarks[r["benchmark"]] {
				continue
			}
			id := mlperfID(lookup, r["accelerator"], "")
			tr := trainRow{minutes: num(r["result_minutes"]), tokens: num(r["trained_tokens"]), runMinutes: num(r["mean_run_minutes"])}
			origin := "MLPerf Training " + r["version"]
			add("training", "MLPerf "+id, strings.Join([]string{"mt", r["benchmark"], id, r["accelerator_count"], r["nodes"]}, "|"),
				repeatPoint{date: originDate(t, origin), origin: origin, speed: 1 / tr.minutesPerToken()})
		}
	}
	// GPT-3 175B on A100: Megatron-LM (1,024 GPUs, 140 TFLOP/s with
	// recomputation = 0.337 model-FLOPs MFU) and MegaScale (12,288 GPUs,
	// 55.2 % MFU); realworld.md A5 and A6.
	for _, p := range []repeatPoint{{originDates["Megatron-LM paper"], "Megatron-LM paper", 140.0 / 312 * 6 / 8}, {originDates["MegaScale paper"], "MegaScale paper", 0.552}} {
		add("training", "papers A100", "paper|gpt3-175b|A100", p)
	}
	keys := make([]string, 0, len(byKey))
	for k := range byKey {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]*repeatSeries, 0, len(keys))
	for _, k := range keys {
		out = append(out, byKey[k])
	}
	return out
}

// inferencexConfigColumns identify one InferenceX serving configuration.
var inferencexConfigColumns = []string{"model", "hardware", "framework_key", "precision", "spec_method", "disagg", "isl", "osl", "conc",
	"num_gpus_total", "tp", "ep", "dp_attention", "prefill_tp", "prefill_ep", "prefill_num_workers", "decode_tp", "decode_ep",
	"decode_num_workers", "num_prefill_gpu_api", "num_decode_gpu_api"}

// mlperfID is the catalog ID of an MLPerf accelerator name (the GH200
// 144 GB variant apart), or the name when the catalog lacks it.
func mlperfID(lookup accLookup, name, raw string) string {
	id := mlperfAccelerator[name]
	if id == "" {
		id = name
	}
	if a, ok := lookup(id); ok {
		return rowVariant(a, raw+name).ID
	}
	return id
}

// servingVintageHeld: whether the serving gain is held at 0. It is
// applied (0.228 a year in perf_model.json, the estimator's value): with
// every MLPerf Inference v5.0 result, the MHA decode-attention mechanism
// and the constants refitted to the fit's fixed point, it improves the fit
// (score 0.249 against 0.270 held, each at its fixed point) and the
// leave-one-source-out inference error (11.1 % median / 35.4 % p90
// against 12.6 % / 33.9 % held at that fixed point and 14.7 % / 38.5 % at
// the previous constants), and it is what carries MLPerf's 2024–25 dense
// rounds to the reference date instead of averaging them (see the
// accuracy guide's known limits; 10.7 % / 34.8 % once FP4 DeepSeek
// checkpoints keep attention at BF16). Before those changes it made the
// error worse (17.4 % / 50.2 % against 14.5 % / 37.0 %).
const servingVintageHeld = false

// trainingVintageHeld: the training gain is not applied (held at 0). Fitted from the repeated results it is 0.19 a year; applied, the
// geometric law carried the oldest absolute rows forward to the reference
// date: the A100's fitted MFU constant rose to 0.915 and the 2026 A100
// estimate of Llama 2 70B ran at 68 % MFU, above any published A100 run
// (MegaScale's 55.2 %), and PaLM (2022) left out was predicted 2.2× too
// slow. A saturating law is what those rows ask for; one paper row per
// platform cannot fit its time constant.
const trainingVintageHeld = true

// trainingGainFit is the training gain the estimator fits on every
// repeated result (the report quotes it beside the committed value).
var trainingGainFit float64

// withVintage is p with the software-vintage gains refitted from the
// repeated results without source family exclude ("" = all).
func withVintage(p perf.Params, series []*repeatSeries, exclude string) perf.Params {
	q := cloneParams(p)
	q.Vintage.ServingGainPerYear = vintageGain(series, "inference", exclude)
	if servingVintageHeld {
		q.Vintage.ServingGainPerYear = 0
	}
	q.Vintage.TrainingGainPerYear = vintageGain(series, "training", exclude)
	if trainingVintageHeld {
		q.Vintage.TrainingGainPerYear = 0
	}
	return q
}

// TestVintageGainEstimator: on synthetic series the estimator recovers the
// common rate, one platform's outlying rate does not move it, and the
// points of an excluded source family are not used.
func TestVintageGainEstimator(t *testing.T) {
	mk := func(platform, origin string, g float64, dates ...string) *repeatSeries {
		s := &repeatSeries{kind: "inference", platform: platform}
		t0, _ := time.Parse("2006-01-02", dates[0])
		for _, d := range dates {
			td, _ := time.Parse("2006-01-02", d)
			s.add(repeatPoint{date: d, origin: origin, speed: 100 * math.Pow(1+g, td.Sub(t0).Hours()/24/365.25)})
		}
		return s
	}
	series := []*repeatSeries{
		mk("A", "r1", 0.25, "2024-01-01", "2025-01-01"),
		mk("B", "r1", 0.25, "2024-03-01", "2024-09-01", "2025-03-01"),
		mk("C", "r1", 0.20, "2024-01-01", "2025-01-01"),
		mk("C", "r1", 0.30, "2024-01-01", "2025-01-01"),
		mk("D", "ix", 3.0, "2026-01-01", "2026-03-01"),
		mk("D", "ix", 3.0, "2026-01-01", "2026-04-01"),
	}
	if g := vintageGain(series, "inference", ""); math.Abs(g-0.25) > 0.01 {
		t.Errorf("gain %.3f, want 0.25 (platform D's 300 %% a year is one platform of four)", g)
	}
	if g := vintageGain(series, "inference", "r1"); math.Abs(g-3.0) > 0.01 {
		t.Errorf("gain without r1 %.3f, want 3.0 (only platform D left)", g)
	}
	if g := vintageGain(series, "training", ""); g != 0 {
		t.Errorf("training gain %.3f without training series, want 0", g)
	}
}

// TestVintageGainFromCalibration: the committed gains are what the
// estimator fits on the calibration data (rounded to 0.01).
func TestVintageGainFromCalibration(t *testing.T) {
	series := repeatedResults(t, accuracyLookup(t))
	p := model(t).Params()
	fit := withVintage(p, series, "")
	t.Logf("serving gain the repeated results fit: %.4f a year (held at %.2f: servingVintageHeld)", vintageGain(series, "inference", ""), p.Vintage.ServingGainPerYear)
	t.Logf("training gain the repeated results fit: %.4f a year (held at %.2f: trainingVintageHeld)", vintageGain(series, "training", ""), p.Vintage.TrainingGainPerYear)
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"serving_gain_per_year", p.Vintage.ServingGainPerYear, fit.Vintage.ServingGainPerYear},
		{"training_gain_per_year", p.Vintage.TrainingGainPerYear, fit.Vintage.TrainingGainPerYear},
	} {
		t.Logf("%s: committed %.3f, fitted %.4f", c.name, c.got, c.want)
		if math.Abs(c.got-c.want) > 0.005 {
			t.Errorf("software_vintage.%s is %.3f but the repeated results fit %.4f: run make fit and copy it", c.name, c.got, c.want)
		}
	}
}
