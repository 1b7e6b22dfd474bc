package memorytest

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
)

// Benchmark measures a store as RunSession uses it, so that stores can be compared on one
// page (BENCHMARKS.md): appends of one turn (a user message, a call, its result, an answer —
// what one iteration saves, in one Append) to one session, and to 8 sessions at once from 8
// goroutines, reported as appends/s; and the load of a 1,000-message session. Every operation
// runs under a cancelable context with a deadline, as a server's request does. newMemory
// returns an empty store for each sub-benchmark.
//
//	func BenchmarkStore(b *testing.B) {
//		memorytest.Benchmark(b, func(b *testing.B) agentkit.Memory { return mystore.New(b.TempDir()) })
//	}
func Benchmark(b *testing.B, newMemory func(b *testing.B) agentkit.Memory) {
	turn := func(i int) []openai.ChatCompletionMessage {
		id := fmt.Sprintf("call_%d", i)
		msgs := append([]openai.ChatCompletionMessage{User(fmt.Sprintf("北京第 %d 天的天气怎么样？", i))}, Step(id, 1)...)
		return append(msgs, Assistant("晴，26℃。"))
	}
	b.Run("Append/1-session", func(b *testing.B) {
		m := newMemory(b)
		i := 0
		start := time.Now()
		for b.Loop() {
			i++
			if err := withDeadline(func(ctx context.Context) error { return m.Append(ctx, "s", turn(i)) }); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "appends/s")
	})
	b.Run("Append/8-sessions", func(b *testing.B) {
		m := newMemory(b)
		var next atomic.Int64
		b.SetParallelism(max(1, 8/runtime.GOMAXPROCS(0))) // 8 goroutines (on up to 8 cores)
		start := time.Now()
		b.RunParallel(func(pb *testing.PB) {
			session := fmt.Sprintf("s%d", next.Add(1))
			i := 0
			for pb.Next() {
				i++
				if err := withDeadline(func(ctx context.Context) error { return m.Append(ctx, session, turn(i)) }); err != nil {
					b.Error(err)
					return
				}
			}
		})
		b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "appends/s")
	})
	b.Run("Load/1000-messages", func(b *testing.B) {
		m := newMemory(b)
		for i := range 1000 / 4 { // a turn is 4 messages
			if err := withDeadline(func(ctx context.Context) error { return m.Append(ctx, "s", turn(i)) }); err != nil {
				b.Fatal(err)
			}
		}
		for b.Loop() {
			var n int
			if err := withDeadline(func(ctx context.Context) error {
				msgs, err := m.Load(ctx, "s")
				n = len(msgs)
				return err
			}); err != nil || n != 1000 {
				b.Fatalf("Load: %d messages, %v", n, err)
			}
		}
	})
}

// withDeadline runs f under a cancelable context with a deadline.
func withDeadline(f func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return f(ctx)
}
