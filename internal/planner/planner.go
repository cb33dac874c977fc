// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner

import (
	"cmp"
	"errors"
	"math"
	"slices"
	"sort"
	"strconv"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/cost"
	"github.com/gpuplan/terraform-provider-gpu/internal/perf"
)

// DefaultTop is the number of candidates returned when Request.Top is 0,
// and MaxTop the largest accepted Request.Top. They are constants for the
// Terraform schema; planner_policy.json (default_top, max_top) holds the
// same values, which the planner uses (TestPolicyMatchesConstants).
const (
	DefaultTop = 5
	MaxTop     = 100
)

// DefaultMaxNodes bounds the node counts tried when constraints.max_nodes is
// not set (planner_policy.json default_max_nodes: 128 nodes are 1,024 GPUs
// of an 8-GPU instance, the scale of a large pre-training run).
var DefaultMaxNodes = mustPolicy().DefaultMaxNodes

// The planner prices every pricing model (catalog.AllPricingModels); an
// offer's per-model arrays are indexed by catalog.PricingModel.Index, its
// slot. Serverless is the only model of a serverless offer and no
// instance's.
var (
	slotSpot       = catalog.Spot.Index()
	slotServerless = catalog.Serverless.Index()
)

// The workload kinds, each with a slot in offerInfo.kwhPerHour.
var kindSlots = [...]string{perf.KindTraining, perf.KindFineTuning, perf.KindInference}

func kindSlot(kind string) int {
	for i, k := range kindSlots {
		if k == kind {
			return i
		}
	}
	return 0
}

// offerInfo is an offer with everything the filters need precomputed.
type offerInfo struct {
	// o is the instance; for a serverless offer, its instance view (one
	// worker as a node of fabric none, no instance price).
	o *catalog.Offer
	// serverless is the serverless offer, nil for instances.
	serverless *catalog.ServerlessOffer
	cloud      *catalog.Cloud
	region     *catalog.Region
	accel      *catalog.Accelerator
	comp       complianceSet
	geo        string
	// fraction is the share of one GPU of a fractional instance (0 for
	// whole GPUs); its hardware group holds the derived share accelerator.
	fraction float64
	// country and partition of the region ("" and commercial when the
	// region has no metadata).
	country   string
	partition catalog.Partition
	group     int // index into Planner.groups
	// stack is the index of the accelerator's software stack in
	// Planner.stacks.Stacks, -1 when unknown (no constraint allows it).
	stack   int
	cloudIx int // index into Planner.cloudIDs (the run's discount)
	// sold lists the pricing models the offer is sold under, canonical
	// order, and soldSlot the slot (Index) of each.
	sold      []catalog.PricingModel
	soldSlot  []int
	memPerGPU float64
	// From the cost model (see price.go): the rate per pricing model (by
	// slot; kept apart, so the offers the filters walk stay small), energy
	// per node running hour per workload kind (by kindSlot), kg CO2e per
	// kWh.
	rates *[catalog.NumPricingModels]cost.Rate
	// nodeMonthUSD is one instance serving around the clock for a month of
	// the inference horizon under each instance pricing model (by
	// Index), before discounts: what unitSearch bounds costs with.
	nodeMonthUSD [catalog.NumPricingModels]float64
	kwhPerHour   [len(kindSlots)]float64
	kgPerKWh     float64
}

// hwGroup is one distinct hardware shape: offers of the same instance type
// in different regions (and identical instances of different clouds) share
// the benchmark estimates. hw.GPUs is set per node count.
type hwGroup struct {
	hw     perf.Hardware
	family int // index of the (accelerator, GPUs per node) family
}

// Planner ranks the offers of one catalog. Build it once per catalog with
// New; Recommend is safe for concurrent use.
type Planner struct {
	cat    *catalog.Catalog
	cost   *cost.Model
	policy *Policy
	offers []offerInfo // sorted by cloud, region, instance type
	groups []hwGroup
	// members lists each group's offers (indexes into offers).
	members [][]int
	// families is the number of distinct (accelerator, GPUs per node).
	families int
	// cloudIDs lists the offers' clouds (offerInfo.cloudIx), so the price
	// loop reads a run's discount by index, not by name.
	cloudIDs []string

	regionIDs, geoIDs, countryIDs []string
	regionClouds                  map[string][]string // region ID (catalog.NameKey) -> clouds having it
	regionSpelling                map[string]string   // region ID (catalog.NameKey) -> as the catalog spells it
	geos                          map[string]bool
	// countryClouds: country code -> clouds with a region there.
	countryClouds map[string][]string
	// shares holds the derived accelerators of fractional instances and
	// of instances smaller than their part's board (boardOf).
	shares map[string]*catalog.Accelerator
	// partitions describes what asks for each separate-account partition.
	partitions map[catalog.Partition]*partitionInfo
	// stacks is the software-stacks table (what each stack runs).
	stacks        *catalog.SoftwareStacks
	date          string
	hoursPerMonth float64
}

