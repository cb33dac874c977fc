// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package spec_test

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/inputerr"
	"github.com/gpuplan/terraform-provider-gpu/internal/spec"
)

// FuzzParseRender (make fuzz): whatever the import ID, Parse returns a
// document or a *FieldError; a parsed document renders to JSON that parses
// back to the same document and the same bytes; and, placed on the
// built-in catalog, it renders to a document that round-trips too and a
// placement whose money is finite.
func FuzzParseRender(f *testing.F) {
	for _, s := range []string{
		`{"apiVersion":"gpuplan.io/v1","kind":"GPUCluster","metadata":{"name":"train","annotations":{"gpuplan.io/cloud":"aws","gpuplan.io/region":"us-east-1"}},"spec":{"accelerator":"H100","gpusPerNode":8,"nodes":2,"pricingModel":"on_demand"}}`,
		`{"apiVersion":"gpuplan.io/v1","kind":"GPUCluster","metadata":{"name":"x","labels":{"team":"ml","note":"<\"&\">"},"annotations":{"gpuplan.io/cloud":"gcp"}},"spec":{"accelerator":"a100-80gb","gpusPerNode":8,"nodes":1,"gpuMemoryGB":80,"interconnect":{"scaleUp":"nvlink","scaleOut":"rdma-3200g"},"pricingModel":"spot","storage":{"blockGB":1000,"objectGB":20000}}}`,
		`{"apiVersion":"gpuplan.io/v1","kind":"GPUCluster","metadata":{"name":"y"},"spec":{"accelerator":"L4","gpusPerNode":1,"nodes":100000,"pricingModel":"reserved_3y"}}`,
		`{"apiVersion":"gpuplan.io/v1","kind":"GPUCluster","metadata":{"name":"z"},"spec":{"accelerator":"H100","gpusPerNode":1e308,"nodes":-1,"gpuMemoryGB":1e400,"pricingModel":"on_demand"}}`,
		`{"apiVersion":"gpuplan.io/v1","apiVersion":"x"}`, `{"a":` + strings.Repeat(`{"a":`, 20) + `1` + strings.Repeat(`}`, 21),
		`[[[[[[[[[[[[`, `{"kind":"GPUCluster"} trailing`, `"\ud800"`, ``, `null`,
	} {
		f.Add([]byte(s))
	}
	cat, err := catalog.Builtin()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := spec.Parse(data)
		if err != nil {
			var fe *spec.FieldError
			if !errors.As(err, &fe) || fe.Msg == "" || strings.Contains(err.Error(), "%!") {
				t.Fatalf("Parse error %v (%T)", err, err)
			}
			return
		}
		roundTrip(t, d)
		req, err := spec.RequestFromDocument(cat, d, "", "")
		if err != nil {
			return
		}
		r, err := spec.Render(cat, req, spec.Options{HoursPerMonth: 730})
		if err != nil {
			var re *inputerr.Error
			var fe *spec.FieldError
			if !errors.As(err, &re) && !errors.As(err, &fe) {
				t.Fatalf("Render error %v (%T)", err, err)
			}
			return
		}
		roundTrip(t, &r.Document)
		for _, p := range append([]spec.Placement{r.Placement}, r.Equivalents...) {
			for _, v := range []float64{p.NodeHourlyUSD, p.HourlyUSD, p.MonthlyUSD, p.NetworkGbps} {
				if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
					t.Fatalf("placement %+v has a non-finite or negative figure", p)
				}
			}
		}
	})
}

func roundTrip(t *testing.T, d *spec.Document) {
	t.Helper()
	js, err := d.JSON()
	if err != nil {
		t.Fatalf("JSON: %v", err)
	}
	back, err := spec.Parse([]byte(js))
	if err != nil {
		t.Fatalf("the rendered JSON does not parse: %v\n%s", err, js)
	}
	if !reflect.DeepEqual(back, d) {
		t.Fatalf("round trip changed the document:\n got %+v\nwant %+v", back, d)
	}
	if js2, _ := back.JSON(); js2 != js {
		t.Fatalf("JSON differs after a round trip:\n%s\n%s", js2, js)
	}
}
