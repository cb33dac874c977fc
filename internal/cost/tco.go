// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package cost

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// Breakdown categories, in the order they appear in Result.Breakdown.
// Extras appear as CategoryExtraPrefix + name, sorted by name; CategoryCarbon
// appears only when the carbon price is positive.
const (
	CategoryCompute       = "compute"
	CategoryStorageBlock  = "storage_block"
	CategoryStorageObject = "storage_object"
	CategoryEgress        = "egress"
	CategoryInterRegion   = "inter_region"
	CategoryExtraPrefix   = "extra:"
	CategoryCarbon        = "carbon"
)

// Input describes a fleet of identical instances run for a number of months,
// or a serving deployment on a serverless offer.
type Input struct {
	// Offer is the instance; nil with Serverless.
	Offer *catalog.Offer
	// Serverless is a serverless offer instead of an instance: then
	// InstanceCount is the workers serving at once while the load is there,
	// Utilization the share of the horizon it is there (the duty cycle),
	// billed by ServerlessBilledShare; PricingMix is nil or {serverless: 1};
	// energy uses the inference load factor unless Workload says otherwise.
	Serverless  *catalog.ServerlessOffer
	Cloud       *catalog.Cloud
	Region      *catalog.Region      // optional: PUE and grid intensity (nil = cloud PUE, no CO2e)
	Accelerator *catalog.Accelerator // optional: TDP for energy (nil = no energy)

	InstanceCount int
	Months        float64 // horizon, > 0; fractions allowed
	Utilization   float64 // share of the horizon's hours the fleet runs, [0, 1]
	// PricingMix maps pricing model -> share of the running GPU-hours; the
	// shares sum to 1. nil or empty = {on_demand: 1}.
	PricingMix map[catalog.PricingModel]float64

	BlockGB               float64 // total block storage kept for the whole horizon
	ObjectGB              float64 // total object storage kept for the whole horizon
	EgressGBPerMonth      float64 // internet egress
	InterRegionGBPerMonth float64 // transfer to other regions of the same cloud
	// ExtraMonthlyUSD are other monthly items (managed Kubernetes, support,
	// licences); not discounted.
	ExtraMonthlyUSD map[string]float64

	Discount               float64 // provider-level fraction off every list price of the cloud, [0, 1)
	CarbonPriceUSDPerTonne float64 // >= 0; 0 = no carbon line
	Workload               string  // training | fine_tuning | inference; "" = the model's default
	// LoadFactor is the GPUs' average board power as a share of TDP when
	// the caller knows it (a measured serving load, say), (0, 1]; 0 = the
	// Workload's load factor (gpu_load_factor of cost_model.json).
	LoadFactor float64
}

// Line is one breakdown item.
type Line struct {
	Category string
	USD      float64
}

// ModelCompute is the compute bill of one pricing model inside the mix.
type ModelCompute struct {
	PricingModel catalog.PricingModel
	Share        float64 // share of running GPU-hours
	// ReservedInstances is the number of instances reserved (reserved models only).
	ReservedInstances int
	// BilledInstanceHours: running hours (on-demand), risk-adjusted running
	// hours (spot) or whole terms around the clock (reserved).
	BilledInstanceHours float64
	HourlyUSD           float64 // per instance, after the discount
	USD                 float64
}

// BreakEven tells when a reservation pays off against on-demand.
type BreakEven struct {
	// Utilization above which reserving the whole fleet for the horizon
	// costs less than on-demand (> 1: never within the horizon).
	Utilization float64
	// Months of use at the input utilization after which one term of the
	// reservation costs less than on-demand would have (> the term length:
	// never within the term); 0 when Never.
	Months float64
	// Never is true when the reservation never pays off because nothing
	// runs (zero utilization): there is no break-even month.
	Never bool
}

// Result is the lifecycle cost of an Input. Money is unrounded USD.
type Result struct {
	TotalUSD          float64 // == the sum of Breakdown
	MonthlyUSD        float64 // TotalUSD / Months
	CostPerGPUHourUSD float64 // TotalUSD / GPUHours (0 when nothing runs)
	Breakdown         []Line
	Compute           []ModelCompute // the mix's compute lines, canonical order
	BreakEven         map[catalog.PricingModel]BreakEven

	GPUHours       float64 // useful GPU-hours delivered: instances × GPUs × hours × utilization
	SpotRiskFactor float64 // billed / useful hours of the mix's spot instances (1 without spot)
	PUE            float64 // the PUE used
	LoadFactor     float64 // the GPU load factor used
	EnergyKWh      float64
	CO2eKg         float64
	CarbonCostUSD  float64
	// Warnings name assumptions the result rests on (unknown grid intensity,
	// missing TDP, fallback PUE, unpriced storage or egress).
	Warnings []string
}