// New precomputes the planner's view of a catalog: offers sorted in the
// tie-break order with their cloud, region and accelerator resolved,
// compliance as a bit set and distinct hardware shapes grouped. A nil cost
// model means the built-in one.
func New(cat *catalog.Catalog, cm *cost.Model) (*Planner, error) {
	if cat == nil {
		return nil, errors.New("planner: nil catalog")
	}
	if cm == nil {
		var err error
		if cm, err = cost.DefaultModel(); err != nil {
			return nil, err
		}
	}
	pol, err := BuiltinPolicy()
	if err != nil {
		return nil, err
	}
	stacks, err := catalog.BuiltinSoftwareStacks()
	if err != nil {
		return nil, err
	}
	p := &Planner{cat: cat, cost: cm, policy: pol, stacks: stacks, regionClouds: map[string][]string{}, regionSpelling: map[string]string{}, geos: map[string]bool{},
		countryClouds: map[string][]string{}, shares: map[string]*catalog.Accelerator{}, hoursPerMonth: cm.HoursPerMonth}
	if !cat.Date.IsZero() {
		p.date = cat.Date.Format("2006-01-02")
	}
	p.addOffers()
	p.indexNames()
	return p, nil
}

// addOffers precomputes every offer the planner can rank (instances and
// serverless offers) and groups them by hardware shape, then sorts them in
// tie-break order.
func (p *Planner) addOffers() {
	p.offers = make([]offerInfo, 0, len(p.cat.Offers)+len(p.cat.Serverless))
	for _, o := range p.cat.Offers {
		if oi, ok := p.newOfferInfo(o); ok {
			p.offers = append(p.offers, oi)
		}
	}
	for _, s := range p.cat.Serverless {
		if oi, ok := p.newServerlessInfo(s); ok {
			p.offers = append(p.offers, oi)
		}
	}
	p.groupOffers()
	p.indexClouds()
	// Tie-break order: cloud, region, instance type (stable). The offers are
	// permuted once rather than sorted in place: an offerInfo is large.
	order := make([]int, len(p.offers))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int {
		a, b := p.offers[i].o, p.offers[j].o
		return cmp.Or(cmp.Compare(a.Cloud, b.Cloud), cmp.Compare(a.Region, b.Region), cmp.Compare(a.InstanceType, b.InstanceType))
	})
	sorted := make([]offerInfo, len(p.offers))
	for k, i := range order {
		sorted[k] = p.offers[i]
	}
	p.offers = sorted
	p.members = make([][]int, len(p.groups))
	for i := range p.offers {
		g := p.offers[i].group
		p.members[g] = append(p.members[g], i)
	}
}

// groupOffers gives each offer its hardware group: offers of the same
// accelerator (or share of one), GPUs per node, network and fabric share
// the benchmark estimates; groups of the same accelerator and node size
// form a family.
func (p *Planner) groupOffers() {
	type shape struct {
		acc  string
		gpn  int
		gbps float64
		fab  catalog.Fabric
	}
	groupOf := map[shape]int{}
	familyOf := map[shape]int{}
	for i := range p.offers {
		oi := &p.offers[i]
		hw := p.hardwareOf(oi)
		k := shape{hw.Accelerator.ID + fractionKey(oi.fraction), hw.GPUsPerNode, oi.o.NetworkGbps, oi.o.Fabric}
		g, seen := groupOf[k]
		if !seen {
			g = len(p.groups)
			groupOf[k] = g
			fk := shape{acc: k.acc, gpn: hw.GPUsPerNode}
			fam, ok := familyOf[fk]
			if !ok {
				fam = len(familyOf)
				familyOf[fk] = fam
			}
			p.groups = append(p.groups, hwGroup{family: fam, hw: hw})
		}
		oi.group = g
	}
	p.families = len(familyOf)
}

// indexClouds gives each offer the index of its cloud in p.cloudIDs.
func (p *Planner) indexClouds() {
	ix := map[string]int{}
	for i := range p.offers {
		oi := &p.offers[i]
		k, ok := ix[oi.o.Cloud]
		if !ok {
			k = len(p.cloudIDs)
			ix[oi.o.Cloud] = k
			p.cloudIDs = append(p.cloudIDs, oi.o.Cloud)
		}
		oi.cloudIx = k
	}
}

