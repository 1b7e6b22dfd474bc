package trace

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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

// TestSessionReusedCallIDs: a session from a provider that numbers its calls per turn
// (call_0 in every reply) shows each call with its own turn's result.
func TestSessionReusedCallIDs(t *testing.T) {
	call := func(args string) []openai.ToolCall {
		return []openai.ToolCall{{ID: "call_0", Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "f", Arguments: args}}}
	}
	msgs := []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleUser, Content: "hi"},
		{Role: openai.ChatMessageRoleAssistant, ToolCalls: call(`{"n":1}`)},
		{Role: openai.ChatMessageRoleTool, ToolCallID: "call_0", Content: "first result"},
		{Role: openai.ChatMessageRoleAssistant, ToolCalls: call(`{"n":2}`)},
		{Role: openai.ChatMessageRoleTool, ToolCallID: "call_0", Content: "second result"},
		{Role: openai.ChatMessageRoleAssistant, ToolCalls: call(`{"n":3}`)},
		{Role: openai.ChatMessageRoleAssistant, Content: "done"},
	}
	var b strings.Builder
	if err := WriteSession(&b, msgs, nil); err != nil {
		t.Fatal(err)
	}
	doc := parse(t, b.String())
	var got []string
	for _, c := range doc.all(classed("details", "call")) {
		texts := c.all(classed("pre", "text"))
		got = append(got, texts[0].textContent()+" → "+texts[len(texts)-1].textContent()+" ("+c.all(classed("span", "badge"))[0].textContent()+")")
	}
	want := []string{`{"n":1} → first result (ok)`, `{"n":2} → second result (ok)`, `{"n":3} →  (no result in the session)`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the calls and their results (-want +got):\n%s", diff)
	}
	ids := map[string]bool{}
	for _, n := range doc.all(func(n *node) bool { return n.attr["id"] != "" }) {
		if ids[n.attr["id"]] {
			t.Errorf("two elements have the id %q", n.attr["id"])
		}
		ids[n.attr["id"]] = true
	}
}
