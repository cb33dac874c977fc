// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package catalog_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/catalog/overlay"
)

// TestAcceleratorInterconnectValidation: the structured scale-up fields are
// required, from a closed set, and consistent with each other.
func TestAcceleratorInterconnectValidation(t *testing.T) {
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{"missing kind", `"interconnect_kind":"nvlink",`, ``,
			`accelerators.json: accelerators[0] (H100): field "interconnect_kind": must be one of "nvlink", "nvlink_bridge", "pcie", "infinity_fabric", "ici", "neuronlink", "roce", got ""`},
		{"unknown kind", `"interconnect_kind":"nvlink"`, `"interconnect_kind":"nvswitch"`, `got "nvswitch"`},
		{"free text kind", `"interconnect_kind":"nvlink"`, `"interconnect_kind":"NVLink 4"`, `got "NVLink 4"`},
		{"no domain", `"nvlink_domain_gpus":8,`, ``, `field "nvlink_domain_gpus": must be a whole number from 1 to 65,536 GPUs, got 0`},
		{"pcie with a domain", `"interconnect_kind":"nvlink","nvlink_domain_gpus":8`, `"interconnect_kind":"pcie","nvlink_domain_gpus":2`,
			`field "nvlink_domain_gpus": an accelerator with interconnect_kind "pcie" has a domain of 1, got 2`},
		{"bridge beyond pairs", `"interconnect_kind":"nvlink","nvlink_domain_gpus":8`, `"interconnect_kind":"nvlink_bridge","nvlink_domain_gpus":4`,
			`interconnect_kind "nvlink_bridge" has a domain of 2, got 4`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := fixture(fxRegion, fxOffer)
			if !strings.Contains(fxAccels, tc.old) {
				t.Fatalf("fixture lacks %s", tc.old)
			}
			fx[catalog.FileAccelerators].Data = []byte(strings.Replace(fxAccels, tc.old, tc.new, 1))
			_, err := catalog.Load(fx)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v\nwant containing %s", err, tc.want)
			}
		})
	}
}

// TestBuiltinScaleUpDomains: every offer fits inside its accelerator's
// scale-up domain (the domain may span VMs, never split one), so a model
// that uses min(GPUs per node, nvlink_domain_gpus) for the linked group
// sees the whole node linked on every whole-GPU offer, as today.
func TestBuiltinScaleUpDomains(t *testing.T) {
	c := builtin(t)
	for _, o := range c.Offers {
		a, _ := c.Accelerator(o.Accelerator)
		if a.InterconnectKind == catalog.InterconnectPCIe || a.InterconnectKind == catalog.InterconnectNVLinkBridge {
			continue // PCIe cards: the domain is fixed by the kind, hosts carry more cards than that
		}
		if o.GPUs > a.NVLinkDomainGPUs {
			t.Errorf("%s/%s/%s: %d GPUs per node, but %s's %s domain is %d", o.Cloud, o.InstanceType, o.Region,
				o.GPUs, a.ID, a.InterconnectKind, a.NVLinkDomainGPUs)
		}
	}
	for _, a := range c.Accelerators {
		if !strings.Contains(a.Source, "interconnect_kind "+string(a.InterconnectKind)) {
			t.Errorf("%s: source %q does not name the source of its interconnect kind and domain", a.ID, a.Source)
		}
	}
}

// legacyPCIeGroup is the text matching internal/perf used on the free-text
// interconnect and form factor before interconnect_kind existed: the
// largest tensor-parallel group that does not fall back to PCIe (1: PCIe
// from TP = 2, 2: bridged pairs, MaxInt: the whole node is linked).
func legacyPCIeGroup(a *catalog.Accelerator) int {
	ic, ff := strings.ToLower(a.Interconnect), strings.ToLower(a.FormFactor)
	pcieCard := strings.Contains(ic, "pcie") ||
		(strings.Contains(ff, "pcie") && !strings.Contains(ff, "oam") && !strings.Contains(ff, "sxm"))
	switch {
	case !pcieCard:
		return math.MaxInt
	case strings.Contains(ic, "pcie") && (strings.Contains(ic, "no nvlink") || !strings.Contains(ic, "nvlink")):
		return 1
	}
	return 2
}

// TestInterconnectKindMatchesLegacyText: for every built-in accelerator the
// structured fields say what the free-text matching concluded, so the
// benchmark model can switch to interconnect_kind / nvlink_domain_gpus
// without changing a result. (Remove with the text matching.)
func TestInterconnectKindMatchesLegacyText(t *testing.T) {
	c := builtin(t)
	for _, a := range c.Accelerators {
		want := legacyPCIeGroup(a)
		var got int
		switch a.InterconnectKind {
		case catalog.InterconnectPCIe, catalog.InterconnectNVLinkBridge:
			got = a.NVLinkDomainGPUs
		default:
			got = math.MaxInt
		}
		if got != want {
			t.Errorf("%s (%q, %q): kind %s domain %d, the text matching gives a linked group of %d",
				a.ID, a.Interconnect, a.FormFactor, a.InterconnectKind, a.NVLinkDomainGPUs, want)
		}
	}
}

// TestPartitionCompliance: the data says which regime a partition carries;
// overlay regions that omit it get it, so callers never map partitions.
func TestPartitionCompliance(t *testing.T) {
	c := builtin(t)
	seen := map[catalog.Partition]int{}
	for _, r := range c.Regions {
		seen[r.Partition]++
		if regime, ok := catalog.PartitionCompliance[r.Partition]; ok && !slices.Contains(r.Compliance, regime) {
			t.Errorf("%s/%s (%s) lacks %s: %v", r.Cloud, r.ID, r.Partition, regime, r.Compliance)
		}
	}
	for _, p := range catalog.Partitions {
		if seen[p] == 0 {
			t.Errorf("no built-in region of partition %s", p)
		}
	}
	for _, tc := range []struct {
		partition  string
		compliance string
		want       []string
	}{
		{"gov", "[]", []string{catalog.ComplianceFedRAMPHigh}},
		{"gov", "[hipaa]", []string{catalog.ComplianceHIPAA, catalog.ComplianceFedRAMPHigh}},
		{"gov", "[fedramp_high]", []string{catalog.ComplianceFedRAMPHigh}},
		{"china", "[]", []string{catalog.ComplianceMLPS2}},
		{"commercial", "[gdpr]", []string{catalog.ComplianceGDPR}},
	} {
		body := "regions:\n  - cloud: aws\n    id: test-1\n    country: US\n    geography: us\n    partition: " + tc.partition +
			"\n    compliance: " + tc.compliance + "\n"
		res, err := overlay.Apply(c, "r.yaml", overlay.Options{Data: []byte(body)})
		if err != nil {
			t.Fatalf("%s %s: %v", tc.partition, tc.compliance, err)
		}
		r, _ := res.Catalog.Region("aws", "test-1")
		if !slices.Equal(r.Compliance, tc.want) {
			t.Errorf("overlay %s region with %s: compliance %v, want %v", tc.partition, tc.compliance, r.Compliance, tc.want)
		}
	}
}
