package memory_test

import (
	"context"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/memory"
)

// redacting wraps an InMemory by embedding it, the usual Go way to override one method:
// its Load redacts what users said before the history goes back to the model.
type redacting struct{ *memory.InMemory }

func (r redacting) Load(ctx context.Context, session string) ([]openai.ChatCompletionMessage, error) {
	msgs, err := r.InMemory.Load(ctx, session)
	redact(msgs)
	return msgs, err
}

// redactingRecent also overrides LoadRecent, which it would otherwise promote from the
// embedded InMemory: a RunSession with a TurnLimiter strategy loads with LoadRecent.
type redactingRecent struct{ redacting }

func (r redactingRecent) LoadRecent(ctx context.Context, session string, turns int) ([]openai.ChatCompletionMessage, int, error) {
	msgs, omitted, err := r.InMemory.LoadRecent(ctx, session, turns)
	redact(msgs)
	return msgs, omitted, err
}

func redact(msgs []openai.ChatCompletionMessage) {
	for i := range msgs {
		if msgs[i].Role == openai.ChatMessageRoleUser {
			msgs[i].Content = strings.ReplaceAll(msgs[i].Content, "hunter2", "[redacted]")
		}
	}
}

// RunSession loads a session with the loading methods of the Memory it is given, also when
// a store embeds *InMemory to override them: Load for a whole load, LoadRecent when the
// strategy is a TurnLimiter.
func TestRunSessionUsesOverriddenLoad(t *testing.T) {
	tests := []struct {
		name     string
		store    agentkit.Memory
		strategy agentkit.ContextStrategy
	}{
		{"Load", redacting{memory.NewInMemory()}, nil},
		{"Load with a budget window", redacting{memory.NewInMemory()}, memory.Window(memory.WindowOptions{Budget: 10_000})},
		{"LoadRecent", redactingRecent{redacting{memory.NewInMemory()}}, memory.Window(memory.WindowOptions{MaxTurns: 3})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := agentkittest.New(t, agentkittest.Text("noted"), agentkittest.Text("ok"))
			a := agentkit.New(m, &agentkit.Options{Memory: tt.store, Context: tt.strategy})
			ctx := context.Background()
			if _, err := a.RunSession(ctx, "s", "my password is hunter2"); err != nil {
				t.Fatal(err)
			}
			if _, err := a.RunSession(ctx, "s", "what next?"); err != nil {
				t.Fatal(err)
			}
			reqs := m.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests, want 2", len(reqs))
			}
			for _, msg := range reqs[1].Messages {
				if strings.Contains(msg.Content, "hunter2") {
					t.Errorf("the second run sent the history Load would have redacted: %q", msg.Content)
				}
			}
		})
	}
}
