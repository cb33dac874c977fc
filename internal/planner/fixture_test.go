// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner_test

import (
	"math"
	"testing"
	"testing/fstest"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
	"github.com/gpuplan/terraform-provider-gpu/internal/planner"
)

// fixtureCatalog is a small catalog with known answers, so the planner's
// own logic (filters, pricing, ranking, explanations, no-candidate
// messages) is tested without a catalog refresh moving the results:
//
//	alpha (spot 0.24/day, HIPAA): us-1 a.x8 (8× X100, efa) 20 od / 8 spot / 14 r1y,
//	      a.x1 (1× X100) 3 od, a.y1 (1× Y10) 0.8 od / 0.3 spot; eu-1 (gdpr) a.x8
//	      22 od / 9 spot; gov-1 (gov partition) a.x8 30 od
//	beta  (no spot): eu-2 (gdpr, 50 g/kWh) b.x8 (infiniband) 24 od / 16 r1y / 10 r3y;
//	      cn-1 (china partition) b.y1 0.7 od
//	gamma: ap-1 (grid unknown) g.z1 (1× Z1, no power figure, no fp8) 0.2 od
//	delta (serverless platform, workers placed by it): fn-x100 (1× X100)
//	      $0.0015 per GPU-second ($5.40/h), 60 s billed idle tail; fn-y10
//	      (1× Y10, always on) $0.0002 per GPU-second ($0.72/h)
func fixtureCatalog(tb testing.TB) *catalog.Catalog {
	tb.Helper()
	fsys := fstest.MapFS{
		catalog.FileMeta: {Data: []byte(`{"catalog_date":"2026-01-01","catalog_date_source":"test","exchange_rates":[],"offer_sources":{}}`)},
		catalog.FileAccelerators: {Data: []byte(`{"accelerators":[
{"id":"X100","name":"Test X100","vendor":"T","family":"hopper","aliases":["x100-sxm"],"memory_gb":80,"memory_bandwidth_tbps":3,"peak_tflops":{"bf16":900,"fp8":1800},"tdp_watts":700,"interconnect":"NVLink 4","interconnect_gbps":900,"interconnect_kind":"nvlink","nvlink_domain_gpus":8},
{"id":"Y10","name":"Test Y10","vendor":"T","family":"ada","aliases":[],"memory_gb":24,"memory_bandwidth_tbps":0.3,"peak_tflops":{"bf16":100,"fp8":200},"tdp_watts":70,"interconnect":"PCIe Gen4 x16 (no NVLink)","interconnect_gbps":64,"interconnect_kind":"pcie","nvlink_domain_gpus":1},
{"id":"Z1","name":"Test Z1","vendor":"T","family":"ada","aliases":[],"memory_gb":16,"memory_bandwidth_tbps":0.2,"peak_tflops":{"bf16":50},"tdp_watts":0,"interconnect":"PCIe","interconnect_gbps":32,"interconnect_kind":"pcie","nvlink_domain_gpus":1}
]}`)},
		catalog.FileClouds: {Data: []byte(`{"clouds":[
{"id":"alpha","name":"Alpha","pue":1.1,"pricing_models":["on_demand","spot","reserved_1y"],"hipaa":true,
 "spot":{"available":true,"interruptions_per_day":0.24,"notice_seconds":120,"source":"t"}},
{"id":"beta","name":"Beta","pue":1.2,"pricing_models":["on_demand","reserved_1y","reserved_3y"]},
{"id":"gamma","name":"Gamma","pue":1.3,"pricing_models":["on_demand"]},
{"id":"delta","name":"Delta","pue":1.5,"pricing_models":["serverless"]}
]}`)},
		catalog.FileRegions: {Data: []byte(`cloud,region,city,country,geography,partition,compliance,grid_gco2e_per_kwh,grid_year,pue,source
alpha,us-1,East,US,us,commercial,,400,2024,,t
alpha,eu-1,Frankfurt,DE,eu,commercial,gdpr,300,2024,,t
alpha,gov-1,Gov,US,us,gov,fedramp_high,400,2024,,t
beta,eu-2,Paris,FR,eu,commercial,gdpr,50,2024,,t
beta,cn-1,Beijing,CN,cn,china,mlps2,600,2024,,t
gamma,ap-1,Tokyo,JP,apac,commercial,,0,2024,,t
`)},
		catalog.FileOffers: {Data: []byte(`cloud,region,instance_type,accelerator,gpus,gpu_memory_gb,vcpus,memory_gb,network_gbps,fabric,on_demand_usd,spot_usd,reserved_1y_usd,reserved_3y_usd,reserved_derived,currency,native_on_demand,native_spot,native_reserved_1y,native_reserved_3y,source
alpha,us-1,a.x8,X100,8,640,192,2048,3200,efa,20,8,14,,false,USD,,,,,t
alpha,us-1,a.x1,X100,1,80,24,256,100,none,3,,,,false,USD,,,,,t
alpha,us-1,a.y1,Y10,1,24,8,64,25,none,0.8,0.3,,,false,USD,,,,,t
alpha,eu-1,a.x8,X100,8,640,192,2048,3200,efa,22,9,,,false,USD,,,,,t
alpha,gov-1,a.x8,X100,8,640,192,2048,3200,efa,30,,,,false,USD,,,,,t
beta,eu-2,b.x8,X100,8,640,96,1900,1600,infiniband,24,,16,10,false,USD,,,,,t
beta,cn-1,b.y1,Y10,1,24,8,64,25,none,0.7,,,,false,USD,,,,,t
gamma,ap-1,g.z1,Z1,1,16,4,32,10,none,0.2,,,,false,USD,,,,,t
`)},
		catalog.FileServerless: {Data: []byte(`cloud,region,name,product,accelerator,gpus,gpu_memory_gb,usd_per_gpu_second,billing_increment_seconds,min_billed_seconds,idle_billed_seconds,cold_start_seconds,cold_start_billed,always_on,cpu_usd_per_core_second,memory_usd_per_gib_second,min_cpu_cores,min_memory_gib,confidence,source
delta,,fn-x100,functions,X100,1,80,0.0015,1,,60,,false,false,,,,,test,t
delta,,fn-y10,active,Y10,1,24,0.0002,1,,,,false,true,,,,,test,t
`)},
	}
	cat, err := catalog.Load(fsys)
	if err != nil {
		tb.Fatalf("fixture catalog: %v", err)
	}
	return cat
}