// TCO prices an Input with the built-in model.
func TCO(in Input) (Result, error) {
	m, err := DefaultModel()
	if err != nil {
		return Result{}, err
	}
	return m.TCO(in)
}

// shares holds a pricing mix indexed by catalog.PricingModel.Index.
type shares [catalog.NumPricingModels]float64

// energyParams is what turns running instance-hours into kWh and CO2e.
type energyParams struct {
	kWhPerInstanceHour float64
	gridG              float64
}

// TCO prices an Input with this model.
func (m *Model) TCO(in Input) (Result, error) {
	if err := m.validate(&in); err != nil {
		return Result{}, err
	}
	mix, err := m.mix(&in)
	if err != nil {
		return Result{}, err
	}
	var res Result
	res.SpotRiskFactor = m.spotRisk(&in, mix)
	if bad(res.SpotRiskFactor) {
		return Result{}, m.spotNeverFinishes(&in, mix)
	}
	ep := m.energy(&in, &res)

	hidden := m.hidden(&in, &res)
	compute, running, lines := m.compute(&in, mix, true)
	res.Compute = lines
	res.EnergyKWh = running * ep.kWhPerInstanceHour
	res.CO2eKg = res.EnergyKWh * ep.gridG / gramsPerKg
	res.CarbonCostUSD = res.CO2eKg / kgPerTonne * in.CarbonPriceUSDPerTonne

	res.Breakdown = make([]Line, 0, len(hidden)+2)
	res.Breakdown = append(res.Breakdown, Line{CategoryCompute, compute})
	res.Breakdown = append(res.Breakdown, hidden...)
	if in.CarbonPriceUSDPerTonne > 0 {
		res.Breakdown = append(res.Breakdown, Line{CategoryCarbon, res.CarbonCostUSD})
	}
	for _, l := range res.Breakdown {
		res.TotalUSD += l.USD
	}
	res.MonthlyUSD = res.TotalUSD / in.Months
	res.GPUHours = m.demand(&in) * in.Offer.GPUCount()
	if res.GPUHours > 0 {
		res.CostPerGPUHourUSD = res.TotalUSD / res.GPUHours
		if bad(res.CostPerGPUHourUSD) {
			return Result{}, inputErr("utilization", "Invalid Utilization",
				"utilization %s runs the fleet for only %s GPU-hours, so the cost per GPU-hour is beyond any number. "+
					"Use 0 for an idle fleet, or the real share of hours the instances run, for example 0.6.",
				catalog.FormatNumber(in.Utilization), catalog.FormatNumber(res.GPUHours))
		}
	}

	res.BreakEven = m.breakEven(&in)
	if err := res.checkFinite(); err != nil {
		return Result{}, err
	}
	return res, nil
}

// hidden returns the cost lines that do not depend on the pricing model
// (storage, egress, inter-region transfer, extras) and adds the warnings
// of unpriced ones.
func (m *Model) hidden(in *Input, res *Result) []Line {
	d := 1 - in.Discount
	cl := in.Cloud
	hidden := []Line{
		{CategoryStorageBlock, BlockStorageMonthlyUSD(cl, in.BlockGB, in.Discount) * in.Months},
		{CategoryStorageObject, ObjectStorageMonthlyUSD(cl, in.ObjectGB, in.Discount) * in.Months},
		{CategoryEgress, EgressUSD(cl.EgressTiers, in.EgressGBPerMonth) * in.Months * d},
		{CategoryInterRegion, in.InterRegionGBPerMonth * cl.InterRegionUSDPerGB * in.Months * d},
	}
	m.priceWarnings(in, res)
	for _, name := range sortedNames(in.ExtraMonthlyUSD) {
		hidden = append(hidden, Line{CategoryExtraPrefix + name, in.ExtraMonthlyUSD[name] * in.Months})
	}
	return hidden
}

// rate is the rate of one instance (a serverless offer: one worker) under
// a pricing model, and whether it is sold that way.
func (m *Model) rate(in *Input, pm catalog.PricingModel) (Rate, bool) {
	if pm == catalog.Serverless {
		if in.Serverless == nil {
			return Rate{}, false
		}
		return m.ServerlessRate(in.Serverless, in.Cloud), true
	}
	return m.Rate(in.Offer, in.Cloud, pm)
}

