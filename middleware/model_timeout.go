package middleware

import (
	"context"
	"errors"
	"fmt"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
)

// ModelTimeout bounds each model call to d: the model gets a context with a deadline d from
// now. When that deadline (and not the run's) ends the call, the error says so and wraps the
// model's, so errors.Is(err, context.DeadlineExceeded) holds and [ModelRetry] outside
// ModelTimeout retries it.
//
// The Model must honor its context, as *openai.Client does (the HTTP request is aborted).
// ModelTimeout panics if d is not positive.
func ModelTimeout(d time.Duration) agentkit.ModelMiddleware {
	if d <= 0 {
		panic(fmt.Sprintf("middleware.ModelTimeout: duration must be positive, got %s", d))
	}
	call := func(next agentkit.CallFunc) agentkit.CallFunc {
		return func(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
			cctx, cancel := context.WithTimeout(ctx, d)
			defer cancel()
			resp, err := next(cctx, req)
			return resp, timeoutError(ctx, cctx, d, err)
		}
	}
	// A streamed call's deadline covers the whole stream, until it ends or is closed.
	stream := func(next agentkit.StreamFunc) agentkit.StreamFunc {
		return func(ctx context.Context, req openai.ChatCompletionRequest) (agentkit.Stream, error) {
			cctx, cancel := context.WithTimeout(ctx, d)
			st, err := next(cctx, req)
			if err != nil {
				cancel()
				return nil, timeoutError(ctx, cctx, d, err)
			}
			wrap := func(err error) error { return timeoutError(ctx, cctx, d, err) }
			return &endStream{Stream: st, end: func(error, int) { cancel() }, wrap: wrap}, nil
		}
	}
	return modelMiddleware{call: call, stream: stream}
}

// timeoutError marks err as the timeout's when ModelTimeout's deadline, not the run's, ended
// the call.
func timeoutError(ctx, cctx context.Context, d time.Duration, err error) error {
	if err != nil && ctx.Err() == nil && errors.Is(cctx.Err(), context.DeadlineExceeded) {
		if !errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("%w: %w", context.DeadlineExceeded, err)
		}
		err = fmt.Errorf("middleware: model call timed out after %s: %w", d, err)
	}
	return err
}
