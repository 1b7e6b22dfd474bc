package adk

import (
	"strings"
	"testing"
	"time"

	"github.com/toolcall/toolcall/bench/internal/script"
	"github.com/toolcall/toolcall/bench/internal/script/measure"
)

// TestWorkloads runs every workload once, in process and through HTTP, and checks the
// answers.
func TestWorkloads(t *testing.T) {
	ctx := measure.Context(t)
	for _, overHTTP := range []bool{false, true} {
		name := "inprocess"
		if overHTTP {
			name = "http"
		}
		t.Run(name, func(t *testing.T) {
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
				out, err := Agent(c.s, measure.Endpoint(t, c.s, overHTTP))(ctx, c.input)
				if err != nil || !strings.Contains(out, c.want) {
					t.Errorf("%s: got %q, %v; want an answer containing %q", c.name, out, err, c.want)
				}
				t.Logf("%s: %v", c.name, time.Since(start).Round(time.Millisecond))
			}
			if testing.Short() {
				return
			}
			conv := script.NewConversation(script.ConversationTurns)
			start := time.Now()
			if err := Conversation(conv, measure.Endpoint(t, conv.Script, overHTTP))(ctx); err != nil {
				t.Errorf("conversation: %v", err)
			}
			t.Logf("conversation: %v", time.Since(start).Round(time.Millisecond))
			if n := conv.Misses.Load(); n > 0 {
				t.Errorf("conversation: %d requests without a known user message", n)
			}
		})
	}
}
