package agentkit

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/tool"
)

// Budget bounds what one run may spend (Options.Budget, or per run [WithBudget]). A zero
// field is no limit; the zero Budget limits nothing. A negative field (or a NaN Cost) is a
// limit already exhausted, not no limit: a budget computed as what a user may spend minus
// what they spent stops the run once they are over. (A remaining budget of exactly 0 is
// no limit, as every zero field: give such a run a negative one, or do not start it.)
//
// The model-call, token, cost and wall-time limits are checked before each model call, on
// what the run used so far; the tool-call limit before a turn's calls run. The first limit
// found exhausted stops the run before that model call: Result.Stop is StopBudget,
// Result.Limit names the limit, and the error is a *[BudgetError] (errors.Is
// ErrBudgetExhausted). A model call in flight is not interrupted (bound it with the
// context's deadline), so a run spends at most one model call past a token, cost or
// wall-time limit: the call that crossed it. The tool calls of that call's reply still run
// (within ToolCalls), paid ones included, and their results are in the transcript; the run
// stops before the next model call.
//
// With Options.FinalAnswerOnLimit the run instead makes the final tool-free request (the
// one of the iteration limit, with BudgetExhaustedPrompt) and ends after it: Stop is
// StopBudget and the error nil when it answered. For ModelCalls the final request is the
// last call allowed (call ModelCalls), so the budget holds; for the other limits it is the
// one call made once the limit was reached.
//
// Options.MaxIterations stays the agent's safety bound beside it: the tighter applies.
// MaxIterations stops the run with StopIterationLimit after that many calls (its final
// request, with FinalAnswerOnLimit, is one more), Budget.ModelCalls with StopBudget after
// that many calls, the final one included; when both are reached at the same call, the
// budget's reason is given.
//
// A resumed run ([Agent.Resume], [Agent.ResumeSession]) is the same run: its model calls,
// tool calls, tokens and cost include the paused run's (as Result.Usage and Result.Cost
// do), checked against the budget of the Resume call. Its wall time counts from the Resume
// call: the time a pause waited for a person is not the run's.
type Budget struct {
	// ModelCalls bounds the model calls of the run.
	ModelCalls int `json:"model_calls,omitempty"`
	// ToolCalls bounds the tool calls that run: the calls of a turn past what is left are
	// answered, not run, with a not_executed result that tells the model so, and the run
	// stops before its next model call (or makes the final request). The approved calls of
	// a resumed turn run whatever is left — a person decided them — and count. A call of the
	// output tool (Options.Output, OutputTool) is the run's answer: it neither counts nor is
	// refused.
	ToolCalls int `json:"tool_calls,omitempty"`
	// Tokens bounds the prompt and completion tokens the model reported, summed over the
	// run's calls (each call's Usage.PromptTokens + Usage.CompletionTokens, or its
	// TotalTokens when the provider reports more there; cached tokens count: they fill the
	// context all the same).
	Tokens int `json:"tokens,omitempty"`
	// Cost bounds the run's cost (Result.Cost.Amount), in the currency of Options.Prices.
	// A run whose cost is not known — a model call of a model the table has no price for —
	// has exhausted a Cost limit: it could be over it, and the budget is a promise. The run
	// stops before its next model call, with an error that says how many parts are
	// unpriced (Step.Cost and CallRecord.Cost say which).
	//
	// The limit holds for the agents the run calls as tools (Agent.Tool), whatever their own
	// budgets: their model calls spend from what the run has left as they are made, and a
	// sub-agent run stops before its next model call once the caller's cost reached it (a
	// *BudgetError with Caller set, which the calling model reads as the tool's error).
	// Sub-agents that run concurrently, in one turn, each may make the one call that crosses
	// it. What their tools report (ReportCost) counts once their turn ended.
	Cost float64 `json:"cost,omitempty"`
	// WallTime bounds the time since the run began (the call of Run, RunSession, Resume...).
	WallTime time.Duration `json:"wall_time,omitempty"`
}

// BudgetLimit names one limit of a Budget.
type BudgetLimit string

