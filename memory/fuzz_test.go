package memory_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/memory"
)

// byteSource reads a history's shape from fuzz input; past the end it reads zeros.
type byteSource struct {
	data []byte
	i    int
}

func (s *byteSource) next() int {
	if s.i >= len(s.data) {
		s.i++
		return 0
	}
	b := s.data[s.i]
	s.i++
	return int(b)
}

var fuzzWords = []string{"weather ", "北京 ", "price ", "42 ", "São ", "😀 ", "\n", "value=17; ", "the ", "数据 "}

func (s *byteSource) text(max int) string {
	n := 1 + s.next()%max
	var b strings.Builder
	w := uint(s.next())
	for range n {
		b.WriteString(fuzzWords[w%uint(len(fuzzWords))])
		w = w*7 + 3
	}
	return b.String()
}

// fuzzHistory builds a valid history with tool calls from data: an optional system prompt,
// sometimes messages before the first user message, then turns of steps with 1–3 parallel
// calls, results of very different sizes, answers or none, sometimes two user messages in a
// row.
func fuzzHistory(s *byteSource) []openai.ChatCompletionMessage {
	var msgs []openai.ChatCompletionMessage
	id := 0
	step := func() {
		a := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant}
		if s.next()%3 == 0 {
			a.Content = s.text(5)
		}
		var results []openai.ChatCompletionMessage
		for range 1 + s.next()%3 {
			id++
			cid := fmt.Sprintf("call_%d", id)
			a.ToolCalls = append(a.ToolCalls, openai.ToolCall{ID: cid, Type: openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: []string{"get_weather", "search", "calc"}[s.next()%3], Arguments: fmt.Sprintf(`{"q":%q}`, s.text(4))}})
			size := []int{1, 5, 40, 300}[s.next()%4]
			results = append(results, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: cid, Content: s.text(size)})
		}
		msgs = append(msgs, a)
		msgs = append(msgs, results...)
	}
	if s.next()%4 != 0 {
		msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleSystem, Content: s.text(20)})
	}
	if s.next()%8 == 0 {
		step() // tool calls before any user message
	}
	turns := 1 + s.next()%16
	for range turns {
		msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: s.text(30)})
		if s.next()%10 == 0 {
			continue // a user message with no reply
		}
		for range s.next() % 4 {
			step()
		}
		if s.next()%3 != 0 {
			msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: s.text(15)})
		}
	}
	return msgs
}

func firstUser(msgs []openai.ChatCompletionMessage) int {
	for i, m := range msgs {
		if m.Role == openai.ChatMessageRoleUser {
			return i
		}
	}
	return -1
}

