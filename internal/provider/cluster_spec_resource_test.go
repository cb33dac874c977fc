// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/cost"
	"github.com/gpuplan/terraform-provider-gpu/internal/numfmt"
)

const clusterAddr = "gpu_cluster_spec.test"

// csExpect is what a cluster should render to, computed straight from the
// catalog offers (not through internal/spec) as an independent oracle.
type csExpect struct {
	instanceType string
	region       string
	hourly       float64
	monthly      float64
}

// csOracle finds the cheapest (price, instance type, region) offer of a
// cloud for the hardware and prices a cluster of it.
func csOracle(t *testing.T, cat *catalog.Catalog, cloud, acc string, gpus, nodes int, pm catalog.PricingModel,
	discount float64, blockGB, objectGB float64,
) (csExpect, bool) {
	t.Helper()
	var best *catalog.Offer
	var bestP float64
	for _, o := range cat.Offers {
		if o.Cloud != cloud || o.Accelerator != acc || o.GPUs != gpus {
			continue
		}
		p, ok := o.Price(pm)
		if !ok {
			continue
		}
		// More than one node: an RDMA fabric first, then price.
		plain := func(o *catalog.Offer) bool { return nodes > 1 && o.Fabric == catalog.FabricNone }
		if best == nil || (plain(best) && !plain(o)) || (plain(best) == plain(o) && (p < bestP || (p == bestP && (o.InstanceType < best.InstanceType ||
			(o.InstanceType == best.InstanceType && o.Region < best.Region))))) {
			best, bestP = o, p
		}
	}
	if best == nil {
		return csExpect{}, false
	}
	m, err := cost.DefaultModel()
	if err != nil {
		t.Fatal(err)
	}
	cl, _ := cat.Cloud(cloud)
	hourly := bestP * (1 - discount) * float64(nodes)
	storage := (blockGB*cl.BlockStorageUSDPerGBMonth + objectGB*cl.ObjectStorageUSDPerGBMonth) * (1 - discount)
	return csExpect{best.InstanceType, best.Region, numfmt.Price(hourly), numfmt.USD(hourly*m.HoursPerMonth + storage)}, true
}

// csEquivalents is the expected equivalents map: every other allowed cloud
// with the hardware under the pricing model.
func csEquivalents(t *testing.T, cat *catalog.Catalog, except, acc string, gpus, nodes int, pm catalog.PricingModel,
	allow []string, discounts map[string]float64,
) (knownvalue.Check, []string) {
	t.Helper()
	want := map[string]knownvalue.Check{}
	var clouds []string
	for _, c := range cat.CloudIDs() {
		if c == except || (allow != nil && !contains(allow, c)) {
			continue
		}
		e, ok := csOracle(t, cat, c, acc, gpus, nodes, pm, discounts[c], 0, 0)
		if !ok {
			continue
		}
		clouds = append(clouds, c)
		want[c] = knownvalue.ObjectExact(map[string]knownvalue.Check{
			"instance_type":   knownvalue.StringExact(e.instanceType),
			"region":          knownvalue.StringExact(e.region),
			"hourly_cost_usd": csNear(e.hourly, 1e-4),
		})
	}
	return knownvalue.MapExact(want), clouds
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func csNear(want, tol float64) knownvalue.Check {
	return knownvalue.Float64Func(func(v float64) error {
		if math.Abs(v-want) > tol {
			return fmt.Errorf("got %v, want %v (±%v)", v, want, tol)
		}
		return nil
	})
}

// csChecks are the plan and state checks of a rendered cluster.
func csChecks(e csExpect) map[string]knownvalue.Check {
	return map[string]knownvalue.Check{
		"instance_type":    knownvalue.StringExact(e.instanceType),
		"region":           knownvalue.StringExact(e.region),
		"hourly_cost_usd":  csNear(e.hourly, 1e-4),
		"monthly_cost_usd": csNear(e.monthly, 0.011),
	}
}

func csPlanChecks(action plancheck.ResourceActionType, e csExpect, eq knownvalue.Check) []plancheck.PlanCheck {
	checks := []plancheck.PlanCheck{plancheck.ExpectResourceAction(clusterAddr, action)}
	for _, attr := range slices.Sorted(maps.Keys(csChecks(e))) {
		checks = append(checks, plancheck.ExpectKnownValue(clusterAddr, tfjsonpath.New(attr), csChecks(e)[attr]))
	}
	checks = append(checks,
		plancheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("equivalents"), eq),
		plancheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("spec_json"), knownvalue.NotNull()),
		plancheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("id"), knownvalue.StringExact("llm-train")))
	return checks
}

