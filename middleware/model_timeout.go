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
	return func(next agentkit.Model) agentkit.Model {
		return agentkit.ModelFunc(func(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
			cctx, cancel := context.WithTimeout(ctx, d)
			defer cancel()
			resp, err := next.CreateChatCompletion(cctx, req)
			if err != nil && ctx.Err() == nil && errors.Is(cctx.Err(), context.DeadlineExceeded) {
				if !errors.Is(err, context.DeadlineExceeded) {
					err = fmt.Errorf("%w: %w", context.DeadlineExceeded, err)
				}
				err = fmt.Errorf("middleware: model call timed out after %s: %w", d, err)
			}
			return resp, err
		})
	}
}