// sold lists the pricing models the input's offer is sold under.
func (m *Model) sold(in *Input) []catalog.PricingModel {
	var out []catalog.PricingModel
	for _, pm := range catalog.AllPricingModels {
		if _, ok := m.rate(in, pm); ok {
			out = append(out, pm)
		}
	}
	return out
}

// spotRisk is the spot risk factor of a mix: its spot instances (the spot
// share of the fleet, rounded up) taken as one synchronous job (doc.go); 1
// without spot.
func (m *Model) spotRisk(in *Input, mix shares) float64 {
	s := mix[catalog.Spot.Index()]
	if s == 0 {
		return 1
	}
	return m.SpotRiskFactor(in.Cloud, int(wholeInstances(s*float64(in.InstanceCount))))
}

// spotNeverFinishes is the error of a spot share so large that, as one
// synchronous job, its instances are interrupted far faster than they
// checkpoint: the expected hours overflow.
func (m *Model) spotNeverFinishes(in *Input, mix shares) error {
	n := math.Ceil(mix[catalog.Spot.Index()]*float64(in.InstanceCount) - ceilTolerance)
	minutes := 60 / (n * m.SpotInterruptionRate(in.Cloud))
	return keyErr("pricing_mix", string(catalog.Spot), "Spot Job Never Finishes",
		"%s spot instances of %s, priced as one synchronous job, are interrupted every %s minutes on average, far more often than the "+
			"job checkpoints (every %s h): it would never finish. Put fewer instances on spot, or buy the share on demand or reserved.",
		catalog.FormatNumber(n), in.Cloud.ID, catalog.FormatNumber(minutes), catalog.FormatNumber(m.CheckpointIntervalHours))
}

// demand is the running instance-hours the fleet needs over the horizon.
func (m *Model) demand(in *Input) float64 {
	return float64(in.InstanceCount) * m.horizonHours(in) * in.Utilization
}

// horizonHours is the horizon in hours.
func (m *Model) horizonHours(in *Input) float64 { return in.Months * m.HoursPerMonth }

// compute bills the mix: each model's share of the fleet at its rate
// (Rate.Bill). It returns the compute USD, the instance-hours the fleet
// actually runs (for energy) and, when wantLines, one line per model.
func (m *Model) compute(in *Input, mix shares, wantLines bool) (usd, running float64, lines []ModelCompute) {
	horizon := m.horizonHours(in)
	for i, pm := range catalog.AllPricingModels {
		s := mix[i]
		if s == 0 {
			continue
		}
		rate, _ := m.rate(in, pm)
		instances := s * float64(in.InstanceCount)
		b := rate.Bill(&Usage{Instances: instances, Hours: horizon * in.Utilization, HorizonHours: horizon,
			DutyCycle: in.Utilization, Discount: in.Discount})
		mc := ModelCompute{PricingModel: pm, Share: s, HourlyUSD: b.HourlyUSD, BilledInstanceHours: b.InstanceHours(), USD: b.USD}
		if pm == catalog.Reserved1Y || pm == catalog.Reserved3Y || pm == catalog.CapacityBlock {
			mc.ReservedInstances = int(b.Instances)
		}
		running += instances * b.RunningHours
		usd += mc.USD
		if wantLines {
			lines = append(lines, mc)
		}
	}
	return usd, running, lines
}

func (m *Model) breakEven(in *Input) map[catalog.PricingModel]BreakEven {
	od, ok := in.Offer.Price(catalog.OnDemand)
	if !ok {
		return nil
	}
	out := map[catalog.PricingModel]BreakEven{}
	for _, pm := range []catalog.PricingModel{catalog.Reserved1Y, catalog.Reserved3Y} {
		r, ok := in.Offer.Price(pm)
		if !ok {
			continue
		}
		term := m.TermMonths[pm]
		terms := math.Ceil(in.Months/term - ceilTolerance)
		be := BreakEven{Utilization: terms * term * r / (in.Months * od), Never: true}
		if months := term * r / (in.Utilization * od); in.Utilization > 0 && !bad(months) {
			be.Months, be.Never = months, false
		}
		out[pm] = be
	}
	return out
}

