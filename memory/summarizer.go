package memory

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
)

// Summarizer writes the summary that replaces folded turns.
//
// Summarize returns previous (the summary so far, "" the first time) updated with turns, the
// messages being folded now, oldest first: whole turns, each assistant tool call followed by
// its results. It must not modify turns. An error, or an empty summary, makes Fold send the
// request without this fold (with the previous summary, if any). Fold calls it from the
// goroutine of the run, one call at a time per session; calls for different sessions may be
// concurrent.
type Summarizer interface {
	Summarize(ctx context.Context, previous string, turns []openai.ChatCompletionMessage) (string, error)
}

// SummarizerFunc adapts a function to [Summarizer].
type SummarizerFunc func(ctx context.Context, previous string, turns []openai.ChatCompletionMessage) (string, error)

// Summarize calls f.
func (f SummarizerFunc) Summarize(ctx context.Context, previous string, turns []openai.ChatCompletionMessage) (string, error) {
	return f(ctx, previous, turns)
}

// DefaultSummaryPrompt is the system prompt of [ModelSummarizer]: four sections (the task
// and the user's constraints, facts learned from tools with the tools' names, decisions
// taken, open items), facts kept exact, nothing invented.
const DefaultSummaryPrompt = `You maintain the running summary of a conversation between a user and an AI assistant that calls tools. The oldest messages are being removed from the assistant's context and your summary replaces them: everything the assistant will still need from them must be in it, and nothing else.

You receive the previous summary (possibly empty) and the messages to fold into it. Return the updated summary, merging the new information into the sections and dropping what is no longer true or needed. Write in the language of the conversation. Keep facts exact: names, numbers, units, dates, ids, file paths and quoted values as they appear. Never invent anything. Leave out greetings and small talk.

Use exactly these sections, as Markdown headings:
## Task and user's constraints
What the user wants, and every requirement, preference or limit they stated.
## Facts learned from tools
One line per fact: the tool's name, what was asked, and the result that matters (a failed call too, with its error, if it matters).
## Decisions taken
What the assistant and the user decided or already did, and why when it matters.
## Open items
Questions not answered yet, steps not done, promises made.

Write "none" under an empty section. Reply with the summary only.`

// ModelSummarizer is the default [Summarizer]: one model call per summary, with
// DefaultSummaryPrompt (or Instructions), the previous summary and the folded messages
// rendered as text. A cheaper model than the agent's is usually enough.
//
// The zero value is not usable: Model is required.
type ModelSummarizer struct {
	// Model makes the call; an *openai.Client works.
	Model agentkit.Model
	// ModelName is sent as the request's model.
	ModelName string
	// Instructions replaces DefaultSummaryPrompt when not empty.
	Instructions string
	// MaxTokens caps the summary's tokens (max_completion_tokens). Zero sends no cap.
	MaxTokens int
	// MaxMessageChars caps each folded message, in characters, in the text the model
	// reads: a long tool result keeps its head and its tail. Zero or less means 4000.
	MaxMessageChars int
}

// Summarize asks the model for the updated summary.
func (s ModelSummarizer) Summarize(ctx context.Context, previous string, turns []openai.ChatCompletionMessage) (string, error) {
	if s.Model == nil {
		return "", errors.New("memory: ModelSummarizer has no Model")
	}
	if strings.TrimSpace(previous) == "" {
		previous = "(none yet)"
	}
	resp, err := s.Model.CreateChatCompletion(ctx, openai.ChatCompletionRequest{
		Model: s.ModelName,
		Messages: []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleSystem, Content: cmp.Or(s.Instructions, DefaultSummaryPrompt)},
			{Role: openai.ChatMessageRoleUser, Content: "Previous summary:\n" + previous + "\n\nMessages to fold into it:\n" + RenderTurns(turns, s.MaxMessageChars)},
		},
		MaxCompletionTokens: s.MaxTokens,
	})
	if err != nil {
		return "", fmt.Errorf("memory: summarizer: %w", err)
	}
	if len(resp.Choices) == 0 {
		return "", errors.New("memory: summarizer: the response has no choices")
	}
	out := strings.TrimSpace(resp.Choices[0].Message.Content)
	if out == "" {
		return "", fmt.Errorf("memory: summarizer: empty summary (finish_reason %q)", resp.Choices[0].FinishReason)
	}
	return out, nil
}

// RenderTurns renders messages as plain text for a summarizer: one line per message, tool
// calls with their names and arguments, tool results with the name of their tool; each
// content capped at limit characters (head and tail kept). A limit of zero or less means
// 4000, as ModelSummarizer.MaxMessageChars.
func RenderTurns(msgs []openai.ChatCompletionMessage, limit int) string {
	if limit <= 0 {
		limit = defaultMessageChars
	}
	names := map[string]string{}
	var b strings.Builder
	for _, m := range msgs {
		text := m.Content
		for _, p := range m.MultiContent {
			if p.Type == openai.ChatMessagePartTypeImageURL {
				text += " [image]"
			} else {
				text += p.Text
			}
		}
		if text == "" && m.Refusal != "" {
			text = "(refused) " + m.Refusal
		}
		text = strings.TrimSpace(cut(text, limit))
		switch m.Role {
		case openai.ChatMessageRoleTool:
			fmt.Fprintf(&b, "[tool result of %s] %s\n", cmp.Or(names[m.ToolCallID], "unknown tool"), text)
		default:
			if text != "" {
				fmt.Fprintf(&b, "[%s] %s\n", m.Role, text)
			}
			for _, c := range m.ToolCalls {
				names[c.ID] = c.Function.Name
				fmt.Fprintf(&b, "[%s called %s] %s\n", m.Role, c.Function.Name, cut(c.Function.Arguments, limit))
			}
		}
	}
	return b.String()
}

// defaultMessageChars is the cap on each message RenderTurns renders when none is given.
const defaultMessageChars = 4000

// cut shortens s to about limit characters, keeping its head and its tail.
func cut(s string, limit int) string {
	n := utf8.RuneCountInString(s)
	if n <= limit {
		return s
	}
	r := []rune(s)
	head, tail := limit-limit/3, limit/3
	return string(r[:head]) + fmt.Sprintf(" …[%d characters omitted]… ", n-head-tail) + string(r[n-tail:])
}
