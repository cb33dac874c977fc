// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package catalog

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Valid enumerations.
var (
	validFabrics = func() map[Fabric]bool {
		m := map[Fabric]bool{}
		for _, f := range Fabrics {
			m[f] = true
		}
		return m
	}()
	validPartitions = func() map[Partition]bool {
		m := map[Partition]bool{}
		for _, p := range Partitions {
			m[p] = true
		}
		return m
	}()
	validInterconnectKinds = func() map[InterconnectKind]bool {
		m := map[InterconnectKind]bool{}
		for _, k := range InterconnectKinds {
			m[k] = true
		}
		return m
	}()
	// fixedDomainGPUs is the scale-up domain every accelerator of a kind
	// must have: a bridged PCIe pair, or a card with no link.
	fixedDomainGPUs = map[InterconnectKind]int{InterconnectNVLinkBridge: 2, InterconnectPCIe: 1}
	validCompliance = map[string]bool{ComplianceGDPR: true, ComplianceUKGDPR: true, ComplianceSwissFADP: true,
		ComplianceMLPS2: true, ComplianceFedRAMPHigh: true, ComplianceHIPAA: true}
	validPrecisions = func() map[string]bool {
		m := map[string]bool{}
		for _, p := range Precisions {
			m[p] = true
		}
		return m
	}()
)

// The validators below report every problem of an entry at once (a
// FieldErrors), so a user fixes a file in one run. Numbers are checked
// against the limits of data/input_limits.json (fieldLimits). The loader
// runs them on the built-in data and package overlay on each entry of a
// user catalog file.

// ValidateAccelerator checks an accelerator entry.
func ValidateAccelerator(a *Accelerator) error {
	var p problems
	if a.ID == "" {
		p.add("id", "required")
	}
	p.names("id", a.ID, "name", a.Name, "source", a.Source)
	for i, al := range a.Aliases {
		p.names(fmt.Sprintf("aliases[%d]", i), al)
	}
	p.bound(sectionAccelerators, "memory_gb", a.MemoryGB)
	p.bound(sectionAccelerators, "memory_bandwidth_tbps", a.MemoryBandwidthTBps)
	p.bound(sectionAccelerators, "tdp_watts", a.TDPWatts)
	p.bound(sectionAccelerators, "interconnect_gbps", a.InterconnectGBps)
	if !validInterconnectKinds[a.InterconnectKind] {
		p.add("interconnect_kind", "must be one of %s, got %q", QuoteList(InterconnectKinds), a.InterconnectKind)
	}
	if p.bound(sectionAccelerators, "nvlink_domain_gpus", float64(a.NVLinkDomainGPUs)) {
		if n, ok := fixedDomainGPUs[a.InterconnectKind]; ok && a.NVLinkDomainGPUs != n {
			p.add("nvlink_domain_gpus", "an accelerator with interconnect_kind %q has a domain of %d, got %d", a.InterconnectKind, n, a.NVLinkDomainGPUs)
		}
	}
	if len(a.PeakTFLOPS) == 0 {
		p.add("peak_tflops", "at least one precision is required (valid: %s)", strings.Join(Precisions, ", "))
	}
	for _, prec := range sortedKeys(a.PeakTFLOPS) {
		if !validPrecisions[prec] {
			p.add("peak_tflops."+prec, "unknown precision %q (valid: %s)", prec, strings.Join(Precisions, ", "))
			continue
		}
		p.bound(sectionAccelerators, "peak_tflops."+prec, a.PeakTFLOPS[prec])
	}
	return p.err()
}