// newOfferInfo resolves an offer and precomputes its filters and pricing
// coefficients; ok is false for an offer the planner cannot rank (no GPUs,
// an unresolved reference, nothing sold).
func (p *Planner) newOfferInfo(o *catalog.Offer) (offerInfo, bool) {
	if o == nil || (o.GPUs <= 0 && !o.Fractional()) {
		return offerInfo{}, false
	}
	oi := offerInfo{o: o, fraction: o.GPUFraction, rates: new([catalog.NumPricingModels]cost.Rate)}
	oi.cloud, _ = p.cat.Cloud(o.Cloud)
	oi.region, _ = p.cat.Region(o.Cloud, o.Region)
	oi.accel, _ = p.cat.Accelerator(o.Accelerator)
	if oi.cloud == nil || oi.accel == nil {
		return offerInfo{}, false // an offer the catalog validator should have refused
	}
	oi.stack = p.stackIndex(oi.accel)
	oi.comp = offerCompliance(oi.cloud, oi.region)
	oi.partition = catalog.PartitionCommercial
	if oi.region != nil {
		oi.geo, oi.country, oi.partition = oi.region.Geography, oi.region.Country, oi.region.Partition
	}
	horizon := p.hoursPerMonth * p.policy.InferenceHorizonMonths
	serving := cost.Usage{Instances: 1, Hours: horizon, HorizonHours: horizon, Serving: true}
	for _, pm := range catalog.InstancePricingModels {
		if rate, ok := p.cost.Rate(o, oi.cloud, pm); ok {
			oi.sold = append(oi.sold, pm)
			oi.soldSlot = append(oi.soldSlot, pm.Index())
			oi.rates[pm.Index()] = rate
			oi.nodeMonthUSD[pm.Index()] = rate.Bill(&serving).USD / p.policy.InferenceHorizonMonths
		}
	}
	if len(oi.sold) == 0 {
		return offerInfo{}, false
	}
	oi.memPerGPU = o.GPUMemoryGB / math.Max(1, float64(o.GPUs)) // a fractional instance: its share
	oi.kgPerKWh = gridKgPerKWh(oi.region)
	for k, kind := range kindSlots {
		oi.kwhPerHour[k] = p.cost.NodeKWhPerHour(o, oi.cloud, oi.region, oi.accel, kind)
	}
	return oi, true
}

// newServerlessInfo resolves a serverless offer: one worker is a node of
// its instance view, sold only as serverless at the worker's hourly rate,
// drawing the cost model's serverless worker energy (inference; a job is
// rejected before it is priced). ok is false for an unresolved reference.
func (p *Planner) newServerlessInfo(s *catalog.ServerlessOffer) (offerInfo, bool) {
	o := s.InstanceView()
	oi := offerInfo{o: o, serverless: s, sold: []catalog.PricingModel{catalog.Serverless}, soldSlot: []int{slotServerless},
		rates: new([catalog.NumPricingModels]cost.Rate)}
	oi.cloud, _ = p.cat.Cloud(s.Cloud)
	oi.region, _ = p.cat.Region(s.Cloud, s.Region)
	oi.accel, _ = p.cat.Accelerator(s.Accelerator)
	if oi.cloud == nil || oi.accel == nil || s.GPUs < 1 {
		return offerInfo{}, false
	}
	oi.stack = p.stackIndex(oi.accel)
	oi.comp = offerCompliance(oi.cloud, oi.region)
	oi.partition = catalog.PartitionCommercial
	if oi.region != nil {
		oi.geo, oi.country, oi.partition = oi.region.Geography, oi.region.Country, oi.region.Partition
	}
	oi.rates[slotServerless] = p.cost.ServerlessRate(s, oi.cloud)
	oi.memPerGPU = o.GPUMemoryGB / float64(o.GPUs)
	oi.kwhPerHour[kindSlot(perf.KindInference)] = p.cost.ServerlessWorkerKWhPerHour(s, oi.cloud, oi.region, oi.accel)
	oi.kgPerKWh = gridKgPerKWh(oi.region)
	return oi, true
}

// stackIndex is the index of an accelerator's software stack in
// p.stacks.Stacks, -1 when the part's stack is unknown.
func (p *Planner) stackIndex(a *catalog.Accelerator) int {
	id := p.stacks.Of(a)
	for i, st := range p.stacks.Stacks {
		if st.ID == id {
			return i
		}
	}
	return -1
}

// gridKgPerKWh is the region's grid intensity in kg CO2e per kWh, 0 when
// unknown (or no region).
func gridKgPerKWh(r *catalog.Region) float64 {
	if r != nil && r.GridGCO2ePerKWh > 0 {
		return r.GridGCO2ePerKWh / 1000
	}
	return 0
}

