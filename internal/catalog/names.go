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

// countryAliases maps codes users write that are not ISO 3166-1 alpha-2
// to the code the catalog uses: UK is reserved in ISO 3166 for the United
// Kingdom, whose code is GB; EL is the EU's code for Greece (GR).
var countryAliases = map[string]string{"UK": "GB", "EL": "GR"}

// CountryCode normalises a country code as users write it: upper case,
// the UK and EL aliases resolved.
func CountryCode(s string) string {
	s = strings.ToUpper(strings.TrimSpace(s))
	if c, ok := countryAliases[s]; ok {
		return c
	}
	return s
}
