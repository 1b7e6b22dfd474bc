package middleware

import (
	"context"
	"errors"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// RetryAfterTransport returns an http.RoundTripper that sends requests with base (nil means
// http.DefaultTransport) and, for every error response (status 400 and above) carrying a
// Retry-After or retry-after-ms header, hands the header to the [ModelRetry] whose attempt
// made the request.
//
// It exists because go-openai does not expose response headers on its errors: an
// *openai.APIError for a 429 says "429" but not how long the server asked us to wait. With
// the transport in the client, ModelRetry honors the server's wait:
//
//	cfg := openai.DefaultConfig(apiKey)
//	cfg.HTTPClient = &http.Client{Transport: middleware.RetryAfterTransport(nil)}
//	client := openai.NewClientWithConfig(cfg)
//	agent := agentkit.New(client, &agentkit.Options{
//		ModelMiddleware: []agentkit.ModelMiddleware{middleware.ModelRetry(nil)},
//	})
//
// How it works: each attempt of ModelRetry puts a fresh holder in the context it passes to
// the model; go-openai builds its *http.Request with that context; the transport finds the
// holder in req.Context() and records the header there; ModelRetry reads it when the attempt
// fails. Requests whose context has no holder (not made under ModelRetry) are only passed
// to base. The transport never modifies requests or responses.
func RetryAfterTransport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &retryAfterTransport{base: base}
}

type retryAfterTransport struct{ base http.RoundTripper }

func (t *retryAfterTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err == nil && resp.StatusCode >= 400 {
		if h, ok := req.Context().Value(retryAfterKey{}).(*retryAfterHolder); ok {
			h.set(resp.Header.Get("Retry-After"), resp.Header.Get("Retry-After-Ms"))
		}
	}
	return resp, err
}

type retryAfterKey struct{}

// retryAfterHolder receives the Retry-After headers of one attempt's responses.
type retryAfterHolder struct {
	mu      sync.Mutex
	after   string // Retry-After: seconds or an HTTP date
	afterMs string // retry-after-ms (OpenAI, Azure): milliseconds
}

func (h *retryAfterHolder) set(after, afterMs string) {
	if after == "" && afterMs == "" {
		return
	}
	h.mu.Lock()
	h.after, h.afterMs = after, afterMs
	h.mu.Unlock()
}

// wait returns the wait the server asked for, and whether it asked.
func (h *retryAfterHolder) wait(now time.Time) (time.Duration, bool) {
	h.mu.Lock()
	after, afterMs := h.after, h.afterMs
	h.mu.Unlock()
	return parseRetryAfter(after, afterMs, now)
}

// parseRetryAfter reads retry-after-ms, the more precise, then Retry-After as seconds
// (integer or decimal) or as an HTTP date (RFC 9110 §10.2.3). A date in the past is a wait of
// 0; a wait too long for a time.Duration is the longest Duration (so MaxRetryAfter refuses
// it, as it refuses any long wait); a value that is none of these is ignored.
func parseRetryAfter(after, afterMs string, now time.Time) (time.Duration, bool) {
	if d, ok := parseWait(afterMs, time.Millisecond); ok {
		return d, true
	}
	after = strings.TrimSpace(after)
	if after == "" {
		return 0, false
	}
	if d, ok := parseWait(after, time.Second); ok {
		return d, true
	}
	if t, err := http.ParseTime(after); err == nil {
		return max(0, t.Sub(now)), true
	}
	return 0, false
}

// parseWait reads a non-negative decimal number of units, saturating at the longest
// Duration (a number too large for a float64 included).
func parseWait(s string, unit time.Duration) (time.Duration, bool) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if (err != nil && !errors.Is(err, strconv.ErrRange)) || !(v >= 0) { // !(v >= 0): NaN too
		return 0, false
	}
	if v >= float64(math.MaxInt64/int64(unit)) {
		return math.MaxInt64, true
	}
	return time.Duration(v * float64(unit)), true
}

// withRetryAfterHolder returns a context carrying a fresh holder, and the holder.
func withRetryAfterHolder(ctx context.Context) (context.Context, *retryAfterHolder) {
	h := &retryAfterHolder{}
	return context.WithValue(ctx, retryAfterKey{}, h), h
}
