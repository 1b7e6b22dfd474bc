// Package retryafter reads the wait a server asks for in its Retry-After and retry-after-ms
// headers, for middleware.ModelRetry and openaichat.
package retryafter

import (
	"errors"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Parse reads retry-after-ms (afterMs), the more precise, then Retry-After (after) as seconds
// (integer or decimal) or as an HTTP date (RFC 9110 §10.2.3), and reports whether the server
// asked for a wait. A date in the past is a wait of 0; a wait too long for a time.Duration is
// the longest Duration (so that a bound on the wait refuses it, as it refuses any long wait);
// a value that is none of these is ignored.
func Parse(after, afterMs string, now time.Time) (time.Duration, bool) {
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
