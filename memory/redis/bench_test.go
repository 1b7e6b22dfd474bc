package redis_test

import (
	"context"
	"strconv"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/memory/memorytest"
)

// BenchmarkStore is the stores' common benchmark (BENCHMARKS.md), against the redis-server
// of the test binary on 127.0.0.1 (no persistence: --save ”, --appendonly no).
func BenchmarkStore(b *testing.B) {
	memorytest.Benchmark(b, func(b *testing.B) agentkit.Memory {
		s, _ := newStore(b, nil)
		return s
	})
}

// BenchmarkLoadRecent20 loads the first user message and the latest 20 turns (a user
// message, a call and its result, an answer: 4 messages each) of sessions of 100 and 1,000
// turns, as RunSession does with a Window of MaxTurns 21: the cost should not grow with the
// session.
func BenchmarkLoadRecent20(b *testing.B) {
	for _, turns := range []int{100, 1000} {
		b.Run(strconv.Itoa(turns)+"-turns", func(b *testing.B) {
			s, _ := newStore(b, nil)
			ctx := context.Background()
			var msgs []openai.ChatCompletionMessage
			for i := range turns {
				msgs = append(msgs, memorytest.User("北京天气？ "+strconv.Itoa(i)))
				msgs = append(msgs, memorytest.Step("call_"+strconv.Itoa(i), 1)...)
				msgs = append(msgs, memorytest.Assistant("晴，26℃。"))
			}
			if err := s.Append(ctx, "s", msgs); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				got, _, err := s.LoadRecent(ctx, "s", 20)
				if err != nil || len(got) != 1+20*4 {
					b.Fatalf("LoadRecent: %d messages, %v; want %d", len(got), err, 1+20*4)
				}
			}
		})
	}
}
