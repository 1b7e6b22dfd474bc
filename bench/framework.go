package bench

import (
	"context"

	"github.com/toolcall/toolcall/bench/internal/script"
)

// Run runs one user message through an agent and returns its final answer.
type Run func(ctx context.Context, input string) (string, error)

// Framework builds agents of one framework.
type Framework struct {
	Name string
	// Agent returns a run through an agent whose tools are s.Tools and whose model answers
	// from s: through the framework's model interface in process when url is "", or through
	// the framework's own OpenAI client pointed at url, the base URL (ending in /v1) of a
	// script.Handler serving s.
	Agent func(s *script.Script, url string) Run
	// Conversations are the ways the framework runs a long conversation (workload 4).
	Conversations []Conversation
}

// Conversation runs the whole conversation of c, turn after turn, with one way of keeping its
// history.
type Conversation struct {
	// Name is appended to the framework's name.
	Name string
	// Note says how the history is kept and what is sent to the model.
	Note string
	// New returns a function running the whole conversation on fresh state (store, counters),
	// with the model of Framework.Agent for c.Script and url.
	New func(c *script.Conversation, url string) func(ctx context.Context) error
	// Windowed is set when the model is sent a window of the latest turns rather than
	// everything: the ratio benchmarks compare these with the hand-written loop that sends
	// the same window, and the others with the one that sends everything.
	Windowed bool
}

// WindowBudget is the token budget of toolcall's memory.Window in the conversation workload:
// about script.WindowTurns turns fit in it (see TestWindowTurns).
const WindowBudget = 2000

// Frameworks returns every framework of this module, the floor first.
func Frameworks() []Framework {
	return []Framework{HandWritten(), Toolcall(), Fantasy(), FantasyStream(), OpenAIAgents(), Eino()}
}
