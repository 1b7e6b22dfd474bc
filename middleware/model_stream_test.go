package middleware_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/middleware"
)

// ModelTimeout and ModelLog keep a streaming model streaming, and log or bound its streams.
func TestModelMiddlewareKeepsStreaming(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, nil))
	m := agentkittest.New(t, agentkittest.Text("a streamed answer of several fragments"))
	mws := []agentkit.ModelMiddleware{middleware.ModelLog(logger), middleware.ModelTimeout(time.Minute)}
	for _, mw := range mws {
		if _, ok := agentkit.WrapModel(m, mw).(agentkit.StreamingModel); !ok {
			t.Fatalf("a model middleware hid the streaming capability of its model")
		}
	}
	s := agentkit.New(m, &agentkit.Options{ModelMiddleware: mws}).RunStream(context.Background(), "q")
	deltas := 0
	for e := range s.Events() {
		if e.Kind == agentkit.EventTextDelta {
			deltas++
		}
	}
	res, err := s.Result()
	if err != nil || res.Output != "a streamed answer of several fragments" || deltas < 2 {
		t.Fatalf("output %q, %d deltas, err %v", res.Output, deltas, err)
	}
	if got := buf.String(); strings.Count(got, `msg="model stream"`) != 1 || !strings.Contains(got, "chunks=") {
		t.Errorf("log = %q, want one model stream record with its chunks", got)
	}
}

// ModelRetry keeps a streaming model streaming, and retries a stream refused before its
// first chunk.
func TestModelRetryStreams(t *testing.T) {
	m := agentkittest.New(t,
		agentkittest.Error(&openai.APIError{HTTPStatusCode: 503, Message: "overloaded"}),
		agentkittest.Text("streamed answer"),
	)
	var waits []time.Duration
	retry := middleware.ModelRetry(&middleware.ModelRetryOptions{Sleep: func(ctx context.Context, d time.Duration) error {
		waits = append(waits, d)
		return nil
	}})
	if _, ok := agentkit.WrapModel(m, retry).(agentkit.StreamingModel); !ok {
		t.Fatalf("ModelRetry hid the streaming capability of its model")
	}
	s := agentkit.New(m, &agentkit.Options{ModelMiddleware: []agentkit.ModelMiddleware{retry}}).RunStream(context.Background(), "q")
	deltas := 0
	for e := range s.Events() {
		if e.Kind == agentkit.EventTextDelta {
			deltas++
		}
	}
	res, err := s.Result()
	if err != nil || res.Output != "streamed answer" {
		t.Fatalf("output %q err %v", res.Output, err)
	}
	if deltas < 2 || len(waits) != 1 {
		t.Errorf("%d deltas (want several: streamed), %d waits (want 1)", deltas, len(waits))
	}
}
