// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package refresh

import (
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gpuplan/terraform-provider-gpu/internal/fuzzutil"
)

// FuzzRefreshParsers (make fuzz): what the refresh reads from the
// network and a recording besides the price lists themselves (those are
// pricelist's fuzz targets): a next-page link, a Retry-After header, an
// HTTP Date and a recording's manifest. Any input gives an answer or an
// error within a time bound, never a panic; a next page stays on the
// API's host; a wait is never negative nor beyond a day; a manifest's
// names never leave the recording's directory.
func FuzzRefreshParsers(f *testing.F) {
	manifest, err := os.ReadFile("testdata/recorded/manifest.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add("https://prices.azure.com:443/api/retail/prices?$filter=serviceName eq 'Virtual Machines'&$skip=100",
		"120", "Wed, 02 Dec 2026 10:00:00 GMT", manifest)
	f.Add("https://evil.example/api?x=1", "Wed, 21 Oct 2015 07:28:00 GMT", "", []byte(`{"responses":[{"name":"../x"}]}`))
	f.Add("%zz", "-5", "garbage", []byte(`{"responses":[{"name":"aws/a.json"},{"name":"aws/a.json"}]}`))
	base, _ := url.Parse("http://127.0.0.1:8080/api/retail/prices")
	const canonical = "https://prices.azure.com/api/retail/prices"
	now := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, link, retry, date string, manifest []byte) {
		fuzzutil.Within(t, 10*time.Second, func() string {
			if next, err := rebase(link, base, canonical); err == nil {
				u, perr := url.Parse(next)
				if perr != nil || u.Host != base.Host || u.Path != base.Path {
					return fmt.Sprintf("rebase(%q) = %q: not the configured endpoint", link, next)
				}
			} else if len(err.Error()) > 400 {
				return fmt.Sprintf("rebase error of %d bytes echoes too much of the link", len(err.Error()))
			}
			if d := retryAfter(retry, now); d < 0 || d > 24*time.Hour {
				return fmt.Sprintf("retryAfter(%q) = %v", retry, d)
			}
			if d := httpDate(date); d != "" && len(d) != len("2006-01-02") {
				return fmt.Sprintf("httpDate(%q) = %q", date, d)
			}
			entries, err := parseManifest(manifest)
			if err != nil {
				return ""
			}
			for name := range entries {
				if strings.HasPrefix(name, "/") || strings.Contains(name, "..") || strings.Contains(name, `\`) || checkName(name) != nil {
					return fmt.Sprintf("manifest name %q accepted", name)
				}
			}
			return ""
		})
	})
}
