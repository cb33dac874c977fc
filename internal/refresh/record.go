// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package refresh

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog/pricelist"
	"github.com/gpuplan/terraform-provider-gpu/internal/safefile"
)

// fetcher gets answers from the network, a recording (--replay) or the
// network while saving them (--record).
type fetcher struct {
	client *http.Client
	policy *pricelist.Policy
	sleep  func(context.Context, time.Duration) error
	log    io.Writer
	record *recorder
	replay *replayer
}

func (f *fetcher) logf(format string, args ...any) {
	if f.log != nil {
		fmt.Fprintf(f.log, format+"\n", args...)
	}
}

// open returns the answer to a request; the caller closes its body.
func (f *fetcher) open(ctx context.Context, rq *request) (*response, error) {
	if f.replay != nil {
		return f.replay.open(rq)
	}
	resp, err := f.do(ctx, rq)
	if err != nil {
		return nil, err
	}
	if f.record != nil {
		if resp.body, err = f.record.tee(rq, resp); err != nil {
			return nil, err
		}
	}
	return resp, nil
}

// sleepContext waits d or until ctx ends.
func sleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// manifestFile lists a recording's answers; only answers read whole are
// in it, and it is written when the refresh succeeds.
const manifestFile = "manifest.json"

// manifest is manifest.json: what was asked (never a credential: keys
// travel in headers) and what came back.
type manifest struct {
	Description string          `json:"description"`
	Responses   []manifestEntry `json:"responses"`
}

type manifestEntry struct {
	Name   string `json:"name"`
	Method string `json:"method"`
	URL    string `json:"url"`
	Date   string `json:"date"` // the answer's HTTP Date, YYYY-MM-DD
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// safeName is a recorded answer's relative path: letters, digits, '.',
// '_' and '-' in '/'-separated parts, none of them "." or "..".
var safeName = regexp.MustCompile(`^[A-Za-z0-9_-][A-Za-z0-9._-]*(/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$`)

func checkName(name string) error {
	if !safeName.MatchString(name) || strings.Contains(name, "..") {
		return fmt.Errorf("refresh: %q is not a safe response name", name)
	}
	return nil
}

// recorder saves answers under a directory as they are read.
type recorder struct {
	dir     string
	mu      sync.Mutex
	entries map[string]manifestEntry
}

func newRecorder(dir string) (*recorder, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("--record: %w", err)
	}
	return &recorder{dir: dir, entries: map[string]manifestEntry{}}, nil
}

// tee returns a body that copies what is read into the recording; the
// file appears, and enters the manifest, only when the body was read to
// its end.
func (r *recorder) tee(rq *request, resp *response) (io.ReadCloser, error) {
	if err := checkName(rq.name); err != nil {
		return nil, err
	}
	path := filepath.Join(r.dir, filepath.FromSlash(rq.name))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("--record: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return nil, fmt.Errorf("--record: %w", err)
	}
	return &teeBody{r: r, rq: rq, body: resp.body, date: resp.date, tmp: tmp, path: path, h: sha256.New()}, nil
}

type teeBody struct {
	r    *recorder
	rq   *request
	body io.ReadCloser
	date string
	tmp  *os.File
	path string
	h    hash.Hash
	n    int64
	done bool // read to io.EOF
	err  error
}

func (t *teeBody) Read(p []byte) (int, error) {
	n, err := t.body.Read(p)
	if n > 0 && t.err == nil {
		if _, werr := t.tmp.Write(p[:n]); werr != nil {
			t.err = werr
		}
		t.h.Write(p[:n])
		t.n += int64(n)
	}
	if errors.Is(err, io.EOF) {
		t.done = true
	}
	return n, err
}

func (t *teeBody) Close() error {
	err := t.body.Close()
	cerr := t.tmp.Close()
	if !t.done || t.err != nil || cerr != nil {
		_ = os.Remove(t.tmp.Name())
		if t.err != nil {
			return fmt.Errorf("--record: %w", t.err)
		}
		return err
	}
	if rerr := os.Rename(t.tmp.Name(), t.path); rerr != nil {
		return fmt.Errorf("--record: %w", rerr)
	}
	t.r.mu.Lock()
	t.r.entries[t.rq.name] = manifestEntry{Name: t.rq.name, Method: t.rq.method, URL: t.rq.url, Date: t.date,
		Bytes: t.n, SHA256: hex.EncodeToString(t.h.Sum(nil))}
	t.r.mu.Unlock()
	return err
}