// fixturePlanner is a planner over the fixture catalog with the built-in
// cost model and policy.
func fixturePlanner(tb testing.TB) *planner.Planner {
	tb.Helper()
	p, err := planner.New(fixtureCatalog(tb), nil)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// fakeEstimator is a benchmark model simple enough to derive answers by
// hand, for tests where physics is not the point:
//
//   - memory: a workload needs model_parameters_b × bytesPerParam GB
//     (training 16 bytes, fine-tuning and inference 2); it fits on the
//     fewest GPUs of the search grid (1, 2, 4 … below a node, then whole
//     nodes) whose memory holds it;
//   - training: tokens/s = GPUs × bf16 TFLOPS × 1e12 × 0.5 / (6 · N), × 0.9
//     per doubling of the node count; hours = tokens / (tokens/s) / 3600;
//   - inference: one replica per fitting group sustains 1,000 output
//     tokens/s per TB/s of memory bandwidth at 30 / bandwidth ms per output
//     token (X100: 3,000 tok/s at 10 ms; Y10: 300 tok/s at 100 ms); a latency
//     limit below that gives 0 tokens/s;
//   - an accelerator without the workload's precision is a *perf.PrecisionError.
type fakeEstimator struct{ w perf.Workload }

// fake is the fake model of a workload with its defaults applied, as
// perf.Model.Prepare applies them.
func fake(w perf.Workload) *fakeEstimator {
	m, err := perf.Builtin()
	if err != nil {
		panic(err) // the embedded benchmark model: every test fails with it
	}
	return &fakeEstimator{w: m.WithDefaults(w, perf.ValidateOptions{})}
}

func (f *fakeEstimator) Workload() perf.Workload { return f.w }

func (f *fakeEstimator) needGB() float64 {
	if f.w.Kind == perf.KindTraining {
		return f.w.ModelParametersB * 16
	}
	return f.w.ModelParametersB * 2
}

func (f *fakeEstimator) MinGPUsToFit(acc *catalog.Accelerator, gpn int) int {
	if acc.PeakTFLOPS[f.w.Precision] <= 0 {
		return 0
	}
	need := int(math.Ceil(f.needGB() / acc.MemoryGB))
	for g := 1; g < gpn; g *= 2 {
		if g >= need {
			return g
		}
	}
	for n := 1; n <= 64; n++ {
		if n*gpn >= need {
			return n * gpn
		}
	}
	return 0
}

func (f *fakeEstimator) EstimateBrief(h perf.Hardware) (perf.Estimate, error) {
	acc := h.Accelerator
	peak := acc.PeakTFLOPS[f.w.Precision]
	if peak <= 0 {
		return perf.Estimate{}, &perf.PrecisionError{Precision: f.w.Precision, Accelerator: acc.ID, Supported: perf.SupportedPrecisions(acc)}
	}
	need := f.MinGPUsToFit(acc, h.GPUsPerNode)
	e := perf.Estimate{Fits: need > 0 && h.GPUs >= need, MemoryPerGPUGB: f.needGB() / float64(h.GPUs), Binding: perf.BindCompute}
	if !e.Fits {
		e.Binding = perf.BindMemory
		return e, nil
	}
	if f.w.Kind != perf.KindInference {
		nodes := float64(h.GPUs / h.GPUsPerNode)
		e.TokensPerSecond = float64(h.GPUs) * peak * 1e12 * 0.5 / (6 * f.w.ModelParametersB * 1e9) * math.Pow(0.9, math.Log2(max(nodes, 1)))
		e.Hours = f.w.TrainingTokensB * 1e9 / e.TokensPerSecond / 3600
		return e, nil
	}
	e.Binding = perf.BindHBM
	e.Replicas = h.GPUs / need
	e.TPOTMs = 30 / acc.MemoryBandwidthTBps
	e.TTFTMs = 2 * e.TPOTMs
	e.TPOTP99Ms, e.TTFTP99Ms = 1.25*e.TPOTMs, 1.5*e.TTFTMs
	if limit := f.w.MaxTimePerOutputTokenMs; limit > 0 && e.TPOTP99Ms > limit {
		e.Binding = perf.BindLatency
		return e, nil
	}
	e.TokensPerSecond = float64(e.Replicas) * 1000 * acc.MemoryBandwidthTBps
	return e, nil
}

// fixtureRequest is a request on the fixture planner with the fake model.
func fixtureRequest(w perf.Workload, c planner.Constraints, obj planner.Objective) planner.Request {
	return planner.Request{Estimator: fake(w), Constraints: c, Objective: obj}
}
