package agentkit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/tool"
)

// BudgetExhaustedPrompt is the message sent, as a user message, at the end of the final
// tool-free request of Options.FinalAnswerOnLimit. (A user message rather than a system one:
// several chat templates of local servers refuse a system message that is not the first.) It
// belongs to that request only: the transcript (Result.Messages) and the session never hold
// it, so that no later request tells the model it may not call tools.
const BudgetExhaustedPrompt = "[budget] You have used all the tool calls allowed for this request and can call no more tools. Answer the user now with the information you already have, and say what you could not find out."

// Run runs the loop on one user message: it sends the system prompt and input, executes the
// tool calls the model asks for, feeds their results back, and repeats until the model answers
// without calling tools or a bound is reached.
//
// The Result is never nil and always holds a provider-valid transcript. The error is nil
// exactly when the run produced an answer: Result.Stop is StopAnswered, or
// StopIterationLimit or StopBudget after the final tool-free request of
// Options.FinalAnswerOnLimit answered. Otherwise it is one of: ErrIterationLimit, a
// *BudgetError (ErrBudgetExhausted, StopBudget: see Budget), ErrLoopDetected, an error
// wrapping ErrOutputInvalid (Options.Output: no valid typed answer, see ErrOutputInvalid),
// an error wrapping a tool.Fatal error (errors.Is(err, tool.ErrFatal)), the model's error
// wrapped (errors.As finds *openai.APIError), ErrNoChoices, ErrEmptyMessage,
// ErrReplyTooLarge, ErrInvalidHistory, the Context strategy's error (StopContextError), ErrPaused (StopPaused:
// calls wait for a decision from outside the run, and Result.Pause holds the state that
// Resume continues — not an answer, so not a nil error), or the context's error.
//
// Run returns once every goroutine it started has ended: the calls of a canceled run get
// the canceled context and are waited for. A tool that ignores its context can therefore
// hold a canceled run; middleware.Timeout bounds such tools (it abandons a call past its
// deadline).
func (a *Agent) Run(ctx context.Context, input string) (*Result, error) {
	return a.RunMessages(ctx, []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: input}})
}

// RunMessages is Run on a history: the conversation so far, ending with the new user message.
// The agent's Instructions are prepended unless history already starts with a system (or
// developer) message. history must pass ValidateHistory (use RepairHistory on one of unknown
// origin); it is not modified.
func (a *Agent) RunMessages(ctx context.Context, history []openai.ChatCompletionMessage) (*Result, error) {
	r := a.newRun(history, nil)
	return r.start(ctx, r.loop)
}

// newRun prepares a run on history; sink, when non-nil, receives the events of a streamed
// run.
func (a *Agent) newRun(history []openai.ChatCompletionMessage, sink func(Event)) *run {
	msgs := make([]openai.ChatCompletionMessage, 0, len(history)+1)
	if a.opts.Instructions != "" && !hasSystemPrompt(history) {
		msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleSystem, Content: a.opts.Instructions})
	}
	msgs = append(msgs, history...)
	return &run{a: a, sink: sink, res: &Result{Messages: msgs, New: len(msgs)}}
}

// hasSystemPrompt reports whether a history begins with its own system prompt, which then
// replaces Options.Instructions.
func hasSystemPrompt(history []openai.ChatCompletionMessage) bool {
	return len(history) > 0 && (history[0].Role == openai.ChatMessageRoleSystem || history[0].Role == openai.ChatMessageRoleDeveloper)
}

// MissingToolName replaces, in the transcript, the empty name of a tool call whose model sent
// none: a provider rejects a replayed call without a name.
const MissingToolName = "missing_tool_name"

// run is the state of one run.
type run struct {
	a     *Agent
	res   *Result
	ids   map[string]struct{} // the tool call ids of the transcript, to keep new ones unique
	guard loopGuard
	sink  func(Event) // a streamed run's events; nil when the run does not stream
	box   *toolbox    // the tools of the latest request, which its calls resolve against
	// approved, while a resumed turn runs, turns the result of an approved call into what the
	// model reads (and EventToolEnd reports); nil otherwise. Set before the turn's calls start.
	approved func(CallRecord) tool.Result

	// A RunSession's: what the run adds is appended to store as it goes.
	session string
	store   Memory
	recent  RecentLoader // set when store left messages out (Result.Omitted): their call ids

	outErr error // why the last typed answer was refused (Options.Output); nil when none was
	// The run's budget (budget.go): its limits, when it began, the tool calls run, and
	// whether a turn asked for calls past them.
	budget    Budget
	began     time.Time
	toolCalls int
	toolsOut  bool
	tokens    int // Budget.Tokens' count of the calls' tokens, each call's as it reported them
	// What the tool calls of the turn reported that the run is to record (meter.go), and
	// the tool call of another run this run is inside, if it is (an agent used as a tool).
	spendMu sync.Mutex
	own     Cost
	caller  *costReport
	// The Cost pool of the caller's turn, when this run is inside a tool call of a run
	// that has one, and the pool of this run's current turn (costpool.go).
	pool, turnPool *costPool
}

