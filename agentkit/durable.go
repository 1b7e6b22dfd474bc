package agentkit

import (
	"context"
	"errors"
	"fmt"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/tool"
)

// Building blocks for a loop driven from outside Run: a durable execution engine (the
// toolcall/temporal module's workflow) keeps the transcript itself, deterministically, and
// calls these for the stages that do I/O or run user code. Each is the stage Run uses, not a
// copy of it: ModelTurn is a model call as Run makes it, PlanTurn the loop's judgement of a
// turn's calls, BudgetOver and BudgetTurn the run budget's judgements, CallTool and
// CallApproved a tool call through Options.Middleware.

// ModelTurn is one model call made by Agent.ModelTurn.
type ModelTurn struct {
	// Message is the reply as the transcript keeps it (normalized: role, unique call ids,
	// JSON arguments): append it to the transcript.
	Message openai.ChatCompletionMessage
	// Step is the call as received, with its usage and finish reason; Calls is empty.
	Step Step
	// Calls are the reply's tool calls in emission order: ID as in Message, Name and
	// Arguments as the model sent them, Tool the tool the name resolves to (nil for an
	// unknown tool).
	Calls []tool.Call
	// Answer is the answer the reply carries when it makes no tool calls.
	Answer string
}

// ModelTurn makes model call iter on transcript (which must pass ValidateHistory and holds the
// system prompt if any: nothing is prepended): the request is built as Run builds it (tool
// definitions, Options.Context, the final tool-free request when final is true) and sent
// through Options.ModelMiddleware, and the reply is checked and normalized as Run does.
// transcript is not modified. On failure it returns the stop reason Run would end with
// (StopModelError, StopContextError, StopToolsError, StopInvalidHistory, StopCanceled) and
// the error.
func (a *Agent) ModelTurn(ctx context.Context, transcript []openai.ChatCompletionMessage, iter int, final bool) (ModelTurn, StopReason, error) {
	r := &run{a: a, res: &Result{Messages: transcript[:len(transcript):len(transcript)]}}
	r.ids = callIDs(transcript)
	msg, t, err := r.step(ctx, iter, final)
	if err != nil {
		stop, err := r.failed(ctx, err)
		return ModelTurn{}, stop, err
	}
	t.abandon() // not streamed: nothing started early, but the turn is settled here
	mt := ModelTurn{Message: r.res.Messages[len(r.res.Messages)-1], Step: r.res.Steps[0]}
	if len(msg.ToolCalls) == 0 {
		mt.Answer = answer(msg)
		return mt, "", nil
	}
	mt.Calls = r.calls(msg)
	return mt, "", nil
}

// TurnPlan is the loop's judgement of the calls of one turn (Agent.PlanTurn).
type TurnPlan struct {
	// Run[i] reports whether call i runs; the others are answered Refusal, not run.
	Run []bool
	// Refusal is the result of the calls that do not run.
	Refusal tool.Result
	// Over[i] reports whether call i is past the tool calls the run's budget has left
	// (Agent.BudgetTurn): it does not run either, and is answered OverRefusal. Nil: none is.
	Over []bool
	// OverRefusal is the result of the calls Over marks.
	OverRefusal tool.Result
	// Stop, when not empty, ends the run once the turn's results are appended, with Err.
	Stop StopReason
	// Err is the run's error when Stop is set (ErrIterationLimit, ErrLoopDetected).
	Err error
}

// PlanTurn judges the calls of a turn as Run does: in the final request of
// Options.FinalAnswerOnLimit none runs, nor in a reply cut off by its length limit or a
// content filter (finish), nor in a turn repeating the previous ones past Options.LoopLimit
// (past Options.LoopStop the run stops), and at most Options.MaxToolCalls run. guard is the
// loop guard's state, updated with this turn; the zero GuardState is a guard that has seen no
// turn. It does no I/O and depends on its arguments only, so a deterministic workflow may
// call it.
func (a *Agent) PlanTurn(guard *GuardState, final bool, finish openai.FinishReason, calls []tool.Call) TurnPlan {
	g := loopGuard{prev: guard.Prev, repeats: guard.Repeats}
	repeat := g.observe(calls)
	guard.Prev, guard.Repeats = g.prev, g.repeats
	limit, limitErr := StopReason(""), error(nil)
	if final {
		limit, limitErr = StopIterationLimit, ErrIterationLimit
	}
	p := TurnPlan{Run: make([]bool, len(calls))}
	var all bool
	p.Refusal, all, p.Stop, p.Err = a.judge(limit, limitErr, finish, repeat)
	for i := range p.Run {
		p.Run[i] = !all && i < a.opts.MaxToolCalls
	}
	return p
}

