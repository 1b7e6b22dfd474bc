package agentkit_test

import (
	"context"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
)

// partialMemory loads a History as given (a copy of its messages) and stores nothing.
type partialMemory struct{ h agentkit.History }

func (m partialMemory) Load(context.Context, string, agentkit.LoadOptions) (agentkit.History, error) {
	h := m.h
	h.Messages = append([]openai.ChatCompletionMessage(nil), h.Messages...)
	return h, nil
}

func (partialMemory) Append(context.Context, string, []openai.ChatCompletionMessage) error {
	return nil
}

// A context strategy learns from its context how many messages the Memory left out of the
// transcript it is given (and Result.Omitted says it too); 0 when the session was loaded
// whole.
func TestOmittedFromContext(t *testing.T) {
	msgs := []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleUser, Content: "task"},
		{Role: openai.ChatMessageRoleUser, Content: "latest question"},
		{Role: openai.ChatMessageRoleAssistant, Content: "latest answer"},
	}
	for _, omitted := range []int{0, 6} {
		h := agentkit.History{Messages: msgs, Omitted: omitted, CallIDUsed: func(context.Context, string) bool { return false }}
		var seen, seenOmitted int
		strategy := agentkit.ContextStrategyFunc(func(ctx context.Context, session string, msgs []openai.ChatCompletionMessage) ([]openai.ChatCompletionMessage, error) {
			seen, seenOmitted = len(msgs), agentkit.OmittedFromContext(ctx)
			return msgs, nil
		})
		model := agentkittest.New(t, agentkittest.Text("ok"))
		a := agentkit.New(model, &agentkit.Options{Memory: partialMemory{h}, SessionTurns: 2, Context: strategy})
		res, err := a.RunSession(context.Background(), "s", "new question")
		if err != nil {
			t.Fatal(err)
		}
		if got, want := [3]int{seen, seenOmitted, res.Omitted}, [3]int{len(msgs) + 1, omitted, omitted}; got != want {
			t.Errorf("Omitted %d: the strategy saw %d messages and OmittedFromContext %d, Result.Omitted %d; want %v", omitted, got[0], got[1], got[2], want)
		}
	}
	if n := agentkit.OmittedFromContext(context.Background()); n != 0 {
		t.Errorf("OmittedFromContext outside a run = %d, want 0", n)
	}
}
