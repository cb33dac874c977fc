// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package spec_test

import (
	"errors"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/spec"
)

func TestRenderParseRoundTrip(t *testing.T) {
	t.Parallel()
	cat := fixture(t)
	tests := []struct {
		name string
		req  spec.Request
	}{
		{"minimal", base(nil)},
		{"everything", base(func(r *spec.Request) {
			r.Nodes = 16
			r.Region = "r-east"
			r.PricingModel = catalog.Spot
			r.Storage = spec.Storage{BlockGB: 2000, ObjectGB: 50000}
			r.Labels = map[string]string{"team": "research", "cost-center": "42", "note": `<quoted "&" text>`}
		})},
		{"other cloud, one GPU", base(func(r *spec.Request) { r.GPUsPerNode = 1 })},
		{"reserved", base(func(r *spec.Request) { r.Cloud = "beta"; r.PricingModel = catalog.Reserved1Y })},
		{"pcie accelerator", base(func(r *spec.Request) { r.Cloud = "gamma"; r.Accelerator = "Y10"; r.GPUsPerNode = 1 })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, err := spec.Render(cat, tt.req, opts())
			if err != nil {
				t.Fatal(err)
			}
			js, err := r.Document.JSON()
			if err != nil {
				t.Fatal(err)
			}
			back, err := spec.Parse([]byte(js))
			if err != nil {
				t.Fatalf("Parse(Render) = %v\n%s", err, js)
			}
			if !reflect.DeepEqual(*back, r.Document) {
				t.Errorf("round trip changed the document:\n got %+v\nwant %+v", *back, r.Document)
			}
			js2, _ := back.JSON()
			if js2 != js {
				t.Errorf("re-rendered JSON differs:\n%s\n%s", js2, js)
			}
			// The request recovered from the document renders identically.
			req, err := spec.RequestFromDocument(cat, back, "", "")
			if err != nil {
				t.Fatal(err)
			}
			again, err := spec.Render(cat, req, opts())
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(again, r) {
				t.Errorf("document -> request -> render differs:\n got %+v\nwant %+v", again, r)
			}
		})
	}
}

func TestJSONIsStableAndCompact(t *testing.T) {
	t.Parallel()
	cat := fixture(t)
	req := base(func(r *spec.Request) {
		r.Nodes = 2
		r.Labels = map[string]string{"z": "1", "a": "2", "m": "3"}
		r.Storage = spec.Storage{BlockGB: 100}
	})
	want := `{"apiVersion":"gpuplan.io/v1","kind":"GPUCluster","metadata":{"name":"train","labels":{"a":"2","m":"3","z":"1"},` +
		`"annotations":{"gpuplan.io/cloud":"alpha","gpuplan.io/region":"r-west"}},"spec":{"accelerator":"X100","gpusPerNode":8,"nodes":2,` +
		`"gpuMemoryGB":80,"interconnect":{"scaleUp":"nvlink","scaleOut":"rdma-3200g"},"pricingModel":"on_demand","storage":{"blockGB":100,"objectGB":0}}}`
	for i := 0; i < 20; i++ {
		r, err := spec.Render(cat, req, opts())
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.Document.JSON()
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("render %d:\n got %s\nwant %s", i, got, want)
		}
	}
}

// valid is a well-formed document; tests break one field at a time.
const valid = `{"apiVersion":"gpuplan.io/v1","kind":"GPUCluster","metadata":{"name":"train","labels":{"team":"a"},` +
	`"annotations":{"gpuplan.io/cloud":"alpha","gpuplan.io/region":"r-west"}},"spec":{"accelerator":"X100","gpusPerNode":8,"nodes":2,` +
	`"gpuMemoryGB":80,"interconnect":{"scaleUp":"nvlink","scaleOut":"rdma-3200g"},"pricingModel":"on_demand","storage":{"blockGB":100,"objectGB":0}}}`