// ValidateCloud checks a cloud entry.
func ValidateCloud(c *Cloud) error {
	var p problems
	if c.ID == "" || strings.ToLower(c.ID) != c.ID || strings.ContainsAny(c.ID, "/ ") {
		p.add("id", "must be a lower-case identifier without spaces or slashes, got %q", c.ID)
	}
	p.names("id", c.ID, "name", c.Name, "pue_source", c.PUESource, "source", c.Source)
	p.bound(sectionClouds, "pue", c.PUE)
	for _, pm := range c.PricingModels {
		if pm.Index() < 0 {
			p.add("pricing_models", "unknown pricing model %q (valid: %s)", pm, QuoteList(PricingModelNames(AllPricingModels)))
		}
	}
	for i, t := range c.EgressTiers {
		p.bound(sectionClouds, fmt.Sprintf("egress_tiers[%d].up_to_gb", i), t.UpToGB)
		p.bound(sectionClouds, fmt.Sprintf("egress_tiers[%d].usd_per_gb", i), t.USDPerGB)
	}
	checkTierOrder(c.EgressTiers, &p)
	p.bound(sectionClouds, "inter_region_usd_per_gb", c.InterRegionUSDPerGB)
	p.bound(sectionClouds, "block_storage_usd_per_gb_month", c.BlockStorageUSDPerGBMonth)
	p.bound(sectionClouds, "object_storage_usd_per_gb_month", c.ObjectStorageUSDPerGBMonth)
	p.bound(sectionClouds, "reserved_1y_discount", c.Reserved1YDiscount)
	p.bound(sectionClouds, "reserved_3y_discount", c.Reserved3YDiscount)
	p.bound(sectionClouds, "spot.interruptions_per_day", c.Spot.InterruptionsPerDay)
	p.bound(sectionClouds, "spot.notice_seconds", float64(c.Spot.NoticeSeconds))
	p.bound(sectionClouds, "spot.max_runtime_hours", c.Spot.MaxRuntimeHours)
	return p.err()
}

// checkTierOrder checks that egress tiers are in the order they apply:
// each ends above the one before, and only the last is unlimited (0), so no
// tier is unreachable and none prices all the egress after it.
func checkTierOrder(tiers []EgressTier, p *problems) {
	for i, t := range tiers {
		last := i == len(tiers)-1
		switch {
		case t.UpToGB == 0 && !last:
			p.add(fmt.Sprintf("egress_tiers[%d].up_to_gb", i), "0 (unlimited) is for the last tier only: this tier would "+
				"price all egress and the %d after it would never apply; list the tiers in the order they apply, the unlimited one last",
				len(tiers)-1-i)
		case i > 0 && t.UpToGB != 0 && tiers[i-1].UpToGB != 0 && t.UpToGB <= tiers[i-1].UpToGB:
			p.add(fmt.Sprintf("egress_tiers[%d].up_to_gb", i), "%s GB is not above the tier before (%s GB): tiers end at "+
				"increasing cumulative volumes, in the order they apply", FormatNumber(t.UpToGB), FormatNumber(tiers[i-1].UpToGB))
		}
	}
}

// CheckUnique rejects duplicate cloud IDs and accelerator IDs/aliases.
func (c *Catalog) CheckUnique() error {
	clouds := map[string]bool{}
	for _, cl := range c.Clouds {
		if clouds[cl.ID] {
			return fmt.Errorf("cloud %q: duplicate", cl.ID)
		}
		clouds[cl.ID] = true
	}
	keys := map[string]string{}
	for _, a := range c.Accelerators {
		for _, k := range append([]string{a.ID}, a.Aliases...) {
			lk := strings.ToLower(k)
			if prev, dup := keys[lk]; dup {
				return fmt.Errorf("accelerator %q: id or alias %q already names %q", a.ID, k, prev)
			}
			keys[lk] = a.ID
		}
	}
	return nil
}

// ValidateRegion checks a region entry against the (indexed) clouds of c
// and adds the compliance regime its partition implies.
func (c *Catalog) ValidateRegion(r *Region) error {
	var p problems
	if r.ID == "" {
		p.add("id", "required")
	}
	p.names("id", r.ID, "city", r.City, "source", r.Source)
	if cl, ok := c.Cloud(r.Cloud); !ok {
		p.add("cloud", "unknown cloud %q%s", r.Cloud, didYouMean(r.Cloud, c.CloudIDs()))
	} else {
		p.spelled("cloud", r.Cloud, cl.ID)
		if ex, ok := c.Region(r.Cloud, r.ID); ok {
			p.spelled("id", r.ID, ex.ID)
		}
	}
	if !validPartitions[r.Partition] {
		p.add("partition", "must be one of %s, got %q", QuoteList(Partitions), r.Partition)
	}
	if r.Country == "" {
		p.add("country", "required (ISO 3166-1 alpha-2, e.g. \"DE\")")
	}
	if r.Geography == "" {
		p.add("geography", "required (e.g. \"eu\", \"us\", \"apac\")")
	}
	for _, f := range r.Compliance {
		if !validCompliance[f] {
			p.add("compliance", "unknown flag %q (valid: %s)", f, QuoteList(slices.Sorted(maps.Keys(validCompliance))))
		}
	}
	if regime, ok := PartitionCompliance[r.Partition]; ok && !slices.Contains(r.Compliance, regime) {
		r.Compliance = append(r.Compliance, regime)
	}
	p.bound(sectionRegions, "grid_gco2e_per_kwh", r.GridGCO2ePerKWh)
	p.bound(sectionRegions, "grid_year", float64(r.GridYear))
	p.bound(sectionRegions, "pue", r.PUE)
	return p.err()
}