// hardwareOf is the hardware of an offer for the benchmark model. A
// fractional instance is one device with its share of the accelerator's
// memory, bandwidth and throughput, and no scale-up link.
func (p *Planner) hardwareOf(oi *offerInfo) perf.Hardware {
	o := oi.o
	hw := perf.Hardware{Accelerator: oi.accel, GPUsPerNode: o.GPUs, NetworkGbps: o.NetworkGbps, Fabric: o.Fabric}
	switch {
	case oi.fraction > 0:
		hw.Accelerator, hw.GPUsPerNode = p.shareOf(oi.accel, oi.fraction), 1
	case oi.accel.NVLinkDomainGPUs > o.GPUs && !p.domainSpansNodes(oi.accel):
		hw.Accelerator = p.boardOf(oi.accel, o.GPUs)
	}
	return hw
}

// domainSpansNodes reports whether an accelerator's scale-up domain spans
// the nodes the catalog sells: an NVLink or ICI domain larger than any of
// its offers' GPUs (GB200/GB300 NVL72 racks of 4-GPU trays, TPU pods of
// hosts). A domain no larger than its biggest instance is that
// instance's board (A100 40 GB: 16 in GCP's a2-megagpu-16g), which a
// smaller instance of the part does not share with another.
func (p *Planner) domainSpansNodes(a *catalog.Accelerator) bool {
	if a.InterconnectKind != catalog.InterconnectNVLink && a.InterconnectKind != catalog.InterconnectICI {
		return false
	}
	for _, o := range p.cat.Offers {
		if o.Accelerator == a.ID && o.GPUs >= a.NVLinkDomainGPUs {
			return false
		}
	}
	return true
}

// boardOf is the accelerator as an instance of gpn GPUs has it when its
// domain does not span nodes: a scale-up domain of the instance's GPUs.
// One derived accelerator per (accelerator, GPUs).
func (p *Planner) boardOf(a *catalog.Accelerator, gpn int) *catalog.Accelerator {
	key := a.ID + "#" + strconv.Itoa(gpn)
	if s, ok := p.shares[key]; ok {
		return s
	}
	s := *a
	s.NVLinkDomainGPUs = max(1, gpn)
	p.shares[key] = &s
	return &s
}

// shareOf is the accelerator a fractional instance gets: the share f of
// a's memory, bandwidth, dense peaks and power, without a scale-up link.
// One derived accelerator per (accelerator, share), so estimates are
// shared across offers.
func (p *Planner) shareOf(a *catalog.Accelerator, f float64) *catalog.Accelerator {
	key := a.ID + fractionKey(f)
	if s, ok := p.shares[key]; ok {
		return s
	}
	s := *a
	s.MemoryGB, s.MemoryBandwidthTBps, s.TDPWatts = a.MemoryGB*f, a.MemoryBandwidthTBps*f, a.TDPWatts*f
	s.PeakTFLOPS = make(map[string]float64, len(a.PeakTFLOPS))
	for prec, v := range a.PeakTFLOPS {
		s.PeakTFLOPS[prec] = v * f
	}
	s.InterconnectGBps, s.InterconnectKind, s.NVLinkDomainGPUs = 0, catalog.InterconnectPCIe, 1
	p.shares[key] = &s
	return &s
}

// fractionKey distinguishes the hardware of a share from its whole GPU.
func fractionKey(f float64) string {
	if f == 0 {
		return ""
	}
	return "/" + strconv.FormatFloat(f, 'g', -1, 64)
}

// indexNames collects the names the validation suggests from.
func (p *Planner) indexNames() {
	p.regionIDs = p.cat.RegionIDs("")
	for _, r := range p.cat.Regions {
		key := catalog.NameKey(r.ID)
		p.regionClouds[key] = append(p.regionClouds[key], r.Cloud)
		if _, ok := p.regionSpelling[key]; !ok {
			p.regionSpelling[key] = r.ID
		}
		if r.Geography != "" && !p.geos[r.Geography] {
			p.geos[r.Geography] = true
			p.geoIDs = append(p.geoIDs, r.Geography)
		}
		if r.Country != "" && !slices.Contains(p.countryClouds[r.Country], r.Cloud) {
			if p.countryClouds[r.Country] == nil {
				p.countryIDs = append(p.countryIDs, r.Country)
			}
			p.countryClouds[r.Country] = append(p.countryClouds[r.Country], r.Cloud)
		}
	}
	sort.Strings(p.geoIDs)
	sort.Strings(p.countryIDs)
	p.partitions = partitionsOf(p.cat.Regions)
}

// Catalog returns the planner's catalog.
func (p *Planner) Catalog() *catalog.Catalog { return p.cat }

// Offers returns the number of offers the planner ranks.
func (p *Planner) Offers() int { return len(p.offers) }

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// finite reports whether v is neither NaN nor ±Inf (v − v is NaN exactly
// for those).
func finite(v float64) bool { return v-v == 0 }
