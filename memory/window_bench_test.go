package memory_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/toolcall/toolcall/memory"
)

// BenchmarkWindowBudgetRequest is what a Window with a Budget alone costs per model request
// on a long session: it walks the whole history (RunSession loads all of it, a Budget is no
// TurnLimiter), looking up every message's count. The Counter is the one the window keeps
// between requests (warm), as in a server: its cache holds the session's counts.
func BenchmarkWindowBudgetRequest(b *testing.B) {
	for _, turns := range []int{1_000, 10_000} {
		msgs := syntheticConversation(turns, 1) // 5 messages a turn
		b.Run(fmt.Sprintf("turns=%d", turns), func(b *testing.B) {
			c := memory.NewCounter("gpt-4o")
			w := memory.Window(memory.WindowOptions{Budget: 8000, Counter: c})
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
		})
	}
}