func csStateChecks(cloud string, e csExpect, eq knownvalue.Check) []statecheck.StateCheck {
	var checks []statecheck.StateCheck
	for _, attr := range slices.Sorted(maps.Keys(csChecks(e))) {
		checks = append(checks, statecheck.ExpectKnownValue(clusterAddr, tfjsonpath.New(attr), csChecks(e)[attr]))
	}
	return append(checks,
		statecheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("equivalents"), eq),
		statecheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("spec_json"), csSpecJSON(map[string]any{
			"apiVersion":  "gpuplan.io/v1",
			"kind":        "GPUCluster",
			"name":        "llm-train",
			"accelerator": "H100",
			"gpusPerNode": 8.0,
			"nodes":       2.0,
			"cloud":       cloud,
			"region":      e.region,
			"blockGB":     2000.0,
			"team":        "research",
		})))
}

// csSpecJSON checks fields of the spec_json document by their leaf name.
func csSpecJSON(want map[string]any) knownvalue.Check {
	return knownvalue.StringFunc(func(s string) error {
		var doc map[string]any
		if err := json.Unmarshal([]byte(s), &doc); err != nil {
			return fmt.Errorf("spec_json is not JSON: %w", err)
		}
		got := map[string]any{}
		var walk func(map[string]any)
		walk = func(m map[string]any) {
			for k, v := range m {
				if sub, ok := v.(map[string]any); ok {
					walk(sub)
					continue
				}
				k = strings.TrimPrefix(k, "gpuplan.io/")
				got[k] = v
			}
		}
		walk(doc)
		for _, k := range slices.Sorted(maps.Keys(want)) {
			if got[k] != want[k] {
				return fmt.Errorf("spec_json %s = %v, want %v in %s", k, got[k], want[k], s)
			}
		}
		cloud, _ := want["cloud"].(string)
		if i := strings.Index(s, `"spec":{`); i < 0 || strings.Contains(s[i:], `"`+cloud+`"`) {
			return fmt.Errorf("the spec section names the cloud: %s", s)
		}
		return nil
	})
}

// TestAccClusterSpec_switchClouds creates a cluster on aws, switches it to
// gcp and then azure (each a single in-place update with the new instance
// type and cost known at plan), re-plans unchanged, and imports it back.
func TestAccClusterSpec_switchClouds(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	const acc, gpus, nodes = "H100", 8, 2
	expect := map[string]csExpect{}
	eqs := map[string]knownvalue.Check{}
	for _, c := range []string{"aws", "gcp", "azure"} {
		e, ok := csOracle(t, cat, c, acc, gpus, nodes, catalog.OnDemand, 0, 2000, 0)
		if !ok {
			t.Fatalf("catalog lacks %s %dx%s", c, gpus, acc)
		}
		expect[c] = e
		var clouds []string
		eqs[c], clouds = csEquivalents(t, cat, c, acc, gpus, nodes, catalog.OnDemand, nil, nil)
		if len(clouds) < 2 {
			t.Fatalf("expected several clouds with %dx%s, got %v", gpus, acc, clouds)
		}
	}
	if expect["aws"].instanceType != "p5.48xlarge" {
		t.Fatalf("oracle picked %s on aws, want p5.48xlarge", expect["aws"].instanceType)
	}
	vars := func(cloud string) config.Variables {
		return config.Variables{"cloud": config.StringVariable(cloud)}
	}
	specChanges := statecheck.CompareValue(compare.ValuesDiffer())
	importID := func(prefix string) resource.ImportStateIdFunc {
		return func(s *terraform.State) (string, error) {
			rs, ok := s.RootModule().Resources[clusterAddr]
			if !ok {
				return "", fmt.Errorf("%s not in state", clusterAddr)
			}
			return prefix + rs.Primary.Attributes["spec_json"], nil
		}
	}

	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				ConfigFile:      config.TestNameFile("main.tf"),
				ConfigVariables: vars("aws"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             csPlanChecks(plancheck.ResourceActionCreate, expect["aws"], eqs["aws"]),
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: append(csStateChecks("aws", expect["aws"], eqs["aws"]),
					specChanges.AddStateValue(clusterAddr, tfjsonpath.New("spec_json"))),
			},
			{
				ConfigFile:      config.TestNameFile("main.tf"),
				ConfigVariables: vars("gcp"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             csPlanChecks(plancheck.ResourceActionUpdate, expect["gcp"], eqs["gcp"]),
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: append(csStateChecks("gcp", expect["gcp"], eqs["gcp"]),
					specChanges.AddStateValue(clusterAddr, tfjsonpath.New("spec_json"))),
			},
			{
				ConfigFile:      config.TestNameFile("main.tf"),
				ConfigVariables: vars("azure"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             csPlanChecks(plancheck.ResourceActionUpdate, expect["azure"], eqs["azure"]),
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: append(csStateChecks("azure", expect["azure"], eqs["azure"]),
					specChanges.AddStateValue(clusterAddr, tfjsonpath.New("spec_json"))),
			},
			{
				// Unchanged configuration: nothing to do.
				ConfigFile:      config.TestNameFile("main.tf"),
				ConfigVariables: vars("azure"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				// Import by the spec JSON alone: the annotations place it.
				ConfigFile:        config.TestNameFile("main.tf"),
				ConfigVariables:   vars("azure"),
				ResourceName:      clusterAddr,
				ImportState:       true,
				ImportStateIdFunc: importID(""),
				ImportStateVerify: true,
			},
			{
				// Import with the cloud named in front of the JSON.
				ConfigFile:        config.TestNameFile("main.tf"),
				ConfigVariables:   vars("azure"),
				ResourceName:      clusterAddr,
				ImportState:       true,
				ImportStateIdFunc: importID("azure:"),
				ImportStateVerify: true,
			},
		},
	})
}

