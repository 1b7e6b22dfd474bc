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

// A strategy's view is checked whole before every request, also when it is the transcript
// itself: one that breaks its contract by editing an old message in place (here, emptying
// an old tool result, which providers reject) is refused with ErrInvalidHistory, and the
// model is never sent the broken history.
func TestStrategyEditingInPlaceIsStillChecked(t *testing.T) {
	history := []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleUser, Content: "task"},
		{Role: openai.ChatMessageRoleAssistant, ToolCalls: []openai.ToolCall{{ID: "c1", Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "noop", Arguments: "{}"}}}},
		{Role: openai.ChatMessageRoleTool, ToolCallID: "c1", Content: "a long result"},
		{Role: openai.ChatMessageRoleAssistant, Content: "ok"},
		{Role: openai.ChatMessageRoleUser, Content: "next"},
	}
	clearInPlace := agentkit.ContextStrategyFunc(func(ctx context.Context, session string, msgs []openai.ChatCompletionMessage) ([]openai.ChatCompletionMessage, error) {
		for i := range msgs {
			if msgs[i].Role == openai.ChatMessageRoleTool && i < len(msgs)-1 {
				msgs[i].Content = "" // breaks "must not modify msgs"
			}
		}
		return msgs, nil
	})
	var sentInvalid error
	model := agentkit.ModelFunc(func(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		if err := agentkit.ValidateHistory(req.Messages); err != nil && sentInvalid == nil {
			sentInvalid = err
		}
		return openai.ChatCompletionResponse{Choices: []openai.ChatCompletionChoice{{Message: openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: "answer"}}}}, nil
	})
	a := agentkit.New(model, &agentkit.Options{Context: clearInPlace})
	_, err := a.RunMessages(context.Background(), history)
	if sentInvalid != nil {
		t.Errorf("the model was sent an invalid history: %v", sentInvalid)
	}
	if !errors.Is(err, agentkit.ErrInvalidHistory) {
		t.Errorf("err = %v, want ErrInvalidHistory", err)
	}
}

// TestStrategyViewArgumentsChecked: a
// ContextStrategy's result must pass ValidateHistory and the loop checks it (the
// ContextStrategy doc). A strategy that clears old tool call arguments to save tokens, writing
// text that is not a JSON object, breaks rule 4: the run stops with ErrInvalidHistory before
// the request: providers such as Qwen reject such arguments.
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

// A history a run starts from is checked whole, arguments included, with or without a
// strategy: nothing of a run on a broken history is stored, even when the strategy would
// leave the broken turn out.
func TestHistoryArgumentsCheckedAtStart(t *testing.T) {
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
	for name, cs := range map[string]agentkit.ContextStrategy{"no strategy": nil, "a strategy dropping the broken turn": dropOld} {
		t.Run(name, func(t *testing.T) {
			m := agentkittest.New(nil, agentkittest.Text("new answer"))
			a := agentkit.New(m, &agentkit.Options{Context: cs})
			res, _ := a.RunMessages(context.Background(), append(slices.Clone(broken), openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: "new question"}))
			if res.Stop != agentkit.StopInvalidHistory || len(m.Requests()) != 0 {
				t.Errorf("stop %q after %d requests, want %q before any", res.Stop, len(m.Requests()), agentkit.StopInvalidHistory)
			}
		})
	}
}

// A strategy's view is shorter than the transcript: what the loop checks after a request
// must start where the transcript ended, not where the view did (found by review: the answer
// to a trimmed history was refused as a bug when the view's length fell on a tool message).
func TestStrategyViewShorterThanTranscript(t *testing.T) {
	history := []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleSystem, Content: "system"},
		{Role: openai.ChatMessageRoleUser, Content: "weather?"},
		{Role: openai.ChatMessageRoleAssistant, ToolCalls: []openai.ToolCall{{ID: "c", Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: "get_weather", Arguments: `{"city":"Paris"}`}}}},
		{Role: openai.ChatMessageRoleTool, ToolCallID: "c", Content: "sunny"},
		{Role: openai.ChatMessageRoleAssistant, Content: "It is sunny."},
		{Role: openai.ChatMessageRoleUser, Content: "thanks"},
	}
	lastTwo := agentkit.ContextStrategyFunc(func(_ context.Context, _ string, msgs []openai.ChatCompletionMessage) ([]openai.ChatCompletionMessage, error) {
		return append([]openai.ChatCompletionMessage{msgs[0]}, msgs[len(msgs)-2:]...), nil
	})
	a := agentkit.New(agentkittest.New(t, agentkittest.Text("You are welcome.")), &agentkit.Options{Context: lastTwo})
	res, err := a.RunMessages(context.Background(), history)
	if err != nil || res.Stop != agentkit.StopAnswered {
		t.Fatalf("stop %q, %v; want an answer", res.Stop, err)
	}
}
