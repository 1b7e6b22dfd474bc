package agentkit

import (
	"context"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// Model is a chat-completions endpoint. A *openai.Client (github.com/sashabaranov/go-openai)
// is a Model as it is, whatever OpenAI-compatible server its BaseURL points at.
//
// The agent calls CreateChatCompletion once per iteration with the whole history. It may call
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

// ModelMiddleware wraps a Model: retries, timeouts, logging, tracing. The first middleware in
// Options.ModelMiddleware is the outermost.
type ModelMiddleware func(next Model) Model

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

// RunMiddleware wraps whole runs (Run, RunMessages, RunSession, RunStream): a span around the
// run whose context the model and tool calls inherit, a per-run deadline, a metric. The first
// in Options.RunMiddleware is the outermost. A RunMiddleware must return a non-nil Result: the
// one next returned, or one it builds when it does not call next.
type RunMiddleware func(next RunFunc) RunFunc