// TestAccClusterSpec_regionNodesPricing changes region, nodes and pricing
// model in place, and checks that an unset region is recomputed.
func TestAccClusterSpec_regionNodesPricing(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	cheapest, ok := csOracle(t, cat, "gcp", "H100", 8, 1, catalog.OnDemand, 0, 0, 0)
	if !ok {
		t.Fatal("catalog lacks gcp 8xH100")
	}
	// A region of gcp with 8xH100 that is not the cheapest one.
	var other string
	for _, o := range cat.Offers {
		if o.Cloud == "gcp" && o.Accelerator == "H100" && o.GPUs == 8 && o.Region != cheapest.region && (other == "" || o.Region < other) {
			other = o.Region
		}
	}
	inOther := func(nodes int, pm catalog.PricingModel) csExpect {
		var best *catalog.Offer
		var bestP float64
		for _, o := range cat.Offers {
			if o.Cloud == "gcp" && o.Accelerator == "H100" && o.GPUs == 8 && o.Region == other {
				if p, ok := o.Price(pm); ok && (best == nil || p < bestP || (p == bestP && o.InstanceType < best.InstanceType)) {
					best, bestP = o, p
				}
			}
		}
		if best == nil {
			t.Fatalf("no gcp 8xH100 %s offer in %s", pm, other)
		}
		m, _ := cost.DefaultModel()
		h := bestP * float64(nodes)
		return csExpect{best.InstanceType, other, numfmt.Price(h), numfmt.USD(h * m.HoursPerMonth)}
	}
	spot, ok := csOracle(t, cat, "gcp", "H100", 8, 3, catalog.Spot, 0, 0, 0)
	if !ok {
		t.Fatal("catalog lacks gcp 8xH100 spot")
	}
	cfg := func(region string, nodes int, pm string) string {
		r := ""
		if region != "" {
			r = fmt.Sprintf("  region = %q\n", region)
		}
		return fmt.Sprintf(`
resource "gpu_cluster_spec" "test" {
  name          = "llm-train"
  cloud         = "gcp"
%s  accelerator   = "H100"
  gpus_per_node = 8
  nodes         = %d
  pricing_model = %q
}`, r, nodes, pm)
	}
	update := func(e csExpect) resource.ConfigPlanChecks {
		return resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectResourceAction(clusterAddr, plancheck.ResourceActionUpdate),
			plancheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("instance_type"), knownvalue.StringExact(e.instanceType)),
			plancheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("region"), knownvalue.StringExact(e.region)),
			plancheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("hourly_cost_usd"), csNear(e.hourly, 1e-4)),
			plancheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("monthly_cost_usd"), csNear(e.monthly, 0.011)),
		}}
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: cfg("", 1, "on_demand"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("region"), knownvalue.StringExact(cheapest.region)),
					statecheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("instance_type"), knownvalue.StringExact(cheapest.instanceType)),
					statecheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("nodes"), knownvalue.Int64Exact(1)),
					statecheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("storage"), knownvalue.ObjectExact(map[string]knownvalue.Check{
						"block_gb": knownvalue.Int64Exact(0), "object_gb": knownvalue.Int64Exact(0)})),
					statecheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("labels"), knownvalue.MapSizeExact(0)),
				},
			},
			{Config: cfg(other, 1, "on_demand"), ConfigPlanChecks: update(inOther(1, catalog.OnDemand))},
			{Config: cfg(other, 4, "on_demand"), ConfigPlanChecks: update(inOther(4, catalog.OnDemand))},
			{Config: cfg("", 3, "spot"), ConfigPlanChecks: update(spot)},
			{Config: cfg("", 3, "spot"), ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
			{
				// Import with cloud and region in front of a spec rendered elsewhere.
				Config:       cfg("", 3, "spot"),
				ResourceName: clusterAddr,
				ImportState:  true,
				ImportStateIdFunc: func(s *terraform.State) (string, error) {
					rs := s.RootModule().Resources[clusterAddr]
					return "gcp/" + spot.region + ":" + rs.Primary.Attributes["spec_json"], nil
				},
				ImportStateVerify: true,
			},
		},
	})
}