// The limits of a Budget.
const (
	LimitModelCalls BudgetLimit = "model_calls"
	LimitToolCalls  BudgetLimit = "tool_calls"
	LimitTokens     BudgetLimit = "tokens"
	LimitCost       BudgetLimit = "cost"
	LimitWallTime   BudgetLimit = "wall_time"
)

// StopBudget: a limit of the run's Budget was exhausted (Result.Limit says which). With
// Options.FinalAnswerOnLimit the final tool-free request may still have answered: the run's
// error is then nil and Result.Output holds the answer.
const StopBudget StopReason = "budget_exhausted"

// ErrBudgetExhausted: a limit of the run's Budget was exhausted; the error is a
// *BudgetError.
var ErrBudgetExhausted = errors.New("agentkit: run budget exhausted")

// BudgetError says which limit of a Budget stopped a run, and what the run had used.
type BudgetError struct {
	// Limit is the limit exhausted.
	Limit BudgetLimit
	// Used is what the run had used when it stopped, in each limit's terms (Used.Cost is the
	// known amount, Result.Cost.Amount).
	Used Budget
	// Max is the budget.
	Max Budget
	// Unpriced is, for Limit LimitCost, the number of parts that could not be priced
	// (Cost.Unknown).
	Unpriced int
	// Caller says that the limit was a caller's: the Cost limit of the run whose tool call
	// this run is (an agent used as a tool), which Used.Cost and Max.Cost are then of.
	Caller bool
}

func (e *BudgetError) Error() string {
	var used, max any
	switch e.Limit {
	case LimitModelCalls:
		used, max = e.Used.ModelCalls, e.Max.ModelCalls
	case LimitToolCalls:
		used, max = e.Used.ToolCalls, e.Max.ToolCalls
	case LimitTokens:
		used, max = e.Used.Tokens, e.Max.Tokens
	case LimitWallTime:
		used, max = e.Used.WallTime.Round(time.Millisecond), e.Max.WallTime
	default:
		if e.Unpriced > 0 {
			return fmt.Sprintf("%v: cost unknown, limit %g: %d unpriced (a model call without a price in Options.Prices, or a tool's report that was no amount; Step.Cost and CallRecord.Cost say which)", ErrBudgetExhausted, e.Max.Cost, e.Unpriced)
		}
		used, max = fmt.Sprintf("%.6g", e.Used.Cost), e.Max.Cost
		if e.Caller {
			return fmt.Sprintf("%v: the calling run's cost %s of %v", ErrBudgetExhausted, used, max)
		}
	}
	return fmt.Sprintf("%v: %s %v of %v", ErrBudgetExhausted, strings.ReplaceAll(string(e.Limit), "_", " "), used, max)
}

// Unwrap returns ErrBudgetExhausted.
func (e *BudgetError) Unwrap() error { return ErrBudgetExhausted }

type budgetKey struct{}

// WithBudget returns a context under which a run of any Agent (Run, RunSession, Resume...,
// and their streamed forms) has budget b instead of Options.Budget, whole (a zero field of b
// is no limit, whatever the agent's): how a service gives each request a budget of its
// own. The run takes it for itself: the runs of agents it calls as tools (Agent.Tool) have
// their own agents' budgets — but for its Cost limit, which holds for them too (see
// Budget.Cost). A RunMiddleware may set it too: the run's budget is the one
// of the context the innermost RunMiddleware passes on.
func WithBudget(ctx context.Context, b Budget) context.Context {
	return context.WithValue(ctx, budgetKey{}, &b)
}

// takeBudget takes the run's budget from ctx, the context Options.RunMiddleware passes on
// (Options.Budget when ctx has none), returning ctx without it.
func (r *run) takeBudget(ctx context.Context) context.Context {
	r.budget = r.a.opts.Budget
	if b, ok := ctx.Value(budgetKey{}).(*Budget); ok && b != nil {
		r.budget = *b
		ctx = context.WithValue(ctx, budgetKey{}, (*Budget)(nil))
	}
	return ctx
}

// over says whether model call iter is past a bound: the budget's (StopBudget) or
// Options.MaxIterations (StopIterationLimit). With FinalAnswerOnLimit such a call is the
// final tool-free request.
func (r *run) over(iter int) (StopReason, error) {
	return r.overAt(iter, time.Since(r.began))
}

