// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package catalog

import (
	"fmt"
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
	validPricingModels = func() map[PricingModel]bool {
		m := map[PricingModel]bool{}
		for _, pm := range AllPricingModels {
			m[pm] = true
		}
		return m
	}()
)

// namedValue pairs a field name with its value so checks run in a fixed
// order (deterministic error messages).
type namedValue struct {
	name string
	v    float64
}

func fieldMust(field, cond string, got any) error {
	return fmt.Errorf("field %q: %s, got %v", field, cond, got)
}

func validateAccelerator(a *Accelerator) error {
	switch {
	case a.ID == "":
		return fmt.Errorf("field %q: required", "id")
	case a.MemoryGB <= 0:
		return fieldMust("memory_gb", "must be > 0", a.MemoryGB)
	case a.MemoryBandwidthTBps <= 0:
		return fieldMust("memory_bandwidth_tbps", "must be > 0", a.MemoryBandwidthTBps)
	case len(a.PeakTFLOPS) == 0:
		return fmt.Errorf("field %q: at least one precision required", "peak_tflops")
	case a.TDPWatts < 0:
		return fieldMust("tdp_watts", "must be >= 0", a.TDPWatts)
	}
	if !validInterconnectKinds[a.InterconnectKind] {
		return fmt.Errorf("field %q: must be one of %s, got %q", "interconnect_kind", QuoteList(InterconnectKinds), a.InterconnectKind)
	}
	if a.NVLinkDomainGPUs < 1 {
		return fieldMust("nvlink_domain_gpus", "must be >= 1 (accelerators in one scale-up domain; 1 = no link)", a.NVLinkDomainGPUs)
	}
	if n, ok := fixedDomainGPUs[a.InterconnectKind]; ok && a.NVLinkDomainGPUs != n {
		return fmt.Errorf("field %q: an accelerator with interconnect_kind %q has a domain of %d, got %d", "nvlink_domain_gpus", a.InterconnectKind, n, a.NVLinkDomainGPUs)
	}
	for p, v := range a.PeakTFLOPS {
		if !validPrecisions[p] {
			return fmt.Errorf("field %q: unknown precision %q (valid: %s)", "peak_tflops", p, strings.Join(Precisions, ", "))
		}
		if v <= 0 {
			return fmt.Errorf("field %q: %s must be > 0, got %v", "peak_tflops", p, v)
		}
	}
	return nil
}

func validateCloud(c *Cloud) error {
	if c.ID == "" || strings.ToLower(c.ID) != c.ID || strings.ContainsAny(c.ID, "/ ") {
		return fmt.Errorf("field %q: must be a lower-case identifier, got %q", "id", c.ID)
	}
	if c.PUE < 1 {
		return fieldMust("pue", "must be >= 1", c.PUE)
	}
	for _, pm := range c.PricingModels {
		if !validPricingModels[pm] {
			return fmt.Errorf("field %q: unknown pricing model %q", "pricing_models", pm)
		}
	}
	for i, t := range c.EgressTiers {
		if t.USDPerGB < 0 || t.UpToGB < 0 {
			return fmt.Errorf("field %q: tier %d must not be negative", "egress_tiers", i)
		}
	}
	for _, fv := range []namedValue{{"inter_region_usd_per_gb", c.InterRegionUSDPerGB},
		{"block_storage_usd_per_gb_month", c.BlockStorageUSDPerGBMonth}, {"object_storage_usd_per_gb_month", c.ObjectStorageUSDPerGBMonth},
		{"spot.interruptions_per_day", c.Spot.InterruptionsPerDay}, {"spot.max_runtime_hours", c.Spot.MaxRuntimeHours}} {
		if fv.v < 0 {
			return fieldMust(fv.name, "must be >= 0", fv.v)
		}
	}
	for _, fv := range []namedValue{{"reserved_1y_discount", c.Reserved1YDiscount}, {"reserved_3y_discount", c.Reserved3YDiscount}} {
		if fv.v < 0 || fv.v >= 1 {
			return fieldMust(fv.name, "must be in [0, 1)", fv.v)
		}
	}
	return nil
}

