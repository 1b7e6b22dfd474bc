package memory_test

import (
	"context"
	"fmt"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/memory"
)

// BenchmarkLongSessionRequest is what the strategies that read the whole history cost per
// model request on a long session (RunSession loads all of it for them: neither is a
// TurnLimiter): a Window with a Budget alone looks up every message's count, ClearToolResults
// copies the history and clears its old results again. The Counter is the one the window
// keeps between requests (warm), as in a server: its cache holds the session's counts.
func BenchmarkLongSessionRequest(b *testing.B) {
	strategies := []struct {
		name string
		make func(c *memory.Counter) agentkit.ContextStrategy
	}{
		{"Window{Budget}", func(c *memory.Counter) agentkit.ContextStrategy {
			return memory.Window(memory.WindowOptions{Budget: 8000, Counter: c})
		}},
		{"ClearToolResults", func(c *memory.Counter) agentkit.ContextStrategy { return memory.ClearToolResults(2) }},
	}
	for _, st := range strategies {
		for _, turns := range []int{1_000, 10_000} {
			msgs := syntheticConversation(turns, 1) // 5 messages a turn
			b.Run(fmt.Sprintf("%s/turns=%d", st.name, turns), func(b *testing.B) {
				benchRequest(b, st.make(memory.NewCounter("gpt-4o")), msgs)
			})
		}
	}
}

func benchRequest(b *testing.B, w agentkit.ContextStrategy, msgs []openai.ChatCompletionMessage) {
	ctx := context.Background()
	if _, err := w.Apply(ctx, "s", msgs); err != nil { // the counts of earlier requests
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := w.Apply(ctx, "s", msgs); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(msgs)), "messages")
}