func TestParseRejectsWithTheField(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		doc       string
		wantField string
		wantRE    string
	}{
		{"truncated JSON", `{"apiVersion":`, "apiVersion", `invalid JSON: unexpected EOF`},
		{"not JSON", `nope`, "", `invalid JSON`},
		{"not an object", `[1,2]`, "", `must be a JSON object, got an array`},
		{"trailing data", valid + `{}`, "", `unexpected data after the document`},
		{"unknown top-level field", strings.Replace(valid, `"kind"`, `"cloud":"aws","kind"`, 1), "cloud", `unknown field; allowed here: apiVersion, kind, metadata, spec`},
		{"wrong apiVersion", strings.Replace(valid, `gpuplan.io/v1"`, `gpuplan.io/v2"`, 1), "apiVersion", `unsupported version "gpuplan.io/v2"`},
		{"wrong kind", strings.Replace(valid, `"GPUCluster"`, `"Cluster"`, 1), "kind", `must be "GPUCluster"`},
		{"missing kind", strings.Replace(valid, `"kind":"GPUCluster",`, ``, 1), "kind", `required field is missing`},
		{"missing spec", `{"apiVersion":"gpuplan.io/v1","kind":"GPUCluster","metadata":{"name":"a"}}`, "spec", `required field is missing`},
		{"duplicate key", strings.Replace(valid, `"nodes":2`, `"nodes":2,"nodes":3`, 1), "spec.nodes", `duplicate key`},
		{"empty name", strings.Replace(valid, `"name":"train"`, `"name":""`, 1), "metadata.name", `must not be empty`},
		{"name not a string", strings.Replace(valid, `"name":"train"`, `"name":7`, 1), "metadata.name", `must be a string, got a number`},
		{"label not a string", strings.Replace(valid, `"team":"a"`, `"team":1`, 1), "metadata.labels.team", `must be a string`},
		{"unknown annotation", strings.Replace(valid, `"gpuplan.io/cloud"`, `"gpuplan.io/zone":"a","gpuplan.io/cloud"`, 1), "metadata.annotations.gpuplan.io/zone", `unknown annotation`},
		{"region without cloud", strings.Replace(valid, `"gpuplan.io/cloud":"alpha",`, ``, 1), "metadata.annotations.gpuplan.io/region", `needs the cloud`},
		{"unknown spec field", strings.Replace(valid, `"nodes":2`, `"nodes":2,"instanceType":"p5.48xlarge"`, 1), "spec.instanceType", `unknown field; allowed here: accelerator, gpusPerNode`},
		{"missing accelerator", strings.Replace(valid, `"accelerator":"X100",`, ``, 1), "spec.accelerator", `required field is missing`},
		{"null accelerator", strings.Replace(valid, `"accelerator":"X100"`, `"accelerator":null`, 1), "spec.accelerator", `must not be null`},
		{"gpus as string", strings.Replace(valid, `"gpusPerNode":8`, `"gpusPerNode":"8"`, 1), "spec.gpusPerNode", `must be a whole number, got a string`},
		{"fractional gpus", strings.Replace(valid, `"gpusPerNode":8`, `"gpusPerNode":8.5`, 1), "spec.gpusPerNode", `must be a whole number, got 8\.5`},
		{"zero gpus", strings.Replace(valid, `"gpusPerNode":8`, `"gpusPerNode":0`, 1), "spec.gpusPerNode", `between 1 and 1024, got 0`},
		{"missing nodes", strings.Replace(valid, `"nodes":2,`, ``, 1), "spec.nodes", `required field is missing`},
		{"negative nodes", strings.Replace(valid, `"nodes":2`, `"nodes":-1`, 1), "spec.nodes", `between 1 and 100000`},
		{"zero memory", strings.Replace(valid, `"gpuMemoryGB":80`, `"gpuMemoryGB":0`, 1), "spec.gpuMemoryGB", `must be a number > 0`},
		{"bad scaleUp", strings.Replace(valid, `"scaleUp":"nvlink"`, `"scaleUp":"nvswitch"`, 1), "spec.interconnect.scaleUp", `unknown class "nvswitch"; allowed: "nvlink"`},
		{"bad scaleOut", strings.Replace(valid, `"rdma-3200g"`, `"efa"`, 1), "spec.interconnect.scaleOut", `unknown class "efa"`},
		{"missing scaleOut", strings.Replace(valid, `,"scaleOut":"rdma-3200g"`, ``, 1), "spec.interconnect.scaleOut", `required field is missing`},
		{"unknown pricing model", strings.Replace(valid, `"on_demand"`, `"payg"`, 1), "spec.pricingModel", `unknown pricing model "payg"; allowed: "on_demand", "spot", "reserved_1y", "reserved_3y"`},
		{"missing pricing model", strings.Replace(valid, `"pricingModel":"on_demand",`, ``, 1), "spec.pricingModel", `required field is missing`},
		{"negative storage", strings.Replace(valid, `"blockGB":100`, `"blockGB":-5`, 1), "spec.storage.blockGB", `between 0 and`},
		{"unknown storage field", strings.Replace(valid, `"objectGB":0`, `"objectGB":0,"fileGB":1`, 1), "spec.storage.fileGB", `unknown field; allowed here: blockGB, objectGB`},
		{"storage not an object", strings.Replace(valid, `{"blockGB":100,"objectGB":0}`, `100`, 1), "spec.storage", `must be an object, got a number`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := spec.Parse([]byte(tt.doc))
			var fe *spec.FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("Parse error = %v, want a *spec.FieldError", err)
			}
			if fe.Field != tt.wantField {
				t.Errorf("field = %q, want %q (%v)", fe.Field, tt.wantField, err)
			}
			if !regexp.MustCompile(tt.wantRE).MatchString(fe.Msg) {
				t.Errorf("message = %q, want match %q", fe.Msg, tt.wantRE)
			}
			if tt.wantField != "" && !strings.HasPrefix(err.Error(), tt.wantField+": ") {
				t.Errorf("Error() = %q does not start with the field", err.Error())
			}
		})
	}
}

