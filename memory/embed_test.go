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

func (r redacting) Load(ctx context.Context, session string, opts agentkit.LoadOptions) (agentkit.History, error) {
	h, err := r.InMemory.Load(ctx, session, opts)
	for i := range h.Messages {
		if h.Messages[i].Role == openai.ChatMessageRoleUser {
			h.Messages[i].Content = strings.ReplaceAll(h.Messages[i].Content, "hunter2", "[redacted]")
		}
	}
	return h, err
}

// TestRunSessionUsesOverriddenLoad: RunSession loads a session with the Memory's Load, also
// when a store embeds *InMemory to override it (a review found that an optional loading
// interface, promoted from the embedded store, skipped the override).
func TestRunSessionUsesOverriddenLoad(t *testing.T) {
	m := agentkittest.New(t, agentkittest.Text("noted"), agentkittest.Text("ok"))
	a := agentkit.New(m, &agentkit.Options{Memory: redacting{memory.NewInMemory()}})
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
}
