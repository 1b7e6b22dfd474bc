package agentkit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/tool"
)

// BudgetExhaustedPrompt is the message sent, as a user message, before the final tool-free
// request of Options.FinalAnswerOnLimit. (A user message rather than a system one: several
// chat templates of local servers refuse a system message that is not the first.)
const BudgetExhaustedPrompt = "[budget] You have used all the tool calls allowed for this request and can call no more tools. Answer the user now with the information you already have, and say what you could not find out."

// Run runs the loop on one user message: it sends the system prompt and input, executes the
// tool calls the model asks for, feeds their results back, and repeats until the model answers
// without calling tools or a bound is reached.
//
// The Result is never nil and always holds a provider-valid transcript. The error is nil
// exactly when the run produced an answer (Result.Stop is StopAnswered, or StopIterationLimit
// after a successful final tool-free turn). Otherwise it is one of: ErrIterationLimit,
// ErrLoopDetected, an error wrapping a tool.Fatal error (errors.Is(err, tool.ErrFatal)), the
// model's error wrapped (errors.As finds *openai.APIError), ErrNoChoices, ErrEmptyMessage,
// ErrInvalidHistory, or the context's error.
func (a *Agent) Run(ctx context.Context, input string) (*Result, error) {
	return a.RunMessages(ctx, []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: input}})
}

// RunMessages is Run on a history: the conversation so far, ending with the new user message.
// The agent's Instructions are prepended unless history already starts with a system (or
// developer) message. history must pass ValidateHistory (use RepairHistory on one of unknown
// origin); it is not modified.
func (a *Agent) RunMessages(ctx context.Context, history []openai.ChatCompletionMessage) (*Result, error) {
	return a.newRun(history).start(ctx)
}

// newRun prepares the state of a run on history.
func (a *Agent) newRun(history []openai.ChatCompletionMessage, more ...openai.ChatCompletionMessage) *run {
	// Room for the system prompt and one round (a reply with a few calls, their results and
	// the answer); a message is ~300 bytes, so more than that is left to append.
	msgs := make([]openai.ChatCompletionMessage, 0, len(history)+len(more)+1+6)
	if a.opts.Instructions != "" && !hasSystemPrompt(history) {
		msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleSystem, Content: a.opts.Instructions})
	}
	msgs = append(msgs, history...)
	msgs = append(msgs, more...)
	return a.runOn(msgs)
}

// hasSystemPrompt reports whether a history begins with its own system prompt, which then
// replaces Options.Instructions.
func hasSystemPrompt(history []openai.ChatCompletionMessage) bool {
	return len(history) > 0 && (history[0].Role == openai.ChatMessageRoleSystem || history[0].Role == openai.ChatMessageRoleDeveloper)
}

// runOn prepares the state of a run whose transcript starts as msgs, which it owns.
func (a *Agent) runOn(msgs []openai.ChatCompletionMessage) *run {
	// One allocation for the run, its Result and room for two steps (one round).
	b := &struct {
		r     run
		res   Result
		steps [2]Step
	}{}
	b.res = Result{Steps: b.steps[:0], Messages: msgs, New: len(msgs)}
	b.r = run{a: a, res: &b.res}
	return &b.r
}

// MissingToolName replaces, in the transcript, the empty name of a tool call whose model sent
// none: a provider rejects a replayed call without a name.
const MissingToolName = "missing_tool_name"

// run is the state of one Run.
type run struct {
	a         *Agent
	res       *Result
	ids       callIDs // tool call ids in the history, to keep them unique
	guard     loopGuard
	session   string         // RunSession's session
	sessioned bool           // messages are persisted to Options.Memory
	persisted int            // Messages[:persisted] are stored (when sessioned)
	validated int            // Messages[:validated] passed ValidateHistory
	trusted   int            // Messages[:trusted] passed it before the run began (a Conversation)
	final     bool           // the current request is the tool-free last one
	budgetAt  int            // index of BudgetExhaustedPrompt in Messages, 0 if none
	over      atomic.Bool    // EventRunEnd was emitted: later events are dropped
	sink      func(Event)    // a streaming run's event channel
	streamer  StreamingModel // set when the run streams
	turn      *turnState     // calls of the current turn started while streaming
}