func TestParseAcceptsOptionalFieldsAbsent(t *testing.T) {
	t.Parallel()
	doc := `{"apiVersion":"gpuplan.io/v1","kind":"GPUCluster","metadata":{"name":"n"},"spec":{"accelerator":"x100-sxm","gpusPerNode":8,"nodes":1,"pricingModel":"spot"}}`
	d, err := spec.Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := spec.Document{APIVersion: spec.APIVersion, Kind: spec.Kind, Metadata: spec.Metadata{Name: "n"},
		Spec: spec.Cluster{Accelerator: "x100-sxm", GPUsPerNode: 8, Nodes: 1, PricingModel: "spot"}}
	if !reflect.DeepEqual(*d, want) {
		t.Errorf("Parse = %+v, want %+v", *d, want)
	}
}

func TestRequestFromDocument(t *testing.T) {
	t.Parallel()
	cat := fixture(t)
	tests := []struct {
		name                  string
		doc                   string
		cloud, region         string
		wantCloud, wantRegion string
		wantField             string
	}{
		{name: "annotations place it", doc: valid, wantCloud: "alpha", wantRegion: "r-west"},
		{name: "explicit cloud overrides annotations", doc: valid, cloud: "beta", wantCloud: "beta", wantRegion: ""},
		{name: "explicit cloud and region", doc: valid, cloud: "beta", region: "b-2", wantCloud: "beta", wantRegion: "b-2"},
		{name: "no cloud anywhere", doc: strings.Replace(valid, `,"annotations":{"gpuplan.io/cloud":"alpha","gpuplan.io/region":"r-west"}`, ``, 1),
			wantField: "metadata.annotations.gpuplan.io/cloud"},
		{name: "unknown accelerator", doc: strings.Replace(valid, `"X100"`, `"X1000"`, 1), wantField: "spec.accelerator"},
		{name: "memory disagrees with the accelerator", doc: strings.Replace(valid, `"gpuMemoryGB":80`, `"gpuMemoryGB":40`, 1), wantField: "spec.gpuMemoryGB"},
		{name: "scale-up disagrees with the accelerator", doc: strings.Replace(valid, `"scaleUp":"nvlink"`, `"scaleUp":"pcie"`, 1), wantField: "spec.interconnect.scaleUp"},
		{name: "scale-out is re-derived, not checked", doc: strings.Replace(valid, `"rdma-3200g"`, `"ethernet"`, 1), wantCloud: "alpha", wantRegion: "r-west"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d, err := spec.Parse([]byte(tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			req, err := spec.RequestFromDocument(cat, d, tt.cloud, tt.region)
			if tt.wantField != "" {
				var fe *spec.FieldError
				if !errors.As(err, &fe) || fe.Field != tt.wantField {
					t.Fatalf("error = %v, want field %s", err, tt.wantField)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if req.Cloud != tt.wantCloud || req.Region != tt.wantRegion {
				t.Errorf("placed on %s/%s, want %s/%s", req.Cloud, req.Region, tt.wantCloud, tt.wantRegion)
			}
			if req.Name != "train" || req.Accelerator != "X100" || req.GPUsPerNode != 8 || req.Nodes != 2 ||
				req.PricingModel != catalog.OnDemand || req.Storage.BlockGB != 100 || req.Labels["team"] != "a" {
				t.Errorf("request = %+v", req)
			}
		})
	}
}

// TestPricingModelAnyCase: a pricing model is read in any case and the
// document carries its canonical name.
func TestPricingModelAnyCase(t *testing.T) {
	cat := fixture(t)
	lower, err := spec.Render(cat, base(func(r *spec.Request) { r.PricingModel = catalog.OnDemand }), opts())
	if err != nil {
		t.Fatal(err)
	}
	upper, err := spec.Render(cat, base(func(r *spec.Request) { r.PricingModel = " ON_DEMAND" }), opts())
	if err != nil {
		t.Fatal(err)
	}
	a, _ := lower.Document.JSON()
	b, _ := upper.Document.JSON()
	if a != b || upper.Placement != lower.Placement {
		t.Errorf("ON_DEMAND renders %s at %+v, on_demand %s at %+v", b, upper.Placement, a, lower.Placement)
	}
	if s := spec.SideOf(cat, spec.Side{PricingModel: "Spot"}); s.PricingModel != catalog.Spot {
		t.Errorf("SideOf reads %q", s.PricingModel)
	}
}
