// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package refresh_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/catalog/overlay"
	"github.com/gpuplan/terraform-provider-gpu/internal/refresh"
)

// TestMainReplay: the subcommand, replaying a recording of every cloud
// made against the built-in catalog, writes an overlay that the built-in
// catalog loads, and says what it wrote.
func TestMainReplay(t *testing.T) {
	srv := newReplayServer(t, nil)
	rec := filepath.Join(t.TempDir(), "rec")
	o := refresh.Options{Out: filepath.Join(t.TempDir(), "first.yaml"), Clouds: refresh.Clouds, GCPAPIKey: gcpKey,
		LambdaAPIKey: lambdaKey, Record: rec, Endpoints: srv.endpoints(), Sleep: (&sleeps{}).sleep}
	if _, err := refresh.Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "prices.yaml")
	var stderr bytes.Buffer
	env := func(string) string { return "" }
	if code := refresh.Main([]string{"--replay", rec, "--out", out}, &stderr, env); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := overlay.Apply(cat, out, overlay.Options{}); err != nil {
		t.Fatalf("the overlay does not load: %v", err)
	}
	first, _ := os.ReadFile(o.Out)
	if got, _ := os.ReadFile(out); !bytes.Equal(got, first) {
		t.Error("the replayed overlay differs from the downloaded one")
	}
	for _, want := range []string{"aws: aws/us-east-1.json, dated 2026-11-14:", "gcp: Google Cloud Billing Catalog Compute Engine SKUs, dated 2026-11-12",
		"lambda: lambda/instance_types.json, dated 2026-11-16", "wrote " + out + ": "} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, stderr.String())
		}
	}
}

// TestMainUsage: usage mistakes exit 2 with a message, failures exit 1
// and say nothing was written, -help exits 0; no flag default shows a key
// from the environment.
func TestMainUsage(t *testing.T) {
	env := func(k string) string { return map[string]string{"GCP_API_KEY": "secret-from-env"}[k] }
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{nil, 2, "--out is required"},
		{[]string{"--out", "p.yaml", "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"--bogus"}, 2, "flag provided but not defined: -bogus"},
		{[]string{"--out", "p.json"}, 1, "--out must name a .yaml or .yml file"},
		{[]string{"--out", "p.yaml", "--clouds", "AWS,oracle"}, 1, `"oracle" is not a cloud the refresh reads`},
		{[]string{"--out", "p.yaml", "--clouds", "lambda"}, 1, "Nothing was written."},
		{[]string{"-help"}, 0, "Usage: terraform-provider-gpu refresh --out prices.yaml"},
	} {
		var stderr bytes.Buffer
		if code := refresh.Main(tc.args, &stderr, env); code != tc.code || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%v: exit %d, want %d; output:\n%s\nwant containing %q", tc.args, code, tc.code, stderr.String(), tc.want)
		}
		if strings.Contains(stderr.String(), "secret-from-env") {
			t.Errorf("%v: the key from the environment is printed", tc.args)
		}
	}
}
