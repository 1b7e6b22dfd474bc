package wiretest

import (
	"bytes"
	"io"
	"net/http"
	"sync"
)

// Exchange is one request sent through a [Capture] and what came back.
type Exchange struct {
	Method string
	// Path is the request's URL path, e.g. /v1/chat/completions.
	Path string
	// Body is the request body as sent.
	Body []byte
	// Status is the response's status code; 0 when the round trip failed.
	Status int
	// Header is the response's header; nil when the round trip failed.
	Header http.Header
	// Err is the round trip's error.
	Err error
}

// Capture is an http.RoundTripper that sends requests with Base (nil means
// http.DefaultTransport) and records each one. The zero value is ready to use. It is safe for
// concurrent use.
type Capture struct {
	Base http.RoundTripper

	mu  sync.Mutex
	log []Exchange
}

// RoundTrip reads the request body, records it, and sends the request with an identical body.
func (c *Capture) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
		// A RoundTripper must not modify the request: send a copy with a fresh body.
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	base := c.Base
	if base == nil {
		base = http.DefaultTransport
	}
	resp, err := base.RoundTrip(req)
	ex := Exchange{Method: req.Method, Path: req.URL.Path, Body: body, Err: err}
	if err == nil {
		ex.Status, ex.Header = resp.StatusCode, resp.Header.Clone()
	}
	c.mu.Lock()
	c.log = append(c.log, ex)
	c.mu.Unlock()
	return resp, err
}

// Exchanges returns what was sent so far, in the order the round trips ended.
func (c *Capture) Exchanges() []Exchange {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Exchange(nil), c.log...)
}
