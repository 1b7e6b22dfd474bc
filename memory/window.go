package memory

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
)

// WindowOptions configures [Window]. At least one of Budget and MaxTurns must be set; with
// both, the view keeps the recent turns that meet both.
type WindowOptions struct {
	// Budget is the most tokens the messages of a request may cost, as Counter counts them
	// (see Counter.Messages). Leave room in the model's context window for the tool
	// definitions (Counter.Tools) and the reply. Zero means no token budget (MaxTurns alone).
	Budget int
	// Counter counts the tokens. Nil means NewCounter(""), the cl100k_base tokenizer. Unused
	// without a Budget.
	Counter *Counter
	// MaxTurns is the most recent turns a request carries besides the first user message,
	// which is always sent (a turn is a user message and everything up to the next one; the
	// replies to the first user message count as one). Zero means no limit.
	// A count costs nothing to compute, where a budget tokenizes every message once, but it
	// does not bound the size of a request: long tool results can still overflow.
	MaxTurns int
}

// Window returns a strategy that sends the system prompt, the first user message (the task,
// usually) and the most recent turns that fit in the budget (and number at most MaxTurns),
// dropping older turns whole. A turn is a user message and everything up to the next one,
// so a tool call is never sent without its results. The latest turn is always sent: when it
// does not fit with the system prompt and the first user message, Apply fails with an error
// wrapping [ErrBudgetTooSmall].
//
// Dropped turns are only left out of the request: the store keeps them, and [RecallTool]
// lets the model search them. With MaxTurns set the window is an agentkit.TurnLimiter: a
// RunSession on a store that loads in part (an agentkit.RecentLoader, as InMemory and
// memory/sqlite's Store are) loads only the first user message and the turns the window sends, so a run costs the
// same at turn 1,000 as at turn 20; a Budget alone cannot say how many turns it keeps, and
// the whole session is loaded. Window panics if Budget or MaxTurns is negative, or both are
// zero.
func Window(opts WindowOptions) agentkit.ContextStrategy {
	if opts.Budget < 0 || opts.MaxTurns < 0 || opts.Budget == 0 && opts.MaxTurns == 0 {
		panic("memory.Window: set a positive Budget or MaxTurns, got Budget " + strconv.Itoa(opts.Budget) + ", MaxTurns " + strconv.Itoa(opts.MaxTurns))
	}
	if opts.Counter == nil && opts.Budget > 0 {
		opts.Counter = NewCounter("")
	}
	return &window{opts}
}

// TurnLimit returns MaxTurns: a view never carries more turns (agentkit.TurnLimiter).
func (w *window) TurnLimit() int { return w.opts.MaxTurns }

type window struct{ opts WindowOptions }

func (w *window) Apply(ctx context.Context, session string, msgs []openai.ChatCompletionMessage) ([]openai.ChatCompletionMessage, error) {
	l := newLayout(msgs)
	if l.first < 0 || len(l.units) == 0 {
		if w.opts.Budget > 0 {
			if n := w.opts.Counter.Messages(msgs); n > w.opts.Budget {
				return nil, fmt.Errorf("%w: window: the history has no turn to drop and needs %d tokens, the budget is %d", ErrBudgetTooSmall, n, w.opts.Budget)
			}
		}
		return clip3(msgs), nil
	}
	from := 0 // the first unit kept
	if w.opts.MaxTurns > 0 {
		from = l.keepFrom(w.opts.MaxTurns)
	}
	if w.opts.Budget > 0 {
		kept := w.opts.Counter.Messages(msgs[:l.first+1])
		first := from
		from = len(l.units)
		for u := len(l.units) - 1; u >= first; u-- {
			n := w.opts.Counter.sum(msgs[l.start(u):l.start(u+1)])
			if kept+n > w.opts.Budget {
				if u == len(l.units)-1 {
					return nil, fmt.Errorf("%w: window: the system prompt, the first user message and the latest turn need %d tokens, the budget is %d", ErrBudgetTooSmall, kept+n, w.opts.Budget)
				}
				break
			}
			kept += n
			from = u
		}
	}
	if l.start(from) == l.first+1 {
		// Nothing to drop (the units before from are empty): a transcript loaded in part
		// holds no more than the window sends.
		return clip3(msgs), nil
	}
	return slices.Concat(msgs[:l.first+1], msgs[l.start(from):]), nil
}

// clip3 returns msgs with no spare capacity, so that appending to a view never writes into
// the caller's array.
func clip3(msgs []openai.ChatCompletionMessage) []openai.ChatCompletionMessage {
	return msgs[:len(msgs):len(msgs)]
}
