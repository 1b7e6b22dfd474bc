package agentkit

import (
	"context"
	"math"
	"sync"
)

// costPool is a run's Cost limit during one of its turns, shared with the agent runs its
// tool calls make (an agent used as a tool): the turn's model call and theirs spend from it
// as they spend, so that a sub-agent stops once its caller's budget is spent, not only once
// its own is. Tool reports (ReportCost) reach it when their turn ends, as Result.Cost.
type costPool struct {
	mu      sync.Mutex
	base    float64   // the run's cost when the turn began
	max     float64   // the run's Budget.Cost; +Inf: none
	spent   float64   // spent since by model calls: the turn's own, and its sub-runs'
	unknown bool      // the run's cost, or a part spent since, could not be priced
	parent  *costPool // the pool of the run's caller, when the run is itself a sub-run
}

type poolKey struct{}

// withPool returns the context of a new turn's calls, with the turn's pool, which r's model
// calls spend from until the next turn; ctx when neither r nor a caller of r has a Cost
// limit.
func (r *run) withPool(ctx context.Context) context.Context {
	r.turnPool = nil
	if r.budget.Cost == 0 && r.pool == nil {
		return ctx
	}
	p := &costPool{base: r.res.Cost.Amount, max: math.Inf(1), unknown: !r.res.Cost.Known(), parent: r.pool}
	if r.budget.Cost != 0 {
		p.max = r.budget.Cost
	}
	r.turnPool = p
	return context.WithValue(ctx, poolKey{}, p)
}

// spend adds a model call's cost to p and the pools above it. Nil-safe.
func (p *costPool) spend(c Cost) {
	for ; p != nil; p = p.parent {
		p.mu.Lock()
		p.spent += c.Amount
		p.unknown = p.unknown || !c.Known()
		p.mu.Unlock()
	}
}

// exhausted returns the cost and the limit of the first run of p's chain whose Cost limit is
// exhausted (as [run.exhausted] judges its own), or ok false.
func (p *costPool) exhausted() (used, limit float64, ok bool) {
	for ; p != nil; p = p.parent {
		p.mu.Lock()
		used, limit, unknown := p.base+p.spent, p.max, p.unknown
		p.mu.Unlock()
		if !math.IsInf(limit, 1) && (unknown || costReached(used, limit)) {
			return used, limit, true
		}
	}
	return 0, 0, false
}
