package memory_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/memory"
)

// benchTurns is the length of the synthetic conversation; each turn is a user message, two
// steps of two parallel tool calls with results of ~300 characters, and an answer: 8
// messages and 3 model requests.
const benchTurns = 1000

// requestPoints returns, for a conversation, the transcript lengths at which the model is
// asked: before each assistant message.
func requestPoints(msgs []openai.ChatCompletionMessage) []int {
	var out []int
	for i, m := range msgs {
		if m.Role == openai.ChatMessageRoleAssistant {
			out = append(out, i)
		}
	}
	return out
}

// countingSummarizer is a fast no-op Summarizer that counts its calls.
type countingSummarizer struct{ calls atomic.Int64 }

func (s *countingSummarizer) Summarize(ctx context.Context, previous string, turns []openai.ChatCompletionMessage) (string, error) {
	n := s.calls.Add(1)
	return fmt.Sprintf("## Task and user's constraints\nsummary #%d of %d more messages\n## Facts learned from tools\nnone\n## Decisions taken\nnone\n## Open items\nnone", n, len(turns)), nil
}

// BenchmarkConversation1000 replays a 1000-turn agent conversation with tool calls (3000
// model requests) through each strategy, model calls excluded. ns/request is the strategy's
// overhead per model request; summarizer-calls the Summarizer calls over the whole
// conversation; max-tokens and mean-tokens what each request would send (budget: 8000).
func BenchmarkConversation1000(b *testing.B) {
	msgs := syntheticConversation(benchTurns, 2)
	points := requestPoints(msgs)
	const budget = 8000
	strategies := []struct {
		name string
		make func(c *memory.Counter, s memory.Summarizer) agentkit.ContextStrategy
	}{
		{"Window", func(c *memory.Counter, s memory.Summarizer) agentkit.ContextStrategy {
			return memory.Window(memory.WindowOptions{Budget: budget, Counter: c})
		}},
		{"ClearToolResults", func(c *memory.Counter, s memory.Summarizer) agentkit.ContextStrategy {
			return memory.ClearToolResults(2)
		}},
		{"Fold", func(c *memory.Counter, s memory.Summarizer) agentkit.ContextStrategy {
			return memory.Fold(memory.FoldOptions{Trigger: budget, Keep: 4, Summarizer: s, Counter: c})
		}},
		{"Fold+Clear+Window", func(c *memory.Counter, s memory.Summarizer) agentkit.ContextStrategy {
			return memory.Chain(
				memory.Fold(memory.FoldOptions{Trigger: budget, Keep: 4, Summarizer: s, Counter: c}),
				memory.ClearToolResults(2),
				memory.Window(memory.WindowOptions{Budget: budget, Counter: c}),
			)
		}},
	}
	ctx, cancel := context.WithCancel(context.Background()) // a server request's context can always be canceled
	defer cancel()
	for _, st := range strategies {
		b.Run(st.name, func(b *testing.B) {
			// One untimed replay to measure what is sent.
			c := memory.NewCounter("gpt-4o")
			sum := &countingSummarizer{}
			s := st.make(c, sum)
			maxTokens, total := 0, 0
			for _, p := range points {
				view, err := s.Apply(ctx, "bench", msgs[:p])
				if err != nil {
					b.Fatal(err)
				}
				n := c.Messages(view)
				maxTokens = max(maxTokens, n)
				total += n
			}
			calls := sum.calls.Load()

			for _, mode := range []string{"cold", "warm"} {
				b.Run(mode, func(b *testing.B) {
					// cold: a new Counter per conversation, which tokenizes every message
					// once, as a new process does; warm: every count is cached, which
					// leaves the strategy's own work.
					warm := memory.NewCounter("gpt-4o")
					warm.Messages(msgs)
					b.ReportAllocs()
					start := time.Now()
					for b.Loop() {
						c := warm
						if mode == "cold" {
							c = memory.NewCounter("gpt-4o")
						}
						s := st.make(c, &countingSummarizer{})
						for _, p := range points {
							if _, err := s.Apply(ctx, "bench", msgs[:p]); err != nil {
								b.Fatal(err)
							}
						}
					}
					elapsed := time.Since(start)
					b.ReportMetric(float64(elapsed.Nanoseconds())/float64(b.N*len(points)), "ns/request")
					b.ReportMetric(float64(calls), "summarizer-calls")
					b.ReportMetric(float64(maxTokens), "max-tokens")
					b.ReportMetric(float64(total)/float64(len(points)), "mean-tokens")
				})
			}
		})
	}
}

// benchText is a mix of what agents send: English prose, Chinese, JSON tool results.
func benchText() string {
	var b strings.Builder
	for i := range 20 {
		fmt.Fprintf(&b, "Turn %d: the user asks about the weather in Beijing and the price of flights. ", i)
		b.WriteString("北京今天晴，气温26℃，东南风2级，湿度40%，空气质量优。")
		fmt.Fprintf(&b, `{"city":"Beijing","temp_c":26,"forecast":[{"day":"Tue","high":27},{"day":"Wed","high":25}],"id":"%08x"}`, i*2654435761)
		b.WriteString("\n")
	}
	return b.String()
}

// BenchmarkCounterText is the tokenizer's throughput on text it has not seen (no cache).
func BenchmarkCounterText(b *testing.B) {
	text := benchText()
	for _, model := range []string{"gpt-4o", "gpt-4"} {
		b.Run(model, func(b *testing.B) {
			c := memory.NewCounter(model)
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				c.Text(text)
			}
		})
	}
}

// BenchmarkCounterMessagesCached counts a 1000-turn conversation whose messages were counted
// before: the cost strategies pay per request for the messages they keep.
func BenchmarkCounterMessagesCached(b *testing.B) {
	msgs := syntheticConversation(benchTurns, 2)
	size := 0
	for _, m := range msgs {
		size += len(m.Content)
		for _, c := range m.ToolCalls {
			size += len(c.Function.Name) + len(c.Function.Arguments)
		}
	}
	c := memory.NewCounter("gpt-4o")
	c.Messages(msgs)
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		c.Messages(msgs)
	}
	b.ReportMetric(float64(len(msgs)), "messages")
}
