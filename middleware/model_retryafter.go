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
