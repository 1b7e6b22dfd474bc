package middleware

import (
	"context"
	"math/rand/v2"
	"time"
)

// backoff is the retry schedule shared by Retry and ModelRetry: exponential with "equal
// jitter" — attempt n waits a random duration in [d/2, d), d = base·2^(n-1) capped at max.
// Half the delay is fixed so a retry never fires immediately; the random half spreads out
// clients that failed together, so they do not come back in lockstep.
type backoff struct {
	attempts  int
	base, max time.Duration
	rand      func() float64
	sleep     func(ctx context.Context, d time.Duration) error
}

func newBackoff(attempts int, base, maxDelay time.Duration, rnd func() float64, wait func(context.Context, time.Duration) error, defBase, defMax time.Duration) backoff {
	b := backoff{attempts: attempts, base: base, max: maxDelay, rand: rnd, sleep: wait}
	if b.attempts <= 0 {
		b.attempts = 3
	}
	if b.base <= 0 {
		b.base = defBase
	}
	if b.max <= 0 {
		b.max = defMax
	}
	b.max = max(b.max, b.base)
	if b.rand == nil {
		b.rand = rand.Float64 // goroutine-safe, and not ours: no state in this package
	}
	if b.sleep == nil {
		b.sleep = sleep
	}
	return b
}

// delay returns the wait after failed attempt n (from 1).
func (b backoff) delay(n int) time.Duration {
	d := b.base
	for i := 1; i < n && d < b.max; i++ {
		d *= 2
	}
	d = min(d, b.max)
	half := d / 2
	return half + time.Duration(b.rand()*float64(d-half))
}

// sleep waits for d or until ctx is done, whichever comes first, and returns ctx.Err() in the
// second case: the default wait of Retry and ModelRetry (RetryOptions.Sleep and
// ModelRetryOptions.Sleep nil).
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
