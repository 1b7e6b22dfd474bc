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
	if logger == nil {
		return agentkit.CallMiddlewareFunc(func(next agentkit.CallFunc) agentkit.CallFunc { return next })
	}
	call := func(next agentkit.CallFunc) agentkit.CallFunc {
		return func(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
			start := time.Now()
			resp, err := next(ctx, req)
			var attrs []slog.Attr
			if err == nil {
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
			logModelCall(ctx, logger, "model call", req, time.Since(start), err, attrs...)
			return resp, err
		}
	}
	// A streamed call is logged once, when its stream ends or is closed: "model stream",
	// with the number of chunks instead of the finish reason and usage.
	stream := func(next agentkit.StreamFunc) agentkit.StreamFunc {
		return func(ctx context.Context, req openai.ChatCompletionRequest) (agentkit.Stream, error) {
			start := time.Now()
			log := func(err error, chunks int) {
				logModelCall(ctx, logger, "model stream", req, time.Since(start), err, slog.Int("chunks", chunks))
			}
			st, err := next(ctx, req)
			if err != nil {
				log(err, 0)
				return nil, err
			}
			return &endStream{Stream: st, end: log}, nil
		}
	}
	return modelMiddleware{call: call, stream: stream}
}

// logModelCall writes the record of one model call: at Info, or at Warn with the error (and
// its HTTP status) when err is not nil; attrs follow the attributes every record has.
func logModelCall(ctx context.Context, logger *slog.Logger, msg string, req openai.ChatCompletionRequest, dur time.Duration, err error, attrs ...slog.Attr) {
	level := slog.LevelInfo
	if err != nil {
		level = slog.LevelWarn
	}
	if !logger.Enabled(ctx, level) {
		return
	}
	all := []slog.Attr{
		slog.String("model", req.Model),
		slog.Int("messages", len(req.Messages)),
		slog.Int("tools", len(req.Tools)),
		slog.Duration("duration", dur),
	}
	if err != nil {
		if code := statusCode(err); code != 0 {
			all = append(all, slog.Int("status", code))
		}
		all = append(all, slog.Any("error", err))
	}
	logger.LogAttrs(ctx, level, msg, append(all, attrs...)...)
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
