package memory

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
)

// WindowOptions configures [Window]. At least one of Budget and MaxTurns must be set; with
// both, the view keeps the recent turns that meet both.
//
// A window keeps the prompt cache warm: providers bill the part of a request that repeats
// the previous request's beginning at a tenth of the price or less, and a window that drops
// one old turn per request changes that beginning every time. So the window drops old turns
// in blocks (Block, Target), and sends between two blocks a view that only grows at its end.
type WindowOptions struct {
	// Budget is the most tokens the messages of a request may cost, as Counter counts them
	// (see Counter.Messages). Leave room in the model's context window for the tool
	// definitions (Counter.Tools) and the reply. Zero means no token budget (MaxTurns alone).
	Budget int
	// Target is what the window brings the view down to when it passes Budget: the turns
	// are followed from the oldest to the latest, and whenever the view would cost more than
	// Budget its oldest turns are dropped until it costs at most Target (or only the latest
	// turn is left), so that the next turns fit without another cut. Zero means Budget/2;
	// Target == Budget drops as few turns as fit. Must not exceed Budget; unused without one.
	Target int
	// Counter counts the tokens. Nil means NewCounter(""), the cl100k_base tokenizer. Unused
	// without a Budget.
	Counter *Counter
	// MaxTurns is the most recent turns a request carries besides the first user message,
	// which is always sent (a turn is a user message and everything up to the next one; the
	// replies to the first user message count as one). Zero means no limit.
	// A count costs nothing to compute, where a budget tokenizes every message once, but it
	// does not bound the size of a request: long tool results can still overflow.
	MaxTurns int
	// Block is how far below MaxTurns the view may fall: it carries between MaxTurns-Block+1
	// and MaxTurns turns, and its first turn moves about every Block/2 turns, by as many,
	// rather than on every turn. Zero means MaxTurns/2 (at least 1); 1 keeps exactly the
	// latest MaxTurns turns; more than MaxTurns means MaxTurns. Unused without MaxTurns.
	Block int
}

// Window returns a strategy that sends the system prompt, the first user message (the task,
// usually) and the most recent turns that fit in the budget (and number at most MaxTurns),
// dropping older turns whole. A turn is a user message and everything up to the next one,
// so a tool call is never sent without its results. The latest turn is always sent: when it
// does not fit with the system prompt and the first user message, Apply fails with an error
// wrapping [ErrBudgetTooSmall]. After a [Fold] in a [Chain], the fold's summary, which
// follows the first user message, is kept with it: it counts in the Budget, not as a turn.
//
// Where the view starts is decided from the history alone, by a rule that gives the same
// answer for a history and for the same history with a turn more, except when the window
// must move: no state is kept, so the view is the same after a restart, in any process, and
// for a session loaded in part. With MaxTurns, the first turn kept is chosen among the Block
// oldest turns that may be kept, as the one whose boundary has the least fingerprint (a hash
// of the messages around it, tool results excepted): as the session grows, that turn stays
// the first one until it is older than MaxTurns turns, or a turn with a smaller fingerprint
// becomes a candidate. It needs no turn number, which a session loaded in part does not
// have. (Turns that are byte for byte the same, tool call ids included, have the same
// fingerprint: a session of nothing else moves the window on every turn, as Block 1 does.)
// With a Budget, the window follows the turns in order from the oldest it may keep and cuts
// as Target says, so the cut for a history is the one for its previous turns unless the
// budget forced it to move. That walk looks up the count of every message it passes (the
// Counter caches them): with a Budget alone, the whole history on every request, about 0.5 ms
// at 1,000 turns and 7 ms at 10,000 (50,000 messages, BenchmarkLongSessionRequest), and
// RunSession loads the whole session too; with MaxTurns, only what MaxTurns keeps.
//
// Dropped turns are only left out of the request: the store keeps them, and [RecallTool]
// lets the model search them. With MaxTurns set the window is an agentkit.TurnLimiter: a
// RunSession on a store that loads in part (an agentkit.RecentLoader, as InMemory and
// memory/sqlite's Store are) loads only the first user message and the turns the window may
// send, and the one before them, so a run costs the same at turn 1,000 as at turn 20; a Budget alone cannot say how many turns it keeps, and
// the whole session is loaded. Window panics if Budget, MaxTurns or Block is negative, both
// Budget and MaxTurns are zero, or Target is negative or above Budget.
func Window(opts WindowOptions) agentkit.ContextStrategy {
	if opts.Budget < 0 || opts.MaxTurns < 0 || opts.Budget == 0 && opts.MaxTurns == 0 {
		panic("memory.Window: set a positive Budget or MaxTurns, got Budget " + strconv.Itoa(opts.Budget) + ", MaxTurns " + strconv.Itoa(opts.MaxTurns))
	}
	if opts.Block < 0 || opts.Target < 0 || opts.Target > opts.Budget {
		panic(fmt.Sprintf("memory.Window: Block must not be negative, and Target between 0 and Budget (%d); got Block %d, Target %d", opts.Budget, opts.Block, opts.Target))
	}
	if opts.Counter == nil && opts.Budget > 0 {
		opts.Counter = NewCounter("")
	}
	if opts.Target == 0 {
		opts.Target = opts.Budget / 2
	}
	if opts.Block == 0 {
		opts.Block = max(opts.MaxTurns/2, 1)
	}
	opts.Block = min(opts.Block, opts.MaxTurns)
	return &window{opts}
}

