package retryafter

import (
	"math"
	"testing"
	"time"
)

// TestParseRetryAfter: the longer a server asks us to wait, the longer the wait read, up to
// the longest Duration: a huge Retry-After is never read as absent (issue 14 #6), so
// middleware.ModelRetry's MaxRetryAfter ends the retries instead of retrying at once.
func TestParse(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	const longest = time.Duration(math.MaxInt64)
	tests := []struct {
		name          string
		after, ms     string
		want          time.Duration
		wantAskedWait bool
	}{
		{"seconds", "2", "", 2 * time.Second, true},
		{"decimal seconds", " 1.5 ", "", 1500 * time.Millisecond, true},
		{"ms first", "9", "2500", 2500 * time.Millisecond, true},
		{"61 s", "61", "", 61 * time.Second, true},
		{"just under 1e9 s", "999999999", "", 999999999 * time.Second, true},
		{"1e9 s", "1000000000", "", 1e9 * time.Second, true},
		{"1e10 s", "1e10", "", longest, true},
		{"too large for a float64", "1e400", "", longest, true},
		{"1e12 ms", "", "1000000000000", 1e12 * time.Millisecond, true},
		{"1e15 ms", "", "1e15", longest, true},
		{"date", "Wed, 01 Jan 2025 00:01:00 GMT", "", time.Minute, true},
		{"date in the past", "Tue, 31 Dec 2024 00:00:00 GMT", "", 0, true},
		{"negative", "-1", "", 0, false},
		{"NaN", "NaN", "NaN", 0, false},
		{"garbage", "soon", "later", 0, false},
		{"absent", "", "", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Parse(tt.after, tt.ms, now)
			if got != tt.want || ok != tt.wantAskedWait {
				t.Errorf("Parse(%q, %q) = %s, %v; want %s, %v", tt.after, tt.ms, got, ok, tt.want, tt.wantAskedWait)
			}
		})
	}
}