// TestAccClusterSpec_providerSettings checks the clouds allow-list (it
// limits equivalents) and discounts (they apply to every price).
func TestAccClusterSpec_providerSettings(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	allow := []string{"aws", "azure", "lambda"}
	discounts := map[string]float64{"aws": 0.1, "azure": 0.2}
	e, _ := csOracle(t, cat, "aws", "H100", 8, 1, catalog.OnDemand, 0.1, 0, 100)
	eq, clouds := csEquivalents(t, cat, "aws", "H100", 8, 1, catalog.OnDemand, allow, discounts)
	if len(clouds) != 2 {
		t.Fatalf("expected azure and lambda to sell 8xH100, got %v", clouds)
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: `
provider "gpu" {
  clouds    = ["aws", "azure", "lambda"]
  discounts = { aws = 0.1, azure = 0.2 }
}
resource "gpu_cluster_spec" "test" {
  name          = "discounted"
  cloud         = "aws"
  accelerator   = "h100-sxm"
  gpus_per_node = 8
  storage       = { object_gb = 100 }
}`,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("hourly_cost_usd"), csNear(e.hourly, 1e-4)),
				plancheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("monthly_cost_usd"), csNear(e.monthly, 0.011)),
				plancheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("equivalents"), eq),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("accelerator"), knownvalue.StringExact("h100-sxm")),
				statecheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("spec_json"), knownvalue.StringRegexp(regexp.MustCompile(`"accelerator":"H100"`))),
			},
		}},
	})
}

// TestAccClusterSpec_unknownInputs plans with an input known only at
// apply: the computed attributes are unknown at plan, known after apply.
func TestAccClusterSpec_unknownInputs(t *testing.T) {
	t.Parallel()
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: `
resource "terraform_data" "cloud" {
  input = "gcp"
}
resource "gpu_cluster_spec" "test" {
  name          = "late"
  cloud         = terraform_data.cloud.output
  accelerator   = "H100"
  gpus_per_node = 8
  labels        = { cloud = terraform_data.cloud.output }
}`,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectUnknownValue(clusterAddr, tfjsonpath.New("instance_type")),
				plancheck.ExpectUnknownValue(clusterAddr, tfjsonpath.New("region")),
				plancheck.ExpectUnknownValue(clusterAddr, tfjsonpath.New("spec_json")),
				plancheck.ExpectUnknownValue(clusterAddr, tfjsonpath.New("equivalents")),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("instance_type"), knownvalue.StringRegexp(regexp.MustCompile(`^a3-`))),
			},
		}},
	})
}

