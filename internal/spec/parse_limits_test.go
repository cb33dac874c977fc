// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package spec_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/spec"
)

// nested is n levels of {"a": ...} around 1: about 5 bytes a level.
func nested(n int) []byte {
	return []byte(strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n))
}

// Hostile import IDs fail fast with an error naming the problem.
func TestParseLimits(t *testing.T) {
	t.Parallel()
	validDoc := `{"apiVersion":"gpuplan.io/v1","kind":"GPUCluster","metadata":{"name":"x"},"spec":{"accelerator":"H100","gpusPerNode":8,"nodes":1,"pricingModel":"on_demand"}}`
	for _, tt := range []struct {
		name, doc, field, want string
	}{
		{"80 KB of nesting", string(nested(16_000)), "a.a.a.a.a.a.a.a.a.a", "nested more than 10 levels deep"},
		{"nested arrays", strings.Repeat("[", 50_000), "[0][0][0][0][0][0][0][0][0][0]", "nested more than 10 levels deep"},
		{"nesting inside spec", strings.Replace(validDoc, `"nodes":1`, `"nodes":`+string(nested(20)), 1), "spec.nodes.a.a.a.a.a.a.a.a", "nested more than 10 levels deep"},
		{"too large", `{"apiVersion":"` + strings.Repeat("x", spec.MaxDocumentBytes) + `"}`, "", "at most 1048576 are allowed"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := spec.Parse([]byte(tt.doc))
			var fe *spec.FieldError
			if !errors.As(err, &fe) || fe.Field != tt.field || !strings.Contains(fe.Msg, tt.want) {
				t.Fatalf("err = %v, want field %q and %q", err, tt.field, tt.want)
			}
		})
	}
	if _, err := spec.Parse([]byte(validDoc)); err != nil {
		t.Errorf("valid document: %v", err)
	}
}

// BenchmarkParseNested80KB: an 80 KB deeply nested import ID (which took
// 3.9 GB when every level built its full path string) fails at the depth
// cap with a few kilobytes.
func BenchmarkParseNested80KB(b *testing.B) {
	data := nested(16_000)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := spec.Parse(data); err == nil {
			b.Fatal("accepted")
		}
	}
}

// BenchmarkParseWide1MB: the largest accepted text, one wide object
// (memory linear in the input).
func BenchmarkParseWide1MB(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"apiVersion":"gpuplan.io/v1","kind":"GPUCluster","metadata":{"name":"x","labels":{`)
	for i := 0; sb.Len() < spec.MaxDocumentBytes-100; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `"label-%07d":"value"`, i)
	}
	sb.WriteString(`}}}`)
	data := []byte(sb.String())
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := spec.Parse(data); err == nil || !strings.Contains(err.Error(), "at most 64 labels") {
			b.Fatal(err)
		}
	}
}

// A parsed document that omits the derived fields renders to JSON that
// parses back to the same document.
func TestParsedDocumentRoundTrips(t *testing.T) {
	t.Parallel()
	doc := `{"apiVersion":"gpuplan.io/v1","kind":"GPUCluster","metadata":{"name":"x"},"spec":{"accelerator":"H100","gpusPerNode":8,"nodes":1,"pricingModel":"on_demand"}}`
	d, err := spec.Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	js, err := d.JSON()
	if err != nil {
		t.Fatal(err)
	}
	back, err := spec.Parse([]byte(js))
	if err != nil || back.Spec != d.Spec {
		t.Fatalf("round trip: %v\n%s", err, js)
	}
}