// start runs the loop through Options.RunMiddleware.
func (r *run) start(ctx context.Context) (*Result, error) {
	if OmittedFromContext(ctx) != 0 {
		// A run started from inside another's strategy: the count is that run's, not this
		// one's (nor its tools' and middleware's).
		ctx = context.WithValue(ctx, omittedKey{}, 0)
	}
	f := RunFunc(r.loop)
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

func (r *run) loop(ctx context.Context) (*Result, error) {
	a := r.a
	var hist *idSet
	var err error
	if r.trusted > 0 {
		// A Conversation's transcript: checked as it grew, its ids in r.ids already.
		err = validateHistory(r.res.Messages[r.trusted:], true)
	} else {
		hist, err = validateHistoryKeep(r.res.Messages, true)
	}
	if err != nil {
		r.sessioned = false // nothing of a run on a broken history is stored
		return r.finish(ctx, StopInvalidHistory, fmt.Errorf("%w: %w", ErrInvalidHistory, err))
	}
	r.validated = len(r.res.Messages)
	r.ids.hist = hist
	if err := r.persist(ctx); err != nil { // the user's message, before anything can fail
		return r.finish(ctx, StopMemoryError, err)
	}
	for iter := 1; iter <= a.opts.MaxIterations; iter++ {
		msg, err := r.step(ctx, iter, false)
		if err != nil {
			r.endTurn()
			return r.fail(ctx, err)
		}
		if len(msg.ToolCalls) == 0 {
			if err := validateHistory(r.res.Messages[r.validated:], false); err != nil {
				return r.finish(ctx, StopInvalidHistory, fmt.Errorf("%w: the model's answer (a bug: please report it): %w", ErrInvalidHistory, err))
			}
			r.res.Output = answer(msg)
			r.emit(ctx, Event{Kind: EventAnswer, Iteration: iter, Text: r.res.Output})
			return r.finish(ctx, StopAnswered, nil)
		}
		calls := r.calls(msg)
		step := &r.res.Steps[len(r.res.Steps)-1]
		repeat := r.guard.observe(calls)
		switch {
		case repeat >= a.opts.LoopStop:
			r.endTurn()
			step.Calls = r.refuse(ctx, iter, calls, tool.KindLoop, loopStopContent)
			return r.finish(ctx, StopLoopDetected, ErrLoopDetected)
		case repeat > a.opts.LoopLimit:
			r.endTurn()
			step.Calls = r.refuse(ctx, iter, calls, tool.KindLoop, loopContent(repeat-1))
			r.emit(ctx, Event{Kind: EventStepEnd, Iteration: iter})
			if err := r.persist(ctx); err != nil {
				return r.finish(ctx, StopMemoryError, err)
			}
			continue
		}
		step.Calls = r.execute(ctx, iter, calls)
		r.endTurn()
		r.appendResults(step.Calls)
		r.emit(ctx, Event{Kind: EventStepEnd, Iteration: iter})
		if err := r.persist(ctx); err != nil {
			return r.finish(ctx, StopMemoryError, err)
		}
		for _, c := range step.Calls {
			if tool.IsFatal(c.Result.Err) {
				return r.finish(ctx, StopFatalTool, fmt.Errorf("agentkit: tool %s: %w", c.Call.Name, c.Result.Err))
			}
		}
		if err := ctx.Err(); err != nil {
			return r.finish(ctx, StopCanceled, err)
		}
	}
	if !a.opts.FinalAnswerOnLimit {
		return r.finish(ctx, StopIterationLimit, ErrIterationLimit)
	}
	r.budgetAt = len(r.res.Messages)
	r.res.Messages = append(r.res.Messages, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: BudgetExhaustedPrompt})
	msg, err := r.step(ctx, a.opts.MaxIterations+1, true)
	if err != nil {
		return r.fail(ctx, err)
	}
	if len(msg.ToolCalls) > 0 {
		r.endTurn()
		step := &r.res.Steps[len(r.res.Steps)-1]
		step.Calls = r.refuse(ctx, a.opts.MaxIterations+1, r.calls(msg), tool.KindNotExecuted, "not executed: the tool budget of this request is exhausted")
		return r.finish(ctx, StopIterationLimit, ErrIterationLimit)
	}
	r.res.Output = answer(msg)
	return r.finish(ctx, StopIterationLimit, nil)
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

// fail ends the run on a model error.
func (r *run) fail(ctx context.Context, err error) (*Result, error) {
	if ctx.Err() != nil {
		return r.finish(ctx, StopCanceled, fmt.Errorf("agentkit: %w", ctx.Err()))
	}
	var he *HistoryError
	var ce *contextError
	switch {
	case errors.As(err, &ce):
		return r.finish(ctx, StopContextError, ce.err)
	case errors.As(err, &he):
		return r.finish(ctx, StopInvalidHistory, err)
	}
	return r.finish(ctx, StopModelError, err)
}

func (r *run) finish(ctx context.Context, stop StopReason, err error) (*Result, error) {
	if perr := r.persist(ctx); perr != nil && err == nil {
		stop, err = StopMemoryError, perr
	}
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
	if e.Kind == EventRunEnd {
		r.over.Store(true)
	} else if r.over.Load() {
		return // from a call abandoned at cancellation, finishing after the run ended
	}
	if f := r.a.opts.OnEvent; f != nil {
		f(ctx, e)
	}
	if r.sink != nil {
		r.sink(e)
	}
}

// request builds the request of one iteration.
func (r *run) request(final bool) openai.ChatCompletionRequest {
	a := r.a
	req := openai.ChatCompletionRequest{
		Model:               a.opts.Model,
		Messages:            r.res.Messages,
		MaxCompletionTokens: a.opts.MaxCompletionTokens,
	}
	if a.sendTemp {
		req.Temperature = a.temp
	}
	if len(a.defs) > 0 {
		req.Tools = a.defs
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
	return req
}

// strategyContext returns the context a ContextStrategy's Apply gets: ctx, saying how many
// messages of the session the run's Memory left out (OmittedFromContext). Only Apply gets
// the value, so a run started from a tool of this one (its context derives from ctx) never
// reads this run's count; a count inherited from elsewhere was reset by start.
func (r *run) strategyContext(ctx context.Context) context.Context {
	if r.res.Omitted > 0 {
		return context.WithValue(ctx, omittedKey{}, r.res.Omitted)
	}
	return ctx
}

// step makes one model call and appends the reply to the transcript.
func (r *run) step(ctx context.Context, iter int, final bool) (openai.ChatCompletionMessage, error) {
	if err := ctx.Err(); err != nil {
		return openai.ChatCompletionMessage{}, err
	}
	req := r.request(final)
	r.final = final
	if cs := r.a.opts.Context; cs != nil {
		view, err := cs.Apply(r.strategyContext(ctx), r.session, req.Messages)
		if err != nil {
			return openai.ChatCompletionMessage{}, &contextError{fmt.Errorf("agentkit: context strategy before model call %d: %w", iter, err)}
		}
		req.Messages = view
		// A strategy's view is checked whole, arguments included, also when it is the
		// transcript itself: a strategy that shortens the arguments of old calls, or
		// edits msgs in place against its contract, must not send broken JSON. The
		// transcript's own watermark, r.validated, stays where it is: what the loop
		// appended is checked on its own when the run answers.
		if err := ValidateHistory(req.Messages); err != nil {
			return openai.ChatCompletionMessage{}, fmt.Errorf("%w: the context strategy's view before model call %d: %w", ErrInvalidHistory, iter, err)
		}
	} else if err := validateHistory(req.Messages[r.validated:], false); err != nil {
		// The transcript up to r.validated passed when it was sent (the input history was
		// checked whole, arguments included, when the run began). What the loop appended
		// since — an assistant message with its tool block, or a user message — is checked
		// on its own: its ids are unique in the whole transcript by construction (normalize)
		// and its arguments normalized, so nothing else can have broken.
		return openai.ChatCompletionMessage{}, fmt.Errorf("%w before model call %d (a bug: please report it): %w", ErrInvalidHistory, iter, err)
	} else {
		r.validated = len(r.res.Messages) // an index into the transcript
	}
	if r.observed() {
		q := req // a copy: taking req's address would move it to the heap on every request
		r.emit(ctx, Event{Kind: EventModelRequest, Iteration: iter, Request: &q})
	}
	if l := r.a.opts.Logger; l != nil && l.Enabled(ctx, slog.LevelDebug) {
		l.LogAttrs(ctx, slog.LevelDebug, "agentkit: model request", slog.Int("iteration", iter), slog.Int("messages", len(req.Messages)), slog.String("transcript", FormatTranscript(req.Messages)))
	}
	r.res.Iterations = iter
	start := time.Now()
	var resp openai.ChatCompletionResponse
	var err error
	if r.streamer != nil {
		resp, err = r.callStream(ctx, iter, req)
	} else {
		resp, err = r.a.model.CreateChatCompletion(ctx, req)
	}
	dur := time.Since(start)
	if err == nil && len(resp.Choices) == 0 {
		err = ErrNoChoices
	}
	if err != nil {
		if !errors.Is(err, ErrNoChoices) {
			err = fmt.Errorf("agentkit: model call %d: %w", iter, err)
		}
		r.emit(ctx, Event{Kind: EventModelResponse, Iteration: iter, Duration: dur, Err: err})
		return openai.ChatCompletionMessage{}, err
	}
	choice := resp.Choices[0]
	msg := choice.Message
	if r.sink != nil && r.streamer == nil && msg.Content != "" {
		// A streaming run on a model that cannot stream: the content in one delta.
		r.emit(ctx, Event{Kind: EventTextDelta, Iteration: iter, Text: msg.Content})
	}
	r.res.Steps = append(r.res.Steps, Step{Iteration: iter, Message: msg, FinishReason: choice.FinishReason, Usage: resp.Usage, Duration: dur})
	r.res.Usage.PromptTokens += resp.Usage.PromptTokens
	r.res.Usage.CompletionTokens += resp.Usage.CompletionTokens
	r.res.Usage.TotalTokens += resp.Usage.TotalTokens
	if r.observed() {
		m := msg
		r.emit(ctx, Event{Kind: EventModelResponse, Iteration: iter, Message: &m, Usage: resp.Usage, Duration: dur})
	}
	if l := r.a.opts.Logger; l != nil {
		l.LogAttrs(ctx, slog.LevelDebug, "agentkit: model response", slog.Int("iteration", iter), slog.Duration("duration", dur),
			slog.Int("tool_calls", len(msg.ToolCalls)), slog.String("finish_reason", string(choice.FinishReason)), slog.Int("total_tokens", resp.Usage.TotalTokens))
	}
	norm := r.normalize(ctx, msg, iter)
	if len(norm.ToolCalls) == 0 && !assistantHasContent(&norm) {
		// Judged on the normalized message: normalize drops empty parts, and a message of
		// empty parts only would be an assistant message with nothing in it.
		return msg, fmt.Errorf("%w (finish_reason %q)", ErrEmptyMessage, choice.FinishReason)
	}
	r.res.Messages = append(r.res.Messages, norm)
	return msg, nil
}

// calls returns the tool calls of the last appended message (normalized ids), with the raw
// arguments as the model sent them in m.
func (r *run) calls(m openai.ChatCompletionMessage) []tool.Call {
	kept := r.res.Messages[len(r.res.Messages)-1].ToolCalls
	out := make([]tool.Call, len(m.ToolCalls))
	for i, c := range m.ToolCalls {
		out[i] = tool.Call{ID: kept[i].ID, Name: c.Function.Name, Arguments: c.Function.Arguments, Tool: r.a.byName[c.Function.Name]}
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

// refuse answers every call with a result of kind without running it.
func (r *run) refuse(ctx context.Context, iter int, calls []tool.Call, kind tool.Kind, content string) []CallRecord {
	recs := make([]CallRecord, len(calls))
	for i, c := range calls {
		recs[i] = CallRecord{Call: c, Result: tool.Result{Kind: kind, Err: errors.New(content), Content: content}}
		r.emit(ctx, Event{Kind: EventToolEnd, Iteration: iter, Call: &recs[i].Call, Result: &recs[i].Result})
	}
	r.appendResults(recs)
	return recs
}

// contextError marks a failure of Options.Context.
type contextError struct{ err error }

func (e *contextError) Error() string { return e.err.Error() }
func (e *contextError) Unwrap() error { return e.err }
