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

// budgetWeather is the tool of the budget prompt tests.
func budgetWeather() *tool.Tool {
	return tool.New("get_weather", "weather of a city", func(ctx context.Context, in struct {
		City string `json:"city"`
	}) (string, error) {
		return in.City + ": sunny, 26°C " + strings.Repeat("and more details ", 20), nil
	})
}

// With FinalAnswerOnLimit, the tool-free last request ends with BudgetExhaustedPrompt, which
// tells the model to answer from what it already has: the strategy's view before it still
// carries the current turn, its question and its tool results whole, however few turns the
// strategy keeps.
func TestStrategiesKeepTheTurnTheBudgetPromptEnds(t *testing.T) {
	tests := []struct {
		name     string
		strategy agentkit.ContextStrategy
		wantOld  string // the older turn's tool result in the last request: "dropped", "whole" or "cleared"
	}{
		{"Window MaxTurns 1", memory.Window(memory.WindowOptions{MaxTurns: 1}), "dropped"},
		{"Window MaxTurns 2", memory.Window(memory.WindowOptions{MaxTurns: 2}), "whole"},
		{"ClearToolResults 1", memory.ClearToolResults(1), "whole"}, // cleared in blocks of 3 turns: not yet
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := agentkittest.New(t,
				agentkittest.ToolCalls(agentkittest.CallID("call_new", "get_weather", `{"city":"Shanghai"}`)),
				agentkittest.Text("Shanghai is sunny."), // the tool-free last request
			)
			a := agentkit.New(m, &agentkit.Options{
				Instructions: "You answer weather questions.", Tools: []*tool.Tool{budgetWeather()},
				MaxIterations: 1, FinalAnswerOnLimit: true,
				Context: tt.strategy,
			})
			history := []openai.ChatCompletionMessage{
				{Role: openai.ChatMessageRoleUser, Content: "Hi, I need weather reports."},
				{Role: openai.ChatMessageRoleAssistant, ToolCalls: []openai.ToolCall{{ID: "call_old", Type: openai.ToolTypeFunction,
					Function: openai.FunctionCall{Name: "get_weather", Arguments: `{"city":"Beijing"}`}}}},
				{Role: openai.ChatMessageRoleTool, ToolCallID: "call_old", Content: "Beijing: sunny " + strings.Repeat("and more details ", 20)},
				{Role: openai.ChatMessageRoleAssistant, Content: "Beijing is sunny. Which city next?"},
				{Role: openai.ChatMessageRoleUser, Content: "Shanghai?"},
			}
			res, err := a.RunMessages(context.Background(), history)
			if err != nil || res.Stop != agentkit.StopIterationLimit {
				t.Fatalf("RunMessages = %v, %v; want StopIterationLimit and no error", res.Stop, err)
			}
			reqs := m.Requests()
			last := reqs[len(reqs)-1].Messages
			if last[len(last)-1].Content != agentkit.BudgetExhaustedPrompt {
				t.Fatalf("the last request does not end with the budget prompt:\n%s", agentkit.FormatTranscript(last))
			}
			var question, result bool
			old := "dropped"
			for _, msg := range last {
				question = question || msg.Content == "Shanghai?"
				result = result || msg.ToolCallID == "call_new" && strings.HasPrefix(msg.Content, "Shanghai: sunny")
				if msg.ToolCallID == "call_old" {
					old = "cleared"
					if strings.HasPrefix(msg.Content, "Beijing: sunny") {
						old = "whole"
					}
				}
			}
			if old != tt.wantOld {
				t.Errorf("the older turn's tool result is %s in the last request, want %s:\n%s", old, tt.wantOld, agentkit.FormatTranscript(last))
			}
			if !question || !result {
				t.Errorf("the last request lacks the current turn (its question: %v, its whole tool result: %v):\n%s",
					question, result, agentkit.FormatTranscript(last))
			}
		})
	}
}

// The budget prompt belongs to the last request only: neither Result.Messages nor the
// session holds it, so no later run tells the model it may not call tools.
func TestSessionNeverStoresTheBudgetPrompt(t *testing.T) {
	ctx := context.Background()
	store := memory.NewInMemory()
	m := agentkittest.New(t,
		agentkittest.ToolCalls(agentkittest.Call("get_weather", `{"city":"Shanghai"}`)),
		agentkittest.Text("Shanghai is sunny."), // the tool-free last request
		agentkittest.Text("You are welcome."),   // the next run
	)
	a := agentkit.New(m, &agentkit.Options{
		Tools: []*tool.Tool{budgetWeather()}, Memory: store,
		MaxIterations: 1, FinalAnswerOnLimit: true,
		Context: memory.Window(memory.WindowOptions{MaxTurns: 2}),
	})
	res, err := a.RunSession(ctx, "s", "Shanghai?")
	if err != nil {
		t.Fatal(err)
	}
	if reqs := m.Requests(); len(reqs) != 2 || !hasBudgetPrompt(reqs[1].Messages) {
		t.Fatalf("%d requests; want 2, the last with the budget prompt", len(reqs))
	}
	if hasBudgetPrompt(res.Messages) {
		t.Errorf("Result.Messages holds the budget prompt:\n%s", agentkit.FormatTranscript(res.Messages))
	}
	if _, err := a.RunSession(ctx, "s", "Thanks!"); err != nil {
		t.Fatal(err)
	}
	if reqs := m.Requests(); hasBudgetPrompt(reqs[len(reqs)-1].Messages) {
		t.Errorf("the next run's request carries the budget prompt:\n%s", agentkit.FormatTranscript(reqs[len(reqs)-1].Messages))
	}
	stored, err := store.Load(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if hasBudgetPrompt(stored) {
		t.Errorf("the session stores the budget prompt:\n%s", agentkit.FormatTranscript(stored))
	}
	if got, want := len(stored), 6; got != want { // user, call, result, answer, user, answer
		t.Errorf("the session stores %d messages, want %d:\n%s", got, want, agentkit.FormatTranscript(stored))
	}
}

func hasBudgetPrompt(msgs []openai.ChatCompletionMessage) bool {
	for _, m := range msgs {
		if m.Content == agentkit.BudgetExhaustedPrompt {
			return true
		}
	}
	return false
}
