package temporal

import (
	"errors"
	"fmt"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/tool"
)

// Contents the model reads for calls whose activity gave no result.
const (
	// UnknownOutcome is the result of a call whose worker was lost while it ran (its
	// heartbeat or start-to-close timeout passed) and that is not retried: it may have run in
	// part, in full, or not at all.
	UnknownOutcome = "error: this call is not known to have completed: it ran out of time, or the worker running it stopped responding, before it finished, and it is not run again because running it twice may not be safe. It may or may not have taken effect: check before calling it again, or tell the user."
	// undelivered is the start of the result of a call whose activity failed otherwise.
	undelivered = "error: the call could not be run to the end: "
	// notKept is the type of the error of a tool activity whose call ran but whose result
	// the BlobStore refused.
	notKept = "toolcall.NotKept"
)

// wf is the state of one workflow run.
type wf struct {
	a       *Agent
	res     Result
	guard   agentkit.GuardState
	pending []agentkit.PendingCall // the calls waiting for a decision; nil when none
	decided []agentkit.Decision    // the decisions received for them
	settled int                    // the messages of res.Messages as the last turn ended
	// The run's budget (Input.Budget, else the agent's), Input.Budget as given, what the run
	// used of it, and when the run began (the waits for decisions left out).
	budget agentkit.Budget
	given  *agentkit.Budget
	used   agentkit.BudgetUse
	began  time.Time
}

// Workflow is the run workflow, registered as WorkflowName by Register: the agent loop, each
// model call and each tool call an activity.
func (a *Agent) Workflow(ctx workflow.Context, in Input) (*Result, error) {
	w := &wf{a: a, guard: in.Guard}
	w.res = Result{Messages: in.Messages, New: in.New, Usage: in.Usage, Cost: in.Cost, Iterations: in.Iterations}
	if !in.Continued {
		w.res.Messages, w.res.New = a.agent.Begin(in.Messages)
	}
	w.setBudget(ctx, in)
	if err := w.handlers(ctx); err != nil {
		return nil, err
	}
	if err := agentkit.ValidateHistory(w.res.Messages); err != nil {
		return w.stop(agentkit.StopInvalidHistory, fmt.Errorf("%w: %w", agentkit.ErrInvalidHistory, err))
	}
	for turns := 0; ; turns++ {
		if info := workflow.GetInfo(ctx); turns > 0 && (turns >= a.opts.ContinueAfter || info.GetContinueAsNewSuggested()) {
			return nil, workflow.NewContinueAsNewError(ctx, WorkflowName, w.continued())
		}
		w.settled = len(w.res.Messages)
		if stop, err := w.iterate(ctx, w.res.Iterations+1); stop != "" {
			return w.stop(stop, err)
		}
	}
}

// setBudget takes the run's budget from in: Input.Budget, else the agent's Options.Budget;
// a continued run keeps what it used and when it began.
func (w *wf) setBudget(ctx workflow.Context, in Input) {
	w.budget, w.given = w.a.agent.Budget(), in.Budget
	if in.Budget != nil {
		w.budget = *in.Budget
	}
	w.began = workflow.Now(ctx)
	if in.Continued && in.Used != nil {
		w.used, w.began = *in.Used, in.Began
	}
}

// continued returns the Input of the run continued as new: the transcript, its counters,
// the loop guard, and the budget with what the run used of it. (A run whose budget limits
// nothing carries no use: its input is as it was before budgets.)
func (w *wf) continued() Input {
	in := Input{
		Messages: w.res.Messages, Continued: true, New: w.res.New, Iterations: w.res.Iterations, Usage: w.res.Usage, Cost: w.res.Cost, Guard: w.guard,
		Budget: w.given,
	}
	if w.budget != (agentkit.Budget{}) {
		used := w.used
		in.Used, in.Began = &used, w.began
	}
	return in
}

