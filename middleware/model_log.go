package middleware

import (
	"context"
	"errors"
	"log/slog"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
)

// ModelLog writes one record per model call to logger, after the call, with message
// "model call": at Info on success, with the finish reason, the number of tool calls and the
// token usage; at Warn on failure, with the error and, for API failures, the HTTP status.
// Both carry the model, the number of messages and tools sent, and the duration. The
// messages themselves are not logged (agentkit's Options.Logger logs them at Debug). A nil
// logger logs nothing.
//
// Placed inside [ModelRetry] it logs each attempt; outside, each call with its retries.
func ModelLog(logger *slog.Logger) agentkit.ModelMiddleware {
	return func(next agentkit.Model) agentkit.Model {
		if logger == nil {
			return next
		}
		plain := agentkit.ModelFunc(func(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
			start := time.Now()
			resp, err := next.CreateChatCompletion(ctx, req)
			dur := time.Since(start)
			level := slog.LevelInfo
			if err != nil {
				level = slog.LevelWarn
			}
			if !logger.Enabled(ctx, level) {
				return resp, err
			}
			attrs := []slog.Attr{
				slog.String("model", req.Model),
				slog.Int("messages", len(req.Messages)),
				slog.Int("tools", len(req.Tools)),
				slog.Duration("duration", dur),
			}
			if err != nil {
				if code := statusCode(err); code != 0 {
					attrs = append(attrs, slog.Int("status", code))
				}
				attrs = append(attrs, slog.Any("error", err))
			} else {
				if len(resp.Choices) > 0 {
					attrs = append(attrs,
						slog.String("finish_reason", string(resp.Choices[0].FinishReason)),
						slog.Int("tool_calls", len(resp.Choices[0].Message.ToolCalls)))
				}
				attrs = append(attrs,
					slog.Int("prompt_tokens", resp.Usage.PromptTokens),
					slog.Int("completion_tokens", resp.Usage.CompletionTokens),
					slog.Int("total_tokens", resp.Usage.TotalTokens))
			}
			logger.LogAttrs(ctx, level, "model call", attrs...)
			return resp, err
		})
		// A streamed call is logged once, when its stream ends or is closed: "model stream",
		// with the number of chunks instead of the finish reason and usage.
		return withStream(next, plain, func(s agentkit.StreamingModel) StreamFunc {
			return func(ctx context.Context, req openai.ChatCompletionRequest) (agentkit.Stream, error) {
				start := time.Now()
				log := func(err error, chunks int) {
					level := slog.LevelInfo
					if err != nil {
						level = slog.LevelWarn
					}
					if !logger.Enabled(ctx, level) {
						return
					}
					attrs := []slog.Attr{slog.String("model", req.Model), slog.Int("messages", len(req.Messages)),
						slog.Int("tools", len(req.Tools)), slog.Duration("duration", time.Since(start)), slog.Int("chunks", chunks)}
					if err != nil {
						if code := statusCode(err); code != 0 {
							attrs = append(attrs, slog.Int("status", code))
						}
						attrs = append(attrs, slog.Any("error", err))
					}
					logger.LogAttrs(ctx, level, "model stream", attrs...)
				}
				st, err := s.CreateChatCompletionStream(ctx, req)
				if err != nil {
					log(err, 0)
					return nil, err
				}
				return &endStream{Stream: st, end: log}, nil
			}
		})
	}
}

// statusCode returns the HTTP status of a go-openai error, or 0.
func statusCode(err error) int {
	var api *openai.APIError
	if errors.As(err, &api) && api.HTTPStatusCode != 0 {
		return api.HTTPStatusCode
	}
	var re *openai.RequestError
	if errors.As(err, &re) {
		return re.HTTPStatusCode
	}
	return 0
}