// FuzzStrategies checks every strategy on random histories with tool calls: the view
// validates, the first user message is byte-identical and at the same place, the estimate
// is within budget (or the error wraps ErrBudgetTooSmall, and only when what must be kept
// does not fit), the input is never modified, and a failing summarizer leaves the view
// deep-equal to the input.
func FuzzStrategies(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
	f.Add([]byte{255, 0, 255, 0, 128, 64, 32, 16, 8, 4, 2, 1})
	f.Add([]byte("a history with tool calls and a long tail of bytes to read from, again and again and again"))
	f.Add([]byte{3, 0, 15, 200, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3})
	c := memory.NewCounter("gpt-4o")
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 4 {
			return
		}
		params := &byteSource{data: data[:4]}
		msgs := fuzzHistory(&byteSource{data: data[4:]})
		if err := agentkit.ValidateHistory(msgs); err != nil {
			t.Fatalf("generated an invalid history: %v", err)
		}
		total := c.Messages(msgs)
		budget := 1 + total*params.next()/255 + params.next()
		keep := 1 + params.next()%4
		clearKeep := params.next() % 4
		original := cat(msgs)
		fu := firstUser(msgs)

		check := func(name string, view []openai.ChatCompletionMessage, err error, limit int, mustKeep func() int) {
			t.Helper()
			if err != nil {
				if !errors.Is(err, memory.ErrBudgetTooSmall) {
					t.Fatalf("%s: error %v", name, err)
				}
				if mustKeep != nil {
					if n := mustKeep(); n <= limit {
						t.Fatalf("%s: ErrBudgetTooSmall, but what must be kept costs %d tokens, within %d: %v", name, n, limit, err)
					}
				}
				return
			}
			if err := agentkit.ValidateHistory(view); err != nil {
				t.Fatalf("%s: invalid view: %v\n%s", name, err, agentkit.FormatTranscript(view))
			}
			if fu >= 0 {
				if firstUser(view) != fu || view[fu].Content != msgs[fu].Content {
					t.Fatalf("%s: the first user message moved or changed", name)
				}
				if diff := cmp.Diff(msgs[:fu], view[:fu]); diff != "" {
					t.Fatalf("%s: the head changed:\n%s", name, diff)
				}
			}
			if limit > 0 {
				if n := c.Messages(view); n > limit {
					t.Fatalf("%s: view costs %d tokens, above %d", name, n, limit)
				}
			}
		}
		ctx := context.Background()
		// What must be kept: the head, the first user message and the latest k turns.
		latest := func(k int) func() int {
			return func() int {
				if fu < 0 {
					return total
				}
				ts := turnStarts(msgs)
				from := ts[max(0, len(ts)-k)]
				if len(ts)-k <= 0 {
					from = fu + 1
				}
				return c.Messages(cat(msgs[:fu+1], msgs[from:]))
			}
		}

		view, err := memory.Window(memory.WindowOptions{Budget: budget, Counter: c}).Apply(ctx, "s", msgs)
		check("Window", view, err, budget, latest(1))
		view, err = memory.Window(memory.WindowOptions{MaxTurns: keep + 1}).Apply(ctx, "s", msgs)
		check("Window(MaxTurns)", view, err, 0, nil)
		view, err = memory.Window(memory.WindowOptions{Budget: budget, Counter: c, MaxTurns: keep + 1}).Apply(ctx, "s", msgs)
		check("Window(Budget, MaxTurns)", view, err, budget, latest(1))

		view, err = memory.ClearToolResults(clearKeep).Apply(ctx, "s", msgs)
		check("ClearToolResults", view, err, 0, nil)
		if err == nil && c.Messages(view) > total {
			t.Fatalf("ClearToolResults made the history bigger")
		}

		// Fold on every prefix ending a turn, as a conversation grows, with one strategy.
		fold := memory.Fold(memory.FoldOptions{Trigger: budget, Keep: keep, Summarizer: &recorder{}, Counter: c})
		failing := memory.Fold(memory.FoldOptions{Trigger: budget, Keep: keep, Summarizer: &recorder{err: errors.New("down")}, Counter: c})
		chain := memory.Chain(
			memory.Fold(memory.FoldOptions{Trigger: budget, Keep: keep, Summarizer: &recorder{}, Counter: c}),
			memory.ClearToolResults(clearKeep),
			memory.Window(memory.WindowOptions{Budget: budget, Counter: c}),
		)
		ends := append(turnStarts(msgs), len(msgs))
		for _, end := range ends {
			prefix := msgs[:end]
			if firstUser(prefix) < 0 {
				continue
			}
			sub := msgs
			msgs = prefix
			view, err = fold.Apply(ctx, "s", prefix)
			check(fmt.Sprintf("Fold(prefix %d)", end), view, err, budget, nil)

			view, err = failing.Apply(ctx, "s", prefix)
			if err == nil {
				if diff := cmp.Diff(prefix, view); diff != "" {
					t.Fatalf("Fold with a failing summarizer changed the history (-want +got):\n%s", diff)
				}
			} else if !errors.Is(err, memory.ErrBudgetTooSmall) {
				t.Fatalf("Fold with a failing summarizer: %v", err)
			}

			view, err = chain.Apply(ctx, "s", prefix)
			check(fmt.Sprintf("Chain(prefix %d)", end), view, err, budget, nil)
			msgs = sub
		}
		if diff := cmp.Diff(original, msgs); diff != "" {
			t.Fatalf("a strategy modified its input (-before +after):\n%s", diff)
		}
	})
}