// handlers sets the update and the queries.
func (w *wf) handlers(ctx workflow.Context) error {
	err := workflow.SetUpdateHandlerWithOptions(ctx, UpdateDecide, func(ctx workflow.Context, ds []agentkit.Decision) error {
		w.decided = ds
		return nil
	}, workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, ds []agentkit.Decision) error {
		if len(w.pending) == 0 || w.decided != nil {
			return errors.New("temporal: no call waits for a decision")
		}
		for _, d := range ds {
			if strings.HasPrefix(d.Result, BlobPrefix) { // the model activity would resolve it
				return fmt.Errorf("temporal: the result of call %q begins with BlobPrefix %q, which only a reference the workflow made may", d.CallID, BlobPrefix)
			}
		}
		return agentkit.CheckDecisions(w.pending, ds)
	}})
	if err == nil {
		err = workflow.SetQueryHandler(ctx, QueryPending, func() ([]agentkit.PendingCall, error) {
			if w.decided != nil {
				return nil, nil // decided: the approved calls run, the run waits for no decision
			}
			return w.pending, nil
		})
	}
	if err == nil {
		err = workflow.SetQueryHandler(ctx, QueryTranscript, func() ([]openai.ChatCompletionMessage, error) {
			return w.res.Messages[:w.settled], nil // not a turn half done: its calls without their results
		})
	}
	return err
}

func (w *wf) stop(stop agentkit.StopReason, err error) (*Result, error) {
	w.res.Stop, w.settled = stop, len(w.res.Messages)
	var be *agentkit.BudgetError
	if errors.As(err, &be) {
		w.res.Limit = be.Limit
	}
	if err != nil {
		w.res.Error = err.Error()
	}
	return &w.res, nil
}

// iterate makes model call iter and runs the calls of its reply, as agentkit's loop does. It
// returns why the run stops, or "" for another iteration.
func (w *wf) iterate(ctx workflow.Context, iter int) (agentkit.StopReason, error) {
	_, finalAnswer := w.a.agent.MaxIterations()
	limit, budgetLimit, limitErr := w.a.agent.BudgetOver(w.budget, iter, w.used, w.res.Cost, workflow.Now(ctx).Sub(w.began))
	final := limit != ""
	if final && !finalAnswer {
		return limit, limitErr
	}
	w.res.Limit = budgetLimit
	var out modelOut
	err := workflow.ExecuteActivity(w.modelOptions(ctx), modelActivity, modelIn{Messages: w.res.Messages, Iteration: iter, Final: final}).Get(ctx, &out)
	if err != nil {
		return modelStop(ctx, err)
	}
	w.res.Iterations = iter
	w.res.Usage.Add(out.Usage)
	w.used.Model(out.Usage)
	w.res.Cost.Add(out.Cost)
	w.res.Messages = append(w.res.Messages, out.Message) // an answer too, as agentkit's transcript holds it
	if len(out.Calls) == 0 {
		w.res.Output = out.Answer
		if final {
			return limit, nil
		}
		return agentkit.StopAnswered, nil
	}
	calls := make([]tool.Call, len(out.Calls))
	for i, c := range out.Calls {
		calls[i] = tool.Call{ID: c.ID, Name: c.Name, Arguments: c.Arguments}
	}
	plan := w.a.agent.PlanTurn(&w.guard, final, out.FinishReason, calls)
	if final { // the final request's calls do not run, and the run stops with its bound's reason
		plan.Stop, plan.Err = limit, limitErr
	}
	w.a.agent.BudgetTurn(w.budget, &w.used, calls, &plan)
	room := (transcriptBudget - encodedLen(w.res.Messages)) / len(calls) // each result's share of what is left
	results := w.runCalls(ctx, iter, room, out.Calls, plan)
	if plan.Stop == "" && ctx.Err() == nil {
		w.decide(ctx, iter, room, out.Calls, results)
	}
	stop, stopErr := plan.Stop, plan.Err
	for i, r := range results {
		w.res.Cost.Add(r.Cost)
		if r.Fatal != "" && stop == "" {
			stop, stopErr = agentkit.StopFatalTool, fmt.Errorf("agentkit: tool %s: %w", out.Calls[i].Name, errors.New(r.Fatal))
		}
	}
	if stop == "" && ctx.Err() != nil {
		stop, stopErr = agentkit.StopCanceled, fmt.Errorf("agentkit: %w", ctx.Err())
	}
	for i, r := range results {
		if r.Kind == tool.KindPending { // a run that stops does not wait
			results[i] = callOut{Kind: tool.KindNotExecuted, Content: "error: not executed: the run stopped before this call was decided."}
		}
		content := results[i].Content
		if content == "" {
			content = tool.EmptyContent
		}
		w.res.Messages = append(w.res.Messages, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: out.Calls[i].ID, Content: content})
	}
	return stop, stopErr
}

