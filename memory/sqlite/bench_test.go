package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/memory"
	"github.com/toolcall/toolcall/memory/memorytest"
	"github.com/toolcall/toolcall/memory/sqlite"
)

// The stores side by side: a Store on a file (the default, and RelaxedSync) and InMemory,
// the floor. The sessions are helpers_test.go's synthetic agent conversations.

type benchStore interface {
	agentkit.Memory
	agentkit.RecentLoader
}

func benchStores(b *testing.B) []struct {
	name string
	open func(b *testing.B) benchStore
} {
	return []struct {
		name string
		open func(b *testing.B) benchStore
	}{
		{"SQLite", func(b *testing.B) benchStore { return openStore(b, filepath.Join(b.TempDir(), "m.db")) }},
		{"SQLiteRelaxedSync", func(b *testing.B) benchStore {
			s, err := sqlite.Open(filepath.Join(b.TempDir(), "m.db"), &sqlite.Options{RelaxedSync: true})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { s.Close() })
			return s
		}},
		{"InMemory", func(b *testing.B) benchStore { return memory.NewInMemory() }},
	}
}

// BenchmarkAppend appends one agent step (an assistant message with two tool calls and the
// two results, as the loop does after each step) per operation, to sessions of growing
// length; appends/s counts Append calls.
func BenchmarkAppend(b *testing.B) {
	step := syntheticTurn(1, 1)[1:4]
	ctx, cancel := context.WithCancel(context.Background()) // a server request's context can always be canceled
	defer cancel()
	for _, st := range benchStores(b) {
		b.Run(st.name, func(b *testing.B) {
			s := st.open(b)
			b.ReportAllocs()
			start := time.Now()
			i := 0
			for b.Loop() {
				if err := s.Append(ctx, fmt.Sprint("s", i%16), step); err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "appends/s")
		})
	}
}

// BenchmarkLoad1000 loads a session of 1000 messages (125 turns with tool calls).
func BenchmarkLoad1000(b *testing.B) {
	benchLoad(b, func(ctx context.Context, s benchStore) ([]openai.ChatCompletionMessage, error) {
		return s.Load(ctx, "s")
	}, 1000)
}

// BenchmarkLoadRecent20 loads the first user message and the latest 20 turns of a session
// of 1000 messages (125 turns with tool calls), as RunSession does with a Window of
// MaxTurns 21: what a run of a long session reads when it sends only its latest turns.
func BenchmarkLoadRecent20(b *testing.B) {
	benchLoad(b, func(ctx context.Context, s benchStore) ([]openai.ChatCompletionMessage, error) {
		msgs, _, err := s.LoadRecent(ctx, "s", 20)
		return msgs, err
	}, 1+20*8)
}

// benchLoad loads a session of 1000 messages with load from every store, checking that each
// load has want messages.
func benchLoad(b *testing.B, load func(context.Context, benchStore) ([]openai.ChatCompletionMessage, error), want int) {
	msgs := syntheticConversation(125, 2)[1:]
	ctx, cancel := context.WithCancel(context.Background()) // a server request's context can always be canceled
	defer cancel()
	for _, st := range benchStores(b) {
		b.Run(st.name, func(b *testing.B) {
			s := st.open(b)
			if err := s.Append(ctx, "s", msgs); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				got, err := load(ctx, s)
				if err != nil || len(got) != want {
					b.Fatalf("load: %d messages, %v; want %d messages", len(got), err, want)
				}
			}
		})
	}
}

// BenchmarkStore is memorytest's benchmark of every store, for BENCHMARKS.md: appends of a
// turn to 1 and to 8 sessions at once, and the load of a 1,000-message session.
func BenchmarkStore(b *testing.B) {
	memorytest.Benchmark(b, func(b *testing.B) agentkit.Memory { return openStore(b, filepath.Join(b.TempDir(), "m.db")) })
}