// ValidateOffer checks an offer against the (indexed) clouds, regions and
// accelerators of c.
func (c *Catalog) ValidateOffer(o *Offer) error {
	var p problems
	if o.InstanceType == "" {
		p.add("instance_type", "required")
	}
	if o.Region == "" {
		p.add("region", "required")
	}
	p.names("instance_type", o.InstanceType, "source", o.Source)
	if cl, ok := c.Cloud(o.Cloud); !ok {
		p.add("cloud", "unknown cloud %q%s", o.Cloud, didYouMean(o.Cloud, c.CloudIDs()))
	} else if r, ok := c.Region(o.Cloud, o.Region); !ok && o.Region != "" {
		p.add("region", "region %q of cloud %q has no metadata%s", o.Region, o.Cloud, didYouMean(o.Region, c.RegionIDs(o.Cloud)))
	} else {
		p.spelled("cloud", o.Cloud, cl.ID)
		if ok {
			p.spelled("region", o.Region, r.ID)
		}
	}
	a, ok := c.accelByKey[strings.ToLower(o.Accelerator)]
	accelOK := ok && a.ID == o.Accelerator
	if !accelOK {
		hint := didYouMean(o.Accelerator, c.AcceleratorIDs())
		if ok {
			hint = fmt.Sprintf(" (use the canonical ID %q)", a.ID)
		}
		p.add("accelerator", "unknown accelerator %q%s", o.Accelerator, hint)
	}
	if !validFabrics[o.Fabric] {
		p.add("fabric", "must be one of %s, got %q", QuoteList(Fabrics), o.Fabric)
	}
	gpusOK := validateGPUs(o, &p)
	if gpusOK && accelOK { // without a known accelerator the memory has no default
		// The node total, checked per GPU against the accelerator memory limit.
		l := limit(LimitAcceleratorMemoryGB)
		perGPU := Limit{Name: l.Name, Min: 0, MinExclusive: true, Max: l.Max * o.GPUCount(), Unit: l.Unit}
		if err := perGPU.Check(o.GPUMemoryGB); err != nil {
			p.add("gpu_memory_gb", "%v (at most %s %s per GPU × %s GPUs)", err, FormatNumber(l.Max), l.Unit, FormatNumber(o.GPUCount()))
		}
	}
	p.bound(sectionOffers, "vcpus", float64(o.VCPUs))
	p.bound(sectionOffers, "memory_gb", o.MemoryGB)
	p.bound(sectionOffers, "network_gbps", o.NetworkGbps)
	p.bound(sectionOffers, "capacity_block_usd", o.CapacityBlockUSD)
	// An offer not sold on demand (AWS p5e: capacity blocks only; GCP
	// a3-highgpu-1g: spot only; GCP a4: commitments only) has no on-demand
	// price but must have another one; its other prices are not compared
	// with on-demand.
	notOnDemand := o.OnDemandUSD == 0 && (o.CapacityBlockUSD > 0 || o.SpotUSD > 0 || o.Reserved1YUSD > 0 || o.Reserved3YUSD > 0)
	odOK := !notOnDemand && p.bound(sectionOffers, "on_demand_usd", o.OnDemandUSD)
	for _, fv := range []struct {
		name string
		v    float64
	}{{"spot_usd", o.SpotUSD}, {"reserved_1y_usd", o.Reserved1YUSD}, {"reserved_3y_usd", o.Reserved3YUSD}} {
		if p.bound(sectionOffers, fv.name, fv.v) && odOK && fv.v > 0 && fv.v >= o.OnDemandUSD {
			p.add(fv.name, "%s is not below on_demand_usd %s (0 or absent = not sold)", FormatNumber(fv.v), FormatNumber(o.OnDemandUSD))
		}
	}
	if o.Currency == "" {
		o.Currency = "USD"
	}
	return p.err()
}

