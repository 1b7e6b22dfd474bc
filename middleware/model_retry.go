package middleware

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
)

// ModelRetryOptions configures [ModelRetry]. The zero value makes at most 3 attempts, waiting
// about 1s then 2s (or what the server asks, up to a minute), and retries what
// [ModelRetryable] says.
type ModelRetryOptions struct {
	// MaxAttempts bounds the attempts of one model call, the first included. Zero means 3.
	MaxAttempts int
	// BaseDelay is the wait after the first failed attempt, doubled after each further one,
	// before jitter. Zero means 1s.
	BaseDelay time.Duration
	// MaxDelay caps the backoff between two attempts, before jitter. Zero means 30s.
	MaxDelay time.Duration
	// MaxRetryAfter is the longest server-requested wait (Retry-After) honored. A longer one
	// ends the retries at once with the error: the server said it will not serve us soon.
	// Zero means 60s.
	MaxRetryAfter time.Duration
	// Retryable decides whether an error is worth another attempt. Nil means
	// [ModelRetryable]. It is not asked once the call's context is done.
	Retryable func(err error) bool
	// OnRetry, when set, is called before each wait, with the attempt that failed (from 1),
	// its error and the wait: for logs and metrics.
	OnRetry func(ctx context.Context, attempt int, err error, wait time.Duration)
	// Rand returns a number in [0, 1) for the jitter. Nil means math/rand/v2.Float64.
	Rand func() float64
	// Sleep waits between attempts and returns early with ctx's error when ctx is done. Nil
	// means a timer that returns early when ctx is done. Tests inject a fake that records
	// the waits.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock used to read a Retry-After given as a date. Nil means time.Now.
	Now func() time.Time
}

// RetryAfterError is an optional interface for errors returned by a Model that know how long
// the server asked to wait; [ModelRetry] honors it like a Retry-After header.
type RetryAfterError interface {
	error
	RetryAfter() time.Duration
}

// ModelRetry retries failed model calls that may succeed if repeated, with exponential backoff
// and jitter (each wait random in [d/2, d), d doubling from BaseDelay up to MaxDelay), and
// honoring the server's Retry-After: the wait is then at least what the server asked.
//
// go-openai does not expose response headers on its errors: put [Transport] in the
// *openai.Client's HTTP client for Retry-After to be seen. Without it, or with another
// Model, ModelRetry uses its backoff alone (or the wait of an error implementing
// [RetryAfterError]).
//
// It stops at the first success, at an error that is not retryable, after MaxAttempts, when
// the server asks for a wait longer than MaxRetryAfter, or when the call's context is done
// (during a wait it returns at once). After several attempts the error says how many were
// made and wraps the last one: errors.As still finds the *openai.APIError. opts may be nil.
//
// Put [ModelTimeout] inside ModelRetry to bound each attempt (a timed-out attempt is retried),
// outside it to bound them all.
func ModelRetry(opts *ModelRetryOptions) agentkit.ModelMiddleware {
	var o ModelRetryOptions
	if opts != nil {
		o = *opts
	}
	b := newBackoff(o.MaxAttempts, o.BaseDelay, o.MaxDelay, o.Rand, o.Sleep, time.Second, 30*time.Second)
	if o.MaxRetryAfter <= 0 {
		o.MaxRetryAfter = time.Minute
	}
	if o.Retryable == nil {
		o.Retryable = ModelRetryable
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	r := &retrier{o: o, b: b}
	call := func(next agentkit.CallFunc) agentkit.CallFunc {
		return func(ctx context.Context, req openai.ChatCompletionRequest) (resp openai.ChatCompletionResponse, err error) {
			err = r.do(ctx, func(ctx context.Context) (err error) { resp, err = next(ctx, req); return err })
			return resp, err
		}
	}
	// The opening of a stream is retried (the request, and an error status before any
	// chunk). A stream that breaks after it began is not: its chunks were already delivered.
	stream := func(next agentkit.StreamFunc) agentkit.StreamFunc {
		return func(ctx context.Context, req openai.ChatCompletionRequest) (s agentkit.Stream, err error) {
			err = r.do(ctx, func(ctx context.Context) (err error) { s, err = next(ctx, req); return err })
			return s, err
		}
	}
	return modelMiddleware{call: call, stream: stream}
}

// retrier is the retry loop of ModelRetry, shared by plain and streaming calls.
type retrier struct {
	o ModelRetryOptions
	b backoff
}

// do runs attempt until it succeeds or must not be retried; each attempt gets a context
// carrying a fresh Retry-After holder.
func (r *retrier) do(ctx context.Context, attempt func(ctx context.Context) error) error {
	o, b := r.o, r.b
	for n := 1; ; n++ {
		actx, holder := withRetryAfterHolder(ctx)
		err := attempt(actx)
		if err == nil || ctx.Err() != nil || !o.Retryable(err) || n >= b.attempts {
			return attemptsError(n, err)
		}
		wait := b.delay(n)
		asked, ok := holder.wait(o.Now())
		var ra RetryAfterError
		if !ok && errors.As(err, &ra) {
			asked, ok = ra.RetryAfter(), true
		}
		if ok {
			if asked > o.MaxRetryAfter {
				return fmt.Errorf("middleware: model call not retried: the server asked to wait %s (over %s): %w", asked, o.MaxRetryAfter, err)
			}
			wait = max(wait, asked)
		}
		if o.OnRetry != nil {
			o.OnRetry(ctx, n, err, wait)
		}
		if serr := b.sleep(ctx, wait); serr != nil {
			return fmt.Errorf("middleware: model call: %w while waiting to retry after: %w", serr, err)
		}
	}
}

func attemptsError(n int, err error) error {
	if err == nil || n == 1 {
		return err
	}
	return fmt.Errorf("middleware: model call failed after %d attempts: %w", n, err)
}

// ModelRetryable is the default classifier of [ModelRetry]. It reports true for:
//
//   - HTTP 408, 429 and 5xx, from an *openai.APIError or *openai.RequestError;
//   - network errors: *url.Error (what *http.Client returns for a failed request: refused or
//     reset connections, DNS failures, …) except certificate verification failures, any
//     net.Error, and io.ErrUnexpectedEOF (a response body cut short);
//   - context.DeadlineExceeded when it reaches here, which is when an attempt's own
//     deadline ([ModelTimeout] inside ModelRetry) passed while the run's context is alive.
//
// Everything else is permanent: other 4xx (400 bad request, 401, 403, 404…), context
// cancellation, and errors go-openai returns before sending anything.
func ModelRetryable(err error) bool {
	if code := statusCode(err); code != 0 {
		return code == 408 || code == 429 || code >= 500
	}
	if errors.Is(err, context.Canceled) {
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, io.ErrUnexpectedEOF) {
		return true
	}
	var cert *tls.CertificateVerificationError
	if errors.As(err, &cert) {
		return false
	}
	var ue *url.Error
	var ne net.Error
	return errors.As(err, &ue) || errors.As(err, &ne)
}
