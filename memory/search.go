package memory

import (
	"cmp"
	"context"
	"slices"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// Searcher finds messages in the stored history of a session: what the model no longer sees
// after Window or Fold is still there. InMemory and memory/sqlite's Store implement it;
// [RecallTool] uses it. Any agentkit.Memory can, by loading the session and calling
// [SearchMessages].
type Searcher interface {
	// Search returns the session's messages that match q, best first. An unknown session
	// has no matches. The messages are the caller's.
	Search(ctx context.Context, session string, q Query) ([]Match, error)
}

// Query is what to search for.
type Query struct {
	// Text holds the words to look for, matched case-insensitively as substrings of a
	// message's text, tool call names and arguments. A message matches when it contains any
	// word; it ranks higher the more words it contains, and higher still when it contains
	// the whole Text. Text without spaces (Chinese, say) is one word: a substring.
	Text string
	// Limit bounds the matches returned. Zero means 5.
	Limit int
}

// Match is one message found.
type Match struct {
	// Index is the message's position in the session's stored history, from 0.
	Index int
	// Message is the stored message.
	Message openai.ChatCompletionMessage
	// Tool is, for a tool result, the name of the tool that produced it.
	Tool string
	// Score is the number of words of the query found, plus their count again when the
	// whole query was found.
	Score int
}

// SearchMessages searches msgs, a session's history, as a [Searcher] does: the best matches
// first, the more recent first among equals. It does not modify msgs; the returned messages
// share their slices with it.
func SearchMessages(msgs []openai.ChatCompletionMessage, q Query) []Match {
	limit := q.Limit
	if limit <= 0 {
		limit = 5
	}
	phrase := strings.ToLower(strings.TrimSpace(q.Text))
	words := strings.Fields(phrase)
	slices.Sort(words) // the order of the words does not matter, only that each counts once
	if words = slices.Compact(words); len(words) == 0 {
		return nil
	}
	var out []Match
	tools := map[string]string{} // call id → tool name
	var b strings.Builder
	for i := range msgs {
		m := &msgs[i]
		for _, c := range m.ToolCalls {
			tools[c.ID] = c.Function.Name
		}
		b.Reset()
		writeSearchText(&b, m)
		text := strings.ToLower(b.String())
		score := 0
		for _, w := range words {
			if strings.Contains(text, w) {
				score++
			}
		}
		if score == 0 {
			continue
		}
		if len(words) > 1 && strings.Contains(text, phrase) {
			score += len(words)
		}
		match := Match{Index: i, Message: *m, Score: score}
		if m.Role == openai.ChatMessageRoleTool {
			match.Tool = tools[m.ToolCallID]
		}
		out = append(out, match)
	}
	slices.SortFunc(out, func(a, b Match) int { return cmp.Or(b.Score-a.Score, b.Index-a.Index) })
	return out[:min(len(out), limit)]
}

// SearchText returns the text of m a [Searcher] looks in, as [SearchMessages] does: its
// content, parts, refusal, and its tool calls' names and arguments. A store that indexes
// messages (memory/postgres) indexes this text, so that it finds what SearchMessages finds.
func SearchText(m *openai.ChatCompletionMessage) string {
	var b strings.Builder
	writeSearchText(&b, m)
	return b.String()
}

func writeSearchText(b *strings.Builder, m *openai.ChatCompletionMessage) {
	b.WriteString(m.Content)
	for _, p := range m.MultiContent {
		b.WriteString("\n")
		b.WriteString(p.Text)
	}
	if m.Refusal != "" {
		b.WriteString("\n")
		b.WriteString(m.Refusal)
	}
	for _, c := range m.ToolCalls {
		b.WriteString("\n")
		b.WriteString(c.Function.Name)
		b.WriteString(" ")
		b.WriteString(c.Function.Arguments)
	}
}
