package otelgenai_test

import (
	"context"
	"errors"
	"sort"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/middleware/otelgenai"
	"github.com/toolcall/toolcall/tool"
)

func attrOf(s sdktrace.ReadOnlySpan, key string) attribute.Value {
	for _, kv := range s.Attributes() {
		if string(kv.Key) == key {
			return kv.Value
		}
	}
	return attribute.Value{}
}

func tracedAgent(t *testing.T, rec *tracetest.SpanRecorder, streaming bool, replies ...agentkittest.Reply) (*agentkit.Result, error) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	tr := otelgenai.New(&otelgenai.Options{TracerProvider: tp, AgentName: "weather-bot", ProviderName: "openai"})
	weather := tool.New("get_weather", "weather", func(ctx context.Context, in struct {
		City string `json:"city"`
	}) (string, error) {
		return "晴", nil
	})
	m := agentkittest.New(t, replies...)
	a := agentkit.New(m, &agentkit.Options{
		Model:           "gpt-4o-mini",
		Tools:           []*tool.Tool{weather},
		RunMiddleware:   []agentkit.RunMiddleware{tr.Run()},
		ModelMiddleware: []agentkit.ModelMiddleware{tr.Model()},
		Middleware:      []tool.Middleware{tr.Tool()},
	})
	if streaming {
		return a.RunStream(context.Background(), "q").Result()
	}
	return a.Run(context.Background(), "q")
}

// A turn with two parallel calls: one run span; one chat span per model call and one
// execute_tool span per call, all children of the run span.
func TestTracingSpans(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		rec := tracetest.NewSpanRecorder()
		_, err := tracedAgent(t, rec, streaming,
			agentkittest.ToolCalls(agentkittest.Call("get_weather", `{"city":"北京"}`), agentkittest.Call("get_weather", `{"town":"上海"}`)),
			agentkittest.Reply{Message: openai.ChatCompletionMessage{Content: "done"}, Usage: openai.Usage{PromptTokens: 7, CompletionTokens: 3}},
		)
		if err != nil {
			t.Fatal(err)
		}
		spans := rec.Ended()
		var names []string
		var run sdktrace.ReadOnlySpan
		for _, s := range spans {
			names = append(names, s.Name())
			if s.Name() == "invoke_agent weather-bot" {
				run = s
			}
		}
		sort.Strings(names)
		want := []string{"chat gpt-4o-mini", "chat gpt-4o-mini", "execute_tool get_weather", "execute_tool get_weather", "invoke_agent weather-bot"}
		if len(names) != len(want) {
			t.Fatalf("streaming=%v spans = %q, want %q", streaming, names, want)
		}
		for i := range want {
			if names[i] != want[i] {
				t.Fatalf("streaming=%v spans = %q, want %q", streaming, names, want)
			}
		}
		for _, s := range spans {
			if s == run {
				continue
			}
			if s.Parent().SpanID() != run.SpanContext().SpanID() {
				t.Errorf("span %q is not a child of the run span", s.Name())
			}
		}
		var failed int
		for _, s := range spans {
			if s.Name() == "execute_tool get_weather" {
				if attrOf(s, "gen_ai.tool.call.id").AsString() == "" {
					t.Errorf("tool span without call id")
				}
				if s.Status().Code == codes.Error {
					failed++
					if got := attrOf(s, "error.type").AsString(); got != string(tool.KindInvalidArguments) {
						t.Errorf("error.type = %q", got)
					}
				}
			}
			if s.Name() == "chat gpt-4o-mini" && attrOf(s, "gen_ai.request.model").AsString() != "gpt-4o-mini" {
				t.Errorf("chat span without request model")
			}
		}
		if failed != 1 {
			t.Errorf("streaming=%v: %d failed tool spans, want 1", streaming, failed)
		}
		if got := attrOf(run, "gen_ai.usage.input_tokens").AsInt64(); got != 7 {
			t.Errorf("run input tokens = %d, want 7", got)
		}
	}
}

func TestTracingModelError(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	_, err := tracedAgent(t, rec, false, agentkittest.Error(&openai.APIError{HTTPStatusCode: 429, Message: "slow down"}))
	if err == nil {
		t.Fatal("no error")
	}
	for _, s := range rec.Ended() {
		if s.Status().Code != codes.Error || attrOf(s, "error.type").AsString() != "429" {
			t.Errorf("span %q status %v error.type %q", s.Name(), s.Status(), attrOf(s, "error.type").AsString())
		}
	}
	if !errors.As(err, new(*openai.APIError)) {
		t.Errorf("err = %v", err)
	}
}

func TestTracingNilOptionsIsNoop(t *testing.T) {
	tr := otelgenai.New(nil)
	h := tr.Tool()(func(ctx context.Context, c tool.Call) tool.Result { return tool.Text("ok") })
	if got := h(context.Background(), tool.Call{Name: "x"}); got.Content != "ok" {
		t.Errorf("content = %q", got.Content)
	}
}