// start runs body, the run's work, through Options.RunMiddleware.
func (r *run) start(ctx context.Context, body RunFunc) (*Result, error) {
	// No approval of a caller's reaches this run (an agent used as a tool): only Resume
	// approves, the calls of the turn it resumes.
	ctx, r.began = tool.WithApproved(ctx), time.Now()
	r.caller, _ = ctx.Value(costKey{}).(*costReport)
	r.pool, _ = ctx.Value(poolKey{}).(*costPool)
	f := func(ctx context.Context) (*Result, error) { return body(r.takeBudget(ctx)) }
	mws := r.a.opts.RunMiddleware
	for i := len(mws) - 1; i >= 0; i-- {
		if mws[i] != nil {
			f = mws[i](f)
		}
	}
	res, err := f(ctx)
	if res == nil { // a middleware that broke its contract
		res = r.res
	}
	return res, err
}

// loop runs the iterations. Each one appends to the transcript — a reply, and the results of
// its calls — and what it appended is saved to the session, in one Append, before the next.
func (r *run) loop(ctx context.Context) (*Result, error) {
	if err := ValidateHistory(r.res.Messages); err != nil {
		r.store = nil // nothing of a run on a broken history is stored
		return r.finish(ctx, StopInvalidHistory, fmt.Errorf("%w: %w", ErrInvalidHistory, err))
	}
	r.ids = callIDs(r.res.Messages)
	// The user's message is saved before anything can fail.
	if err := r.save(ctx, r.res.Messages[len(r.res.Messages)-1:]); err != nil {
		return r.finish(ctx, StopMemoryError, err)
	}
	return r.iterations(ctx, 1)
}

// iterations runs the iterations from first on.
func (r *run) iterations(ctx context.Context, first int) (*Result, error) {
	for iter := first; ; iter++ {
		from := len(r.res.Messages)
		stop, err := r.iterate(ctx, iter)
		if serr := r.save(ctx, r.res.Messages[from:]); serr != nil && err == nil {
			stop, err = StopMemoryError, serr
		}
		if stop != "" {
			return r.finish(ctx, stop, err)
		}
	}
}

// iterate makes model call iter and runs the calls of its reply. It returns why the run
// stops, or "" for another iteration.
func (r *run) iterate(ctx context.Context, iter int) (StopReason, error) {
	limit, limitErr := r.over(iter)
	final := limit != ""
	if final && !r.a.opts.FinalAnswerOnLimit {
		return limit, limitErr
	}
	msg, t, err := r.step(ctx, iter, final)
	if err != nil {
		return r.failed(ctx, err)
	}
	if len(msg.ToolCalls) == 0 {
		if ok, stop, err := r.outputAnswered(ctx, iter, msg, limit, limitErr); ok {
			return stop, err
		}
		r.res.Output = answer(msg)
		r.emit(ctx, Event{Kind: EventAnswer, Iteration: iter, Text: r.res.Output})
		if final {
			return limit, nil
		}
		return StopAnswered, nil
	}
	calls := r.calls(msg)
	step := &r.res.Steps[len(r.res.Steps)-1]
	// Every call of the turn is answered; refused says which are not run, and why.
	refusal, all, stop, stopErr := r.a.judge(limit, limitErr, step.FinishReason, r.guard.observe(calls))
	q := r.quota(calls, func(i int) (tool.Result, bool) {
		return refusal, (all || i >= r.a.opts.MaxToolCalls) && !r.answersOnLimit(final, calls, i)
	})
	step.Calls = t.finish(calls, q.refuse)
	r.spent(ctx, t, step.Calls, q)
	if stop == "" && pending(step.Calls) {
		if s, _ := r.settled(ctx, step.Calls); s == "" && r.canPause() {
			return r.pause(ctx, iter, step.Calls)
		}
		unpausable(step.Calls)
	}
	return r.endTurn(ctx, iter, step.Calls, stop, stopErr)
}

