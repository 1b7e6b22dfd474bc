package memory_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/memory"
)

func TestWindow(t *testing.T) {
	c := memory.NewCounter("gpt-4o")
	msgs := syntheticConversation(5, 1) // system, then 5 turns of 5 messages
	ts := turnStarts(msgs)
	head := msgs[:2] // system + first user message
	keepLast := func(n int) []openai.ChatCompletionMessage {
		return cat(head, msgs[ts[len(ts)-n]:])
	}
	tests := []struct {
		name    string
		budget  int
		want    []openai.ChatCompletionMessage
		wantErr error
	}{
		{"everything fits", c.Messages(msgs), msgs, nil},
		{"one token short drops the first turn's replies", c.Messages(msgs) - 1, cat(head, msgs[ts[1]:]), nil},
		{"exactly three turns", c.Messages(keepLast(3)), keepLast(3), nil},
		{"just under three turns", c.Messages(keepLast(3)) - 1, keepLast(2), nil},
		{"only the latest turn", c.Messages(keepLast(1)), keepLast(1), nil},
		{"not even the latest turn", c.Messages(keepLast(1)) - 1, nil, memory.ErrBudgetTooSmall},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := cat(msgs)
			got, err := memory.Window(memory.WindowOptions{Budget: tt.budget, Target: tt.budget, Counter: c}).Apply(context.Background(), "s", in)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(msgs, in); diff != "" {
				t.Fatalf("Apply modified its input (-before +after):\n%s", diff)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("view (-want +got):\n%s", diff)
			}
			if n := c.Messages(got); n > tt.budget {
				t.Errorf("view costs %d tokens, budget %d", n, tt.budget)
			}
			if err := agentkit.ValidateHistory(got); err != nil {
				t.Errorf("view invalid: %v", err)
			}
		})
	}
}

func TestWindowEdgeHistories(t *testing.T) {
	c := memory.NewCounter("gpt-4o")
	sys := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleSystem, Content: "system prompt"}
	user := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: "question"}
	tests := []struct {
		name    string
		msgs    []openai.ChatCompletionMessage
		budget  int
		wantLen int
		wantErr error
	}{
		{"empty", nil, 10, 0, nil},
		{"system only", []openai.ChatCompletionMessage{sys}, 100, 1, nil},
		{"system only, too big", []openai.ChatCompletionMessage{sys}, 3, 0, memory.ErrBudgetTooSmall},
		{"first user only", []openai.ChatCompletionMessage{sys, user}, 100, 2, nil},
		{"first user only, too big", []openai.ChatCompletionMessage{sys, user}, 10, 0, memory.ErrBudgetTooSmall},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := memory.Window(memory.WindowOptions{Budget: tt.budget, Counter: c}).Apply(context.Background(), "", tt.msgs)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if err == nil && len(got) != tt.wantLen {
				t.Errorf("view has %d messages, want %d", len(got), tt.wantLen)
			}
		})
	}
}

// Appending to a view never writes into the transcript's spare capacity.
func TestViewsHaveNoSpareCapacity(t *testing.T) {
	msgs := make([]openai.ChatCompletionMessage, 0, 100)
	msgs = append(msgs, syntheticConversation(3, 1)...)
	strategies := map[string]agentkit.ContextStrategy{
		"Window":           memory.Window(memory.WindowOptions{Budget: 1 << 20}),
		"ClearToolResults": memory.ClearToolResults(10),
		"Fold":             memory.Fold(memory.FoldOptions{Trigger: 1 << 20, Summarizer: &recorder{}}),
		"Chain":            memory.Chain(),
	}
	for name, s := range strategies {
		view, err := s.Apply(context.Background(), "", msgs)
		if err != nil {
			t.Fatal(err)
		}
		_ = append(view, openai.ChatCompletionMessage{Role: "user", Content: "appended"})
		if got := msgs[:len(msgs)+1][len(msgs)].Content; got == "appended" {
			t.Errorf("%s: appending to the view wrote into the transcript's array", name)
		}
	}
}

func TestWindowPanicsOnBadOptions(t *testing.T) {
	for _, o := range []memory.WindowOptions{{}, {Budget: -1}, {MaxTurns: -1}, {Budget: 100, MaxTurns: -1},
		{MaxTurns: 4, Block: -1}, {Budget: 100, Target: -1}, {Budget: 100, Target: 101}, {MaxTurns: 4, Target: 1}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Window(%+v) did not panic", o)
				}
			}()
			memory.Window(o)
		}()
	}
}

// MaxTurns keeps the latest turns by count, alone or with a budget (the smaller view wins).
func TestWindowMaxTurns(t *testing.T) {
	c := memory.NewCounter("gpt-4o")
	msgs := syntheticConversation(5, 1) // system, then 5 turns of 5 messages
	ts := turnStarts(msgs)
	head := msgs[:2]
	keepLast := func(n int) []openai.ChatCompletionMessage { return cat(head, msgs[ts[len(ts)-n]:]) }
	tests := []struct {
		name string
		opts memory.WindowOptions
		want []openai.ChatCompletionMessage
	}{
		{"one turn", memory.WindowOptions{MaxTurns: 1}, keepLast(1)},
		{"three turns", memory.WindowOptions{MaxTurns: 3, Block: 1}, keepLast(3)},
		{"four turns: the first turn's replies count as one", memory.WindowOptions{MaxTurns: 4, Block: 1}, keepLast(4)},
		{"five turns: everything", memory.WindowOptions{MaxTurns: 5}, msgs},
		{"more turns than there are", memory.WindowOptions{MaxTurns: 50}, msgs},
		{"a budget for two turns under a count of four", memory.WindowOptions{MaxTurns: 4, Block: 1, Budget: c.Messages(keepLast(2)), Target: c.Messages(keepLast(2)), Counter: c}, keepLast(2)},
		{"a count of two under a budget for everything", memory.WindowOptions{MaxTurns: 2, Block: 1, Budget: c.Messages(msgs), Counter: c}, keepLast(2)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := memory.Window(tt.opts).Apply(context.Background(), "s", cat(msgs))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("view (-want +got):\n%s", diff)
			}
			if err := agentkit.ValidateHistory(got); err != nil {
				t.Errorf("view invalid: %v", err)
			}
		})
	}
}
