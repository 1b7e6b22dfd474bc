package trace

import (
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
)

func TestSessionPage(t *testing.T) {
	res, _ := richRun(t, nil)
	msgs := res.Messages
	var b strings.Builder
	if err := WriteSession(&b, msgs, nil); err != nil {
		t.Fatal(err)
	}
	doc := parse(t, b.String())
	var replies, calls int
	for _, m := range msgs {
		if m.Role == openai.ChatMessageRoleAssistant {
			replies++
			calls += len(m.ToolCalls)
		}
	}
	if got, want := len(doc.all(classed("rect", "bar"))), replies+calls; got != want {
		t.Errorf("%d bars, want %d", got, want)
	}
	text := doc.textContent()
	if !strings.Contains(text, "no durations") {
		t.Errorf("the page does not say a session has no durations")
	}
	if got := len(doc.all(classed("span", "dur"))); got != 0 {
		t.Errorf("a session's page shows %d durations, want none", got)
	}
	// Every tool message's content is shown with its call.
	for _, m := range msgs {
		if m.Role == openai.ChatMessageRoleTool && !strings.Contains(text, m.Content[:min(len(m.Content), 40)]) {
			t.Errorf("the result of %s is not shown", m.ToolCallID)
		}
	}
}

func TestSessionCallWithoutResult(t *testing.T) {
	msgs := []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleUser, Content: "hi"},
		{Role: openai.ChatMessageRoleAssistant, ToolCalls: []openai.ToolCall{{ID: "c1", Function: openai.FunctionCall{Name: "f", Arguments: "{}"}}}},
	}
	var b strings.Builder
	if err := WriteSession(&b, msgs, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(parse(t, b.String()).textContent(), "no result in the session") {
		t.Errorf("a call without a result in the session is not said to have none")
	}
}
