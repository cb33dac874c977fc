// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package catalog

import "strings"

// Names the catalog defines for other packages: compliance regimes and
// what they need, pricing model names.

// ComplianceRegimes lists every compliance regime a region or cloud can
// carry, in documentation order.
var ComplianceRegimes = []string{
	ComplianceGDPR, ComplianceUKGDPR, ComplianceSwissFADP,
	ComplianceMLPS2, ComplianceFedRAMPHigh, ComplianceHIPAA,
}

// complianceNeeds says what each regime requires of where compute runs.
var complianceNeeds = map[string]string{
	ComplianceGDPR:        "an EU/EEA region",
	ComplianceUKGDPR:      "a UK region",
	ComplianceSwissFADP:   "a Swiss region",
	ComplianceMLPS2:       "a mainland-China region",
	ComplianceFedRAMPHigh: "a US government partition",
	ComplianceHIPAA:       "a cloud that signs a HIPAA BAA",
}

// ComplianceNeeds says, for messages, what a regime requires: "an EU/EEA
// region" for gdpr. It is empty for an unknown regime.
func ComplianceNeeds(regime string) string { return complianceNeeds[regime] }

// PricingModelOf reads a pricing model name as users may write it: any
// case, surrounding spaces ignored ("Spot" is spot). Whether it names a
// pricing model is for the caller to check.
func PricingModelOf(s string) PricingModel {
	return PricingModel(strings.ToLower(strings.TrimSpace(s)))
}

// IsJurisdiction reports whether a regime ties compute to one
// jurisdiction (every regime but hipaa): two of them can never be met
// together.
func IsJurisdiction(regime string) bool {
	return regime != ComplianceHIPAA && complianceNeeds[regime] != ""
}

// PricingModelNames returns pricing models as strings, in their order:
// PricingModelNames(AllPricingModels) for messages and validators.
func PricingModelNames(pms []PricingModel) []string {
	out := make([]string, len(pms))
	for i, pm := range pms {
		out[i] = string(pm)
	}
	return out
}

// SeparateAccount reports whether a partition needs an account of its
// own: every partition but commercial (AWS GovCloud and China, Azure
// Government and China) is a separate account world.
func SeparateAccount(p Partition) bool { return p != PartitionCommercial }

// Geography is one geography bucket of regions (Region.Geography) and what
// it covers, for documentation and gpu_regions.
type Geography struct {
	ID, Covers string
}

// Geographies lists every geography bucket the built-in regions use, in
// documentation order (TestGeographiesCoverRegions keeps it complete).
var Geographies = []Geography{
	{"us", "United States"},
	{"ca", "Canada"},
	{"sa", "Latin America (Brazil, Chile, Mexico)"},
	{"eu", "European Union, EEA and Switzerland"},
	{"uk", "United Kingdom"},
	{"me", "Middle East (Gulf states, Israel)"},
	{"af", "Africa"},
	{"in", "India"},
	{"apac", "Asia-Pacific outside the buckets of its own (Singapore, Hong Kong, Taiwan, Indonesia, Malaysia)"},
	{"jp", "Japan"},
	{"kr", "South Korea"},
	{"au", "Australia"},
	{"cn", "mainland China"},
	{"global", "no one place: a marketplace or community pool whose hosts' locations the seller does not state (country ZZ: RunPod Community Cloud, Vast.ai)"},
}

// GeographyIDs lists the IDs of Geographies, in documentation order.
func GeographyIDs() []string {
	out := make([]string, len(Geographies))
	for i, g := range Geographies {
		out[i] = g.ID
	}
	return out
}