// finish writes manifest.json.
func (r *recorder) finish() error {
	m := manifest{Description: "Answers recorded by terraform-provider-gpu refresh --record; replay them with --replay. Files are the answers' bodies, unmodified."}
	for _, e := range r.entries {
		m.Responses = append(m.Responses, e)
	}
	sort.Slice(m.Responses, func(i, j int) bool { return m.Responses[i].Name < m.Responses[j].Name })
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return pricelist.WriteFileAtomic(filepath.Join(r.dir, manifestFile), append(data, '\n'))
}

// replayer answers requests from a recording.
type replayer struct {
	dir     string
	entries map[string]manifestEntry
}

// newReplayer reads the recording's manifest, a regular file of at most
// maxBytes (internal/safefile: a FIFO or a device is refused at once).
func newReplayer(dir string, maxBytes int64) (*replayer, error) {
	path := filepath.Join(dir, manifestFile)
	data, err := safefile.ReadFile(path, maxBytes)
	if err != nil {
		return nil, fmt.Errorf("--replay %s: %s: %w (a recording made with --record has one)", dir, path, err)
	}
	entries, err := parseManifest(data)
	if err != nil {
		return nil, fmt.Errorf("--replay %s: %s: %w", dir, manifestFile, err)
	}
	return &replayer{dir: dir, entries: entries}, nil
}

// parseManifest reads a manifest: its answers by name, each name safe
// (checkName) and given once.
func parseManifest(data []byte) (map[string]manifestEntry, error) {
	var m manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	entries := make(map[string]manifestEntry, len(m.Responses))
	for _, e := range m.Responses {
		if err := checkName(e.Name); err != nil {
			return nil, err
		}
		if _, dup := entries[e.Name]; dup {
			return nil, fmt.Errorf("refresh: %q is listed twice", e.Name)
		}
		entries[e.Name] = e
	}
	return entries, nil
}

// clouds lists the clouds the recording has answers of.
func (rp *replayer) clouds() []string {
	var out []string
	for _, c := range Clouds {
		for name := range rp.entries {
			if strings.HasPrefix(name, c+"/") {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

func (rp *replayer) open(rq *request) (*response, error) {
	e, ok := rp.entries[rq.name]
	if !ok {
		return nil, fmt.Errorf("--replay %s: the recording has no answer %s (recorded with other clouds, regions or a catalog of other instance types?)", rp.dir, rq.name)
	}
	path := filepath.Join(rp.dir, filepath.FromSlash(e.Name))
	// A regular file of at most the recorded size (internal/safefile): a
	// FIFO or a device put in a recording is refused at once.
	limit := rq.limit
	if limit <= 0 {
		limit = max(e.Bytes, 0) + 1 // one byte more: verifiedBody says the answer changed
	}
	f, err := safefile.Open(path, limit)
	if err != nil {
		return nil, fmt.Errorf("--replay: %s %w", path, err)
	}
	return &response{body: &verifiedBody{f: f, e: e, path: path, h: sha256.New()}, date: e.Date}, nil
}

// verifiedBody reads a recorded answer and fails at its end when it is not
// the answer the manifest recorded (changed or truncated).
type verifiedBody struct {
	f    io.ReadCloser
	e    manifestEntry
	path string
	h    hash.Hash
	n    int64
}

func (v *verifiedBody) Read(p []byte) (int, error) {
	n, err := v.f.Read(p)
	v.h.Write(p[:n])
	v.n += int64(n)
	if errors.Is(err, io.EOF) {
		if sum := hex.EncodeToString(v.h.Sum(nil)); v.n != v.e.Bytes || sum != v.e.SHA256 {
			return n, fmt.Errorf("%s: %d bytes with sha256 %.12s…, but %s recorded %d bytes with sha256 %.12s…: the recorded answer was changed or truncated",
				v.path, v.n, sum, manifestFile, v.e.Bytes, v.e.SHA256)
		}
	}
	return n, err
}

func (v *verifiedBody) Close() error { return v.f.Close() }
