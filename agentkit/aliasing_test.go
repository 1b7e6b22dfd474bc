package agentkit_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/tool"
)

// perfReviewMemory is a minimal agentkit.Memory that records every Append.
type perfReviewMemory struct {
	mu       sync.Mutex
	sessions map[string][]openai.ChatCompletionMessage
	appends  int
}

func (m *perfReviewMemory) Load(_ context.Context, s string, _ agentkit.LoadOptions) (agentkit.History, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return agentkit.History{Messages: slices.Clone(m.sessions[s])}, nil
}

func (m *perfReviewMemory) Append(_ context.Context, s string, msgs []openai.ChatCompletionMessage) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.appends++
	m.sessions[s] = append(m.sessions[s], msgs...)
	return nil
}

// TestSessionBrokenArgumentsStoreNothing: a stored history whose tool call arguments are not
// a JSON object, run with a context strategy that sends that turn. The run is refused
// (StopInvalidHistory) without a request either way; before 7542c53 the history was refused
// at the start with r.sessioned = false ("nothing of a run on a broken history is stored").
// Now the structure-only start check passes, the loop persists the new user message, and only
// the view check refuses the run: every retry of RunSession leaves one more unanswered user
// message in the store.
func TestSessionBrokenArgumentsStoreNothing(t *testing.T) {
	stored := []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleUser, Content: "old question"},
		{Role: openai.ChatMessageRoleAssistant, ToolCalls: []openai.ToolCall{{ID: "old", Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: "get_weather", Arguments: `{"city": cut off`}}}},
		{Role: openai.ChatMessageRoleTool, ToolCallID: "old", Content: "result"},
		{Role: openai.ChatMessageRoleAssistant, Content: "answer"},
	}
	keepAll := agentkit.ContextStrategyFunc(func(_ context.Context, _ string, msgs []openai.ChatCompletionMessage) ([]openai.ChatCompletionMessage, error) {
		return msgs, nil
	})
	mem := &perfReviewMemory{sessions: map[string][]openai.ChatCompletionMessage{"s": slices.Clone(stored)}}
	m := agentkittest.New(nil, agentkittest.Text("new answer"))
	a := agentkit.New(m, &agentkit.Options{Memory: mem, Context: keepAll})
	res, _ := a.RunSession(context.Background(), "s", "new question")
	if res.Stop != agentkit.StopInvalidHistory || len(m.Requests()) != 0 {
		t.Fatalf("stop %q after %d requests, want %q after 0", res.Stop, len(m.Requests()), agentkit.StopInvalidHistory)
	}
	if got := mem.sessions["s"]; mem.appends != 0 || len(got) != len(stored) {
		t.Errorf("a run refused for its history stored %d message(s) in %d Append call(s); want nothing stored", len(got)-len(stored), mem.appends)
	}
}

// TestStepMessageDoesNotAliasTranscript: Result.Steps[i].Message is "the model's message as
// received", Result.Messages the transcript (for a Conversation, what the next turns send).
// Since 8358fc7 normalize keeps a reply's ToolCalls array when it changes none of the calls,
// so the two share it: redacting the arguments of a step (for a log or a trace) rewrites the
// transcript, and the next turn of the conversation sends the redacted text to the model.
// Before, the transcript always had its own copy.
func TestStepMessageDoesNotAliasTranscript(t *testing.T) {
	m := agentkittest.New(nil,
		agentkittest.ToolCalls(agentkittest.CallID("c1", "get_weather", `{"city":"Paris"}`)),
		agentkittest.Text("Sunny."),
		agentkittest.Text("Bye."),
	)
	a := agentkit.New(m, &agentkit.Options{Tools: []*tool.Tool{weatherTool()}})
	conv, err := a.NewConversation()
	if err != nil {
		t.Fatal(err)
	}
	res, err := conv.Run(context.Background(), "weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Steps) == 0 || len(res.Steps[0].Message.ToolCalls) != 1 {
		t.Fatalf("steps %+v: want a first step with one call", res.Steps)
	}
	res.Steps[0].Message.ToolCalls[0].Function.Arguments = `{"city":"[redacted]"}`
	if _, err := conv.Run(context.Background(), "thanks"); err != nil {
		t.Fatal(err)
	}
	reqs := m.Requests()
	for _, msg := range reqs[len(reqs)-1].Messages {
		for _, c := range msg.ToolCalls {
			if c.Function.Arguments != `{"city":"Paris"}` {
				t.Errorf("the next turn sent the call's arguments as %s: editing Result.Steps changed the conversation's transcript", c.Function.Arguments)
			}
		}
	}
}
