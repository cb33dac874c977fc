// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package overlay

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
)

// Fuzzing the catalog-file reader (make fuzz): whatever the bytes, it
// returns either a catalog whose every entry passes the validators (and so
// the input limits) or an *Error whose problems have messages in
// plain notation; never a panic, never a half-applied catalog.

// overlaySeeds are the example files and the shapes the tests use.
func overlaySeeds(f *testing.F, ext string) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "..", "examples", "catalog", "*"+ext))
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	p5 := "offers:\n  - cloud: aws\n    instance_type: p5.48xlarge\n    region: us-east-1\n"
	seeds := map[string][]string{
		".yaml": {
			p5 + "    on_demand_usd: 30\n", p5 + "    on_demand_usd: .inf\n", p5 + "    gpus: 4611686018427387904\n",
			p5 + "    on_demand_usd: 1e308\n    spot_usd: -0\n", p5 + "    on_demand_usd: 3\n    on_demand_usd: 4\n",
			"discounts: {aws: 0.2, gcp: .nan}\n" + p5 + "    spot_usd: 10\n",
			"x: &a [1, 2]\noffers: [*a, *a]\n", "offers:\n  - &d {cloud: aws, region: us-east-1}\n  - {<<: *d, instance_type: p4d.24xlarge, on_demand_usd: 20}\n",
			"clouds:\n  - id: onprem\n    pue: 1.2\n    egress_tiers: [{up_to_gb: 0, usd_per_gb: 1e9}]\n    spot: {max_runtime_hours: 1e-300}\n",
			"accelerators:\n  - {id: X1, memory_gb: 80, memory_bandwidth_tbps: 3, peak_tflops: {bf16: 0x10}}\n",
			"regions:\n  - {cloud: aws, id: 123, country: NO, geography: eu, grid_year: 0o3720}\n", "---\n---\n", "",
		},
		".json": {
			`{"offers":[{"cloud":"azure","instance_type":"Standard_ND96isr_H100_v5","region":"eastus","on_demand_usd":70}]}`,
			`{"offers":[{"cloud":"aws","instance_type":"p5.48xlarge","region":"us-east-1","on_demand_usd":1e400,"gpus":8.5}]}`,
			`{"discounts":{"aws":0.1},"offers":[{"cloud":"aws","instance_type":"p5.48xlarge","region":"us-east-1","on_demand_usd":20}]}`,
			`{"offers": [{"cloud": "aws", "cloud": "gcp"}]}`, `{"clouds":[{"id":"x","pue":1.2,"spot":{"notice_seconds":1e12}}]}`,
			"{\"a\":\"\\u00e9\\ud83d\\ude00\"}", `[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`, `{} {}`, `-0.0e-0`,
		},
	}
	for _, s := range seeds[ext] {
		f.Add([]byte(s))
	}
}

func FuzzOverlayYAML(f *testing.F) {
	overlaySeeds(f, ".yaml")
	base := fuzzBase(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		data = append([]byte{}, data...) // never nil: nil Data reads the file
		checkOverlay(t, base, "fuzz.yaml", data)
		sameStreamed(t, base, "fuzz.yaml", data)
	})
}

// sameStreamed checks that reading a YAML file in chunks (as large files
// are) gives what reading it whole gives: the same catalog, warnings and
// problems.
func sameStreamed(t testing.TB, base *catalog.Catalog, name string, data []byte) {
	sr, serr := apply(base, name, data, 0)
	wr, werr := apply(base, name, data, math.MaxInt)
	if fmt.Sprint(serr) != fmt.Sprint(werr) {
		t.Fatalf("streamed and whole readings differ:\n%v\n%v", serr, werr)
	}
	if serr != nil {
		return
	}
	sc, wc := sr.Catalog, wr.Catalog
	if !reflect.DeepEqual(sr.Warnings, wr.Warnings) {
		t.Fatalf("streamed and whole readings warn differently:\n%v\n%v", sr.Warnings, wr.Warnings)
	}
	for _, pair := range [][2]any{{sc.Offers, wc.Offers}, {sc.Clouds, wc.Clouds}, {sc.Regions, wc.Regions}, {sc.Accelerators, wc.Accelerators}} {
		if !reflect.DeepEqual(pair[0], pair[1]) {
			t.Fatalf("streamed and whole readings give different catalogs")
		}
	}
}

func FuzzOverlayJSON(f *testing.F) {
	overlaySeeds(f, ".json")
	base := fuzzBase(f)
	f.Fuzz(func(t *testing.T, data []byte) { checkOverlay(t, base, "fuzz.json", append([]byte{}, data...)) })
}

