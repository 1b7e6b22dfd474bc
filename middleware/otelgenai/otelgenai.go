package otelgenai

import (
	"context"
	"errors"
	"io"
	"sync"

	openai "github.com/sashabaranov/go-openai"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/tool"
)

// OpenTelemetry GenAI semantic-convention attribute names. They are defined here rather than
// imported: the GenAI conventions moved out of the main semconv package after v1.41.0, and
// this package imports only the OTel API.
const (
	attrOperationName     = "gen_ai.operation.name"
	attrProviderName      = "gen_ai.provider.name"
	attrAgentName         = "gen_ai.agent.name"
	attrRequestModel      = "gen_ai.request.model"
	attrRequestTemp       = "gen_ai.request.temperature"
	attrResponseModel     = "gen_ai.response.model"
	attrResponseID        = "gen_ai.response.id"
	attrFinishReasons     = "gen_ai.response.finish_reasons"
	attrUsageInputTokens  = "gen_ai.usage.input_tokens"
	attrUsageOutputTokens = "gen_ai.usage.output_tokens"
	attrToolName          = "gen_ai.tool.name"
	attrToolCallID        = "gen_ai.tool.call.id"
	attrToolType          = "gen_ai.tool.type"
	attrErrorType         = "error.type"
)

// Options configures [New]. The zero value traces nothing (a no-op provider).
type Options struct {
	// TracerProvider creates the tracer. Nil means a no-op provider: the SDK never reaches
	// for OpenTelemetry's global provider on its own; pass otel.GetTracerProvider() for that.
	TracerProvider trace.TracerProvider
	// AgentName is gen_ai.agent.name and the suffix of the run span's name. Empty: none.
	AgentName string
	// ProviderName is gen_ai.provider.name, e.g. "openai", "deepseek". Empty: not set.
	ProviderName string
}

// Tracing emits OpenTelemetry spans that follow the GenAI semantic conventions:
// "invoke_agent {agent}" for a run, "chat {model}" for each model call and
// "execute_tool {name}" for each tool call, the last two children of the first. Install its
// three parts together:
//
//	tr := otelgenai.New(&otelgenai.Options{TracerProvider: tp, ProviderName: "openai"})
//	agentkit.New(model, &agentkit.Options{
//		RunMiddleware:   []agentkit.RunMiddleware{tr.Run()},
//		ModelMiddleware: []agentkit.ModelMiddleware{tr.Model()},
//		Middleware:      []tool.Middleware{tr.Tool()},
//	})
type Tracing struct {
	tracer trace.Tracer
	opts   Options
}

// New returns a Tracing. A nil opts is the zero Options.
func New(opts *Options) *Tracing {
	var o Options
	if opts != nil {
		o = *opts
	}
	tp := o.TracerProvider
	if tp == nil {
		tp = noop.NewTracerProvider()
	}
	return &Tracing{tracer: tp.Tracer("github.com/toolcall/toolcall"), opts: o}
}

func (t *Tracing) common() []attribute.KeyValue {
	var kv []attribute.KeyValue
	if t.opts.ProviderName != "" {
		kv = append(kv, attribute.String(attrProviderName, t.opts.ProviderName))
	}
	return kv
}

// Run returns the run middleware that opens the invoke_agent span; the model and tool spans
// of the run are its children.
func (t *Tracing) Run() agentkit.RunMiddleware {
	return func(next agentkit.RunFunc) agentkit.RunFunc {
		return func(ctx context.Context) (*agentkit.Result, error) {
			name := "invoke_agent"
			attrs := append(t.common(), attribute.String(attrOperationName, "invoke_agent"))
			if t.opts.AgentName != "" {
				name += " " + t.opts.AgentName
				attrs = append(attrs, attribute.String(attrAgentName, t.opts.AgentName))
			}
			ctx, span := t.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
			defer span.End()
			res, err := next(ctx)
			if res != nil {
				span.SetAttributes(attribute.Int(attrUsageInputTokens, res.Usage.PromptTokens), attribute.Int(attrUsageOutputTokens, res.Usage.CompletionTokens),
					attribute.String("toolcall.stop_reason", string(res.Stop)), attribute.Int("toolcall.iterations", res.Iterations))
			}
			if err != nil {
				span.SetAttributes(attribute.String(attrErrorType, errorType(err)))
				span.SetStatus(codes.Error, err.Error())
			}
			return res, err
		}
	}
}

// Model returns the model middleware that opens a chat span per model call. When the wrapped
// model can stream (agentkit.StreamingModel), so can the returned one; a streamed call's span
// ends with its stream.
func (t *Tracing) Model() agentkit.ModelMiddleware {
	call := func(next agentkit.CallFunc) agentkit.CallFunc {
		return tracedModel{t: t, next: next}.call
	}
	stream := func(next agentkit.StreamFunc) agentkit.StreamFunc {
		return tracedModel{t: t, stream: next}.openStream
	}
	return modelMiddleware{call: call, stream: stream}
}

// modelMiddleware is an agentkit.ModelMiddleware made of its two functions.
type modelMiddleware struct {
	call   func(next agentkit.CallFunc) agentkit.CallFunc
	stream func(next agentkit.StreamFunc) agentkit.StreamFunc
}

func (m modelMiddleware) WrapCall(next agentkit.CallFunc) agentkit.CallFunc { return m.call(next) }
func (m modelMiddleware) WrapStream(next agentkit.StreamFunc) agentkit.StreamFunc {
	return m.stream(next)
}

