package memory_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/memory"
)

// A Window after a Fold keeps the fold's summary, as it keeps the first user message: the
// summary stands for the turns the window drops, and a view without it would have lost
// everything older than the window. It counts in the Budget, and not as one of MaxTurns.
func TestChainFoldThenWindowKeepsTheSummary(t *testing.T) {
	c := memory.NewCounter("gpt-4o")
	tests := []struct {
		name   string
		window memory.WindowOptions
	}{
		{"MaxTurns", memory.WindowOptions{MaxTurns: 3}},
		{"MaxTurns, Block 1", memory.WindowOptions{MaxTurns: 3, Block: 1}},
		{"Budget below the trigger", memory.WindowOptions{Budget: 3000, Counter: c}},
		{"Budget and MaxTurns", memory.WindowOptions{Budget: 3000, MaxTurns: 3, Counter: c}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fold := memory.Fold(memory.FoldOptions{Trigger: 6000, Summarizer: &recorder{}, Counter: c})
			chain := memory.Chain(fold, memory.Window(tt.window))
			msgs := syntheticConversation(0, 0)
			summaries := 0
			for i := range 60 {
				msgs = append(msgs, syntheticTurn(i, 1)...)
				folded, err := fold.Apply(context.Background(), "s", msgs) // what the chain's Window is given
				if err != nil {
					t.Fatal(err)
				}
				view, err := chain.Apply(context.Background(), "s", msgs)
				if err != nil {
					t.Fatalf("turn %d: %v", i, err)
				}
				if err := agentkit.ValidateHistory(view); err != nil {
					t.Fatalf("turn %d: %v", i, err)
				}
				if !strings.HasPrefix(folded[2].Content, memory.SummaryPrefix) {
					continue
				}
				summaries++
				if got := view[2].Content; got != folded[2].Content {
					t.Fatalf("turn %d: the view's third message is %.40q, want the fold's summary %.40q", i, got, folded[2].Content)
				}
				if n := keptTurns(view[:2:2]) + keptTurns(view[2:]); tt.window.MaxTurns > 0 && n > tt.window.MaxTurns {
					t.Errorf("turn %d: %d turns besides the first, want at most MaxTurns %d", i, n, tt.window.MaxTurns)
				}
				if n := c.Messages(view); tt.window.Budget > 0 && n > tt.window.Budget {
					t.Errorf("turn %d: the view costs %d tokens, the budget is %d", i, n, tt.window.Budget)
				}
			}
			if summaries == 0 {
				t.Fatal("the fold never folded")
			}
		})
	}
}

// A Fold and a Window as its hard limit, when the summarizer fails after a fold: the Window
// cuts the turns the failed folds leave, and the view keeps the summary made before.
func TestChainKeepsTheSummaryWhenAFoldFails(t *testing.T) {
	c := memory.NewCounter("gpt-4o")
	rec := &recorder{}
	failed := 0
	fold := memory.Fold(memory.FoldOptions{Trigger: 6000, Summarizer: rec, Counter: c,
		OnEvent: func(ctx context.Context, e memory.FoldEvent) {
			if e.Err != nil {
				failed++
			}
		}})
	const budget = 7000
	chain := memory.Chain(fold, memory.Window(memory.WindowOptions{Budget: budget, Counter: c}))
	msgs := syntheticConversation(0, 0)
	for i := 0; failed < 10; i++ {
		if i == 200 {
			t.Fatal("no fold failed in 200 turns")
		}
		msgs = append(msgs, syntheticTurn(i, 1)...)
		if rec.count() > 0 {
			rec.err = errors.New("down") // every fold after the first fails
		}
		view, err := chain.Apply(context.Background(), "s", msgs)
		if err != nil {
			t.Fatalf("turn %d: %v", i, err)
		}
		if err := agentkit.ValidateHistory(view); err != nil {
			t.Fatalf("turn %d: %v", i, err)
		}
		if n := c.Messages(view); n > budget {
			t.Errorf("turn %d: the view costs %d tokens, the budget is %d", i, n, budget)
		}
		if failed > 0 && !strings.HasPrefix(view[2].Content, memory.SummaryPrefix) {
			t.Fatalf("turn %d, after %d failed folds: the view's third message is %.40q, want the summary", i, failed, view[2].Content)
		}
	}
}
