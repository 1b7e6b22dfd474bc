package memory

import (
	"context"
	"fmt"
	"strconv"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
)

// WindowOptions configures [Window].
type WindowOptions struct {
	// Budget is the most tokens the messages of a request may cost, as Counter counts them
	// (see Counter.Messages). Leave room in the model's context window for the tool
	// definitions (Counter.Tools) and the reply. Required.
	Budget int
	// Counter counts the tokens. Nil means NewCounter(""), the cl100k_base tokenizer.
	Counter *Counter
}

// Window returns a strategy that sends the system prompt, the first user message (the task,
// usually) and the most recent turns that fit in the budget, dropping older turns whole. A
// turn is a user message and everything up to the next one, so a tool call is never sent
// without its results. The latest turn is always sent: when it does not fit with the system
// prompt and the first user message, Apply fails with an error wrapping [ErrBudgetTooSmall].
//
// Dropped turns are only left out of the request: the transcript and the store keep them,
// and [RecallTool] lets the model search them. Window panics if Budget is not positive.
func Window(opts WindowOptions) agentkit.ContextStrategy {
	if opts.Budget <= 0 {
		panic("memory.Window: Budget must be positive, got " + strconv.Itoa(opts.Budget))
	}
	w := &window{budget: opts.Budget, counter: opts.Counter}
	if w.counter == nil {
		w.counter = NewCounter("")
	}
	return w
}

type window struct {
	budget  int
	counter *Counter
}

func (w *window) Apply(ctx context.Context, session string, msgs []openai.ChatCompletionMessage) ([]openai.ChatCompletionMessage, error) {
	l := newLayout(msgs)
	if l.first < 0 || len(l.units) == 0 {
		if n := w.counter.Messages(msgs); n > w.budget {
			return nil, fmt.Errorf("%w: window: the history has no turn to drop and needs %d tokens, the budget is %d", ErrBudgetTooSmall, n, w.budget)
		}
		return clip3(msgs), nil
	}
	kept := w.counter.Messages(msgs[:l.first+1])
	from := len(l.units) // the first unit kept
	for u := len(l.units) - 1; u >= 0; u-- {
		n := 0
		for i := l.start(u); i < l.start(u+1); i++ {
			n += w.counter.message(&msgs[i])
		}
		if kept+n > w.budget {
			if u == len(l.units)-1 {
				return nil, fmt.Errorf("%w: window: the system prompt, the first user message and the latest turn need %d tokens, the budget is %d", ErrBudgetTooSmall, kept+n, w.budget)
			}
			break
		}
		kept += n
		from = u
	}
	if from == 0 {
		return clip3(msgs), nil
	}
	view := make([]openai.ChatCompletionMessage, 0, l.first+1+len(msgs)-l.start(from))
	view = append(view, msgs[:l.first+1]...)
	return append(view, msgs[l.start(from):]...), nil
}

// clip3 returns msgs with no spare capacity, so that appending to a view never writes into
// the caller's array.
func clip3(msgs []openai.ChatCompletionMessage) []openai.ChatCompletionMessage {
	return msgs[:len(msgs):len(msgs)]
}