// TestAccClusterSpec_badInput checks every bad-input path names what exists.
func TestAccClusterSpec_badInput(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	// The clouds selling MI300X and the sizes aws sells H100 in, from the catalog.
	mi300x := map[string]bool{}
	awsH100 := map[int]bool{}
	for _, o := range cat.Offers {
		if o.Accelerator == "MI300X" {
			mi300x[o.Cloud] = true
		}
		if o.Cloud == "aws" && o.Accelerator == "H100" {
			awsH100[o.GPUs] = true
		}
	}
	var mi300xClouds []string
	for c := range mi300x {
		mi300xClouds = append(mi300xClouds, fmt.Sprintf("%q", c))
	}
	sort.Strings(mi300xClouds)
	var sizes []int
	for n := range awsH100 {
		sizes = append(sizes, n)
	}
	sort.Ints(sizes)
	var sizeRE []string
	for _, n := range sizes {
		sizeRE = append(sizeRE, fmt.Sprintf(`%d\s+\([^)]*\)`, n))
	}
	res := func(body string) string {
		return `resource "gpu_cluster_spec" "test" {
  name = "bad"
` + body + "\n}"
	}
	good := res(`  cloud = "aws"
  accelerator = "H100"
  gpus_per_node = 8`)
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: res(`  cloud = "aws"
  accelerator = "MI300X"
  gpus_per_node = 8`),
				ExpectError: regexp.MustCompile(`(?s)Accelerator Not Offered On Cloud.*MI300X is not offered on cloud\s+"aws"\.\s+Clouds\s+that\s+offer\s+it:\s+` +
					strings.Join(mi300xClouds, `,\s+`)),
			},
			{
				Config: res(`  cloud = "aws"
  accelerator = "H100"
  gpus_per_node = 3`),
				ExpectError: regexp.MustCompile(`(?s)GPUs Per Node Not Sold.*does\s+not\s+sell\s+H100\s+with\s+3\s+GPUs\s+per\s+node\.\s+Sizes\s+it\s+sells:\s+` +
					strings.Join(sizeRE, `,\s+`)),
			},
			{
				Config: res(`  cloud = "aws"
  region = "mars-north-1"
  accelerator = "H100"
  gpus_per_node = 8`),
				ExpectError: regexp.MustCompile(`(?s)Unknown Region.*"mars-north-1"\s+is\s+not\s+a\s+region\s+of\s+cloud\s+"aws".*us-east-1`),
			},
			{
				Config: res(`  cloud = "awz"
  accelerator = "H100"
  gpus_per_node = 8`),
				ExpectError: regexp.MustCompile(`(?s)Unknown Cloud.*Closest:\s+"aws"`),
			},
			{
				Config: res(`  cloud = "aws"
  accelerator = "H100"
  gpus_per_node = 8
  pricing_model = "monthly"`),
				ExpectError: regexp.MustCompile(`(?s)Invalid Value.*pricing_model = "monthly"; allowed: "on_demand", "spot"`),
			},
			{
				Config: good,
			},
			{
				Config:        good,
				ResourceName:  clusterAddr,
				ImportState:   true,
				ImportStateId: `aws:{"apiVersion":"gpuplan.io/v1","kind":"GPUCluster","metadata":{"name":"bad"},"spec":{"accelerator":"H100","gpusPerNode":"8","nodes":1,"pricingModel":"on_demand"}}`,
				ExpectError:   regexp.MustCompile(`(?s)Invalid Cluster Spec.*spec\.gpusPerNode:\s+must\s+be\s+a\s+whole\s+number,\s+got\s+a\s+string`),
			},
			{
				Config:        good,
				ResourceName:  clusterAddr,
				ImportState:   true,
				ImportStateId: `{"apiVersion":"gpuplan.io/v2","kind":"GPUCluster","metadata":{"name":"bad"},"spec":{}}`,
				ExpectError:   regexp.MustCompile(`(?s)Invalid Cluster Spec.*apiVersion:\s+unsupported\s+version`),
			},
			{
				Config:        good,
				ResourceName:  clusterAddr,
				ImportState:   true,
				ImportStateId: `{"apiVersion":"gpuplan.io/v1","kind":"GPUCluster","metadata":{"name":"bad"},"spec":{"accelerator":"H100","gpusPerNode":8,"nodes":1,"pricingModel":"on_demand"}}`,
				ExpectError:   regexp.MustCompile(`(?s)Invalid Cluster Spec.*metadata\.annotations\.gpuplan\.io/cloud`),
			},
			{
				Config:        good,
				ResourceName:  clusterAddr,
				ImportState:   true,
				ImportStateId: `gcp:{"apiVersion":"gpuplan.io/v1","kind":"GPUCluster","metadata":{"name":"bad"},"spec":{"accelerator":"MI300X","gpusPerNode":8,"nodes":1,"pricingModel":"on_demand"}}`,
				ExpectError:   regexp.MustCompile(`(?s)Accelerator Not Offered On Cloud.*spec\.accelerator:\s+MI300X\s+is\s+not\s+offered`),
			},
			{
				Config:        good,
				ResourceName:  clusterAddr,
				ImportState:   true,
				ImportStateId: `not json`,
				ExpectError:   regexp.MustCompile(`(?s)Invalid Import ID`),
			},
		},
	})
}
