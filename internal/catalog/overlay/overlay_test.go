// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package overlay_test

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/catalog/overlay"
)

func examplePath(name string) string {
	return filepath.Join("..", "..", "..", "examples", "catalog", name)
}

func builtin(t testing.TB) *catalog.Catalog {
	t.Helper()
	c, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// applyBytes applies data as the file name; nil data is an empty file.
func applyBytes(base *catalog.Catalog, name string, data []byte) (*catalog.Catalog, []overlay.Finding, error) {
	if data == nil {
		data = []byte{}
	}
	return result(overlay.Apply(base, name, overlay.Options{Data: data}))
}

// applyFile applies the file at path.
func applyFile(base *catalog.Catalog, path string) (*catalog.Catalog, []overlay.Finding, error) {
	return result(overlay.Apply(base, path, overlay.Options{}))
}

func result(res *overlay.Result, err error) (*catalog.Catalog, []overlay.Finding, error) {
	if err != nil {
		return nil, nil, err
	}
	return res.Catalog, res.Warnings, nil
}

func TestOverlayExamples(t *testing.T) {
	base := builtin(t)
	before, _ := base.Offer("aws", "p5.48xlarge", "us-east-1")
	beforePrice, nOffers := before.OnDemandUSD, len(base.Offers)

	neg, warns, err := applyFile(base, examplePath("negotiated.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range warns {
		t.Logf("warning: %s", w)
	}
	o, _ := neg.Offer("aws", "p5.48xlarge", "us-east-1")
	if o.OnDemandUSD != 41.28 || o.Reserved1YUSD != 30 || o.GPUs != 8 || o.ReservedDerived {
		t.Errorf("negotiated p5 = %+v", o)
	}
	if want := (catalog.PriceInfo{Basis: catalog.PricePublished, AsOf: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)}); o.PriceInfos.OnDemand != want || o.PriceInfos.Reserved1Y != want {
		t.Errorf("negotiated p5 price infos = %+v, want %+v for on-demand and 1-year", o.PriceInfos, want)
	}
	if want := "catalog_file negotiated.yaml: AWS private pricing addendum"; !strings.HasPrefix(o.Source, want) {
		t.Errorf("source = %q, want prefix %q", o.Source, want)
	}
	if b, _ := base.Offer("aws", "p5.48xlarge", "us-east-1"); b.OnDemandUSD != beforePrice || len(base.Offers) != nOffers {
		t.Errorf("receiver mutated")
	}

	op, _, err := applyFile(base, examplePath("onprem.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	o, ok := op.Offer("onprem", "dgx-h100", "dc1")
	if !ok || o.Accelerator != "H100" || o.GPUMemoryGB != 640 || o.Fabric != catalog.FabricInfiniBand {
		t.Errorf("onprem offer = %+v", o)
	}
	if !strings.HasPrefix(o.Source, "catalog_file onprem.yaml: internal chargeback") {
		t.Errorf("onprem source = %q", o.Source)
	}
	if _, ok := op.Cloud("onprem"); !ok || len(op.Offers) != nOffers+1 {
		t.Errorf("onprem cloud missing or offer count %d", len(op.Offers))
	}
	if _, ok := base.Cloud("onprem"); ok {
		t.Errorf("receiver mutated")
	}

	js := `{"offers":[{"cloud":"azure","instance_type":"Standard_ND96isr_H100_v5","region":"eastus","on_demand_usd":70}]}`
	if _, _, err := applyBytes(base, "prices.json", []byte(js)); err != nil {
		t.Errorf("json overlay: %v", err)
	}
}

// problems returns the findings of an *OverlayError.
func problems(t *testing.T, err error) []overlay.Finding {
	t.Helper()
	var oe *overlay.Error
	if !errors.As(err, &oe) {
		t.Fatalf("err = %v (%T), want *overlay.Error", err, err)
	}
	return oe.Problems
}

const p5 = "offers:\n  - cloud: aws\n    instance_type: p5.48xlarge\n    region: us-east-1\n"

func TestOverlayErrors(t *testing.T) {
	base := builtin(t)
	newOffer := "offers:\n  - cloud: aws\n    instance_type: x1\n    region: us-east-1\n    accelerator: H100\n    gpus: 8\n"
	for _, tc := range []struct {
		name, file, body string
		line             int
		entry, field     string
		want             string
	}{
		{"malformed yaml", "c.yaml", "offers: [\n  - {cloud: aws", 1, "", "", "malformed YAML"},
		{"malformed json", "c.json", `{"offers": [`, 1, "", "", "malformed JSON"},
		{"json trailing data", "c.json", "{}\n{}", 2, "", "", "data after the top-level object"},
		{"two yaml documents", "c.yaml", "offers: []\n---\noffers: []\n", 2, "", "", "one YAML document"},
		{"top level not a mapping", "c.yaml", "- a\n- b\n", 1, "", "", "the top level must be a mapping"},
		{"unknown top-level field", "c.yaml", "offerz: []\n", 1, "", "offerz", `unknown field (did you mean "offers"?)`},
		{"section not a list", "c.yaml", "offers: {cloud: aws}\n", 1, "", "offers", "must be a list, got a mapping"},
		{"entry not a mapping", "c.yaml", "offers:\n  - aws\n", 2, "offers[0] (?/?/?)", "", "an entry must be a mapping"},
		{"unknown offer field", "c.yaml", p5 + "    on_demand: 3\n", 5, "offers[0] (aws/p5.48xlarge/us-east-1)", "on_demand",
			`unknown field (did you mean "on_demand_usd"?)`},
		{"unknown accelerator", "c.yaml", strings.Replace(newOffer, "H100", "H1000", 1) + "    on_demand_usd: 10\n", 5,
			"offers[0] (aws/x1/us-east-1)", "accelerator", `unknown accelerator "H1000"`},
		{"negative price", "catalog.yaml", p5 + "    on_demand_usd: -3\n", 5, "offers[0] (aws/p5.48xlarge/us-east-1)", "on_demand_usd",
			"must be from 0.0001 to 1,000,000 USD/h, got -3"},
		{"huge price", "c.yaml", p5 + "    on_demand_usd: 1e308\n", 5, "offers[0] (aws/p5.48xlarge/us-east-1)", "on_demand_usd",
			"must be from 0.0001 to 1,000,000 USD/h, got 1 × 10^308"},
		{"price beyond float64", "c.json", `{"offers":[{"cloud":"aws","instance_type":"p5.48xlarge","region":"us-east-1","on_demand_usd":1e400}]}`, 1,
			"offers[0] (aws/p5.48xlarge/us-east-1)", "on_demand_usd", "must be a finite number from 0.0001 to 1,000,000 USD/h, got 1 × 10^400"},
		{"yaml .inf", "c.yaml", p5 + "    on_demand_usd: .inf\n", 5, "offers[0] (aws/p5.48xlarge/us-east-1)", "on_demand_usd",
			"must be a finite number from 0.0001 to 1,000,000 USD/h, got infinity (YAML .inf)"},
		{"yaml .nan", "c.yaml", p5 + "    spot_usd: .nan\n", 5, "offers[0] (aws/p5.48xlarge/us-east-1)", "spot_usd", "got NaN (YAML .nan)"},
		{"gpus 2^62", "c.yaml", p5 + "    gpus: 4611686018427387904\n", 5, "offers[0] (aws/p5.48xlarge/us-east-1)", "gpus",
			"must be a whole number from 1 to 65,536 GPUs, got 4.612 × 10^18"},
		{"fractional gpus", "c.yaml", p5 + "    gpus: 8.5\n", 5, "offers[0] (aws/p5.48xlarge/us-east-1)", "gpus", "must be a whole number from 1 to 65,536 GPUs, got 8.5"},
		{"gpus beyond int64", "c.yaml", p5 + "    gpus: 1e30\n", 5, "offers[0] (aws/p5.48xlarge/us-east-1)", "gpus", "got 1 × 10^30"},
		{"string for a number", "c.yaml", p5 + "    on_demand_usd: cheap\n", 5, "offers[0] (aws/p5.48xlarge/us-east-1)", "on_demand_usd",
			`must be a number, got a string ("cheap")`},
		{"duplicate yaml key", "c.yaml", p5 + "    on_demand_usd: 3\n    on_demand_usd: 4\n", 6, "offers[0] (aws/p5.48xlarge/us-east-1)", "on_demand_usd",
			"duplicate key (first at line 5)"},
		{"duplicate json key", "c.json", "{\"offers\": [{\"cloud\": \"aws\", \"instance_type\": \"p5.48xlarge\", \"region\": \"us-east-1\",\n \"cloud\": \"gcp\"}]}", 2,
			"offers[0] (aws/p5.48xlarge/us-east-1)", "cloud", "duplicate key (first at line 1)"},
		{"duplicate section", "c.yaml", "offers: []\noffers: []\n", 2, "", "offers", "duplicate key (first at line 1)"},
		{"unknown cloud", "c.yaml", "offers:\n  - cloud: onprem\n    instance_type: dgx\n    region: dc1\n    accelerator: H100\n    gpus: 8\n    on_demand_usd: 20\n",
			2, "offers[0] (onprem/dgx/dc1)", "cloud", `unknown cloud "onprem"`},
		{"new offer missing fields", "c.yaml", newOffer, 2, "offers[0] (aws/x1/us-east-1)", "", `missing "on_demand_usd"`},
		{"missing identity", "c.yaml", "offers:\n  - cloud: aws\n    region: us-east-1\n    on_demand_usd: 3\n", 2, "offers[0] (aws/?/us-east-1)", "instance_type", "required"},
		{"spot above on-demand", "c.yaml", p5 + "    spot_usd: 100\n", 5, "offers[0] (aws/p5.48xlarge/us-east-1)", "spot_usd",
			"100 is not below on_demand_usd 55.04"},
		{"offer defined twice", "c.yaml", p5 + "    on_demand_usd: 50\n" + strings.TrimPrefix(p5, "offers:\n") + "    on_demand_usd: 40\n", 6,
			"offers[1] (aws/p5.48xlarge/us-east-1)", "", "defined twice in this file (also offers[0] (aws/p5.48xlarge/us-east-1))"},
		{"bad region cloud", "c.yaml", "regions:\n  - cloud: nowhere\n    id: r1\n    country: DE\n    geography: eu\n", 2,
			"regions[0] (nowhere/r1)", "cloud", `unknown cloud "nowhere"`},
		{"bad cloud pue", "c.yaml", "clouds:\n  - id: onprem\n    pue: 0.5\n", 3, "clouds[0] (onprem)", "pue", "must be from 1 to 5, got 0.5"},
		{"bad egress tier", "c.yaml", "clouds:\n  - id: onprem\n    pue: 1.2\n    egress_tiers:\n      - {up_to_gb: 0, usd_per_gb: 1e9}\n", 5,
			"clouds[0] (onprem)", "egress_tiers[0].usd_per_gb", "must be from 0 to 100 USD/GB, got 1,000,000,000"},
		{"bad spot notice", "c.yaml", "clouds:\n  - id: onprem\n    pue: 1.2\n    spot:\n      notice_seconds: 1e12\n", 5,
			"clouds[0] (onprem)", "spot.notice_seconds", "must be a whole number from 0 to 86,400 s, got 1,000,000,000,000"},
		{"accelerator tflops", "c.yaml", "accelerators:\n  - id: X1\n    memory_gb: 80\n    memory_bandwidth_tbps: 3\n    interconnect_kind: nvlink\n    nvlink_domain_gpus: 8\n    peak_tflops: {bf16: 1e300}\n", 7,
			"accelerators[0] (X1)", "peak_tflops.bf16", "must be more than 0 and at most 1,000,000 TFLOPS, got 1 × 10^300"},
		{"region grid year", "c.yaml", "regions:\n  - cloud: aws\n    id: r9\n    country: US\n    geography: us\n    grid_year: 1800\n", 6,
			"regions[0] (aws/r9)", "grid_year", "must be 0 or a whole number from 1990 to 2100, got 1800"},
		{"discount out of range", "c.yaml", "discounts:\n  aws: 1.5\n", 2, "discounts", "aws", "must be at least 0 and less than 1, got 1.5"},
		{"discount unknown cloud", "c.yaml", "discounts:\n  awz: 0.1\n", 2, "discounts", "awz", `unknown cloud "awz" (did you mean "aws"`},
		{"self-referencing merge key", "c.yaml", "offers:\n  - &a {cloud: aws, instance_type: p5.48xlarge, region: us-east-1, on_demand_usd: 30, <<: *a}\n", 2,
			"offers[0] (aws/p5.48xlarge/us-east-1)", "", "a merge key (<<) refers to the mapping it is inside of"},
		{"unknown extension", "c.txt", "{}", 0, "", "", "unknown catalog file format"},
		{"yaml number beyond float64", "c.yaml", p5 + "    on_demand_usd: 1e400\n", 5, "offers[0] (aws/p5.48xlarge/us-east-1)", "on_demand_usd",
			"must be a finite number from 0.0001 to 1,000,000 USD/h, got 1 × 10^400"},
		// Issue 23: names that would spoof plan output, tiers out of order,
		// a problem of a built-in field the entry never set, one spelling.
		{"bidi override in a name", "c.yaml", "clouds:\n  - id: myc\n    name: \"My\\u202eCloud\"\n    pue: 1.2\n", 3,
			"clouds[0] (myc)", "name", "contains U+202E, a bidirectional control character"},
		{"control character in an id", "c.yaml", "clouds:\n  - id: \"my\\tc\"\n    pue: 1.2\n", 2,
			`clouds[0] ("my\tc")`, "id", "contains the control character U+0009"},
		{"zero-width space in an instance type", "c.yaml", strings.Replace(newOffer, "x1", "\"x\\u200b1\"", 1) + "    on_demand_usd: 10\n", 3,
			`offers[0] (aws/"x\u200b1"/us-east-1)`, "instance_type", "contains U+200B, an invisible formatting character"},
		{"name not in NFC", "c.yaml", "clouds:\n  - id: \"cafe\\u0301\"\n    pue: 1.2\n", 2,
			"clouds[0] (cafe\u0301)", "id", `is not in Unicode normalization form C (NFC): write it as "caf\u00e9"`},
		{"unlimited egress tier first", "c.yaml", "clouds:\n  - id: onprem\n    pue: 1.2\n    egress_tiers:\n      - {up_to_gb: 0, usd_per_gb: 0.05}\n" +
			"      - {up_to_gb: 10240, usd_per_gb: 0.09}\n", 5, "clouds[0] (onprem)", "egress_tiers[0].up_to_gb", "0 (unlimited) is for the last tier only"},
		{"egress tiers not increasing", "c.yaml", "clouds:\n  - id: onprem\n    pue: 1.2\n    egress_tiers:\n      - {up_to_gb: 10240, usd_per_gb: 0.09}\n" +
			"      - {up_to_gb: 100, usd_per_gb: 0.07}\n      - {up_to_gb: 0, usd_per_gb: 0.05}\n", 6, "clouds[0] (onprem)", "egress_tiers[1].up_to_gb",
			"100 GB is not above the tier before (10,240 GB)"},
		{"instance type in another case", "c.yaml", strings.Replace(p5, "p5.48xlarge", "P5.48XLARGE", 1) + "    on_demand_usd: 50\n", 3,
			"offers[0] (aws/P5.48XLARGE/us-east-1)", "instance_type", `"P5.48XLARGE" is written "p5.48xlarge" in the catalog`},
		{"region in another case", "c.yaml", "regions:\n  - cloud: aws\n    id: US-EAST-1\n    country: US\n    geography: us\n", 3,
			"regions[0] (aws/US-EAST-1)", "id", `"US-EAST-1" is written "us-east-1" in the catalog`},
		{"json number for a string", "c.json", `{"offers":[{"cloud":"aws","instance_type":8,"region":"us-east-1"}]}`, 1,
			"offers[0] (aws/8/us-east-1)", "instance_type", "must be a string, got a number (\"8\")"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _, err := applyBytes(base, tc.file, []byte(tc.body))
			if c != nil || err == nil {
				t.Fatalf("accepted: %v", err)
			}
			ps := problems(t, err)
			if len(ps) != 1 {
				t.Fatalf("%d problems, want 1:\n%v", len(ps), err)
			}
			p := ps[0]
			if p.File != filepath.Base(tc.file) || p.Line != tc.line || p.Entry != tc.entry || p.Field != tc.field || !strings.Contains(p.Msg, tc.want) {
				t.Errorf("got  %#v\nwant line %d, entry %q, field %q, message containing %q", p, tc.line, tc.entry, tc.field, tc.want)
			}
			if strings.Contains(err.Error(), "e+") {
				t.Errorf("number in e-notation: %v", err)
			}
		})
	}
}

// Every mistake of a file is reported in one run, each with its entry and field.
func TestOverlayReportsEveryProblem(t *testing.T) {
	base := builtin(t)
	body := `clouds:
  - id: onprem
    pue: 0.9
    block_storage_usd_per_gb_month: -1
regions:
  - cloud: onprem
    id: dc1
    country: DE
    geography: eu
    grid_gco2e_per_kwh: .inf
offers:
  - cloud: onprem
    instance_type: dgx
    region: dc1
    accelerator: H100
    gpus: 0
    on_demand_usd: 1e308
    fabric: myrinet
  - cloud: aws
    instance_type: p5.48xlarge
    region: us-east-1
    on_demand: 3
`
	_, _, err := applyBytes(base, "three.yaml", []byte(body))
	ps := problems(t, err)
	want := []struct {
		line         int
		entry, field string
	}{
		{3, "clouds[0] (onprem)", "pue"},
		{4, "clouds[0] (onprem)", "block_storage_usd_per_gb_month"},
		{10, "regions[0] (onprem/dc1)", "grid_gco2e_per_kwh"},
		{16, "offers[0] (onprem/dgx/dc1)", "gpus"},
		{17, "offers[0] (onprem/dgx/dc1)", "on_demand_usd"},
		{18, "offers[0] (onprem/dgx/dc1)", "fabric"},
		{22, "offers[1] (aws/p5.48xlarge/us-east-1)", "on_demand"},
	}
	if len(ps) != len(want) {
		t.Fatalf("%d problems, want %d:\n%v", len(ps), len(want), err)
	}
	for i, w := range want {
		if p := ps[i]; p.Line != w.line || p.Entry != w.entry || p.Field != w.field {
			t.Errorf("problem %d = %s\nwant line %d, %s, field %q", i, p, w.line, w.entry, w.field)
		}
	}
	if msg := err.Error(); !strings.HasPrefix(msg, "three.yaml: 7 problems:\n  three.yaml line 3: clouds[0] (onprem): field \"pue\"") {
		t.Errorf("message:\n%s", msg)
	}

	// A file with hundreds of mistakes lists the first 100 and counts the rest.
	var b strings.Builder
	b.WriteString("offers:\n")
	for i := range 150 {
		fmt.Fprintf(&b, "  - {cloud: aws, instance_type: x%d, region: us-east-1, accelerator: H100, gpus: 8, on_demand_usd: -1}\n", i)
	}
	_, _, err = applyBytes(base, "many.yaml", []byte(b.String()))
	var oe *overlay.Error
	if !errors.As(err, &oe) || len(oe.Problems) != 100 || oe.More != 50 || !strings.Contains(err.Error(), "150 problems") || !strings.Contains(err.Error(), "... and 50 more") {
		t.Errorf("many problems: %d listed, %d more", len(oe.Problems), oe.More)
	}
}

// Overlays forgive: a partial override keeps the built-in prices it leaves
// out consistent, and a cloud-wide discount comes from the file.
func TestOverlayPartialOverrideAndDiscounts(t *testing.T) {
	base := builtin(t)
	bp5, _ := base.Offer("aws", "p5.48xlarge", "us-east-1")
	if bp5.Reserved1YUSD <= 0 || bp5.SpotUSD <= 0 {
		t.Fatalf("fixture: built-in p5 = %+v", bp5)
	}

	t.Run("on-demand alone below built-in reserved", func(t *testing.T) {
		od := bp5.Reserved1YUSD * 0.9 // below reserved_1y, so reserved_1y must follow
		body := fmt.Sprintf("%s    on_demand_usd: %v\n", p5, od)
		c, warns, err := applyBytes(base, "od.yaml", []byte(body))
		if err != nil {
			t.Fatal(err)
		}
		o, _ := c.Offer("aws", "p5.48xlarge", "us-east-1")
		wantR1 := bp5.Reserved1YUSD * od / bp5.OnDemandUSD
		if o.OnDemandUSD != od || math.Abs(o.Reserved1YUSD-wantR1) > 1e-9 || o.Reserved1YUSD >= od {
			t.Errorf("offer = od %v r1 %v, want od %v r1 %v", o.OnDemandUSD, o.Reserved1YUSD, od, wantR1)
		}
		var got []string
		for _, w := range warns {
			got = append(got, w.Field)
			if w.Entry != "offers[0] (aws/p5.48xlarge/us-east-1)" || w.Line != 5 || !strings.Contains(w.Msg, "rescaled") {
				t.Errorf("warning = %s", w)
			}
		}
		// Spot (below the new on-demand) is kept; reserved prices above it are rescaled.
		if o.SpotUSD >= od {
			t.Errorf("spot %v not below %v", o.SpotUSD, od)
		}
		if !strings.Contains(strings.Join(got, ","), "reserved_1y_usd") {
			t.Errorf("warnings for %v, want reserved_1y_usd among them", got)
		}
	})

	t.Run("many rescaled prices", func(t *testing.T) {
		var b strings.Builder
		b.WriteString("offers:\n")
		n := 0
		for _, o := range base.Offers {
			if o.Reserved1YUSD > 0 && n < 30 {
				fmt.Fprintf(&b, "  - {cloud: %s, instance_type: %s, region: %s, on_demand_usd: %v}\n", o.Cloud, o.InstanceType, o.Region, o.Reserved1YUSD*0.9)
				n++
			}
		}
		_, warns, err := applyBytes(base, "many.yaml", []byte(b.String()))
		if err != nil || len(warns) != 21 || !strings.Contains(warns[20].Msg, "more warnings like these were left out") {
			t.Fatalf("err %v, %d warnings, last %v", err, len(warns), warns[len(warns)-1])
		}
	})

	t.Run("file discounts", func(t *testing.T) {
		body := "discounts:\n  aws: 0.2\n" + p5 + "    spot_usd: 10\n"
		c, warns, err := applyBytes(base, "disc.yaml", []byte(body))
		if err != nil || len(warns) != 0 {
			t.Fatalf("err %v, warnings %v", err, warns)
		}
		o, _ := c.Offer("aws", "p5.48xlarge", "us-east-1")
		if math.Abs(o.OnDemandUSD-bp5.OnDemandUSD*0.8) > 1e-9 || o.SpotUSD != 10 {
			t.Errorf("p5 = od %v spot %v, want od %v (20 %% off), spot 10 (as given)", o.OnDemandUSD, o.SpotUSD, bp5.OnDemandUSD*0.8)
		}
		other, _ := c.Offer("aws", "g5.xlarge", "us-east-1")
		bo, _ := base.Offer("aws", "g5.xlarge", "us-east-1")
		if other == nil || math.Abs(other.OnDemandUSD-bo.OnDemandUSD*0.8) > 1e-9 || !strings.Contains(other.Source, "20% off the list price (discounts.aws)") {
			t.Errorf("g5.xlarge = %+v", other)
		}
		cl, _ := c.Cloud("aws")
		bcl, _ := base.Cloud("aws")
		if math.Abs(cl.BlockStorageUSDPerGBMonth-bcl.BlockStorageUSDPerGBMonth*0.8) > 1e-12 {
			t.Errorf("block storage %v, want 20 %% off %v", cl.BlockStorageUSDPerGBMonth, bcl.BlockStorageUSDPerGBMonth)
		}
		if g, _ := c.Offer("gcp", "a3-highgpu-8g", "us-central1"); g != nil {
			if bg, _ := base.Offer("gcp", "a3-highgpu-8g", "us-central1"); g.OnDemandUSD != bg.OnDemandUSD {
				t.Errorf("gcp discounted by an aws discount")
			}
		}
	})

	t.Run("discount of a cloud defined in the file", func(t *testing.T) {
		onprem, err := os.ReadFile(examplePath("onprem.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		_, warns, err := applyBytes(base, "onprem.yaml", append(onprem, "discounts:\n  onprem: 0.1\n"...))
		if err != nil || len(warns) != 1 || warns[0].Entry != "discounts" || warns[0].Field != "onprem" {
			t.Errorf("err %v, warnings %v", err, warns)
		}
	})
}

func TestOverlayYAMLFeatures(t *testing.T) {
	base := builtin(t)
	// Anchors and merge keys share fields between offers.
	body := `x-defaults: &d
  cloud: aws
  region: us-east-1
offers:
  - <<: *d
    instance_type: p5.48xlarge
    on_demand_usd: 50
  - <<: *d
    instance_type: p4d.24xlarge
    on_demand_usd: 20
`
	if _, _, err := applyBytes(base, "m.yaml", []byte(body)); err == nil || !strings.Contains(err.Error(), `"x-defaults"`) {
		t.Errorf("unknown top-level key accepted: %v", err)
	}
	body = strings.Replace(body, "x-defaults: &d\n  cloud: aws\n  region: us-east-1\noffers:\n  - <<: *d\n",
		"offers:\n  - &d\n    cloud: aws\n    region: us-east-1\n", 1)
	c, _, err := applyBytes(base, "m.yaml", []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if o, _ := c.Offer("aws", "p4d.24xlarge", "us-east-1"); o.OnDemandUSD != 20 {
		t.Errorf("merged offer = %+v", o)
	}
	// A plain scalar that YAML reads as a number is accepted as a string field.
	c, _, err = applyBytes(base, "n.yaml", []byte("regions:\n  - {cloud: aws, id: 123, country: NO, geography: eu}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := c.Region("aws", "123"); !ok || r.Country != "NO" {
		t.Errorf("region 123 = %+v", r)
	}
	// An empty file changes nothing and says so.
	c, warns, err := applyBytes(base, "empty.yaml", nil)
	if err != nil || len(warns) != 1 || len(c.Offers) != len(base.Offers) {
		t.Errorf("empty file: err %v, warnings %v", err, warns)
	}
}

// A "billion laughs" file (aliases of aliases) is read in time linear in its
// text: an alias shares the value of its anchor, and entries are decoded
// by their schema, which never descends into a list where a mapping belongs.
func TestOverlayAliasBomb(t *testing.T) {
	base := builtin(t)
	var b strings.Builder
	b.WriteString("x: &a0 {cloud: aws, instance_type: p5.48xlarge, region: us-east-1}\n")
	b.WriteString("offers: &l0 [*a0, *a0, *a0, *a0, *a0, *a0, *a0, *a0, *a0]\n")
	for i := 1; i < 9; i++ {
		fmt.Fprintf(&b, "y%d: &l%d [", i, i)
		for j := range 9 {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*l%d", i-1)
		}
		b.WriteString("]\n")
	}
	b.WriteString("accelerators: [*l8, *l8, *l8, *l8, *l8, *l8, *l8, *l8, *l8]\n")
	start := time.Now()
	_, _, err := applyBytes(base, "bomb.yaml", []byte(b.String()))
	if err == nil || !strings.Contains(err.Error(), "an entry must be a mapping, got a list") {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}

func TestOverlayFileChecks(t *testing.T) {
	base := builtin(t)
	dir := t.TempDir()
	big := filepath.Join(dir, "big.yaml")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(overlay.MaxBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	cases := []struct {
		name, path, want string
	}{
		{"directory", dir, "is a directory, not a regular file"},
		{"missing", filepath.Join(dir, "missing.yaml"), "no such file"},
		{"too large", big, "is larger than 64 MB"},
	}
	if runtime.GOOS != "windows" {
		fifo := filepath.Join(dir, "pipe.yaml")
		mkfifo(t, fifo)
		cases = append(cases, struct{ name, path, want string }{"fifo", fifo, "is a named pipe (FIFO), not a regular file"})
		if _, err := os.Stat("/dev/zero"); err == nil {
			cases = append(cases, struct{ name, path, want string }{"/dev/zero", "/dev/zero", "is a character device, not a regular file"})
		}
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				_, _, err := applyFile(base, tc.path)
				done <- err
			}()
			select {
			case err := <-done:
				abs, _ := filepath.Abs(tc.path)
				if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), abs+": ") {
					t.Errorf("err = %v\nwant %q after the absolute path %s", err, tc.want, abs)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("blocked")
			}
		})
	}

	// A relative path is resolved against the working directory and the
	// absolute path is shown.
	t.Chdir(dir)
	if err := os.WriteFile("rel.yaml", []byte(p5+"    on_demand_usd: -1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, err = applyFile(base, "rel.yaml")
	if want := filepath.Join(dir, "rel.yaml") + " line 5: "; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("err = %v, want prefix %q", err, want)
	}
}

// Nothing is half-applied: a file whose second entry fails leaves no trace.
func TestOverlayAllOrNothing(t *testing.T) {
	base := builtin(t)
	body := p5 + "    on_demand_usd: 1\n  - cloud: aws\n    instance_type: p4d.24xlarge\n    region: us-east-1\n    on_demand_usd: -1\n"
	if _, _, err := applyBytes(base, "c.yaml", []byte(body)); err == nil {
		t.Fatal("want error")
	}
	if o, _ := base.Offer("aws", "p5.48xlarge", "us-east-1"); o.OnDemandUSD == 1 {
		t.Error("receiver mutated by a rejected overlay")
	}
}

// Every example catalog file loads, and the guide shows the warning the
// enterprise example really gives and the limits really applied.
func TestOverlayExamplesAndGuide(t *testing.T) {
	base := builtin(t)
	files, err := filepath.Glob(examplePath("*.yaml"))
	if err != nil || len(files) < 3 {
		t.Fatalf("examples: %v %v", files, err)
	}
	var warnings []string
	for _, f := range files {
		_, ws, err := applyFile(base, f)
		if err != nil {
			t.Errorf("%s: %v", f, err)
		}
		for _, w := range ws {
			warnings = append(warnings, w.String())
		}
	}
	guide, err := os.ReadFile(filepath.Join("..", "..", "..", "templates", "guides", "catalog-overlay.md.tmpl"))
	if err != nil {
		t.Fatal(err)
	}
	flat := strings.Join(strings.Fields(string(guide)), " ")
	for _, w := range warnings {
		if !strings.Contains(flat, strings.Join(strings.Fields(w), " ")) {
			t.Errorf("the guide does not show the warning of the examples:\n%s", w)
		}
	}
	limits, err := catalog.InputLimits()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{catalog.LimitInstancePriceUSDPerHour, catalog.LimitGPUsPerInstance, catalog.LimitAcceleratorMemoryGB,
		catalog.LimitMemoryBandwidthTBps, catalog.LimitPeakTFLOPS, catalog.LimitTDPWatts, catalog.LimitInterconnectGBps,
		catalog.LimitHostVCPUs, catalog.LimitHostMemoryGB, catalog.LimitNetworkGbps, catalog.LimitPUE, catalog.LimitGridGCO2ePerKWh,
		catalog.LimitGridYear, catalog.LimitTransferUSDPerGB, catalog.LimitStorageUSDPerGBMonth, catalog.LimitDataGB,
		catalog.LimitSpotInterruptionsPerDay, catalog.LimitSpotNoticeSeconds, catalog.LimitSpotMaxRuntimeHours} {
		l := limits[name]
		if want := " " + catalog.FormatNumber(l.Max); !strings.Contains(flat, want) {
			t.Errorf("limit %s: the guide's table does not show its maximum %q", name, want)
		}
	}
}

// A clouds entry naming a built-in cloud overrides only the fields it
// gives: a negotiated or measured spot interruption rate keeps the cloud's
// prices, PUE and partition rules; the sources say which figures came from
// the file; a discount still applies to the built-in prices the entry does
// not restate; the rate is bounded like any overlay number.
func TestOverlayPartialCloudOverride(t *testing.T) {
	base := builtin(t)
	bgcp, _ := base.Cloud("gcp")
	body := "discounts:\n  gcp: 0.25\nclouds:\n  - id: gcp\n    block_storage_usd_per_gb_month: 0.05\n    spot:\n      available: true\n      interruptions_per_day: 0.5\n"
	c, warns, err := applyBytes(base, "spot.yaml", []byte(body))
	if err != nil || len(warns) != 0 {
		t.Fatalf("err %v, warnings %v", err, warns)
	}
	gcp, _ := c.Cloud("gcp")
	if gcp.Spot.InterruptionsPerDay != 0.5 || gcp.Spot.NoticeSeconds != bgcp.Spot.NoticeSeconds || gcp.PUE != bgcp.PUE || gcp.Name != bgcp.Name {
		t.Errorf("gcp = %+v, want the built-in cloud with 0.5 interruptions a day", gcp)
	}
	if !strings.HasPrefix(gcp.Spot.Source, "catalog_file spot.yaml over: ") || !strings.HasPrefix(gcp.Source, "catalog_file spot.yaml over: ") {
		t.Errorf("sources = %q, %q; want the file named", gcp.Spot.Source, gcp.Source)
	}
	if gcp.BlockStorageUSDPerGBMonth != 0.05 || math.Abs(gcp.ObjectStorageUSDPerGBMonth-bgcp.ObjectStorageUSDPerGBMonth*0.75) > 1e-12 {
		t.Errorf("storage = block %v (given 0.05), object %v (want 25 %% off %v)", gcp.BlockStorageUSDPerGBMonth, gcp.ObjectStorageUSDPerGBMonth, bgcp.ObjectStorageUSDPerGBMonth)
	}
	if b2, _ := base.Cloud("gcp"); b2.Spot.InterruptionsPerDay != bgcp.Spot.InterruptionsPerDay || b2.BlockStorageUSDPerGBMonth != bgcp.BlockStorageUSDPerGBMonth {
		t.Error("the built-in catalog changed")
	}
	for _, bad := range []string{"-0.1", "1441", ".inf"} {
		_, _, err := applyBytes(base, "bad.yaml", []byte("clouds:\n  - id: gcp\n    spot:\n      interruptions_per_day: "+bad+"\n"))
		if err == nil || !strings.Contains(err.Error(), `clouds[0] (gcp): field "spot.interruptions_per_day"`) {
			t.Errorf("interruptions_per_day %s: %v", bad, err)
		}
	}
}

// Files that are mostly mistakes, or of a shape that cannot be read entry
// by entry, are rejected in moments and without building them: a long
// flow list or top-level list is refused before it is parsed, a long list
// of wrong entries stops at maxProblemsRead problems, and a JSON entry may
// hold at most 10,000 values.
func TestOverlayHostileShapes(t *testing.T) {
	base := builtin(t)
	repeat := func(prefix, item, sep, suffix string, n int) []byte {
		var b strings.Builder
		b.WriteString(prefix)
		for i := range n {
			if i > 0 {
				b.WriteString(sep)
			}
			b.WriteString(item)
		}
		b.WriteString(suffix)
		return []byte(b.String())
	}
	clouds := func(n int) []byte {
		var b strings.Builder
		b.WriteString("clouds:\n")
		for i := range n {
			fmt.Fprintf(&b, "  - {id: c%d, pue: 1.1}\n", i)
		}
		return []byte(b.String())
	}
	for _, tc := range []struct {
		name, file string
		data       []byte
		line       int
		want       string
		stopped    bool
	}{
		{"yaml flow list", "l.yaml", repeat("offers: [", "1", ",", "]\n", 2_500_000), 1, "values in a shape that cannot be read entry by entry", false},
		{"yaml top-level list", "l.yaml", repeat("# list\n", "- 1", "\n", "\n", 2_500_000), 2, "the top level must be a mapping", false},
		{"yaml block list of numbers", "l.yaml", repeat("offers:\n", "  - 1", "\n", "\n", 300_000), 2, "an entry must be a mapping, got a number", true},
		{"json list of nulls", "l.json", repeat(`{"offers": [`, "null", ",", "]}", 1_000_000), 1, "an entry must be a mapping, got null", true},
		{"json entry of nulls", "l.json", repeat(`{"offers": [{"cloud": [`, "null", ",", "]}]}", 100_000), 1, "holds more than 10000 values", false},
		{"json deep entry", "l.json", repeat(`{"offers": [{"cloud": `, "[", "", strings.Repeat("]", 40)+"}]}", 40), 1, "nests more than 30 levels deep", false},
		{"json top-level keys", "l.json", repeat("{", `"k": 1`, ",", "}", 2_000), 1, "more than 1000 top-level keys", false},
		{"yaml 10,001 clouds", "l.yaml", clouds(10_001), 10_002, "more than 10,000 entries in clouds", false},
		{"json invalid UTF-8", "l.json", []byte("{\"offers\": [{\"cloud\": \"a\xffb\"}]}"), 1, "malformed JSON: invalid UTF-8", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			_, _, err := applyBytes(base, tc.file, tc.data)
			var oe *overlay.Error
			if !errors.As(err, &oe) {
				t.Fatalf("err = %v", err)
			}
			if p := oe.Problems[0]; p.Line != tc.line || !strings.Contains(p.Msg, tc.want) || oe.Stopped != tc.stopped {
				t.Errorf("first problem %s (stopped %v), want line %d, %q (stopped %v)", p, oe.Stopped, tc.line, tc.want, tc.stopped)
			}
			if tc.stopped && (len(oe.Problems) != 100 || !strings.Contains(err.Error(), "at least 1000 problems")) {
				t.Errorf("%d problems listed, message %.80q", len(oe.Problems), err.Error())
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}

// Messages echo the file's text only in short excerpts, with control,
// bidirectional and other format characters escaped.
func TestOverlayExcerpts(t *testing.T) {
	base := builtin(t)
	long := strings.Repeat("x", 200)
	body := "offers:\n  - cloud: \"aws\\u202e\"\n    instance_type: " + long + "\n    region: us-east-1\n    " + long + ": 1\n"
	_, _, err := applyBytes(base, "e.yaml", []byte(body))
	if err == nil {
		t.Fatal("accepted")
	}
	msg := err.Error()
	if strings.Contains(msg, "\u202e") || !strings.Contains(msg, `"aws\u202e"`) {
		t.Errorf("bidi override not escaped: %s", msg)
	}
	if strings.Contains(msg, strings.Repeat("x", 41)) || !strings.Contains(msg, strings.Repeat("x", 37)+"...") {
		t.Errorf("long names not cut to 40 characters: %s", msg)
	}
}

// A price set to 0 on a built-in offer removes that pricing model: the
// file may mean it, so it applies, with a note naming the price removed.
func TestOverlayZeroPriceNote(t *testing.T) {
	base := builtin(t)
	built, _ := base.Offer("aws", "p5.48xlarge", "us-east-1")
	if built.SpotUSD == 0 {
		t.Skip("the built-in p5.48xlarge in us-east-1 has no spot price")
	}
	c, warns, err := applyBytes(base, "c.yaml", []byte(p5+"    spot_usd: 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	o, _ := c.Offer("aws", "p5.48xlarge", "us-east-1")
	if _, sold := o.Price(catalog.Spot); sold {
		t.Errorf("spot still sold at %v after spot_usd: 0", o.SpotUSD)
	}
	want := fmt.Sprintf("0 means not sold: the built-in spot_usd of %s USD/h is removed", catalog.FormatNumber(built.SpotUSD))
	if len(warns) != 1 || warns[0].Field != "spot_usd" || warns[0].Line != 5 || !strings.Contains(warns[0].Msg, want) {
		t.Errorf("warnings %v, want one on spot_usd, line 5, containing %q", warns, want)
	}
	// A new offer's 0 is the same as leaving the price out: no note.
	_, warns, err = applyBytes(base, "c.yaml", []byte("offers:\n  - cloud: aws\n    instance_type: x1\n    region: us-east-1\n"+
		"    accelerator: H100\n    gpus: 8\n    on_demand_usd: 30\n    spot_usd: 0\n"))
	if err != nil || len(warns) != 0 {
		t.Errorf("new offer with spot_usd: 0: %v, warnings %v", err, warns)
	}
}

// A field a new or replacing entry never wrote is reported as not set,
// not as "must be more than 0 …, got 0"; a field written as 0 keeps the
// rule's words and its line.
func TestOverlayFieldNeverSet(t *testing.T) {
	base := builtin(t)
	_, _, err := applyBytes(base, "c.yaml", []byte("accelerators:\n  - id: H100\n    interconnect_kind: pcie\n    memory_gb: 0\n"))
	ps := problems(t, err)
	byField := map[string]overlay.Finding{}
	for _, p := range ps {
		byField[p.Field] = p
	}
	for field, want := range map[string]string{
		"memory_bandwidth_tbps": "not set, and required here: must be more than 0 and at most",
		"nvlink_domain_gpus":    "not set, and required here: must be a whole number from 1 to",
		"memory_gb":             "must be more than 0 and at most 10,000 GB, got 0",
	} {
		p, ok := byField[field]
		if !ok || !strings.Contains(p.Msg, want) {
			t.Errorf("%s: %+v, want a problem containing %q", field, p, want)
		}
	}
	if p := byField["memory_bandwidth_tbps"]; p.Line != 2 || strings.Contains(p.Msg, "got 0") {
		t.Errorf("unset field: %+v, want line 2 (the entry) and no 'got 0'", p)
	}
	if p := byField["memory_gb"]; p.Line != 4 {
		t.Errorf("memory_gb: 0: %+v, want line 4", p)
	}
}

// A problem of a built-in field an override leaves out is reported on the
// entry, as the built-in value's, not on a field the file never wrote.
func TestOverlayBuiltInFieldNotSet(t *testing.T) {
	base := builtin(t)
	p5, _ := base.Offer("aws", "p5.48xlarge", "us-east-1")
	odd := *p5 // a base offer whose reserved price is above its on-demand one
	odd.InstanceType, odd.Reserved1YUSD = "odd.48xlarge", p5.OnDemandUSD*2
	base = base.With(base.Accelerators, base.Clouds, base.Regions, append(slices.Clone(base.Offers), &odd))
	_, _, err := applyBytes(base, "c.yaml", []byte("offers:\n  - cloud: aws\n    instance_type: odd.48xlarge\n    region: us-east-1\n    vcpus: 8\n"))
	ps := problems(t, err)
	if len(ps) != 1 || ps[0].Field != "" || ps[0].Line != 2 ||
		!strings.Contains(ps[0].Msg, "the built-in reserved_1y_usd, which this entry does not set, ") {
		t.Errorf("problems %v, want one on the entry (line 2, no field) naming the built-in reserved_1y_usd", ps)
	}
}
