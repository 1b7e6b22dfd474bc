package agentkit

import (
	"context"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// Model is a chat-completions endpoint. A *openai.Client (github.com/sashabaranov/go-openai)
// is a Model as it is, whatever OpenAI-compatible server its BaseURL points at.
//
// The agent calls CreateChatCompletion once per iteration with the whole request. It may call
// it concurrently from different runs; it never modifies a request after passing it, and does
// not retain the response's slices beyond appending its message to the history.
type Model interface {
	CreateChatCompletion(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error)
}

// ModelFunc adapts a function to [Model]: a fake model in a test is a closure.
type ModelFunc func(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error)

// CreateChatCompletion calls f.
func (f ModelFunc) CreateChatCompletion(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
	return f(ctx, req)
}

// CallFunc is one plain model call: a request, and the whole reply.
type CallFunc func(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error)

// StreamFunc is one streamed model call: a request, and the stream of its reply (see
// [Stream] for the rules a stream follows).
type StreamFunc func(ctx context.Context, req openai.ChatCompletionRequest) (Stream, error)

// ModelMiddleware wraps the calls an agent makes to its model — retries, timeouts, logs,
// tracing — in both their forms: WrapCall wraps plain calls, WrapStream streamed ones (runs
// stream when the model is a [StreamingModel] and the caller asked for a stream). The
// first middleware in Options.ModelMiddleware is the outermost:
//
//	Options{ModelMiddleware: []ModelMiddleware{a, b}}
//
//	request ──▶ a ──▶ b ──▶ model
//	reply   ◀── a ◀── b ◀──┘
//
// A middleware that has nothing to do for one form returns next unchanged from that method:
// it then neither applies to that form nor turns streaming off. [CallMiddlewareFunc] adapts
// a function that wraps plain calls only. (The shape is connect-go's Interceptor, whose
// UnaryInterceptorFunc is the model of CallMiddlewareFunc.)
type ModelMiddleware interface {
	WrapCall(next CallFunc) CallFunc
	WrapStream(next StreamFunc) StreamFunc
}

// CallMiddlewareFunc adapts a function to [ModelMiddleware]: it wraps plain calls, and
// streamed calls pass through it unchanged, still streaming.
type CallMiddlewareFunc func(next CallFunc) CallFunc

// WrapCall returns f(next).
func (f CallMiddlewareFunc) WrapCall(next CallFunc) CallFunc { return f(next) }

// WrapStream returns next: a CallMiddlewareFunc does not wrap streamed calls.
func (f CallMiddlewareFunc) WrapStream(next StreamFunc) StreamFunc { return next }

// WrapModel returns m with mws around its calls, the first outermost, as Options.ModelMiddleware
// wraps an Agent's model: a Model for code outside an Agent (the model of a
// memory.ModelSummarizer, say) with the same retries and timeouts. The result is a
// StreamingModel when m is one, and sends provider extras when m does ([ExtrasModel]).
func WrapModel(m Model, mws ...ModelMiddleware) Model {
	w := wrappedModel{call: m.CreateChatCompletion, extras: sendsExtras(m)}
	var stream StreamFunc
	if sm, ok := m.(StreamingModel); ok {
		stream = sm.CreateChatCompletionStream
	}
	for i := len(mws) - 1; i >= 0; i-- {
		if mw := mws[i]; mw != nil {
			w.call = mw.WrapCall(w.call)
			if stream != nil {
				stream = mw.WrapStream(stream)
			}
		}
	}
	if stream == nil {
		return w
	}
	return wrappedStreamingModel{w, stream}
}

type wrappedModel struct {
	call   CallFunc
	extras bool
}

func (w wrappedModel) CreateChatCompletion(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
	return w.call(ctx, req)
}

func (w wrappedModel) SendsExtras() bool { return w.extras }

type wrappedStreamingModel struct {
	wrappedModel
	stream StreamFunc
}

func (w wrappedStreamingModel) CreateChatCompletionStream(ctx context.Context, req openai.ChatCompletionRequest) (Stream, error) {
	return w.stream(ctx, req)
}

// stripExtras is the innermost middleware of an Agent whose model does not send provider
// extras: it removes them from the request, so that the model never sends a function_call.
type stripExtras struct{}

func (stripExtras) WrapCall(next CallFunc) CallFunc {
	return func(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		req.Messages = withoutExtras(req.Messages)
		return next(ctx, req)
	}
}

func (stripExtras) WrapStream(next StreamFunc) StreamFunc {
	return func(ctx context.Context, req openai.ChatCompletionRequest) (Stream, error) {
		req.Messages = withoutExtras(req.Messages)
		return next(ctx, req)
	}
}

// WireZeroTemperature is the temperature sent when the wanted temperature is 0.
//
// go-openai declares temperature with omitempty, so a literal 0 never reaches the wire and
// the provider applies its default (1.0 at OpenAI): the opposite of what tool calling wants.
// This value is sent instead. It is 0 for every practical purpose (greedy decoding; vLLM
// treats any temperature below 1e-5 as greedy) yet large enough that servers that divide the
// logits by the temperature (llama.cpp) do not overflow to infinity, as they would with
// math.SmallestNonzeroFloat32.
const WireZeroTemperature float32 = 1e-6

// refusesSampling reports whether model is a reasoning model that refuses temperature (and
// max_tokens): OpenAI's o1, o3, o4 and gpt-5 families. go-openai refuses such requests
// client-side, and OpenAI answers 400 to them.
func refusesSampling(model string) bool {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 { // "openai/o3-mini" on routers
		m = m[i+1:]
	}
	for _, p := range []string{"o1", "o3", "o4", "gpt-5"} {
		if strings.HasPrefix(m, p) {
			return true
		}
	}
	return false
}

// RunFunc runs one agent run to its end. The Result is never nil.
type RunFunc func(ctx context.Context) (*Result, error)

// RunMiddleware wraps whole runs (every Run, RunMessages, RunSession, Resume and
// ResumeSession, streamed or not): a span around the run whose context the model and tool
// calls inherit, a per-run deadline, a metric. A resume's checks and its claim of the pause
// run inside it, so one that does not call next leaves the pause resumable. The first in Options.RunMiddleware is the outermost. A RunMiddleware calls next at
// most once (a run is not started twice), and must return a non-nil Result: the one next
// returned, or one it builds when it does not call next.
type RunMiddleware func(next RunFunc) RunFunc