func fuzzBase(tb testing.TB) *catalog.Catalog {
	c, err := catalog.Builtin()
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

var (
	// quoted is echoed text: "…" (our excerpts), `…` and a character in
	// '…' (the JSON decoder's).
	quoted    = regexp.MustCompile("(?s)\"(?:[^\"\\\\]|\\\\.)*\"|`[^`]*`|'(?:\\\\[^']*|[^'])'")
	eNotation = regexp.MustCompile(`[0-9]e[+-]?[0-9]`)
)

func checkOverlay(t *testing.T, base *catalog.Catalog, name string, data []byte) {
	nOffers := len(base.Offers)
	res, err := Apply(base, name, Options{Data: data})
	if len(base.Offers) != nOffers {
		t.Fatal("receiver modified")
	}
	if err != nil {
		var oe *Error
		if !errors.As(err, &oe) || len(oe.Problems) == 0 || res != nil {
			t.Fatalf("error %v (%T) with result %v", err, err, res != nil)
		}
		for _, p := range oe.Problems {
			if p.Msg == "" || strings.Contains(p.Msg, "%!") || eNotation.MatchString(quoted.ReplaceAllString(p.Msg, `""`)) {
				t.Fatalf("problem message %q", p.Msg)
			}
		}
		return
	}
	c, warns := res.Catalog, res.Warnings
	for _, w := range warns {
		if w.Msg == "" || strings.Contains(w.Msg, "%!") {
			t.Fatalf("warning %q", w)
		}
	}
	// Every entry of the merged catalog passes the validators (input limits
	// included), and the indexes agree with the lists.
	for _, a := range c.Accelerators {
		if err := catalog.ValidateAccelerator(a); err != nil {
			t.Fatalf("accelerator %s: %v", a.ID, err)
		}
	}
	for _, cl := range c.Clouds {
		if err := catalog.ValidateCloud(cl); err != nil {
			t.Fatalf("cloud %s: %v", cl.ID, err)
		}
	}
	if err := c.CheckUnique(); err != nil {
		t.Fatal(err)
	}
	for _, r := range c.Regions {
		if err := c.ValidateRegion(r); err != nil {
			t.Fatalf("region %s/%s: %v", r.Cloud, r.ID, err)
		}
	}
	for _, o := range c.Offers {
		if err := c.ValidateOffer(o); err != nil {
			t.Fatalf("offer %s/%s/%s: %v", o.Cloud, o.InstanceType, o.Region, err)
		}
		if got, ok := c.Offer(o.Cloud, o.InstanceType, o.Region); !ok || got != o {
			t.Fatalf("offer %s/%s/%s not indexed", o.Cloud, o.InstanceType, o.Region)
		}
	}
	keys := map[[3]string]bool{}
	for _, o := range c.Offers {
		k := [3]string{o.Cloud, o.InstanceType, o.Region}
		if keys[k] {
			t.Fatalf("offer %v listed twice", k)
		}
		keys[k] = true
	}
	// Deterministic: the same file gives the same catalog.
	again, err := Apply(base, name, Options{Data: data})
	if err != nil || len(again.Catalog.Offers) != len(c.Offers) {
		t.Fatalf("second run: %v", err)
	}
}

// A large file is read in chunks: the same result as reading it whole,
// problems at the same lines, and far less memory (BenchmarkOverlay50MBYAML).
func TestOverlayStreamedLikeWhole(t *testing.T) {
	base := fuzzBase(t)
	var b strings.Builder
	b.WriteString("# generated\ndiscounts:\n  gcp: 0.1\nclouds:\n  - {id: onprem, pue: 1.2}\nregions:\n  - {cloud: onprem, id: dc1, country: DE, geography: eu}\noffers:\n")
	for i := range 12_000 {
		fmt.Fprintf(&b, "  - cloud: onprem\n    instance_type: n%d\n    region: dc1\n    accelerator: H100\n    gpus: 8\n    on_demand_usd: %d\n", i, 10+i%50)
		if i == 9_000 {
			b.WriteString("    spot_usd: 1e308\n") // a problem deep in the file
		}
	}
	data := []byte(b.String())
	if len(data) < streamMinBytes {
		t.Fatalf("%d bytes: too small to be streamed", len(data))
	}
	if _, ok := splitYAML(data); !ok {
		t.Fatal("the file is not split")
	}
	sameStreamed(t, base, "big.yaml", data)
	_, err := Apply(base, "big.yaml", Options{Data: data})
	var oe *Error
	if !errors.As(err, &oe) || len(oe.Problems) != 1 || oe.Problems[0].Line != 8+9_000*6+7 || oe.Problems[0].Field != "spot_usd" {
		t.Fatalf("err = %v", err)
	}
	// Without the problem the file applies, streamed.
	ok := []byte(strings.Replace(b.String(), "    spot_usd: 1e308\n", "", 1))
	res, err := Apply(base, "big.yaml", Options{Data: ok})
	if err != nil || len(res.Catalog.Offers) != len(base.Offers)+12_000 {
		t.Fatalf("err %v", err)
	}
	sameStreamed(t, base, "big.yaml", ok)
	// A problem in the first section, after the comments that precede it,
	// is at the same line either way.
	sameStreamed(t, base, "big.yaml", []byte(strings.Replace(string(ok), "gcp: 0.1", "gcp: 1.5", 1)))
	// A chunk that does not parse alone (a quote left open in the last
	// entry, a flow list run across chunks early on) sends the file to the
	// whole reading, with the same result; the chunks parsed ahead
	// (parseAhead) are dropped, no goroutine left behind.
	before := runtime.NumGoroutine()
	sameStreamed(t, base, "big.yaml", append(slices.Clip(ok), "  - {cloud: \"onprem\n"...))
	early := strings.Replace(string(ok), "    instance_type: n100\n", "    instance_type: [n100,\n", 1)
	sameStreamed(t, base, "big.yaml", []byte(early))
	for deadline := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > before && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after the readings, %d before", n, before)
	}
}
