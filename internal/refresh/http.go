// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package refresh

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gpuplan/terraform-provider-gpu/internal/catalog/pricelist"
)

// request is one call to a price API.
type request struct {
	// name is the response's name in a recording (aws/us-east-1.json,
	// azure/<sku>/page-0002.json, …) and in messages.
	name   string
	method string
	url    string
	body   []byte
	// header carries credentials and content type: never recorded.
	header http.Header
	// limit caps the body (refresh.json).
	limit int64
}

// response is an open answer: its body stream and the date the server
// gave it (YYYY-MM-DD, from the Date header; "" when absent).
type response struct {
	body io.ReadCloser
	date string
}

// transportError is a download that failed on the way (a broken
// connection, a body shorter than announced, a stall, an HTTP error
// status): the request may be retried. It does not unwrap to io.EOF or
// io.ErrUnexpectedEOF, so a parser reports it as it is.
type transportError struct {
	name string
	msg  string
	// status is the HTTP status (0 for a network error).
	status int
	// retryAfter is the server's Retry-After (0 = none).
	retryAfter time.Duration
	retryable  bool
}

func (e *transportError) Error() string { return e.name + ": " + e.msg }

// newClient builds the HTTP client of the policy: timeouts on connecting,
// the TLS handshake and the response headers; proxies from the
// environment; credentials dropped on a redirect to another host, and no
// redirect from https to http.
func newClient(p *pricelist.Policy) *http.Client {
	tr := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: p.ConnectTimeout, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout:   p.TLSHandshakeTimeout,
		ResponseHeaderTimeout: p.ResponseHeaderTimeout,
		ForceAttemptHTTP2:     true,
		MaxIdleConnsPerHost:   2,
	}
	return &http.Client{Transport: tr, CheckRedirect: checkRedirect}
}

// maxRedirects bounds a redirect chain, as net/http's default policy.
const maxRedirects = 10

func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return errors.New("too many redirects")
	}
	if via[0].URL.Scheme == "https" && req.URL.Scheme != "https" {
		return fmt.Errorf("refusing a redirect from https to %s", req.URL.Scheme)
	}
	if req.URL.Host != via[0].URL.Host {
		for _, h := range credentialHeaders {
			req.Header.Del(h)
		}
	}
	return nil
}

// credentialHeaders are the headers that carry API keys.
var credentialHeaders = []string{"Authorization", "X-Goog-Api-Key"}

// do sends a request and returns its open answer, retrying 429 and 5xx
// answers and network errors with exponential backoff, honouring
// Retry-After up to the policy's maximum.
func (f *fetcher) do(ctx context.Context, rq *request) (*response, error) {
	var last *transportError
	for attempt := 1; ; attempt++ {
		resp, err := f.once(ctx, rq)
		if err == nil {
			return resp, nil
		}
		var te *transportError
		if !errors.As(err, &te) || !te.retryable {
			return nil, err
		}
		last = te
		if attempt >= f.policy.MaxAttempts {
			return nil, fmt.Errorf("%w (gave up after %d attempts, max_attempts in refresh.json)", last, attempt)
		}
		if err := f.wait(ctx, rq.name, attempt, te.retryAfter); err != nil {
			return nil, err
		}
	}
}

// wait sleeps before retry number attempt: the larger of the backoff and
// the server's Retry-After.
func (f *fetcher) wait(ctx context.Context, name string, attempt int, retryAfter time.Duration) error {
	if retryAfter > f.policy.RetryAfterMax {
		return fmt.Errorf("%s: the server asks to retry after %s, longer than retry_after_max_seconds (%s): try again later",
			name, retryAfter, f.policy.RetryAfterMax)
	}
	d := f.policy.BackoffInitial << (attempt - 1)
	if d > f.policy.BackoffMax || d <= 0 {
		d = f.policy.BackoffMax
	}
	d = max(d, retryAfter)
	f.logf("%s: retrying in %s", name, d)
	return f.sleep(ctx, d)
}

// once sends the request one time.
func (f *fetcher) once(ctx context.Context, rq *request) (*response, error) {
	ctx, cancel := context.WithCancel(ctx)
	req, err := http.NewRequestWithContext(ctx, rq.method, rq.url, bytes.NewReader(rq.body))
	if err != nil {
		cancel()
		return nil, fmt.Errorf("%s: %w", rq.name, err)
	}
	for k, vs := range rq.header {
		req.Header[k] = vs
	}
	req.Header.Set("User-Agent", userAgent)
	resp, err := f.client.Do(req)
	if err != nil {
		cancel()
		if ctx.Err() != nil && errors.Is(err, context.Canceled) {
			return nil, err
		}
		return nil, &transportError{name: rq.name, msg: "request failed: " + redact(err.Error(), rq), retryable: true}
	}
	if resp.StatusCode != http.StatusOK {
		defer cancel()
		return nil, statusError(rq, resp)
	}
	if resp.ContentLength > rq.limit {
		resp.Body.Close()
		cancel()
		return nil, fmt.Errorf("%s: the server announces %d bytes, more than the cap of %d (refresh.json)", rq.name, resp.ContentLength, rq.limit)
	}
	body := newWatchedBody(rq.name, resp.Body, resp.ContentLength, f.policy.StallTimeout, cancel)
	return &response{body: body, date: httpDate(resp.Header.Get("Date"))}, nil
}

