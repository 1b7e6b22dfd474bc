package agentkit_test

import (
	"context"
	"errors"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/tool"
)

// A strategy's view is checked whole before every request, also when it is the transcript
// itself: one that breaks its contract by editing an old message in place (here, emptying
// an old tool result, which providers reject) is refused with ErrInvalidHistory, and the
// model is never sent the broken history. (A review found that checking such a view only
// from the last check's end let it through.)
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

// OmittedFromContext is each run's own: a RunSession run from a tool of another RunSession
// whose session was loaded in part, loading its own session whole, reads 0 in its strategy,
// and so does a plain Run from such a tool. (A review found the outer count inherited
// through the tool's context: memory.Fold then refused the inner run's whole transcript.)
func TestOmittedFromContextIsTheInnerRunsOwn(t *testing.T) {
	outerHist := agentkit.History{
		Messages: []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleUser, Content: "task"},
			{Role: openai.ChatMessageRoleUser, Content: "latest question"},
			{Role: openai.ChatMessageRoleAssistant, Content: "latest answer"},
		},
		Omitted:    6,
		CallIDUsed: func(context.Context, string) bool { return false },
	}
	seen := map[string]int{}
	probe := func(name string) agentkit.ContextStrategy {
		return agentkit.ContextStrategyFunc(func(ctx context.Context, session string, msgs []openai.ChatCompletionMessage) ([]openai.ChatCompletionMessage, error) {
			seen[name] = agentkit.OmittedFromContext(ctx)
			return msgs, nil
		})
	}
	innerSession := agentkit.New(agentkittest.New(t, agentkittest.Text("inner")), &agentkit.Options{
		Memory: partialMemory{agentkit.History{}}, SessionTurns: 2, Context: probe("inner RunSession"),
	})
	innerRun := agentkit.New(agentkittest.New(t, agentkittest.Text("inner")), &agentkit.Options{Context: probe("inner Run")})
	sub := tool.New("sub", "runs sub-agents", func(ctx context.Context, in struct{}) (string, error) {
		if _, err := innerSession.RunSession(ctx, "inner", "sub-task"); err != nil {
			return "", err
		}
		res, err := innerRun.Run(ctx, "sub-task")
		return res.Output, err
	})
	outerModel := agentkittest.New(t, agentkittest.ToolCalls(agentkittest.Call("sub", "{}")), agentkittest.Text("done"))
	outer := agentkit.New(outerModel, &agentkit.Options{Memory: partialMemory{outerHist}, SessionTurns: 2, Tools: []*tool.Tool{sub}})
	if _, err := outer.RunSession(context.Background(), "outer", "go"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"inner RunSession", "inner Run"} {
		if n, ok := seen[name]; !ok {
			t.Errorf("%s: strategy not called", name)
		} else if n != 0 {
			t.Errorf("%s: OmittedFromContext = %d for a transcript loaded whole, want 0 (it is the outer session's)", name, n)
		}
	}
}

// The bound on the questions asked of History.CallIDUsed is per call: after a CallIDUsed
// that answered true a few times in a row (the store's database unable to tell for a
// while), a later call of the run is checked against the left-out messages again and does
// not keep an id that one of them uses. (A review found the bound reached once turned the
// question off for the rest of the run, and the session then held an id twice.)
func TestProbeBoundIsPerCall(t *testing.T) {
	outage := 9 // CallIDUsed cannot tell for its first 9 questions: the first call's probes
	h := agentkit.History{
		Messages: []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleUser, Content: "task"},
			{Role: openai.ChatMessageRoleUser, Content: "latest question"},
			{Role: openai.ChatMessageRoleAssistant, Content: "latest answer"},
		},
		Omitted: 6, // among them, a call with id "call_old"
		CallIDUsed: func(_ context.Context, id string) bool {
			if outage > 0 {
				outage--
				return true
			}
			return id == "call_old"
		},
	}
	noop := tool.New("noop", "does nothing", func(context.Context, struct{}) (string, error) { return "ok", nil })
	model := agentkittest.New(t,
		agentkittest.ToolCalls(agentkittest.CallID("fresh", "noop", "{}")),
		agentkittest.ToolCalls(agentkittest.CallID("call_old", "noop", `{"again":1}`)),
		agentkittest.Text("done"))
	a := agentkit.New(model, &agentkit.Options{Memory: partialMemory{h}, SessionTurns: 2, Tools: []*tool.Tool{noop}})
	res, err := a.RunSession(context.Background(), "s", "go")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range res.Messages[res.New:] {
		for _, c := range m.ToolCalls {
			if c.ID == "call_old" {
				t.Errorf("a call of the run kept id %q, which a message left out of the transcript uses (CallIDUsed was not asked after the first call's probes)", c.ID)
			}
		}
	}
}