// judge is the loop's judgement of a turn's calls, repeat the turns in a row that made them
// (loopGuard.observe): the result of the calls that do not run, whether none runs (all) or
// only those past Options.MaxToolCalls do not, and why the run stops after the turn, if it
// does. limit, when not empty, is why the turn is the final tool-free one, limitErr its
// error: none of its calls runs, and the run stops with them.
func (a *Agent) judge(limit StopReason, limitErr error, finish openai.FinishReason, repeat int) (refusal tool.Result, all bool, stop StopReason, err error) {
	switch {
	case limit != "":
		return notExecuted(tool.KindNotExecuted, "not executed: the tool budget of this request is exhausted"), true, limit, limitErr
	case cutOff(finish) != "":
		return notExecuted(tool.KindNotExecuted, cutOff(finish)), true, "", nil
	case repeat >= a.opts.LoopStop:
		return notExecuted(tool.KindLoop, loopStopContent), true, StopLoopDetected, ErrLoopDetected
	case repeat > a.opts.LoopLimit:
		return notExecuted(tool.KindLoop, loopContent(repeat-1)), true, "", nil
	}
	return notExecuted(tool.KindNotExecuted, tooManyContent(a.opts.MaxToolCalls)), false, "", nil
}

// endTurn appends the results of a turn's calls and says whether the run stops, as iterate
// does.
func (r *run) endTurn(ctx context.Context, iter int, recs []CallRecord, stop StopReason, stopErr error) (StopReason, error) {
	if stop != "" {
		unpausable(recs) // a final turn's output call (answersOnLimit) waits for nothing
	}
	r.appendResults(recs)
	r.emit(ctx, Event{Kind: EventStepEnd, Iteration: iter})
	if stop != "" {
		return r.outputOnLimit(ctx, iter, recs, stop, stopErr)
	}
	if stop, err := r.settled(ctx, recs); stop != "" {
		return stop, err
	}
	return r.outputCalled(ctx, iter, recs, ""), nil
}

// settled says whether the run stops after a turn whose calls ended so: a fatal tool error,
// or a canceled run. It marks a pending call of such a turn not executed: the run does not
// pause when it stops.
func (r *run) settled(ctx context.Context, recs []CallRecord) (StopReason, error) {
	stop, err := StopReason(""), error(nil)
	for _, c := range recs {
		if tool.IsFatal(c.Result.Err) {
			stop, err = StopFatalTool, fmt.Errorf("agentkit: tool %s: %w", c.Call.Name, c.Result.Err)
			break
		}
	}
	if stop == "" && ctx.Err() != nil {
		stop, err = StopCanceled, ctx.Err()
	}
	if stop != "" {
		for i := range recs {
			if recs[i].Result.Kind == tool.KindPending {
				recs[i].Result = notExecuted(tool.KindNotExecuted, "error: not executed: the run stopped before this call was decided.")
			}
		}
	}
	return stop, err
}

// cutOff says, for the model, why the calls of a reply that finished for finish are not run,
// or returns "" when they may run: a reply cut by its length limit or a content filter may
// carry a call whose arguments were cut too ({"amount": 10 where 1000 was being written).
func cutOff(finish openai.FinishReason) string {
	switch finish {
	case openai.FinishReasonLength:
		return "error: not executed: your reply was cut off at its length limit (finish_reason length) before it was complete, so this call may be incomplete. Send the call again, complete, in a shorter reply."
	case openai.FinishReasonContentFilter:
		return "error: not executed: your reply was stopped by the provider's content filter (finish_reason content_filter) before it was complete, so this call may be incomplete. Send the call again if it is still needed."
	}
	return ""
}

func tooManyContent(max int) string {
	return fmt.Sprintf("error: not executed: one reply may run at most %d tool calls. Send the calls that are still needed in your next reply.", max)
}

func answer(m openai.ChatCompletionMessage) string {
	if m.Content != "" {
		return m.Content
	}
	for _, p := range m.MultiContent {
		if p.Type == openai.ChatMessagePartTypeText {
			return p.Text
		}
	}
	return m.Refusal
}

// failed says why the run stops on a failed step.
func (r *run) failed(ctx context.Context, err error) (StopReason, error) {
	if ctx.Err() != nil {
		return StopCanceled, fmt.Errorf("agentkit: %w", ctx.Err())
	}
	var he *HistoryError
	var ce *contextError
	var te *toolsError
	switch {
	case errors.As(err, &ce):
		return StopContextError, ce.err
	case errors.As(err, &te):
		return StopToolsError, te.err
	case errors.As(err, &he):
		return StopInvalidHistory, err
	}
	return StopModelError, err
}