// userAgent names the tool to the price APIs.
const userAgent = "terraform-provider-gpu-refresh (+https://registry.terraform.io/providers/gpuplan/gpu)"

// statusError describes a non-200 answer; 429 and 5xx may be retried.
func statusError(rq *request, resp *http.Response) error {
	snippet, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
	resp.Body.Close()
	te := &transportError{name: rq.name, status: resp.StatusCode,
		msg:       fmt.Sprintf("HTTP %s: %s", resp.Status, clip(string(snippet))),
		retryable: resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500}
	te.retryAfter = retryAfter(resp.Header.Get("Retry-After"), time.Now())
	switch resp.StatusCode {
	case http.StatusUnauthorized, http.StatusForbidden:
		te.msg += " (is the API key right?)"
	}
	return te
}

// retryAfter parses a Retry-After header: delay-seconds or an HTTP date
// (RFC 9110 section 10.2.3); 0 when absent or unreadable.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil && s >= 0 {
		return time.Duration(min(s, int64(24*time.Hour/time.Second))) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return min(t.Sub(now).Round(time.Second), 24*time.Hour) // a day at most, like delay-seconds
	}
	return 0
}

// httpDate returns the YYYY-MM-DD of an HTTP Date header, "" when absent.
func httpDate(v string) string {
	t, err := http.ParseTime(v)
	if err != nil {
		return ""
	}
	return t.UTC().Format(time.DateOnly)
}

// redact removes the request's credentials from a message (a URL in a
// net/http error): keys travel in headers, so this is a second guard.
func redact(msg string, rq *request) string {
	for _, h := range credentialHeaders {
		if v := rq.header.Get(h); v != "" {
			msg = strings.ReplaceAll(msg, strings.TrimPrefix(v, "Bearer "), "REDACTED")
		}
	}
	return msg
}

// clip shortens a server's text for a message, escaping control
// characters.
func clip(s string) string {
	const n = 200
	var b strings.Builder
	for _, r := range strings.TrimSpace(s) {
		q := strconv.QuoteRune(r)
		if b.Len()+len(q)-2 > n {
			b.WriteString("…")
			break
		}
		b.WriteString(q[1 : len(q)-1])
	}
	return b.String()
}

// watchedBody is a response body that fails when no byte arrives for the
// stall timeout and that reports a body shorter than announced, each as a
// retryable transportError.
type watchedBody struct {
	name    string
	rc      io.ReadCloser
	want    int64 // Content-Length, -1 when not announced
	n       int64
	timer   *time.Timer
	stall   time.Duration
	stalled atomic.Bool
	cancel  context.CancelFunc
}

func newWatchedBody(name string, rc io.ReadCloser, want int64, stall time.Duration, cancel context.CancelFunc) *watchedBody {
	b := &watchedBody{name: name, rc: rc, want: want, stall: stall, cancel: cancel}
	b.timer = time.AfterFunc(stall, func() {
		b.stalled.Store(true)
		cancel()
	})
	return b
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	b.n += int64(n)
	b.timer.Reset(b.stall)
	switch {
	case err == nil || (errors.Is(err, io.EOF) && (b.want < 0 || b.n == b.want)):
		return n, err
	case b.stalled.Load():
		err = &transportError{name: b.name, retryable: true,
			msg: fmt.Sprintf("no data for %s after %d bytes (stall_timeout_seconds in refresh.json)", b.stall, b.n)}
	default:
		of := ""
		if b.want >= 0 {
			of = fmt.Sprintf(" of %d", b.want)
		}
		err = &transportError{name: b.name, retryable: true,
			msg: fmt.Sprintf("the download broke off after %d%s bytes (truncated download): %v", b.n, of, err)}
	}
	return n, err
}

func (b *watchedBody) Close() error {
	b.timer.Stop()
	b.cancel()
	return b.rc.Close()
}

// readAll reads an answer whole, within the request's cap, retrying the
// request when the body breaks off; it returns the bytes and the date.
func (f *fetcher) readAll(ctx context.Context, rq *request) ([]byte, string, error) {
	for attempt := 1; ; attempt++ {
		resp, err := f.open(ctx, rq)
		if err != nil {
			return nil, "", err
		}
		data, err := io.ReadAll(newCapReader(resp.body, rq.limit, rq.name))
		resp.body.Close()
		if err == nil {
			return data, resp.date, nil
		}
		var te *transportError
		if !errors.As(err, &te) || !te.retryable || f.replay != nil {
			return nil, "", err
		}
		if attempt >= f.policy.MaxAttempts {
			return nil, "", fmt.Errorf("%w (gave up after %d attempts, max_attempts in refresh.json)", err, attempt)
		}
		if err := f.wait(ctx, rq.name, attempt, 0); err != nil {
			return nil, "", err
		}
	}
}

// capReader fails a body longer than its cap.
type capReader struct {
	r     io.Reader
	left  int64
	limit int64
	name  string
}

func newCapReader(r io.Reader, limit int64, name string) *capReader {
	return &capReader{r: r, left: limit, limit: limit, name: name}
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		var one [1]byte
		if n, _ := c.r.Read(one[:]); n > 0 {
			return 0, fmt.Errorf("%s: larger than the cap of %d bytes (refresh.json)", c.name, c.limit)
		}
		return 0, io.EOF
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}