type tracedModel struct {
	t      *Tracing
	next   agentkit.CallFunc
	stream agentkit.StreamFunc
}

func (m tracedModel) start(ctx context.Context, req openai.ChatCompletionRequest) (context.Context, trace.Span) {
	attrs := append(m.t.common(), attribute.String(attrOperationName, "chat"), attribute.String(attrRequestModel, req.Model))
	if req.Temperature != 0 {
		attrs = append(attrs, attribute.Float64(attrRequestTemp, float64(req.Temperature)))
	}
	return m.t.tracer.Start(ctx, "chat "+req.Model, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
}

func (m tracedModel) call(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
	ctx, span := m.start(ctx, req)
	defer span.End()
	resp, err := m.next(ctx, req)
	if err != nil {
		span.SetAttributes(attribute.String(attrErrorType, errorType(err)))
		span.SetStatus(codes.Error, err.Error())
		return resp, err
	}
	reasons := make([]string, 0, len(resp.Choices))
	for _, c := range resp.Choices {
		reasons = append(reasons, string(c.FinishReason))
	}
	span.SetAttributes(attribute.String(attrResponseModel, resp.Model), attribute.String(attrResponseID, resp.ID),
		attribute.StringSlice(attrFinishReasons, reasons),
		attribute.Int(attrUsageInputTokens, resp.Usage.PromptTokens), attribute.Int(attrUsageOutputTokens, resp.Usage.CompletionTokens))
	return resp, nil
}

func (m tracedModel) openStream(ctx context.Context, req openai.ChatCompletionRequest) (agentkit.Stream, error) {
	ctx, span := m.start(ctx, req)
	s, err := m.stream(ctx, req)
	if err != nil {
		span.SetAttributes(attribute.String(attrErrorType, errorType(err)))
		span.SetStatus(codes.Error, err.Error())
		span.End()
		return nil, err
	}
	return &tracedStream{Stream: s, span: span}, nil
}

// tracedStream ends its span at the end of the stream or when it is closed.
type tracedStream struct {
	agentkit.Stream
	span   trace.Span
	once   sync.Once
	finish []string
}

func (s *tracedStream) Recv() (openai.ChatCompletionStreamResponse, error) {
	c, err := s.Stream.Recv()
	switch {
	case errors.Is(err, io.EOF):
		s.end(nil)
	case err != nil:
		s.end(err)
	default:
		if c.Usage != nil {
			s.span.SetAttributes(attribute.Int(attrUsageInputTokens, c.Usage.PromptTokens), attribute.Int(attrUsageOutputTokens, c.Usage.CompletionTokens))
		}
		for _, ch := range c.Choices {
			if ch.FinishReason != "" {
				s.finish = append(s.finish[:0], string(ch.FinishReason))
			}
		}
		if c.Model != "" || c.ID != "" {
			s.span.SetAttributes(attribute.String(attrResponseModel, c.Model), attribute.String(attrResponseID, c.ID))
		}
	}
	return c, err
}

func (s *tracedStream) Close() error {
	s.end(nil)
	return s.Stream.Close()
}

func (s *tracedStream) end(err error) {
	s.once.Do(func() {
		if len(s.finish) > 0 {
			s.span.SetAttributes(attribute.StringSlice(attrFinishReasons, s.finish))
		}
		if err != nil {
			s.span.SetAttributes(attribute.String(attrErrorType, errorType(err)))
			s.span.SetStatus(codes.Error, err.Error())
		}
		s.span.End()
	})
}

// Tool returns the tool middleware that opens an execute_tool span per call. A failed call
// sets error.type to its kind (invalid_arguments, timeout, …) and the span status to Error.
func (t *Tracing) Tool() tool.Middleware {
	return func(next tool.Handler) tool.Handler {
		return func(ctx context.Context, call tool.Call) tool.Result {
			attrs := append(t.common(), attribute.String(attrOperationName, "execute_tool"), attribute.String(attrToolName, call.Name),
				attribute.String(attrToolCallID, call.ID), attribute.String(attrToolType, "function"))
			ctx, span := t.tracer.Start(ctx, "execute_tool "+call.Name, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
			defer span.End()
			res := next(ctx, call)
			if res.Failed() {
				span.SetAttributes(attribute.String(attrErrorType, string(res.Kind)))
				msg := string(res.Kind)
				if res.Err != nil {
					msg = res.Err.Error()
				}
				span.SetStatus(codes.Error, msg)
			}
			return res
		}
	}
}

// errorType is error.type for a model or run error: the HTTP status for API errors, the
// context's error, or "_OTHER" as the conventions say.
func errorType(err error) string {
	var api *openai.APIError
	var req *openai.RequestError
	switch {
	case errors.As(err, &api):
		return httpStatus(api.HTTPStatusCode)
	case errors.As(err, &req):
		return httpStatus(req.HTTPStatusCode)
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, agentkit.ErrIterationLimit):
		return "iteration_limit"
	case errors.Is(err, agentkit.ErrLoopDetected):
		return "loop_detected"
	case errors.Is(err, tool.ErrFatal):
		return "fatal_tool_error"
	}
	return "_OTHER"
}

func httpStatus(code int) string {
	if code == 0 {
		return "_OTHER"
	}
	const digits = "0123456789"
	return string([]byte{digits[code/100%10], digits[code/10%10], digits[code%10]})
}