// BudgetUse is what a run driven from outside has used of its Budget, besides its model
// calls (the iteration) and its cost (Result.Cost), which it keeps anyway. The zero
// BudgetUse is a run that used nothing.
type BudgetUse struct {
	// ToolCalls counts the tool calls that ran: the calls a turn's plan runs once they are
	// not pending, and the approved calls of a pending turn.
	ToolCalls int `json:"tool_calls,omitempty"`
	// ToolsOut is set once a call was refused past Budget.ToolCalls (TurnPlan.Over): the run
	// then stops before its next model call (BudgetOver).
	ToolsOut bool `json:"tools_out,omitempty"`
	// Tokens counts the model calls' tokens as Budget.Tokens does (Model adds a call's).
	Tokens int `json:"tokens,omitempty"`
}

// Model adds the usage of a model call to u.Tokens, as Budget.Tokens counts it.
func (u *BudgetUse) Model(usage Usage) { u.Tokens += tokens(usage) }

// Budget returns the agent's run budget, Options.Budget: a loop driven from outside gives a
// run that one, or one of its own as WithBudget does.
func (a *Agent) Budget() Budget { return a.opts.Budget }

// budgetRun is a run holding what a run driven from outside used of budget b, for the
// budget's judgements.
func (a *Agent) budgetRun(b Budget, u BudgetUse, cost Cost) *run {
	return &run{a: a, res: &Result{Cost: cost}, budget: b, toolCalls: u.ToolCalls, toolsOut: u.ToolsOut, tokens: u.Tokens}
}

// BudgetOver says, as Run does before each model call, whether model call iter is past a
// bound: a limit of budget b exhausted by what the run used — u, its cost so far, and
// elapsed, its wall time so far — (StopBudget, the limit, and a *BudgetError), or
// Options.MaxIterations (StopIterationLimit, "", ErrIterationLimit); else it returns "",
// "", nil. Past a bound, a run with Options.FinalAnswerOnLimit makes call
// iter as the final tool-free request (ModelTurn with final true) and stops with the
// reason after it; any other stops now, with the error. It does no I/O and depends on its
// arguments only, so a deterministic workflow may call it (with its own clock's elapsed).
func (a *Agent) BudgetOver(b Budget, iter int, u BudgetUse, cost Cost, elapsed time.Duration) (StopReason, BudgetLimit, error) {
	r := a.budgetRun(b, u, cost)
	stop, err := r.overAt(iter, elapsed)
	return stop, r.res.Limit, err
}

// BudgetTurn applies the tool-call limit of budget b to plan, the plan of a turn of calls
// (PlanTurn), as Run does after the loop's own refusals: the calls
// plan runs past what the run has left (b.ToolCalls less u.ToolCalls), in emission order,
// do not run, and plan.Over marks them (plan.OverRefusal their not_executed result, which
// tells the model so); it sets u.ToolsOut when it marks any. The calls that then run are
// the caller's to count in u.ToolCalls, once they ran (not while they are pending).
func (a *Agent) BudgetTurn(b Budget, u *BudgetUse, calls []tool.Call, plan *TurnPlan) {
	r := a.budgetRun(b, *u, Cost{})
	q := r.quota(calls, func(i int) (tool.Result, bool) { return plan.Refusal, !plan.Run[i] })
	if q.out == nil {
		return
	}
	for i, out := range q.out {
		if !out {
			continue
		}
		if plan.Over == nil {
			plan.Over = make([]bool, len(calls))
			plan.OverRefusal, _ = q.refuse(i)
		}
		plan.Run[i], plan.Over[i], u.ToolsOut = false, true, true
	}
}

// RunOnly returns the names of the agent's options that only Run and its siblings apply and
// that a loop built from these blocks would leave out, in this order: "Output" (a typed
// answer), "RunMiddleware". An engine that cannot apply them refuses such an agent rather
// than run it without them. (Options.Budget is not among them: a loop applies it with
// BudgetOver and BudgetTurn.)
func (a *Agent) RunOnly() []string {
	var out []string
	if a.opts.Output != nil {
		out = append(out, "Output")
	}
	if len(a.opts.RunMiddleware) > 0 {
		out = append(out, "RunMiddleware")
	}
	return out
}

