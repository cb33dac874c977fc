// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/numfmt"
)

func TestAccHourlyPriceUSDFunction(t *testing.T) {
	t.Parallel()
	cat, o, _, _, _ := tcoOffer(t)
	var noSpot *catalog.Offer
	for _, x := range cat.Offers {
		if x.Cloud == "aws" && x.SpotUSD == 0 && x.OnDemandUSD > 0 {
			noSpot = x
			break
		}
	}
	call := func(cloud, it, region, pm string) string {
		return fmt.Sprintf(`
output "p" {
  value = provider::gpu::hourly_price_usd(%q, %q, %q, %q)
}`, cloud, it, region, pm)
	}
	steps := []resource.TestStep{
		{
			// Listed prices of g5.xlarge in us-east-1: 1.006, 0.4213, 0.63378, 0.43459 $/h.
			// The provider's discounts do not apply to functions (no provider configuration).
			Config: `
provider "gpu" {
  discounts = { aws = 0.5 }
}
output "on_demand" {
  value = provider::gpu::hourly_price_usd("aws", "g5.xlarge", "us-east-1", "on_demand")
}
output "spot" {
  value = provider::gpu::hourly_price_usd("aws", "g5.xlarge", "us-east-1", "spot")
}
output "reserved_1y" {
  value = provider::gpu::hourly_price_usd("aws", "g5.xlarge", "us-east-1", "reserved_1y")
}
output "reserved_3y" {
  value = provider::gpu::hourly_price_usd("aws", "g5.xlarge", "us-east-1", "reserved_3y")
}`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownOutputValue("on_demand", knownvalue.Float64Exact(numfmt.Price(o.OnDemandUSD))),
				statecheck.ExpectKnownOutputValue("spot", knownvalue.Float64Exact(numfmt.Price(o.SpotUSD))),
				statecheck.ExpectKnownOutputValue("reserved_1y", knownvalue.Float64Exact(numfmt.Price(o.Reserved1YUSD))),
				statecheck.ExpectKnownOutputValue("reserved_3y", knownvalue.Float64Exact(numfmt.Price(o.Reserved3YUSD))),
			},
		},
		{
			Config:      call("awz", "g5.xlarge", "us-east-1", "on_demand"),
			ExpectError: errRe(`Unknown Cloud.*Closest: "aws"`),
		},
		{
			Config:      call("aws", "g5.xlarg", "us-east-1", "on_demand"),
			ExpectError: errRe(`Unknown Instance Type.*Closest: "g5.xlarge"`),
		},
		{
			Config:      call("aws", "g5.xlarge", "us-east-9", "on_demand"),
			ExpectError: errRe(`Unknown Region.*Closest: "us-east-1"`),
		},
		{
			Config:      call("aws", "g5.xlarge", "us-east-1", "ondemand"),
			ExpectError: errRe(`Unknown Pricing Model.*Closest: "on_demand"`),
		},
	}
	if noSpot != nil {
		steps = append(steps, resource.TestStep{
			Config:      call("aws", noSpot.InstanceType, noSpot.Region, "spot"),
			ExpectError: errRe(`Pricing Model Not Offered.*it is sold as: "on_demand"`),
		})
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
		Steps:                    steps,
	})
}