// modelStop says why the run stops on a failed model activity.
func modelStop(ctx workflow.Context, err error) (agentkit.StopReason, error) {
	var ae *temporal.ApplicationError
	switch {
	case ctx.Err() != nil || temporal.IsCanceledError(err):
		return agentkit.StopCanceled, fmt.Errorf("agentkit: %w", workflow.ErrCanceled)
	case errors.As(err, &ae) && ae.Type() != "":
		return agentkit.StopReason(ae.Type()), errors.New(ae.Message())
	}
	return agentkit.StopModelError, fmt.Errorf("agentkit: model call: %w", err)
}

func (w *wf) modelOptions(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: w.a.opts.ModelTimeout,
		HeartbeatTimeout:    w.a.opts.HeartbeatTimeout, // a lost worker's call is tried again sooner
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumAttempts: int32(w.a.opts.ModelAttempts)},
	})
}

// toolOptions returns the context of a call's activity: retried when its tool is idempotent,
// attempted once otherwise; heartbeating; and waited for when the run is canceled, so that the
// cancellation reaches the tool and the run ends after it.
func (w *wf) toolOptions(ctx workflow.Context, idempotent bool) workflow.Context {
	attempts := 1
	if idempotent {
		attempts = w.a.opts.ToolAttempts
	}
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: w.a.opts.ToolTimeout,
		HeartbeatTimeout:    w.a.opts.HeartbeatTimeout,
		WaitForCancellation: true,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumAttempts: int32(attempts)},
	})
}

// runCalls runs the calls plan lets run, and returns every call's result in emission order.
// The calls of tools that are not Sequential are scheduled at once; sequential calls then run
// one by one (collect).
func (w *wf) runCalls(ctx workflow.Context, iter, room int, calls []callSpec, plan agentkit.TurnPlan) []callOut {
	out := make([]callOut, len(calls))
	futures := make([]workflow.Future, len(calls))
	var sequential []int
	start := func(i int) workflow.Future {
		return workflow.ExecuteActivity(w.toolOptions(ctx, calls[i].Idempotent), toolActivity, toolIn{Iteration: iter, Call: calls[i], Room: room})
	}
	for i, c := range calls {
		switch {
		case plan.Over != nil && plan.Over[i]:
			out[i] = callOut{Kind: plan.OverRefusal.Kind, Content: plan.OverRefusal.Content}
		case !plan.Run[i]:
			out[i] = callOut{Kind: plan.Refusal.Kind, Content: plan.Refusal.Content}
		case c.Sequential:
			sequential = append(sequential, i)
		default:
			futures[i] = start(i)
		}
	}
	collect(ctx, calls, out, futures, sequential, start)
	for i, r := range out {
		if plan.Run[i] && r.Kind != tool.KindPending { // a pending call counts once approved (decide)
			w.used.ToolCalls++
		}
	}
	return out
}

// collect sets results[i] to the result of each call futures[i] was scheduled for, reading the
// futures in order (the results' order does not depend on when they end), then runs the calls
// of sequential one by one with start, those after a cancellation answered canceled.
func collect(ctx workflow.Context, calls []callSpec, results []callOut, futures []workflow.Future, sequential []int, start func(i int) workflow.Future) {
	get := func(i int, f workflow.Future) callOut {
		var out callOut
		return callResult(calls[i].Name, calls[i].Idempotent, f.Get(ctx, &out), out)
	}
	for i, f := range futures {
		if f != nil {
			results[i] = get(i, f)
		}
	}
	for _, i := range sequential {
		if ctx.Err() != nil {
			results[i] = canceled(calls[i].Name)
			continue
		}
		results[i] = get(i, start(i))
	}
}

