package middleware

import (
	"context"
	"sync"

	"github.com/toolcall/toolcall/agentkit"
)

// budgetFloor is the number of characters a result keeps even when the budget is spent, so
// the model always sees the start of every result and the marker saying it was cut.
const budgetFloor = 200

// Budget is a number of characters that the results of several calls share: the calls of one
// turn, or of a whole run. [Truncate] draws on the Budget carried by the call's context: each
// result keeps at most min(limit, what is left) characters, and at least 200 (or limit, if
// smaller) so that no result is reduced to nothing; what it keeps is subtracted. The budget
// can thus be overshot by at most 200 characters per call once it is spent.
//
// The calls of one turn run concurrently, so they draw first come, first served: the results
// that arrive first keep more. Which ones those are depends on timing, not on the order the
// model emitted the calls. (A deterministic split would need every result of the turn before
// cutting any, which only the agent loop sees; a middleware sees one call at a time.)
//
// A Budget belongs to one run: create it per run and put it in the run's context, since an
// Agent and its middleware are shared by concurrent runs. It covers the whole run unless it
// is reset; to make it a per-turn budget, reset it before each model request, which
// [ResetBudgetEachTurn] does as an agentkit.OnEvent:
//
//	agent := agentkit.New(model, &agentkit.Options{
//		Middleware: []tool.Middleware{middleware.Truncate(4000)},
//		OnEvent:    middleware.ResetBudgetEachTurn,
//	})
//	ctx = middleware.WithBudget(ctx, middleware.NewBudget(10000)) // per run
//	res, err := agent.Run(ctx, input)
//
// A Budget is safe for concurrent use. The zero Budget has nothing left.
type Budget struct {
	mu   sync.Mutex
	size int
	left int
}

// NewBudget returns a Budget of chars characters.
func NewBudget(chars int) *Budget { return &Budget{size: chars, left: chars} }

// Reset restores the budget to its full size.
func (b *Budget) Reset() {
	b.mu.Lock()
	b.left = b.size
	b.mu.Unlock()
}

// Remaining returns the characters left.
func (b *Budget) Remaining() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.left
}

// take reserves room for a result of n characters under a per-call limit and returns how
// many characters it may keep.
func (b *Budget) take(n, limit, floor int) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	allowed := min(limit, max(b.left, floor))
	b.left = max(0, b.left-min(n, allowed))
	return allowed
}

type budgetKey struct{}

// WithBudget returns a context carrying b, for [Truncate] to draw on.
func WithBudget(ctx context.Context, b *Budget) context.Context {
	return context.WithValue(ctx, budgetKey{}, b)
}

// BudgetFromContext returns the Budget carried by ctx, or nil.
func BudgetFromContext(ctx context.Context) *Budget {
	b, _ := ctx.Value(budgetKey{}).(*Budget)
	return b
}

// ResetBudgetEachTurn is an agentkit.OnEvent that resets the run's [Budget] (if its context
// carries one) when a model request is about to be sent, before any call of the turn it
// answers runs, also those a streamed reply starts early: the budget then applies to each
// turn separately. Call it from your own OnEvent if you have one.
func ResetBudgetEachTurn(ctx context.Context, e agentkit.Event) {
	if e.Kind == agentkit.EventModelRequest {
		if b := BudgetFromContext(ctx); b != nil {
			b.Reset()
		}
	}
}