// checkUnique rejects duplicate cloud IDs and accelerator IDs/aliases.
func (c *Catalog) checkUnique() error {
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

func (c *Catalog) validateRegion(r *Region) error {
	if r.ID == "" {
		return fmt.Errorf("field %q: required", "id")
	}
	if _, ok := c.cloudByID[r.Cloud]; !ok {
		return fmt.Errorf("unknown cloud %q%s", r.Cloud, didYouMean(r.Cloud, c.CloudIDs()))
	}
	if !validPartitions[r.Partition] {
		return fmt.Errorf("field %q: must be one of %s, got %q", "partition", QuoteList(Partitions), r.Partition)
	}
	if r.Country == "" || r.Geography == "" {
		return fmt.Errorf("fields \"country\" and \"geography\" are required")
	}
	for _, f := range r.Compliance {
		if !validCompliance[f] {
			return fmt.Errorf("field %q: unknown flag %q", "compliance", f)
		}
	}
	if regime, ok := PartitionCompliance[r.Partition]; ok && !slices.Contains(r.Compliance, regime) {
		r.Compliance = append(r.Compliance, regime)
	}
	if r.GridGCO2ePerKWh < 0 {
		return fieldMust("grid_gco2e_per_kwh", "must be >= 0", r.GridGCO2ePerKWh)
	}
	if r.PUE != 0 && r.PUE < 1 {
		return fieldMust("pue", "must be 0 (use the cloud's) or >= 1", r.PUE)
	}
	return nil
}

// validateOffer checks an offer against the (indexed) clouds, regions and
// accelerators of c.
func (c *Catalog) validateOffer(o *Offer) error {
	if o.InstanceType == "" || o.Region == "" {
		return fmt.Errorf("fields \"instance_type\" and \"region\" are required")
	}
	if _, ok := c.cloudByID[o.Cloud]; !ok {
		return fmt.Errorf("unknown cloud %q%s", o.Cloud, didYouMean(o.Cloud, c.CloudIDs()))
	}
	if _, ok := c.regionByID[o.Cloud+"/"+o.Region]; !ok {
		return fmt.Errorf("region %q of cloud %q has no metadata%s", o.Region, o.Cloud, didYouMean(o.Region, c.RegionIDs(o.Cloud)))
	}
	a, ok := c.accelByKey[strings.ToLower(o.Accelerator)]
	if !ok || a.ID != o.Accelerator {
		hint := didYouMean(o.Accelerator, c.AcceleratorIDs())
		if ok {
			hint = fmt.Sprintf(" (use the canonical ID %q)", a.ID)
		}
		return fmt.Errorf("unknown accelerator %q%s", o.Accelerator, hint)
	}
	if !validFabrics[o.Fabric] {
		return fmt.Errorf("field %q: must be one of %s, got %q", "fabric", QuoteList(Fabrics), o.Fabric)
	}
	if err := validateGPUs(o); err != nil {
		return err
	}
	switch {
	case o.GPUMemoryGB <= 0:
		return fieldMust("gpu_memory_gb", "must be > 0", o.GPUMemoryGB)
	case o.VCPUs < 0 || o.MemoryGB < 0 || o.NetworkGbps < 0:
		return fmt.Errorf("fields \"vcpus\", \"memory_gb\" and \"network_gbps\" must be >= 0")
	case o.CapacityBlockUSD < 0:
		return fieldMust("capacity_block_usd", "must be > 0 (or 0/absent when not sold)", o.CapacityBlockUSD)
	case o.OnDemandUSD == 0 && o.CapacityBlockUSD > 0 && o.SpotUSD == 0 && o.Reserved1YUSD == 0 && o.Reserved3YUSD == 0:
		// A capacity-block-only offer: no on-demand price to compare with.
	case o.OnDemandUSD <= 0:
		// Only a capacity-block-only offer (capacity_block_usd and no other
		// price) may omit it.
		return fieldMust("on_demand_usd", "must be > 0", o.OnDemandUSD)
	}
	for _, fv := range []namedValue{{"spot_usd", o.SpotUSD}, {"reserved_1y_usd", o.Reserved1YUSD}, {"reserved_3y_usd", o.Reserved3YUSD}} {
		if fv.v < 0 {
			return fieldMust(fv.name, "must be > 0 (or 0/absent when not sold)", fv.v)
		}
		if fv.v > 0 && fv.v >= o.OnDemandUSD {
			return fmt.Errorf("field %q: %v is not below on_demand_usd %v", fv.name, fv.v, o.OnDemandUSD)
		}
	}
	if o.Currency == "" {
		o.Currency = "USD"
	}
	return nil
}

// validateServerless checks a serverless offer against the (indexed)
// clouds, regions and accelerators of c.
func (c *Catalog) validateServerless(s *ServerlessOffer) error {
	if s.Name == "" || s.Product == "" {
		return fmt.Errorf("fields \"name\" and \"product\" are required")
	}
	if _, ok := c.cloudByID[s.Cloud]; !ok {
		return fmt.Errorf("unknown cloud %q%s", s.Cloud, didYouMean(s.Cloud, c.CloudIDs()))
	}
	if _, ok := c.regionByID[s.Cloud+"/"+s.Region]; s.Region != "" && !ok {
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

// validateGPUs checks the GPU count: whole GPUs, or a share of one GPU.
func validateGPUs(o *Offer) error {
	switch {
	case o.GPUFraction == 0 && o.GPUs <= 0:
		return fieldMust("gpus", "must be > 0 (or 0 with gpu_fraction in (0, 1) for a share of one GPU)", o.GPUs)
	case o.GPUFraction != 0 && o.GPUs != 0:
		return fmt.Errorf("fields \"gpus\" and \"gpu_fraction\": give one of them, got gpus %d and gpu_fraction %v", o.GPUs, o.GPUFraction)
	case o.GPUFraction < 0 || o.GPUFraction >= 1:
		return fieldMust("gpu_fraction", "must be in (0, 1) (a share of one GPU; whole GPUs go in gpus)", o.GPUFraction)
	}
	return nil
}

// didYouMean formats the closest valid values for an error message.
func didYouMean(got string, valid []string) string {
	if len(valid) == 0 {
		return ""
	}
	return fmt.Sprintf(" (did you mean %s?)", QuoteList(Closest(got, valid, 3)))
}