// overAt is over, the run having taken wall time so far.
func (r *run) overAt(iter int, wall time.Duration) (StopReason, error) {
	if err := r.exhausted(iter, wall); err != nil {
		r.res.Limit = err.Limit
		return StopBudget, err
	}
	if iter > r.a.opts.MaxIterations {
		return StopIterationLimit, ErrIterationLimit
	}
	return "", nil
}

// exhausted returns the error of the first limit the run exhausted before model call iter,
// (wall the run's time so far), or nil.
func (r *run) exhausted(iter int, wall time.Duration) *BudgetError {
	b := r.budget
	used := Budget{
		ModelCalls: iter - 1,
		ToolCalls:  r.toolCalls,
		Tokens:     r.tokens,
		Cost:       r.res.Cost.Amount,
		WallTime:   wall,
	}
	if r.a.opts.FinalAnswerOnLimit {
		// Call iter is then the final request, made before the run stops: the last one
		// allowed, and one the error counts.
		used.ModelCalls++
	}
	var limit BudgetLimit
	switch {
	case b.ModelCalls != 0 && used.ModelCalls >= b.ModelCalls:
		limit = LimitModelCalls
	case b.ToolCalls != 0 && r.toolsOut:
		limit = LimitToolCalls
	case b.Tokens != 0 && used.Tokens >= b.Tokens:
		limit = LimitTokens
	case b.Cost != 0 && (!r.res.Cost.Known() || costReached(used.Cost, b.Cost)):
		limit = LimitCost
	case b.WallTime != 0 && used.WallTime >= b.WallTime:
		limit = LimitWallTime
	default:
		return r.callerExhausted(used)
	}
	e := &BudgetError{Limit: limit, Used: used, Max: b}
	if limit == LimitCost {
		e.Unpriced = r.res.Cost.Unknown
	}
	return e
}

// costReached reports whether a cost used has reached limit, a Cost limit (a NaN limit is
// reached). A sum of float prices drifts by its last bits: 999 calls of 1e-5 reach 0.00999.
func costReached(used, limit float64) bool { return !(used < limit*(1-1e-9)) }

// callerExhausted returns, for a run inside a tool call of another run (an agent used as a
// tool), the error of a caller's Cost limit its turn's model calls exhausted, or nil.
func (r *run) callerExhausted(used Budget) *BudgetError {
	cost, limit, ok := r.pool.exhausted()
	if !ok {
		return nil
	}
	max := r.budget
	used.Cost, max.Cost = cost, limit
	return &BudgetError{Limit: LimitCost, Used: used, Max: max, Caller: true}
}

// toolQuota refuses the calls of a turn past the tool calls the budget has left, after the
// loop's own refusals.
type toolQuota struct {
	refused func(i int) (tool.Result, bool) // the loop's
	out     []bool                          // out[i]: call i is past what is left; nil: no limit
	max     int
}

// quota returns the tool quota of a turn of calls, which the loop refuses with refused.
// The calls it does not refuse take what is left in emission order; the output tool's
// (Options.Output, OutputTool) is the run's answer and takes nothing.
func (r *run) quota(calls []tool.Call, refused func(i int) (tool.Result, bool)) toolQuota {
	q := toolQuota{refused: refused, max: max(r.budget.ToolCalls, 0)}
	if r.budget.ToolCalls == 0 {
		return q
	}
	left := max(q.max-r.toolCalls, 0)
	q.out = make([]bool, len(calls))
	for i, c := range calls {
		if _, no := refused(i); no || r.isAnswer(c.Name) {
			continue
		}
		q.out[i] = left == 0
		left = max(left-1, 0)
	}
	return q
}

// isAnswer reports whether a call of name is the output tool's: the run's typed answer,
// not a tool call the budget counts.
func (r *run) isAnswer(name string) bool {
	s := r.a.opts.Output
	return s != nil && s.mode == OutputTool && name == s.t.Name()
}

