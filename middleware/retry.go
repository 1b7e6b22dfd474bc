package middleware

import (
	"context"
	"strconv"
	"time"

	"github.com/toolcall/toolcall/tool"
)

// RetryOptions configures [Retry]. The zero value retries failures the tool marked
// [Transient], at most 3 attempts in all, waiting about 100ms then 200ms.
type RetryOptions struct {
	// MaxAttempts bounds the attempts of one call, the first included. Zero means 3.
	MaxAttempts int
	// BaseDelay is the wait after the first failed attempt, doubled after each further one,
	// before jitter. Zero means 100ms.
	BaseDelay time.Duration
	// MaxDelay caps the wait between two attempts, before jitter. Zero means 2s.
	MaxDelay time.Duration
	// Retryable decides whether a failed result is worth another attempt. Nil means: the
	// tool's error is marked [Transient] (errors.Is(res.Err, ErrTransient)). It is asked only
	// about tool_error and timeout results (and kinds unknown to package tool): invalid
	// arguments, unknown tools, denials, panics, cancellations, loop refusals and fatal errors
	// are never retried, whatever it says.
	Retryable func(call tool.Call, res tool.Result) bool
	// Rand returns a number in [0, 1) for the jitter. Nil means math/rand/v2.Float64.
	Rand func() float64
	// Sleep waits between attempts and returns early with ctx's error when ctx is done. Nil
	// means a timer that returns early when ctx is done. Tests inject a fake that records
	// the waits.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Retry repeats a call whose failure is transient, with exponential backoff and jitter (each
// wait is random in [d/2, d), d doubling from BaseDelay up to MaxDelay). It stops at the first
// success, at a permanent failure, after MaxAttempts, or when the call's context is done;
// the model then reads the last result, followed, when every attempt failed, by how many
// attempts were made. opts may be nil.
//
// A call that waits for a decision (tool.KindPending) is never repeated: it did not run.
//
// Retry repeats the rest of the chain: put [Timeout] inside it to bound each attempt, outside
// it to bound them all. Only a tool whose calls are idempotent should mark errors transient.
func Retry(opts *RetryOptions) tool.Middleware {
	var o RetryOptions
	if opts != nil {
		o = *opts
	}
	b := newBackoff(o.MaxAttempts, o.BaseDelay, o.MaxDelay, o.Rand, o.Sleep, 100*time.Millisecond, 2*time.Second)
	retryable := o.Retryable
	if retryable == nil {
		retryable = func(_ tool.Call, res tool.Result) bool { return IsTransient(res.Err) }
	}
	return func(next tool.Handler) tool.Handler {
		return func(ctx context.Context, call tool.Call) tool.Result {
			for n := 1; ; n++ {
				res := next(ctx, call)
				if !res.Failed() || permanent(res) || !retryable(call, res) {
					return res
				}
				if n >= b.attempts || ctx.Err() != nil || b.sleep(ctx, b.delay(n)) != nil {
					if n > 1 {
						res.Content += "\n(" + strconv.Itoa(n) + " attempts made; all failed.)"
					}
					return res
				}
			}
		}
	}
}

// permanent reports whether a failure cannot be cured by repeating the same call.
func permanent(res tool.Result) bool {
	switch res.Kind {
	case tool.KindInvalidJSON, tool.KindInvalidArguments, tool.KindUnknownTool, tool.KindDenied,
		tool.KindPanic, tool.KindCanceled, tool.KindLoop, tool.KindNotExecuted, tool.KindPending:
		return true
	}
	return tool.IsFatal(res.Err)
}
