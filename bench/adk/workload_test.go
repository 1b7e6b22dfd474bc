package adk

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/toolcall/toolcall/bench/internal/script"
)

// TestWorkloads runs every workload once and checks the answers.
func TestWorkloads(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name  string
		s     *script.Script
		input string
		want  string
	}{
		{"round", script.Round(), script.Input, "83699.1"},
		{"sleep1", script.Sleeps(1), "sleep", "done"},
		{"sleep8", script.Sleeps(8), "sleep", "done"},
		{"chain", script.Chain(script.ChainLength), "chain", "ended at 20"},
	}
	for _, c := range cases {
		start := time.Now()
		out, err := Agent(c.s)(ctx, c.input)
		if err != nil || !strings.Contains(out, c.want) {
			t.Errorf("%s: got %q, %v; want an answer containing %q", c.name, out, err, c.want)
		}
		t.Logf("%s: %v", c.name, time.Since(start).Round(time.Millisecond))
	}
	if testing.Short() {
		return
	}
	conv := script.NewConversation(script.ConversationTurns)
	if err := Conversation(conv)(ctx); err != nil {
		t.Errorf("conversation: %v", err)
	}
	if n := conv.Misses.Load(); n > 0 {
		t.Errorf("conversation: %d requests without a known user message", n)
	}
}
