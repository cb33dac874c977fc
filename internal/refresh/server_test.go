// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package refresh_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog"
	"github.com/gpuplan/terraform-provider-gpu/internal/catalog/pricelist"
	"github.com/gpuplan/terraform-provider-gpu/internal/refresh/refreshtest"
)

// recorded is the recording the test server replays: trimmed answers in
// the real formats (testdata/README.md).
var recorded = refreshtest.Recorded()

// fault changes the answer to one request: it writes the answer itself
// and returns true, or returns false to let the recorded answer through.
// hit counts the requests of that name, from 1.
type fault func(w http.ResponseWriter, body []byte, hit int) bool

// replayServer answers the price APIs' requests with the recording,
// matching method, path and query (not the host: the refresh is pointed at
// the server); an Azure query it has no answer for gets an empty page, as
// the API answers a filter that matches nothing.
type replayServer struct {
	*httptest.Server
	t       *testing.T
	entries []serverEntry
	mu      sync.Mutex
	hits    map[string]int
	faults  map[string]fault
	headers map[string]http.Header // last request headers by name
}

type serverEntry struct {
	name, method, path, date string
	query                    url.Values
}

func newReplayServer(t *testing.T, faults map[string]fault) *replayServer {
	t.Helper()
	var m struct {
		Responses []struct{ Name, Method, URL, Date string }
	}
	data, err := os.ReadFile(filepath.Join(recorded, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	s := &replayServer{t: t, hits: map[string]int{}, faults: faults, headers: map[string]http.Header{}}
	for _, r := range m.Responses {
		u, err := url.Parse(r.URL)
		if err != nil {
			t.Fatal(err)
		}
		s.entries = append(s.entries, serverEntry{name: r.Name, method: r.Method, path: u.Path, date: r.Date, query: u.Query()})
	}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *replayServer) serve(w http.ResponseWriter, req *http.Request) {
	var e *serverEntry
	for i := range s.entries {
		c := &s.entries[i]
		if c.method == req.Method && c.path == req.URL.Path && reflect.DeepEqual(c.query, req.URL.Query()) {
			e = c
		}
	}
	if e == nil {
		if req.URL.Path == "/api/retail/prices" {
			fmt.Fprint(w, `{"BillingCurrency":"USD","CustomerEntityId":"Default","CustomerEntityType":"Retail","Items":[],"NextPageLink":null,"Count":0}`)
			return
		}
		http.Error(w, "no recorded answer for "+req.URL.String(), http.StatusNotFound)
		return
	}
	s.mu.Lock()
	s.hits[e.name]++
	hit := s.hits[e.name]
	s.headers[e.name] = req.Header.Clone()
	s.mu.Unlock()
	body, err := os.ReadFile(filepath.Join(recorded, filepath.FromSlash(e.name)))
	if err != nil {
		s.t.Error(err)
		return
	}
	d, _ := time.Parse(time.DateOnly, e.date)
	w.Header().Set("Date", d.Add(12*time.Hour).Format(http.TimeFormat))
	if f := s.faults[e.name]; f != nil && f(w, body, hit) {
		return
	}
	w.Header().Set("Content-Length", fmt.Sprint(len(body)))
	_, _ = w.Write(body)
}

func (s *replayServer) hitsOf(name string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[name]
}

// endpoints points the refresh at the server.
func (s *replayServer) endpoints() map[string]string {
	return map[string]string{
		pricelist.EndpointAWSRegionIndex:  s.URL + "/offers/v1.0/aws/AmazonEC2/current/region_index.json",
		pricelist.EndpointAzureRetail:     s.URL + "/api/retail/prices",
		pricelist.EndpointGCPBillingSKUs:  s.URL + "/v1/services/6F81-5844-456A/skus",
		pricelist.EndpointRunPodGraphQL:   s.URL + "/graphql",
		pricelist.EndpointLambdaInstances: s.URL + "/api/v1/instance-types",
	}
}

// truncate announces the whole body and sends half of it, then drops the
// connection: a download that breaks off.
func truncate(w http.ResponseWriter, body []byte, _ int) bool {
	w.Header().Set("Content-Length", fmt.Sprint(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body[:len(body)/2])
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	if hj, ok := w.(http.Hijacker); ok {
		if c, _, err := hj.Hijack(); err == nil {
			c.Close()
		}
	}
	return true
}

// replace serves the recorded body with from replaced by to (a changed
// format).
func replace(from, to string) fault {
	return func(w http.ResponseWriter, body []byte, _ int) bool {
		b := bytes.ReplaceAll(body, []byte(from), []byte(to))
		w.Header().Set("Content-Length", fmt.Sprint(len(b)))
		_, _ = w.Write(b)
		return true
	}
}

// fixtureCatalog is the catalog the recording prices.
func fixtureCatalog(t *testing.T) *catalog.Catalog { return refreshtest.Catalog(t) }

// sleeps records the waits between retries instead of sleeping.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(_ context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.d = append(s.d, d)
	return nil
}

func (s *sleeps) all() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

func regexpMatch(pattern, s string) bool { return regexp.MustCompile(pattern).MatchString(s) }
