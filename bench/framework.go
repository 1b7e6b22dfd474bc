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
	// Agent returns a run through an agent whose model is s and whose tools are s.Tools.
	Agent func(s *script.Script) Run
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
	// New returns a function running the whole conversation on fresh state (store, counters).
	New func(c *script.Conversation) func(ctx context.Context) error
	// Windowed is set when the model is sent a window of the latest turns rather than
	// everything: BenchmarkRatioConversationWindowed compares these with the hand-written
	// loop that sends the same window.
	Windowed bool
}

// MaxIterations bounds the model calls of one run in every framework: the chain needs 21.
const MaxIterations = 30

// WindowBudget is the token budget of toolcall's memory.Window in the conversation workload;
// WindowTurns the number of turns the item- or turn-based limits of the peers keep, which is
// about what fits in that budget (see TestWindowTurns).
const (
	WindowBudget = 2000
	WindowTurns  = 20
)

// Frameworks returns every framework of this module, the floor first.
func Frameworks() []Framework {
	return []Framework{HandWritten(), Toolcall(), Fantasy(), FantasyStream(), OpenAIAgents(), Eino()}
}