// energy resolves load factor, PUE and grid intensity.
func (m *Model) energy(in *Input, res *Result) energyParams {
	wl := in.Workload
	if wl == "" {
		wl = m.DefaultWorkload
	}
	res.LoadFactor = m.LoadFactor[wl]
	if in.LoadFactor > 0 {
		res.LoadFactor = in.LoadFactor
	}
	res.PUE = m.PUE(in.Cloud, in.Region)
	if in.Region == nil || in.Region.PUE <= 0 {
		if in.Cloud.PUE <= 0 {
			res.Warnings = append(res.Warnings, fmt.Sprintf(
				"%s publishes no PUE: energy assumes the model's fallback PUE %.2f.", in.Cloud.ID, m.FallbackPUE))
		}
	}
	var ep energyParams
	if in.Accelerator == nil || in.Accelerator.TDPWatts <= 0 {
		res.Warnings = append(res.Warnings, NoTDPWarning(in.Offer.Accelerator))
	} else {
		ep.kWhPerInstanceHour = m.nodePowerAt(in.Offer.GPUCount(), in.Accelerator, res.LoadFactor) * res.PUE
	}
	switch {
	case in.Region != nil && in.Region.GridGCO2ePerKWh > 0:
		ep.gridG = in.Region.GridGCO2ePerKWh
	case in.Offer.Region == "":
		res.Warnings = append(res.Warnings, fmt.Sprintf(
			"%s places the workers of %s in no stated region: CO2e and carbon cost are 0.", in.Offer.Cloud, in.Offer.InstanceType))
	default:
		res.Warnings = append(res.Warnings, fmt.Sprintf(
			"The grid carbon intensity of %s %s is unknown: CO2e and carbon cost are 0.", in.Offer.Cloud, in.Offer.Region))
	}
	return ep
}

// PUE is the power usage effectiveness of a region: its own figure, else
// its cloud's, else the model's fallback.
func (m *Model) PUE(cl *catalog.Cloud, r *catalog.Region) float64 {
	switch {
	case r != nil && r.PUE > 0:
		return r.PUE
	case cl != nil && cl.PUE > 0:
		return cl.PUE
	default:
		return m.FallbackPUE
	}
}

func (m *Model) priceWarnings(in *Input, res *Result) {
	cl := in.Cloud
	warn := func(used bool, price float64, what string) {
		if used && price <= 0 {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s lists no %s price in the catalog: that line is 0.", cl.ID, what))
		}
	}
	warn(in.BlockGB > 0, cl.BlockStorageUSDPerGBMonth, "block storage")
	warn(in.ObjectGB > 0, cl.ObjectStorageUSDPerGBMonth, "object storage")
	warn(in.InterRegionGBPerMonth > 0, cl.InterRegionUSDPerGB, "inter-region transfer")
	if in.EgressGBPerMonth > 0 && len(cl.EgressTiers) == 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%s lists no internet egress tiers in the catalog: egress is 0.", cl.ID))
	}
}

// EgressUSD prices one month of internet egress on a cloud's tier ladder.
// Tiers apply in order: tier i covers the volume from the previous tier's
// UpToGB to its own UpToGB (0 = unlimited); volume past the last tier's
// bound is charged at the last tier's rate. A free allowance is a tier with
// price 0. No tiers = free.
func EgressUSD(tiers []catalog.EgressTier, gbPerMonth float64) float64 {
	var usd, prev float64
	for i, t := range tiers {
		if gbPerMonth <= prev {
			break
		}
		upper := t.UpToGB
		if upper <= 0 || (i == len(tiers)-1 && upper < gbPerMonth) {
			upper = gbPerMonth
		}
		if vol := math.Min(gbPerMonth, upper) - prev; vol > 0 {
			usd += vol * t.USDPerGB
		}
		prev = math.Max(prev, upper)
	}
	return usd
}