// TurnLimit returns MaxTurns+1 (agentkit.TurnLimiter): a view never carries more than
// MaxTurns turns, and the choice of its first turn reads the turn before it.
func (w *window) TurnLimit() int {
	if w.opts.MaxTurns == 0 {
		return 0
	}
	return w.opts.MaxTurns + 1
}

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
	// The head is always sent: what precedes the first user message, that message, and a
	// Fold's summary right after it, when the window follows a Fold in a Chain (the summary
	// is unit 0 there, and stands for the turns the window drops).
	head, from := l.first+1, 0 // from: the first unit kept
	if isSummaryUnit(msgs, &l) {
		head, from = l.start(1), 1
	}
	if e := l.keepFrom(w.opts.MaxTurns); w.opts.MaxTurns > 0 && e > 0 {
		from = l.stableCut(msgs, e, min(e+w.opts.Block-1, len(l.units)-1))
	}
	if w.opts.Budget > 0 {
		var err error
		if from, err = w.budgetCut(msgs, &l, head, from); err != nil {
			return nil, err
		}
	}
	if l.start(from) == head {
		// Nothing to drop (the units before from are empty): a transcript loaded in part
		// holds no more than the window sends.
		return clip3(msgs), nil
	}
	return slices.Concat(msgs[:head], msgs[l.start(from):]), nil
}

// isSummaryUnit reports whether unit 0 of msgs is a Fold's summary message alone, as in the
// view Fold returns after a fold.
func isSummaryUnit(msgs []openai.ChatCompletionMessage, l *layout) bool {
	if len(l.units) < 2 || l.start(1) != l.first+2 {
		return false
	}
	m := &msgs[l.first+1]
	return m.Role == openai.ChatMessageRoleAssistant && len(m.ToolCalls) == 0 && strings.HasPrefix(m.Content, SummaryPrefix+"\n")
}

// budgetCut returns the first unit kept within the budget, from unit from on, the messages
// before index headEnd always sent: it follows the units in order, and whenever the view passes
// Budget it drops the oldest ones until the view costs at most Target, never the unit that
// made it pass.
func (w *window) budgetCut(msgs []openai.ChatCompletionMessage, l *layout, headEnd, from int) (int, error) {
	c := w.opts.Counter
	head := c.Messages(msgs[:headEnd])
	tokens := make([]int, len(l.units))
	cut, kept := from, head
	for u := from; u < len(l.units); u++ {
		tokens[u] = c.sum(msgs[l.start(u):l.start(u+1)])
		kept += tokens[u]
		if kept <= w.opts.Budget {
			continue
		}
		for cut < u && kept > w.opts.Target {
			kept -= tokens[cut]
			cut++
		}
	}
	if kept > w.opts.Budget {
		return 0, fmt.Errorf("%w: window: the system prompt, the first user message (and a fold's summary) and the latest turn need %d tokens, the budget is %d", ErrBudgetTooSmall, kept, w.opts.Budget)
	}
	return cut, nil
}

// clip3 returns msgs with no spare capacity, so that appending to a view never writes into
// the caller's array.
func clip3(msgs []openai.ChatCompletionMessage) []openai.ChatCompletionMessage {
	return msgs[:len(msgs):len(msgs)]
}