func (r *run) finish(ctx context.Context, stop StopReason, err error) (*Result, error) {
	err = r.outputError(err)
	r.res.Stop = stop
	if l := r.a.opts.Logger; l != nil {
		l.LogAttrs(ctx, slog.LevelDebug, "agentkit: run end", slog.String("stop", string(stop)), slog.Int("iterations", r.res.Iterations), slog.Any("error", err))
	}
	r.emit(ctx, Event{Kind: EventRunEnd, Iteration: r.res.Iterations, Stop: stop, Err: err})
	return r.res, err
}

// observed reports whether anyone receives events: building one costs allocations.
func (r *run) observed() bool { return r.a.opts.OnEvent != nil || r.sink != nil }

func (r *run) emit(ctx context.Context, e Event) {
	if f := r.a.opts.OnEvent; f != nil {
		f(ctx, e)
	}
	if r.sink != nil {
		r.sink(e)
	}
}

// request builds the request of model call iter: the transcript, or the Context strategy's
// view of it, followed by BudgetExhaustedPrompt in the final request; it is checked whole
// before it is sent.
func (r *run) request(ctx context.Context, iter int, final bool) (openai.ChatCompletionRequest, error) {
	a := r.a
	req := openai.ChatCompletionRequest{
		Model:               a.opts.Model,
		Messages:            r.res.Messages,
		MaxCompletionTokens: a.opts.MaxCompletionTokens,
	}
	if a.temp != nil {
		req.Temperature = *a.temp
	}
	if len(r.box.defs) > 0 {
		req.Tools = r.box.defs
		req.ToolChoice = a.opts.ToolChoice
		if p := a.opts.ParallelToolCalls; p != nil {
			// ParallelToolCalls is an any with omitempty in go-openai: a nil *bool would be
			// sent as null, which the API rejects.
			req.ParallelToolCalls = *p
		}
		if final {
			req.ToolChoice = "none"
			req.ParallelToolCalls = nil
		}
	}
	what := "the transcript (a bug: please report it)"
	req.Messages = r.outputPrompt(req.Messages) // before the strategy, which counts it
	if cs := a.opts.Context; cs != nil {
		view, err := cs.Apply(ctx, r.session, req.Messages)
		if err != nil {
			return req, &contextError{fmt.Errorf("agentkit: context strategy before model call %d: %w", iter, err)}
		}
		req.Messages, what = view, "the context strategy's view"
	}
	if final {
		n := len(req.Messages)
		req.Messages = append(req.Messages[:n:n], openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: BudgetExhaustedPrompt})
	}
	r.outputRequest(&req, final)
	if err := ValidateHistory(req.Messages); err != nil {
		return req, fmt.Errorf("%w: %s before model call %d: %w", ErrInvalidHistory, what, iter, err)
	}
	return req, nil
}

