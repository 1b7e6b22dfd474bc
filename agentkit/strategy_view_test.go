package agentkit_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
)

// TestStrategyViewArgumentsChecked (a passing regression test): a
// ContextStrategy's result must pass ValidateHistory and the loop checks it (the
// ContextStrategy doc). A strategy that clears old tool call arguments to save tokens, writing
// text that is not a JSON object, breaks rule 4: the run stops with ErrInvalidHistory before
// the request. Commit 01233dc checked the view without its arguments, so the request went out
// with arguments that providers such as Qwen reject (this test failed); 80324d6 restored the
// full check.
func TestStrategyViewArgumentsChecked(t *testing.T) {
	history := []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleUser, Content: "weather?"},
		{Role: openai.ChatMessageRoleAssistant, ToolCalls: []openai.ToolCall{{ID: "c1", Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: "get_weather", Arguments: `{"city":"Paris"}`}}}},
		{Role: openai.ChatMessageRoleTool, ToolCallID: "c1", Content: "sunny"},
		{Role: openai.ChatMessageRoleAssistant, Content: "Sunny."},
		{Role: openai.ChatMessageRoleUser, Content: "thanks"},
	}
	clearArgs := agentkit.ContextStrategyFunc(func(_ context.Context, _ string, msgs []openai.ChatCompletionMessage) ([]openai.ChatCompletionMessage, error) {
		view := make([]openai.ChatCompletionMessage, len(msgs))
		copy(view, msgs)
		for i := range view {
			if len(view[i].ToolCalls) > 0 {
				calls := append([]openai.ToolCall(nil), view[i].ToolCalls...)
				for c := range calls {
					calls[c].Function.Arguments = "(cleared)"
				}
				view[i].ToolCalls = calls
			}
		}
		return view, nil
	})
	m := agentkittest.New(nil, agentkittest.Text("You're welcome."))
	a := agentkit.New(m, &agentkit.Options{Context: clearArgs})
	_, err := a.RunMessages(context.Background(), history)
	if n := len(m.Requests()); n != 0 {
		t.Errorf("the model was sent %d request(s) with arguments that are not JSON", n)
	}
	if !errors.Is(err, agentkit.ErrInvalidHistory) {
		t.Errorf("err = %v, want ErrInvalidHistory (the strategy's view breaks rule 4)", err)
	}
}

// With a context strategy, a history's arguments are checked where they are sent: broken
// arguments in a turn the strategy leaves out do not stop the run; in a turn it sends, they
// stop it before the request. Without a strategy the whole history is checked at the start.
func TestHistoryArgumentsCheckedWhereSent(t *testing.T) {
	broken := []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleUser, Content: "old question"},
		{Role: openai.ChatMessageRoleAssistant, ToolCalls: []openai.ToolCall{{ID: "old", Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: "get_weather", Arguments: `{"city": cut off`}}}},
		{Role: openai.ChatMessageRoleTool, ToolCallID: "old", Content: "result"},
		{Role: openai.ChatMessageRoleAssistant, Content: "answer"},
	}
	dropOld := agentkit.ContextStrategyFunc(func(_ context.Context, _ string, msgs []openai.ChatCompletionMessage) ([]openai.ChatCompletionMessage, error) {
		return msgs[len(msgs)-1:], nil // only the new question
	})
	keepAll := agentkit.ContextStrategyFunc(func(_ context.Context, _ string, msgs []openai.ChatCompletionMessage) ([]openai.ChatCompletionMessage, error) {
		return msgs, nil
	})
	tests := []struct {
		name     string
		strategy agentkit.ContextStrategy
		wantStop agentkit.StopReason
		requests int
	}{
		{"no strategy: refused at the start", nil, agentkit.StopInvalidHistory, 0},
		{"the strategy drops the broken turn", dropOld, agentkit.StopAnswered, 1},
		{"the strategy sends the broken turn: refused before the request", keepAll, agentkit.StopInvalidHistory, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := agentkittest.New(nil, agentkittest.Text("new answer"))
			var cs agentkit.ContextStrategy
			if tt.strategy != nil {
				cs = tt.strategy
			}
			a := agentkit.New(m, &agentkit.Options{Context: cs})
			res, _ := a.RunMessages(context.Background(), append(slices.Clone(broken), openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: "new question"}))
			if res.Stop != tt.wantStop || len(m.Requests()) != tt.requests {
				t.Errorf("stop %q after %d requests, want %q after %d", res.Stop, len(m.Requests()), tt.wantStop, tt.requests)
			}
		})
	}
}
