// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner

import (
	"errors"
	"sort"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/cost"
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

// compliance bits of a precomputed offer.
const (
	compGDPR uint8 = 1 << iota
	compUKGDPR
	compSwissFADP
	compMLPS2
	compFedRAMPHigh
	compHIPAA
)

var complianceBits = map[string]uint8{
	catalog.ComplianceGDPR:        compGDPR,
	catalog.ComplianceUKGDPR:      compUKGDPR,
	catalog.ComplianceSwissFADP:   compSwissFADP,
	catalog.ComplianceMLPS2:       compMLPS2,
	catalog.ComplianceFedRAMPHigh: compFedRAMPHigh,
	catalog.ComplianceHIPAA:       compHIPAA,
}

// offerInfo is an offer with everything the filters need precomputed.
type offerInfo struct {
	o      *catalog.Offer
	cloud  *catalog.Cloud
	region *catalog.Region
	accel  *catalog.Accelerator
	comp   uint8
	geo    string
	group  int // index into Planner.groups
	// sold lists the pricing models the offer is sold under, canonical order.
	sold      []catalog.PricingModel
	soldIdx   []int // pmIndex of each sold model
	memPerGPU float64
	// Pricing coefficients, from the cost model (see price in recommend.go
	// and TestPricingMatchesCostModel): list price per pricing model
	// (index pmIndex), spot billed hours per useful hour, energy per node
	// running hour per workload kind (index kindIndex), kg CO2e per kWh.
	price      [4]float64
	spotFactor float64
	kwhPerHour [3]float64
	kgPerKWh   float64
}

// kindIndex maps a workload kind to its slot in offerInfo.kwhPerHour.
func kindIndex(kind string) int {
	switch kind {
	case KindFineTuning:
		return 1
	case KindInference:
		return 2
	}
	return 0
}

// hwGroup is one distinct hardware shape: offers of the same instance type
// in different regions (and identical instances of different clouds) share
// the benchmark estimates.
type hwGroup struct {
	hw  Hardware
	fam int // index of the (accelerator, GPUs per node) family
}

// Planner ranks the offers of one catalog. Build it once per catalog with
// New; Recommend is safe for concurrent use.
type Planner struct {
	cat    *catalog.Catalog
	cost   *cost.Model
	offers []offerInfo // sorted by cloud, region, instance type
	groups []hwGroup

	cloudIDs, regionIDs, geoIDs, accelIDs []string
	regionClouds                          map[string][]string // region ID -> clouds having it
	geos                                  map[string]bool
	date                                  string
	families                              int
	hoursPerMonth                         float64
	termHours                             [4]float64 // per pmIndex; 0 = no commitment
	policy                                *Policy
}

// New precomputes the planner's view of a catalog: offers sorted in the
// tie-break order with their cloud, region and accelerator resolved,
// compliance flags as bits and distinct hardware shapes grouped.
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
	pol, err := DefaultPolicy()
	if err != nil {
		return nil, err
	}
	p := &Planner{cat: cat, cost: cm, regionClouds: map[string][]string{}, geos: map[string]bool{}, hoursPerMonth: cm.HoursPerMonth,
		policy: pol}
	for _, pm := range []catalog.PricingModel{catalog.Reserved1Y, catalog.Reserved3Y} {
		p.termHours[pmIndex(pm)] = cm.TermMonths[pm] * cm.HoursPerMonth
	}
	if !cat.Date.IsZero() {
		p.date = cat.Date.Format("2006-01-02")
	}
	type gkey struct {
		acc  string
		gpn  int
		gbps float64
		fab  catalog.Fabric
	}
	groupOf := map[gkey]int{}
	famOf := map[gkey]int{}
	for _, o := range cat.Offers {
		if o == nil || o.GPUs <= 0 {
			continue
		}
		oi := offerInfo{o: o}
		oi.cloud, _ = cat.Cloud(o.Cloud)
		oi.region, _ = cat.Region(o.Cloud, o.Region)
		oi.accel, _ = cat.Accelerator(o.Accelerator)
		if oi.cloud == nil || oi.accel == nil {
			continue // an offer the catalog validator should have refused
		}
		if oi.region != nil {
			oi.geo = oi.region.Geography
			for _, c := range oi.region.Compliance {
				oi.comp |= complianceBits[c]
			}
			switch oi.region.Partition {
			case "gov":
				oi.comp |= compFedRAMPHigh
			case "china":
				oi.comp |= compMLPS2
			}
		}
		if oi.cloud.HIPAA {
			oi.comp |= compHIPAA
		}
		oi.sold = cost.OfferedModels(o)
		if len(oi.sold) == 0 {
			continue
		}
		for _, pm := range oi.sold {
			oi.soldIdx = append(oi.soldIdx, pmIndex(pm))
		}
		oi.memPerGPU = o.GPUMemoryGB / float64(o.GPUs)
		for _, pm := range oi.sold {
			oi.price[pmIndex(pm)], _ = o.Price(pm)
		}
		oi.spotFactor = cm.SpotRiskFactor(oi.cloud)
		for k, kind := range []string{KindTraining, KindFineTuning, KindInference} {
			jr, err := cm.JobCost(cost.JobInput{Offer: o, Cloud: oi.cloud, Region: oi.region, Accelerator: oi.accel,
				Nodes: 1, Hours: 1, PricingModel: oi.sold[0], Workload: kind})
			if err != nil {
				return nil, err
			}
			oi.kwhPerHour[k] = jr.EnergyKWh
		}
		if oi.region != nil && oi.region.GridGCO2ePerKWh > 0 {
			oi.kgPerKWh = oi.region.GridGCO2ePerKWh / 1000
		}
		k := gkey{oi.accel.ID, o.GPUs, o.NetworkGbps, o.Fabric}
		g, ok := groupOf[k]
		if !ok {
			g = len(p.groups)
			groupOf[k] = g
			fk := gkey{acc: oi.accel.ID, gpn: o.GPUs}
			fam, ok := famOf[fk]
			if !ok {
				fam = len(famOf)
				famOf[fk] = fam
			}
			p.groups = append(p.groups, hwGroup{fam: fam, hw: Hardware{
				Accelerator: oi.accel, GPUsPerNode: o.GPUs, Nodes: 1, NetworkGbps: o.NetworkGbps, Fabric: o.Fabric,
			}})
		}
		oi.group = g
		p.offers = append(p.offers, oi)
	}
	p.families = len(famOf)
	sort.SliceStable(p.offers, func(i, j int) bool {
		a, b := p.offers[i].o, p.offers[j].o
		if a.Cloud != b.Cloud {
			return a.Cloud < b.Cloud
		}
		if a.Region != b.Region {
			return a.Region < b.Region
		}
		return a.InstanceType < b.InstanceType
	})
	p.cloudIDs = cat.CloudIDs()
	p.regionIDs = cat.RegionIDs("")
	p.accelIDs = cat.AcceleratorIDs()
	for _, r := range cat.Regions {
		p.regionClouds[r.ID] = append(p.regionClouds[r.ID], r.Cloud)
		if r.Geography != "" && !p.geos[r.Geography] {
			p.geos[r.Geography] = true
			p.geoIDs = append(p.geoIDs, r.Geography)
		}
	}
	sort.Strings(p.geoIDs)
	return p, nil
}

// Catalog returns the planner's catalog.
func (p *Planner) Catalog() *catalog.Catalog { return p.cat }

// Offers returns the number of offers the planner ranks.
func (p *Planner) Offers() int { return len(p.offers) }

// option is one physically feasible node count of a hardware group.
type option struct {
	nodes    int
	replicas int
	est      Estimate
	tps      float64 // tokens/s of the whole deployment
	// Inference: units serving units of unit nodes, each holding
	// unitReplicas replicas and sustaining est.TokensPerSecond.
	unit, units, unitReplicas int
}

// groupResult is the physics verdict for one hardware group.
type groupResult struct {
	options []option
	reason  string // when options is empty
	// minGPUs is the fewest GPUs that fit (0 = unknown), for messages.
	minGPUs int
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// finite reports whether v is neither NaN nor ±Inf (v − v is NaN exactly
// for those).
func finite(v float64) bool { return v-v == 0 }