// MaxIterations returns the agent's bound on model calls (Options.MaxIterations, 8 when
// zero), and whether it makes the final tool-free request (Options.FinalAnswerOnLimit).
func (a *Agent) MaxIterations() (int, bool) { return a.opts.MaxIterations, a.opts.FinalAnswerOnLimit }

// CallTool runs one call of model call iter as Run does: the call's name is resolved among
// the agent's tools (its Toolsets listed again), and it runs through Options.Middleware with
// a middleware's panic recovered. A call that waits for a decision returns a tool.KindPending
// result (see PendingOf). The call's Tool field is ignored.
func (a *Agent) CallTool(ctx context.Context, iter int, call tool.Call) CallRecord {
	r, ctx, err := a.runFor(tool.WithApproved(ctx), &call) // no approval of a caller's reaches it, as in Run
	if err != nil {
		return CallRecord{Call: call, Result: tool.Failure(tool.KindNotExecuted, err)}
	}
	return r.invoke(ctx, iter, call)
}

// runFor returns a run for the calls of a loop driven from outside, and resolves call's tool.
func (a *Agent) runFor(ctx context.Context, call *tool.Call) (*run, context.Context, error) {
	box, err := a.toolbox(ctx)
	if err != nil {
		return nil, ctx, err
	}
	if box != &a.tools {
		ctx = context.WithValue(ctx, toolboxKey{}, box)
	}
	call.Tool = box.byName[call.Name]
	return &run{a: a, res: &Result{}, box: box}, ctx, nil
}

// PendingOf returns the pending call of a record whose result is tool.KindPending, as a Pause
// holds it: its canonical arguments, and what it waits for.
func PendingOf(rec CallRecord) PendingCall {
	pc := PendingCall{ID: rec.Call.ID, Name: rec.Call.Name, Kind: PendingApproval, Arguments: pendingArguments(rec)}
	if errors.Is(rec.Result.Err, tool.ErrDeferred) {
		pc.Kind = PendingDeferred
	}
	return pc
}

// CheckDecisions checks decisions for the pending calls as Resume does: one for each, each a
// decision its call can take. The error wraps ErrDecision.
func CheckDecisions(pending []PendingCall, decisions []Decision) error {
	if err := (&Pause{Pending: pending}).checkDecisions(decisions); err != nil {
		return fmt.Errorf("%w: %w", ErrDecision, err)
	}
	return nil
}

// Decided returns the result of a pending call decided without running it, as Resume gives
// it: a rejected call's refusal, a deferred call's result. It returns false when the call
// must run (an approved approval: see CallApproved).
func Decided(c PendingCall, d Decision) (tool.Result, bool) {
	switch {
	case !d.Approve:
		return declined(&c, d.Message), true
	case c.Kind == PendingDeferred:
		res := tool.Text(d.Result)
		if res.Content == "" {
			res.Content = tool.EmptyContent
		}
		return res, true
	}
	return tool.Result{}, false
}

// CallApproved runs an approved pending call as Resume does: with the decision's edited
// arguments or the pending ones, approved in its context (tool.WithApproved), through
// Options.Middleware; the model reads that the arguments were edited, and a call that is
// pending again is answered not executed.
func (a *Agent) CallApproved(ctx context.Context, iter int, c PendingCall, d Decision) CallRecord {
	call := tool.Call{ID: c.ID, Name: c.Name, Arguments: approvedArguments(&c, d)}
	r, ctx, err := a.runFor(ctx, &call)
	if err != nil {
		return CallRecord{Call: call, Result: tool.Failure(tool.KindNotExecuted, err)}
	}
	r.approved = func(rec CallRecord) tool.Result { return ranAfterApproval(rec, &c) }
	return r.invoke(tool.WithApproved(ctx, c.ID), iter, call)
}

// Begin returns the transcript a run on history starts with, as RunMessages makes it — the
// agent's Instructions prepended unless history starts with its own system prompt — and the
// index of the first message the run will add (Result.New). history is not modified.
func (a *Agent) Begin(history []openai.ChatCompletionMessage) ([]openai.ChatCompletionMessage, int) {
	r := a.newRun(history, nil)
	return r.res.Messages, r.res.New
}
