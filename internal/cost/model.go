// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package cost

import (
	"encoding/json"
	"fmt"
	"math"
	"sync"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// modelFile is the embedded data file holding every constant of the model.
const modelFile = "cost_model.json"

// Unit conversions (not model constants: they never change).
const (
	hoursPerDay   = 24
	wattsPerKW    = 1000
	gramsPerKg    = 1000
	kgPerTonne    = 1000
	ceilTolerance = 1e-9 // float slack so 24.000000001 months is 2 one-year terms, not 3
)

// Model holds the constants of the cost model, read from
// internal/catalog/data/cost_model.json where each one names its source.
type Model struct {
	HoursPerMonth float64
	// TermMonths is the commitment term of each reserved pricing model.
	TermMonths map[catalog.PricingModel]float64
	// CheckpointIntervalHours and RestartHours drive the spot risk
	// adjustment (see SpotRiskFactor and doc.go).
	CheckpointIntervalHours float64
	RestartHours            float64
	// MinCheckpointCompletion: a synchronous spot job whose chance of
	// finishing a checkpoint interval between interruptions is below this
	// never finishes (SpotRiskFactor is +Inf).
	MinCheckpointCompletion float64
	// ServingReplacementHours is the time from a spot interruption to a
	// replacement serving replica taking traffic: the spare-capacity rule of
	// spot serving (see SpotServingSpares and doc.go).
	ServingReplacementHours float64
	// CapacityBlock holds the booking rules of capacity blocks (see
	// CapacityBlockHours and CapacityBlockInstances).
	CapacityBlock CapacityBlockRules
	// Serverless holds how serving demand arrives on a serverless offer
	// (see ServerlessBilledShare).
	Serverless ServerlessRules
	// LoadFactor maps a workload kind to average GPU power as a fraction of TDP.
	LoadFactor map[string]float64
	// HostPowerPerGPUTDP is the host's power (CPUs, memory, NICs, fans) per
	// watt of GPU TDP in a node: node power = GPUs × TDP × (LoadFactor +
	// HostPowerPerGPUTDP).
	HostPowerPerGPUTDP float64
	DefaultWorkload    string
	FallbackPUE        float64
	ShareSumTolerance  float64

	// spot memoizes SpotRiskFactor per cloud for the rates (spotRisks);
	// nil in a Model built by hand, whose rates compute it per bill.
	spot *spotCache
}

type numParam struct {
	Value  *float64 `json:"value"`
	Source string   `json:"source"`
}

type strParam struct {
	Value  string `json:"value"`
	Source string `json:"source"`
}

type modelJSON struct {
	HoursPerMonth           numParam            `json:"hours_per_month"`
	ReservedTermMonths      map[string]numParam `json:"reserved_term_months"`
	CheckpointIntervalHours numParam            `json:"spot_checkpoint_interval_hours"`
	RestartHours            numParam            `json:"spot_restart_hours"`
	MinCheckpointCompletion numParam            `json:"spot_min_checkpoint_completion"`
	ServingReplacementHours numParam            `json:"spot_serving_replacement_hours"`
	GPULoadFactor           map[string]numParam `json:"gpu_load_factor"`
	CapacityBlock           map[string]numParam `json:"capacity_block"`
	Serverless              map[string]numParam `json:"serverless"`
	HostPowerPerGPUTDP      numParam            `json:"host_power_per_gpu_tdp"`
	DefaultWorkload         strParam            `json:"default_workload"`
	FallbackPUE             numParam            `json:"fallback_pue"`
	ShareSumTolerance       numParam            `json:"share_sum_tolerance"`
}

var (
	defaultOnce  sync.Once
	defaultModel *Model
	defaultErr   error
)

// DefaultModel returns the model embedded in the provider, parsed once.
func DefaultModel() (*Model, error) {
	defaultOnce.Do(func() {
		raw, err := catalog.ReadDataFile(modelFile)
		if err != nil {
			defaultErr = fmt.Errorf("cost: reading %s: %w", modelFile, err)
			return
		}
		defaultModel, defaultErr = ParseModel(raw)
	})
	return defaultModel, defaultErr
}

// ParseModel parses and validates a cost_model.json document. Every
// numeric constant must be present, positive and carry a source.
func ParseModel(raw []byte) (*Model, error) {
	var mj modelJSON
	if err := json.Unmarshal(raw, &mj); err != nil {
		return nil, fmt.Errorf("cost: %s: %w", modelFile, err)
	}
	var errs []string
	num := func(name string, p numParam, maxV float64) float64 {
		switch {
		case p.Value == nil:
			errs = append(errs, name+": missing value")
			return 0
		case p.Source == "":
			errs = append(errs, name+": missing source")
		case *p.Value <= 0 || (maxV > 0 && *p.Value > maxV):
			errs = append(errs, fmt.Sprintf("%s: %v out of range", name, *p.Value))
		}
		return *p.Value
	}
	m := &Model{
		HoursPerMonth:           num("hours_per_month", mj.HoursPerMonth, 0),
		CheckpointIntervalHours: num("spot_checkpoint_interval_hours", mj.CheckpointIntervalHours, 0),
		HostPowerPerGPUTDP:      num("host_power_per_gpu_tdp", mj.HostPowerPerGPUTDP, 0),
		RestartHours:            num("spot_restart_hours", mj.RestartHours, 0),
		MinCheckpointCompletion: num("spot_min_checkpoint_completion", mj.MinCheckpointCompletion, 1),
		ServingReplacementHours: num("spot_serving_replacement_hours", mj.ServingReplacementHours, 0),
		FallbackPUE:             num("fallback_pue", mj.FallbackPUE, 0),
		ShareSumTolerance:       num("share_sum_tolerance", mj.ShareSumTolerance, 0.1),
		TermMonths:              map[catalog.PricingModel]float64{},
		LoadFactor:              map[string]float64{},
		DefaultWorkload:         mj.DefaultWorkload.Value,
		spot:                    &spotCache{tables: map[spotKey]*spotRisks{}},
	}
	for _, pm := range []catalog.PricingModel{catalog.Reserved1Y, catalog.Reserved3Y} {
		m.TermMonths[pm] = num("reserved_term_months."+string(pm), mj.ReservedTermMonths[string(pm)], 0)
	}
	cb := func(k string) float64 { return num("capacity_block."+k, mj.CapacityBlock[k], 0) }
	m.CapacityBlock = CapacityBlockRules{IncrementHours: cb("increment_hours"), ShortMaxHours: cb("short_max_hours"),
		LongIncrementHours: cb("long_increment_hours"), MaxHours: cb("max_hours"), MaxInstances: int(cb("max_instances"))}
	m.Serverless = ServerlessRules{BurstSeconds: num("serverless.burst_seconds", mj.Serverless["burst_seconds"], 0)}
	for _, kind := range []string{"training", "fine_tuning", workloadInference} {
		m.LoadFactor[kind] = num("gpu_load_factor."+kind, mj.GPULoadFactor[kind], 1)
	}
	if m.FallbackPUE != 0 && m.FallbackPUE < 1 {
		errs = append(errs, "fallback_pue: a PUE is at least 1")
	}
	if _, ok := m.LoadFactor[m.DefaultWorkload]; !ok || mj.DefaultWorkload.Source == "" {
		errs = append(errs, fmt.Sprintf("default_workload: %q must be a gpu_load_factor key and carry a source", m.DefaultWorkload))
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("cost: invalid %s: %v", modelFile, errs)
	}
	return m, nil
}

// Workloads lists the workload kinds with a GPU load factor, sorted.
func (m *Model) Workloads() []string {
	return sortedNames(m.LoadFactor)
}

// SpotInterruptionRate returns λ, the interruptions per running hour of one
// spot instance of a cloud: InterruptionsPerDay / 24, plus 1 /
// MaxRuntimeHours when the cloud stops spot instances after a maximum
// runtime. 0 for a nil cloud.
func (m *Model) SpotInterruptionRate(cl *catalog.Cloud) float64 {
	if cl == nil {
		return 0
	}
	lambda := cl.Spot.InterruptionsPerDay / hoursPerDay
	if cl.Spot.MaxRuntimeHours > 0 {
		lambda += 1 / cl.Spot.MaxRuntimeHours
	}
	return lambda
}

// SpotRiskFactor returns billed hours per useful hour of a synchronous
// job (training, fine-tuning) on nodes spot instances of a cloud. The job
// stops when any node is interrupted, so interruptions arrive at Λ = nodes
// × λ (SpotInterruptionRate); it checkpoints every τ =
// CheckpointIntervalHours and an interruption costs the work since the
// last checkpoint plus RestartHours R. With exponential arrivals each τ of
// work takes (1/Λ + R)·(e^{Λτ} − 1) hours on average (the renewal result
// for checkpointed work), so the factor is (1/Λ + R)·(e^{Λτ} − 1)/τ: about
// 1 + Λ·(τ/2 + R) when Λτ is small (AWS, 128 nodes: 1.04), growing
// exponentially when interruptions outpace checkpoints (GCP, 128 nodes:
// 1.50). 1 for no interruptions or a nil cloud; +Inf when the job would
// never finish: the chance e^{−Λτ} of completing an interval is below
// MinCheckpointCompletion.
func (m *Model) SpotRiskFactor(cl *catalog.Cloud, nodes int) float64 {
	rate := float64(max(nodes, 1)) * m.SpotInterruptionRate(cl)
	if !(rate > 0) {
		return 1
	}
	tau := m.CheckpointIntervalHours
	if math.Exp(-rate*tau) < m.MinCheckpointCompletion {
		return math.Inf(1)
	}
	return (1/rate + m.RestartHours) * math.Expm1(rate*tau) / tau
}

// NodePowerKW is the average power of one instance running a workload
// kind, kW: its GPUs (a fractional instance: its share of one GPU) at the
// kind's load factor plus the host (HostPowerPerGPUTDP), before PUE; 0
// when the accelerator has no TDP.
func (m *Model) NodePowerKW(o *catalog.Offer, acc *catalog.Accelerator, kind string) float64 {
	return m.gpusPowerKW(o.GPUCount(), acc, kind)
}

// NodeKWhPerHour is the facility energy of one instance running a
// workload kind for an hour: NodePowerKW × the PUE of the region, else the
// cloud's, else the fallback.
func (m *Model) NodeKWhPerHour(o *catalog.Offer, cl *catalog.Cloud, r *catalog.Region, acc *catalog.Accelerator, kind string) float64 {
	return m.NodePowerKW(o, acc, kind) * m.PUE(cl, r)
}

// gpusPowerKW is the average power of gpus accelerators running a workload
// kind with their host, kW (NodePowerKW); 0 without a TDP.
func (m *Model) gpusPowerKW(gpus float64, acc *catalog.Accelerator, kind string) float64 {
	return m.nodePowerAt(gpus, acc, m.LoadFactor[kind])
}

// nodePowerAt is the average power of gpus accelerators at a load factor
// (share of TDP) with their host, kW; 0 without a TDP.
func (m *Model) nodePowerAt(gpus float64, acc *catalog.Accelerator, load float64) float64 {
	if acc == nil || acc.TDPWatts <= 0 {
		return 0
	}
	return gpus * acc.TDPWatts / wattsPerKW * (load + m.HostPowerPerGPUTDP)
}

// CapacityBlockRules are the booking rules of capacity blocks: windows of
// IncrementHours up to ShortMaxHours, then of LongIncrementHours up to
// MaxHours; clusters of 1, 2, 4 … MaxInstances instances.
type CapacityBlockRules struct {
	IncrementHours, ShortMaxHours, LongIncrementHours, MaxHours float64
	MaxInstances                                                int
}

// CapacityBlockHours is the booked window for hours of use per instance:
// the next whole increment, consecutive longest blocks beyond MaxHours.
func (m *Model) CapacityBlockHours(hours float64) float64 {
	r := m.CapacityBlock
	if !(hours > 0) {
		return 0
	}
	full := math.Floor(hours/r.MaxHours + ceilTolerance)
	rest := hours - full*r.MaxHours
	booked := full * r.MaxHours
	switch {
	case rest <= ceilTolerance*r.MaxHours:
	case rest <= r.ShortMaxHours:
		booked += math.Ceil(rest/r.IncrementHours-ceilTolerance) * r.IncrementHours
	default:
		booked += math.Ceil(rest/r.LongIncrementHours-ceilTolerance) * r.LongIncrementHours
	}
	return booked
}

// CapacityBlockInstances is the instances booked for n: the next cluster
// size of 1, 2, 4 … MaxInstances, blocks of MaxInstances beyond it.
func (m *Model) CapacityBlockInstances(n int) int {
	maxN := m.CapacityBlock.MaxInstances
	full, rest := n/maxN, n%maxN
	size := 0
	if rest > 0 {
		size = 1
		for size < rest {
			size *= 2
		}
	}
	return full*maxN + size
}