// step makes model call iter and appends its reply to the transcript. It returns the reply as
// received, and the turn that runs its calls (some may have started while it streamed).
func (r *run) step(ctx context.Context, iter int, final bool) (openai.ChatCompletionMessage, *turn, error) {
	if err := ctx.Err(); err != nil {
		return openai.ChatCompletionMessage{}, nil, err
	}
	box, err := r.a.toolbox(ctx)
	if err != nil {
		return openai.ChatCompletionMessage{}, nil, err
	}
	r.box = box
	if box != &r.a.tools {
		ctx = context.WithValue(ctx, toolboxKey{}, box) // for calls of unknown tools
	}
	req, err := r.request(ctx, iter, final)
	if err != nil {
		return openai.ChatCompletionMessage{}, nil, err
	}
	if r.observed() {
		r.emit(ctx, Event{Kind: EventModelRequest, Iteration: iter, Request: &req})
	}
	if l := r.a.opts.Logger; l != nil && l.Enabled(ctx, slog.LevelDebug) {
		l.LogAttrs(ctx, slog.LevelDebug, "agentkit: model request", slog.Int("iteration", iter), slog.Int("messages", len(req.Messages)), slog.String("transcript", FormatTranscript(req.Messages)))
	}
	r.res.Iterations = iter
	t := &turn{r: r, iter: iter, ctx: r.withPool(ctx)}
	ok := false // the turn goes to the caller, who settles it
	defer func() {
		if !ok { // a failed step, or a panic (an OnEvent's, a Stream's): no early call outlives it
			t.abandon()
			r.spendTools(ctx, t.startedCost()) // what they ran was spent all the same
		}
	}()
	start := time.Now()
	var resp openai.ChatCompletionResponse
	mctx, report := withUsageReport(ctx)
	if r.sink != nil && r.a.stream != nil {
		resp, err = r.callStream(mctx, t, req, final)
	} else {
		resp, err = r.a.call(mctx, req)
	}
	dur := time.Since(start)
	switch {
	case err != nil:
	case len(resp.Choices) == 0:
		err = ErrNoChoices
	case replySize(&resp.Choices[0].Message) > r.a.opts.MaxReplyBytes:
		err = fmt.Errorf("%w: %d bytes, over the %d-byte bound (Options.MaxReplyBytes)", ErrReplyTooLarge, replySize(&resp.Choices[0].Message), r.a.opts.MaxReplyBytes)
	}
	if err != nil {
		usage, cost := r.spendRejected(ctx, err, report, resp, req.Model)
		if !errors.Is(err, ErrNoChoices) && !errors.Is(err, ErrReplyTooLarge) {
			err = fmt.Errorf("agentkit: model call %d: %w", iter, err)
		}
		r.emit(ctx, Event{Kind: EventModelResponse, Iteration: iter, Duration: dur, Err: err, Usage: usage, Cost: cost})
		return openai.ChatCompletionMessage{}, nil, err
	}
	choice := resp.Choices[0]
	msg := choice.Message
	if r.sink != nil && r.a.stream == nil && msg.Content != "" {
		// A streamed run on a model that cannot stream: the content in one delta.
		r.emit(ctx, Event{Kind: EventTextDelta, Iteration: iter, Text: msg.Content})
	}
	if r.sink != nil && r.a.stream == nil {
		r.outputPartials(ctx, iter).whole(msg) // and the answer in one partial
	}
	usage := report.usage(resp.Usage)
	cost := r.spendModel(ctx, usage, resp.Model, req.Model)
	r.res.Steps = append(r.res.Steps, Step{Iteration: iter, Message: msg, FinishReason: choice.FinishReason, Usage: usage, Cost: cost, Duration: dur})
	if r.observed() {
		m := msg // the event's own copy, its slices too
		m.ToolCalls, m.MultiContent = slices.Clone(msg.ToolCalls), slices.Clone(msg.MultiContent)
		r.emit(ctx, Event{Kind: EventModelResponse, Iteration: iter, Message: &m, Usage: usage, Cost: cost, Duration: dur})
	}
	if l := r.a.opts.Logger; l != nil {
		l.LogAttrs(ctx, slog.LevelDebug, "agentkit: model response", slog.Int("iteration", iter), slog.Duration("duration", dur),
			slog.Int("tool_calls", len(msg.ToolCalls)), slog.String("finish_reason", string(choice.FinishReason)), slog.Int("total_tokens", usage.TotalTokens))
	}
	norm := r.normalize(ctx, t, msg)
	if len(norm.ToolCalls) == 0 && !assistantHasContent(&norm) {
		// Judged on the normalized message: normalize drops empty parts, and a message of
		// empty parts only would be an assistant message with nothing in it.
		return msg, nil, fmt.Errorf("%w (finish_reason %q)", ErrEmptyMessage, choice.FinishReason)
	}
	r.res.Messages = append(r.res.Messages, norm)
	ok = true
	return msg, t, nil
}

// replySize is the size of what a reply carries into the transcript.
func replySize(m *openai.ChatCompletionMessage) int {
	n := len(m.Content) + len(m.ReasoningContent) + len(m.Refusal)
	for _, p := range m.MultiContent {
		n += len(p.Text)
	}
	for _, c := range m.ToolCalls {
		n += len(c.ID) + len(c.Function.Name) + len(c.Function.Arguments)
	}
	return n
}

// calls returns the tool calls of the last appended message (normalized ids), with the raw
// arguments as the model sent them in m.
func (r *run) calls(m openai.ChatCompletionMessage) []tool.Call {
	kept := r.res.Messages[len(r.res.Messages)-1].ToolCalls
	out := make([]tool.Call, len(m.ToolCalls))
	for i, c := range m.ToolCalls {
		out[i] = tool.Call{ID: kept[i].ID, Name: c.Function.Name, Arguments: c.Function.Arguments, Tool: r.box.byName[c.Function.Name]}
	}
	return out
}

// appendResults appends one tool message per record, in emission order.
func (r *run) appendResults(recs []CallRecord) {
	for _, c := range recs {
		content := c.Result.Content
		if content == "" {
			content = tool.EmptyContent
		}
		r.res.Messages = append(r.res.Messages, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: c.Call.ID, Content: content})
	}
}

// contextError marks a failure of Options.Context.
type contextError struct{ err error }

func (e *contextError) Error() string { return e.err.Error() }
func (e *contextError) Unwrap() error { return e.err }
