package memory

import (
	"context"
	"fmt"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
)

// ClearedContent formats the placeholder that replaces a cleared tool result; n is the
// result's length in characters.
const ClearedContent = "[tool result cleared to save context: %d characters]"

// ClearToolResults returns a strategy that, beyond the latest keep turns, replaces the
// content of every tool result with a placeholder such as
//
//	[tool result cleared to save context: 5120 characters]
//
// The tool messages stay, with their tool_call_id, so every call keeps its answer; the
// model's own messages, its calls and their arguments stay whole. A result shorter than its
// placeholder is left as it is. Old tool results are usually the bulk of an agent's context
// and rarely needed again; when one is, [RecallTool] finds it in the store.
//
// Results are cleared in blocks, to keep the prompt cache warm (a cleared result changes the
// request from there on): the results of the latest keep turns are never cleared, those
// older than the latest 2×keep+1 turns always are, and the boundary between them moves every
// keep+2 turns, by as many, rather than on every turn. It is a turn number — the boundaries
// are the multiples of keep+2, counted from the first user message — so it is the same after
// a restart or in another process. (A transcript loaded in part would shift the count:
// ClearToolResults is no agentkit.TurnLimiter, and neither is a Chain, so RunSession loads
// the whole session for them.)
//
// keep < 1 means 1: the results of the current turn, which the model is working with, are
// never cleared. Messages before the first user message are never changed.
func ClearToolResults(keep int) agentkit.ContextStrategy {
	return clearResults{keep: max(keep, 1)}
}

type clearResults struct{ keep int }

func (c clearResults) Apply(ctx context.Context, session string, msgs []openai.ChatCompletionMessage) ([]openai.ChatCompletionMessage, error) {
	l := newLayout(msgs)
	u := l.keepFrom(c.keep) // 0 when there are no more than keep turns, or none
	u -= u % (c.keep + 2)   // a multiple of keep+2: it moves every keep+2 turns
	var out []openai.ChatCompletionMessage
	for i := l.first + 1; u > 0 && i < l.start(u); i++ {
		if msgs[i].Role != openai.ChatMessageRoleTool {
			continue
		}
		if placeholder, ok := cleared(&msgs[i]); ok {
			if out == nil {
				out = append(make([]openai.ChatCompletionMessage, 0, len(msgs)), msgs...)
			}
			out[i].Content, out[i].MultiContent = placeholder, nil
		}
	}
	if out == nil {
		return clip3(msgs), nil
	}
	return out, nil
}

// cleared returns the placeholder of the tool message m, and false when it would not be
// shorter than the content.
func cleared(m *openai.ChatCompletionMessage) (string, bool) {
	n := utf8.RuneCountInString(m.Content)
	for _, p := range m.MultiContent {
		n += utf8.RuneCountInString(p.Text)
	}
	p := fmt.Sprintf(ClearedContent, n)
	return p, n > utf8.RuneCountInString(p)
}