// validateServerless checks a serverless offer against the (indexed)
// clouds, regions and accelerators of c.
func (c *Catalog) validateServerless(s *ServerlessOffer) error {
	if s.Name == "" || s.Product == "" {
		return fmt.Errorf("fields \"name\" and \"product\" are required")
	}
	if cl, ok := c.Cloud(s.Cloud); !ok || cl.ID != s.Cloud {
		return fmt.Errorf("unknown cloud %q%s", s.Cloud, didYouMean(s.Cloud, c.CloudIDs()))
	}
	if r, ok := c.Region(s.Cloud, s.Region); s.Region != "" && (!ok || r.ID != s.Region) {
		return fmt.Errorf("region %q of cloud %q has no metadata (leave it empty when the platform places workers)", s.Region, s.Cloud)
	}
	if a, ok := c.accelByKey[strings.ToLower(s.Accelerator)]; !ok || a.ID != s.Accelerator {
		return fmt.Errorf("unknown accelerator %q (use a canonical ID)%s", s.Accelerator, didYouMean(s.Accelerator, c.AcceleratorIDs()))
	}
	switch {
	case s.GPUs < 1:
		return fieldMust("gpus", "must be >= 1", s.GPUs)
	case s.GPUMemoryGB <= 0:
		return fieldMust("gpu_memory_gb", "must be > 0", s.GPUMemoryGB)
	case s.USDPerGPUSecond <= 0:
		return fieldMust("usd_per_gpu_second", "must be > 0", s.USDPerGPUSecond)
	case s.BillingIncrementSeconds <= 0:
		return fieldMust("billing_increment_seconds", "must be > 0 (1 for per-second billing)", s.BillingIncrementSeconds)
	}
	for _, fv := range []namedValue{{"min_billed_seconds", s.MinBilledSeconds}, {"idle_billed_seconds", s.IdleBilledSeconds},
		{"cold_start_seconds", s.ColdStartSeconds}, {"cpu_usd_per_core_second", s.CPUUSDPerCoreSecond},
		{"memory_usd_per_gib_second", s.MemoryUSDPerGiBSecond}, {"min_cpu_cores", s.MinCPUCores}, {"min_memory_gib", s.MinMemoryGiB}} {
		if fv.v < 0 {
			return fieldMust(fv.name, "must be >= 0", fv.v)
		}
	}
	return nil
}

// validateGPUs checks the GPU count: whole GPUs, or a share of one GPU;
// false when it is not usable.
func validateGPUs(o *Offer, p *problems) bool {
	switch {
	case o.GPUFraction != 0 && o.GPUs != 0:
		p.add("gpu_fraction", "give gpus or gpu_fraction, not both: got gpus %d and gpu_fraction %s", o.GPUs, FormatNumber(o.GPUFraction))
		return false
	case o.GPUFraction != 0:
		if !(o.GPUFraction > 0 && o.GPUFraction < 1) {
			p.add("gpu_fraction", "must be in (0, 1) (a share of one GPU; whole GPUs go in gpus), got %s", FormatNumber(o.GPUFraction))
			return false
		}
		return true
	}
	return p.bound(sectionOffers, "gpus", float64(o.GPUs))
}

// didYouMean formats the closest valid values for an error message.
func didYouMean(got string, valid []string) string { return DidYouMean(got, valid, 3) }

// DidYouMean formats the n closest of the valid values for an error
// message: ` (did you mean "a", "b"?)`, or "" when there are none.
func DidYouMean(got string, valid []string, n int) string {
	if len(valid) == 0 {
		return ""
	}
	return fmt.Sprintf(" (did you mean %s?)", QuoteList(Closest(got, valid, n)))
}