// earlyOut reports whether call i of a turn still streaming, named name, may be past what
// the budget has left: it then does not start early (the turn's quota decides once the
// turn is whole, and never refuses a call this let start).
func (r *run) earlyOut(i int, name string) bool {
	return r.budget.ToolCalls != 0 && !r.isAnswer(name) && i >= max(r.budget.ToolCalls-r.toolCalls, 0)
}

// refuse is the turn's refusal of call i: the loop's, or the budget's.
func (q toolQuota) refuse(i int) (tool.Result, bool) {
	if res, no := q.refused(i); no {
		return res, true
	}
	if q.over(i) {
		content := fmt.Sprintf("error: not executed: this run may make at most %d tool calls, and has made them all. Answer with the information you already have.", q.max)
		return notExecuted(tool.KindNotExecuted, content), true
	}
	return tool.Result{}, false
}

// over reports whether call i of the turn is past what the budget has left.
func (q toolQuota) over(i int) bool { return i < len(q.out) && q.out[i] }

// spent counts the turn's calls that ran (t started, or q did not refuse; not the pending
// ones, nor the output tool's), and notes a call refused for the budget; what the tools
// reported is added to Result.Cost and recorded.
func (r *run) spent(ctx context.Context, t *turn, recs []CallRecord, q toolQuota) {
	for i := range recs {
		_, no := q.refuse(i)
		switch {
		case recs[i].Result.Kind == tool.KindPending: // runs, and counts, once approved
		case r.isAnswer(recs[i].Call.Name):
		case !no || t.started[i] != nil:
			r.toolCalls++
		case q.over(i):
			r.toolsOut = true
		}
	}
	r.spendTools(ctx, sumCost(recs))
}

// spendTools adds what a turn's tools reported to the run's cost, and records what no
// sub-run recorded already.
func (r *run) spendTools(ctx context.Context, c Cost) {
	r.res.Cost.Add(c)
	r.spendMu.Lock()
	own := r.own
	r.own = Cost{}
	r.spendMu.Unlock()
	if own != (Cost{}) {
		r.record(ctx, Spend{Cost: own})
	}
}

// unrecorded adds to the run's next record what a tool call reported that is the run's to
// record. Called by the calls' goroutines.
func (r *run) unrecorded(c Cost) {
	r.spendMu.Lock()
	r.own.Add(c)
	r.spendMu.Unlock()
}

// spendModel prices a model call, adds its usage and cost to the run's, records them, and
// returns the cost.
func (r *run) spendModel(ctx context.Context, u Usage, respModel, reqModel string) Cost {
	return r.spendCall(ctx, u, r.a.opts.Prices.Cost(u, respModel, reqModel))
}

// spendCall adds a model call's usage and cost c to the run's, records them, and returns c.
func (r *run) spendCall(ctx context.Context, u Usage, c Cost) Cost {
	r.res.Usage.Add(u)
	r.tokens += tokens(u)
	r.res.Cost.Add(c)
	r.turnPool.spend(c)
	r.record(ctx, Spend{Usage: u, Cost: c, ModelCalls: 1})
	return c
}

// tokens is what u counts for Budget.Tokens: its prompt and completion tokens, or its total
// when a provider reports more there (some report only the total).
func tokens(u Usage) int { return max(u.PromptTokens+u.CompletionTokens, u.TotalTokens) }

// spendRejected spends a model call that failed with err after the provider generated a
// reply, which it bills: a response without choices or over MaxReplyBytes (its usage
// priced), or a stream that broke once open (its usage when it was reported, else a cost
// unknown: tokens were generated). A call that failed otherwise spent nothing.
func (r *run) spendRejected(ctx context.Context, err error, report *usageReport, resp openai.ChatCompletionResponse, reqModel string) (Usage, Cost) {
	var se *StreamError
	switch {
	case errors.As(err, &se):
		if u, ok := report.reported(); ok {
			return u, r.spendModel(ctx, u, "", reqModel)
		}
		return Usage{}, r.spendCall(ctx, Usage{}, Cost{Unknown: 1})
	case errors.Is(err, ErrNoChoices), errors.Is(err, ErrReplyTooLarge):
		u := report.usage(resp.Usage)
		return u, r.spendModel(ctx, u, resp.Model, reqModel)
	}
	return Usage{}, Cost{}
}