// canceled is the result of a call canceled before it finished.
func canceled(name string) callOut {
	return callOut{Kind: tool.KindCanceled, Content: "error: the call to " + name + " was canceled before it finished."}
}

// callResult is the result the model reads of a call whose activity ended with err; an
// idempotent call was attempted Options.ToolAttempts times.
func callResult(name string, idempotent bool, err error, out callOut) callOut {
	var te *temporal.TimeoutError
	var ae *temporal.ApplicationError
	switch {
	case err == nil:
		return out
	case errors.As(err, &ae) && ae.Type() == notKept:
		return callOut{Kind: tool.KindToolError, Content: "error: the call to " + name + " ran and took effect, but " + ae.Message() + ". Do not call it again to get its result: tell the user."}
	case temporal.IsCanceledError(err):
		return canceled(name)
	case errors.As(err, &te) && te.TimeoutType() != enumspb.TIMEOUT_TYPE_SCHEDULE_TO_START && idempotent:
		return callOut{Kind: tool.KindTimeout, Content: "error: the call to " + name + " did not complete: it was attempted again each time it ran out of time or its worker stopped responding, and never finished. Try again later, or tell the user."}
	case errors.As(err, &te) && te.TimeoutType() != enumspb.TIMEOUT_TYPE_SCHEDULE_TO_START:
		return callOut{Kind: tool.KindTimeout, Content: UnknownOutcome}
	}
	return callOut{Kind: tool.KindToolError, Content: undelivered + err.Error()}
}

// decide waits, when calls of the turn are pending, for the decisions (UpdateDecide), and
// replaces the pending results with the decided ones: approved calls run — in parallel, then
// those of Sequential tools one by one, as in runCalls — and the others are answered as
// agentkit.Resume answers them. A canceled run stops waiting.
func (w *wf) decide(ctx workflow.Context, iter, room int, calls []callSpec, results []callOut) {
	var at []int
	for i, r := range results {
		if r.Kind == tool.KindPending && r.Pending != nil {
			w.pending = append(w.pending, *r.Pending)
			at = append(at, i)
		}
	}
	if len(at) == 0 {
		return
	}
	defer func() { w.pending, w.decided = nil, nil }()
	asked := workflow.Now(ctx)
	err := workflow.Await(ctx, func() bool { return w.decided != nil })
	w.began = w.began.Add(workflow.Now(ctx).Sub(asked)) // the wait for a person is not the run's time
	if err != nil {
		return // canceled: the pending calls are answered not executed
	}
	byID := map[string]agentkit.Decision{}
	for _, d := range w.decided {
		byID[d.CallID] = d
	}
	futures := make([]workflow.Future, len(calls))
	var sequential []int
	start := func(i int) workflow.Future { // results[i] holds its pending call until collect replaces it
		p := *results[i].Pending
		in := approvedIn{Iteration: iter, Pending: p, Decision: byID[p.ID], Room: room}
		return workflow.ExecuteActivity(w.toolOptions(ctx, calls[i].Idempotent), approvedActivity, in)
	}
	for _, i := range at {
		p := *results[i].Pending
		if res, ok := agentkit.Decided(p, byID[p.ID]); ok {
			results[i] = callOut{Kind: res.Kind, Content: res.Content}
		} else if w.used.ToolCalls++; calls[i].Sequential && w.approvedInOrder(ctx) {
			sequential = append(sequential, i)
		} else {
			futures[i] = start(i)
		}
	}
	collect(ctx, calls, results, futures, sequential, start)
}

// approvedInOrder reports whether approved calls of Sequential tools run one by one: they
// ran with the others before, and a run that scheduled them so replays so.
func (w *wf) approvedInOrder(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, "toolcall.approved-sequential", workflow.DefaultVersion, 1) == 1
}
