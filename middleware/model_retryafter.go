package middleware

import (
	"context"
	"sync"
	"time"

	"github.com/toolcall/toolcall/internal/retryafter"
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
	return retryafter.Parse(after, afterMs, now)
}

// withRetryAfterHolder returns a context carrying a fresh holder, and the holder.
func withRetryAfterHolder(ctx context.Context) (context.Context, *retryAfterHolder) {
	h := &retryAfterHolder{}
	return context.WithValue(ctx, retryAfterKey{}, h), h
}