// validate checks the scalar inputs. A serverless input gets its offer's
// instance view as Offer and, without a workload, the inference load.
func (m *Model) validate(in *Input) error {
	if in.Serverless != nil {
		if in.Offer != nil {
			return errors.New("cost: Input.Offer and Input.Serverless exclude each other")
		}
		in.Offer = in.Serverless.InstanceView()
		if in.Workload == "" {
			in.Workload = workloadInference
		}
	}
	if in.Offer == nil || in.Cloud == nil {
		return errors.New("cost: Input.Offer (or Input.Serverless) and Input.Cloud are required")
	}
	if in.Offer.Cloud != in.Cloud.ID {
		return fmt.Errorf("cost: offer of cloud %q priced with cloud %q", in.Offer.Cloud, in.Cloud.ID)
	}
	bounds := []bound{
		{field: "instance_count", summary: "Invalid Instance Count", limit: catalog.LimitNodeCount, v: float64(in.InstanceCount),
			hint: "It is the number of identical instances, for example 4."},
		{field: "months", summary: "Invalid Months", limit: catalog.LimitMonths, v: in.Months,
			hint: "It is the horizon in months, for example 12."},
		{field: "utilization", summary: "Invalid Utilization", limit: catalog.LimitFraction, v: in.Utilization,
			hint: "It is the share of hours the instances run, for example 0.6."},
		{field: "storage.block_gb", summary: "Invalid Size", limit: catalog.LimitDataGB, v: in.BlockGB},
		{field: "storage.object_gb", summary: "Invalid Size", limit: catalog.LimitDataGB, v: in.ObjectGB},
		{field: "network.egress_gb_per_month", summary: "Invalid Size", limit: catalog.LimitDataGB, v: in.EgressGBPerMonth},
		{field: "network.inter_region_gb_per_month", summary: "Invalid Size", limit: catalog.LimitDataGB, v: in.InterRegionGBPerMonth},
	}
	for _, name := range sortedNames(in.ExtraMonthlyUSD) {
		bounds = append(bounds, bound{field: "extra_monthly_usd", key: name, summary: "Invalid Extra Cost",
			limit: catalog.LimitMonthlyCostUSD, v: in.ExtraMonthlyUSD[name], hint: "It is a monthly cost in USD, for example 73."})
	}
	bounds = append(bounds, providerBounds(in.Discount, in.CarbonPriceUSDPerTonne)...)
	if err := firstBad(bounds); err != nil {
		return err
	}
	if lf := in.LoadFactor; lf != 0 && !(lf > 0 && lf <= 1) {
		return inputErr("load_factor", "Invalid Load Factor", "load_factor = %v: must be more than 0 and at most 1, the GPUs' "+
			"average board power as a share of their TDP.", lf)
	}
	if in.Workload != "" {
		if _, ok := m.LoadFactor[in.Workload]; !ok {
			return inputErr("load", "Invalid Load", "load = %q: allowed: %s.", in.Workload, catalog.QuoteList(m.Workloads()))
		}
	}
	return nil
}

// mix validates and normalises the pricing mix.
func (m *Model) mix(in *Input) (shares, error) {
	var out shares
	if len(in.PricingMix) == 0 {
		def := catalog.OnDemand
		if in.Serverless != nil {
			def = catalog.Serverless // its only pricing model
		}
		if _, ok := m.rate(in, def); !ok {
			return out, notSoldAs("pricing_mix", "", in.Offer, def, m.sold(in))
		}
		out[def.Index()] = 1
		return out, nil
	}
	keys := make([]string, 0, len(in.PricingMix))
	for pm := range in.PricingMix {
		keys = append(keys, string(pm))
	}
	sort.Strings(keys)
	var sum float64
	for _, k := range keys {
		pm := catalog.PricingModel(k)
		s := in.PricingMix[pm]
		if pm.Index() < 0 {
			return out, keyErr("pricing_mix", k, "Unknown Pricing Model",
				"pricing_mix has the key %q; allowed: %s.", k, joinModels(catalog.AllPricingModels))
		}
		if ie := (bound{field: "pricing_mix", key: k, summary: "Invalid Pricing Mix", limit: catalog.LimitFraction, v: s,
			hint: "It is the share of the running hours bought this way."}).check(); ie != nil {
			return out, ie
		}
		if _, ok := m.rate(in, pm); !ok && s > 0 {
			return out, notSoldAs("pricing_mix", k, in.Offer, pm, m.sold(in))
		}
		sum += s
	}
	if math.Abs(sum-1) > m.ShareSumTolerance {
		return out, inputErr("pricing_mix", "Invalid Pricing Mix",
			"the pricing_mix shares sum to %v; they must sum to 1 (within %v), for example { on_demand = 0.3, reserved_1y = 0.7 }.",
			sum, m.ShareSumTolerance)
	}
	for i, pm := range catalog.AllPricingModels {
		out[i] = in.PricingMix[pm] / sum
	}
	return out, nil
}

func bad(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }

func sortedNames(m map[string]float64) []string {
	if len(m) == 0 {
		return nil
	}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// BlockStorageMonthlyUSD is the monthly list price of gb of block storage
// on a cloud, less the provider discount (a fraction in [0, 1)).
func BlockStorageMonthlyUSD(cl *catalog.Cloud, gb, discount float64) float64 {
	return gb * cl.BlockStorageUSDPerGBMonth * (1 - discount)
}

// ObjectStorageMonthlyUSD is the monthly list price of gb of object storage
// on a cloud, less the provider discount.
func ObjectStorageMonthlyUSD(cl *catalog.Cloud, gb, discount float64) float64 {
	return gb * cl.ObjectStorageUSDPerGBMonth * (1 - discount)
}
