package middleware_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/toolcall/toolcall/middleware"
	"github.com/toolcall/toolcall/tool"
)

// benchChain is six middleware of the documented stack around a trivial handler.
func benchChain(logger *slog.Logger) tool.Handler {
	return tool.Chain(
		middleware.Log(logger, &middleware.LogOptions{Redact: []string{"password"}}),
		middleware.WrapErrors(nil),
		middleware.Truncate(4000),
		middleware.AllowFromContext(),
		middleware.Retry(nil),
		middleware.Timeout(10*time.Second),
	)(func(context.Context, tool.Call) tool.Result { return tool.Text("晴，26℃") })
}

func benchCall(b *testing.B, h tool.Handler) {
	base, cancel := context.WithCancel(context.Background()) // a server request's context can always be canceled
	defer cancel()
	ctx := middleware.WithAllowedTools(base, "get_weather")
	weather := tool.New("get_weather", "Weather.", func(ctx context.Context, in struct {
		City     string `json:"city"`
		Password string `json:"password"`
	}) (string, error) {
		return "晴，26℃", nil
	})
	c := tool.Call{ID: "call_1", Name: "get_weather", Arguments: `{"city":"北京","password":"x"}`, Tool: weather}
	b.ReportAllocs()
	for b.Loop() {
		if res := h(ctx, c); res.Content != "晴，26℃" {
			b.Fatal(res.Content)
		}
	}
}

// BenchmarkChain6 measures the overhead per call of Log (records discarded by the handler's
// level), WrapErrors, Truncate, AllowFromContext, Retry and Timeout.
func BenchmarkChain6(b *testing.B) {
	benchCall(b, benchChain(slog.New(slog.DiscardHandler)))
}

// BenchmarkChain6LogJSON is BenchmarkChain6 with every record formatted as JSON (to
// io.Discard), arguments redacted: the cost of logging each call.
func BenchmarkChain6LogJSON(b *testing.B) {
	benchCall(b, benchChain(slog.New(slog.NewJSONHandler(io.Discard, nil))))
}

// BenchmarkChain6NoTimeout replaces Timeout, whose goroutine dominates, by
// Structure.
func BenchmarkChain6NoTimeout(b *testing.B) {
	benchCall(b, tool.Chain(
		middleware.Log(slog.New(slog.DiscardHandler), nil),
		middleware.WrapErrors(nil),
		middleware.Truncate(4000),
		middleware.AllowFromContext(),
		middleware.Retry(nil),
		middleware.Structure(),
	)(func(context.Context, tool.Call) tool.Result { return tool.Text("晴，26℃") }))
}

// BenchmarkBare is the trivial handler alone, the baseline.
func BenchmarkBare(b *testing.B) {
	benchCall(b, func(context.Context, tool.Call) tool.Result { return tool.Text("晴，26℃") })
}

// BenchmarkTimeout is Timeout alone: a context.WithTimeout, a goroutine and a channel per
// call.
func BenchmarkTimeout(b *testing.B) {
	benchCall(b, middleware.Timeout(10*time.Second)(func(context.Context, tool.Call) tool.Result { return tool.Text("晴，26℃") }))
}
