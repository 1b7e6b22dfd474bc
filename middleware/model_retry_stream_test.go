package middleware_test

import (
	"context"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/middleware"
)

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
	wrapped := retry(m)
	if _, ok := wrapped.(agentkit.StreamingModel); !ok {
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
