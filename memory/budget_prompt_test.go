package memory_test

import (
	"context"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/memory"
	"github.com/toolcall/toolcall/tool"
)

// With FinalAnswerOnLimit, the tool-free last request ends with BudgetExhaustedPrompt, a user
// message, which the layout takes for the start of a new turn. Window{MaxTurns: 1} then keeps
// only that "turn": the last request carries the system prompt, the first user message and
// the budget prompt, and none of the tool calls and results the prompt tells the model to
// answer from ("the latest turn is always sent").
func TestWindowMaxTurnsKeepsTheTurnOfTheBudgetPrompt(t *testing.T) {
	weather := tool.New("get_weather", "weather of a city", func(ctx context.Context, in struct {
		City string `json:"city"`
	}) (string, error) {
		return in.City + ": sunny, 26°C", nil
	})
	for _, turns := range []int{1, 2} {
		m := agentkittest.New(t,
			agentkittest.ToolCalls(agentkittest.Call("get_weather", `{"city":"Shanghai"}`)),
			agentkittest.Text("Shanghai is sunny."), // the tool-free last request
		)
		a := agentkit.New(m, &agentkit.Options{
			Instructions: "You answer weather questions.", Tools: []*tool.Tool{weather},
			MaxIterations: 1, FinalAnswerOnLimit: true,
			Context: memory.Window(memory.WindowOptions{MaxTurns: turns}),
		})
		history := []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleUser, Content: "Hi, I need weather reports."},
			{Role: openai.ChatMessageRoleAssistant, Content: "Sure, which city?"},
			{Role: openai.ChatMessageRoleUser, Content: "Shanghai?"},
		}
		if _, err := a.RunMessages(context.Background(), history); err != nil {
			t.Fatal(err)
		}
		reqs := m.Requests()
		last := reqs[len(reqs)-1].Messages
		if last[len(last)-1].Content != agentkit.BudgetExhaustedPrompt {
			t.Fatalf("MaxTurns %d: the last request does not end with the budget prompt", turns)
		}
		var question, result bool
		for _, msg := range last {
			question = question || msg.Content == "Shanghai?"
			result = result || msg.Role == openai.ChatMessageRoleTool
		}
		if !question || !result {
			t.Errorf("MaxTurns %d: the last request lacks the current turn (its question: %v, its tool result: %v):\n%s",
				turns, question, result, agentkit.FormatTranscript(last))
		}
	}
}

// ClearToolResults keeps the results of the turn the budget prompt ends: they are what the
// model is told to answer from.
func TestClearToolResultsKeepsTheTurnOfTheBudgetPrompt(t *testing.T) {
	call := func(id string) openai.ChatCompletionMessage {
		return openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, ToolCalls: []openai.ToolCall{{ID: id, Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: "get_weather", Arguments: `{"city":"x"}`}}}}
	}
	result := func(id, content string) openai.ChatCompletionMessage {
		return openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: id, Content: content}
	}
	msgs := []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleSystem, Content: "system"},
		{Role: openai.ChatMessageRoleUser, Content: "first"},
		call("a"), result("a", "old result "+strings.Repeat("x", 200)),
		{Role: openai.ChatMessageRoleUser, Content: "second"},
		call("b"), result("b", "current result "+strings.Repeat("x", 200)),
		{Role: openai.ChatMessageRoleUser, Content: agentkit.BudgetExhaustedPrompt},
	}
	view, err := memory.ClearToolResults(1).Apply(context.Background(), "", msgs)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, m := range view {
		if m.Role == openai.ChatMessageRoleTool {
			got[m.ToolCallID] = m.Content
		}
	}
	if !strings.HasPrefix(got["b"], "current result") {
		t.Errorf("the result of the turn the budget prompt ends was cleared: %q", got["b"])
	}
	if strings.HasPrefix(got["a"], "old result") {
		t.Errorf("the older turn's result was kept: ClearToolResults(1) should clear it")
	}
}
