package agentkit

import (
	"bytes"
	"context"
	"crypto/hmac"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/tool"
)

// Decision is the decision on one pending call of a Pause. The zero Decision rejects, with
// no message, the call of the empty id (which no call has).
//
// A Decision names its call by id only, and ids repeat across runs (many providers number
// calls call_1, call_2… in every conversation): a decision taken on one pause approves the
// call of that id in any pause it is given with. Resume the Pause whose calls were shown —
// keep its ID with the decisions and compare — and show what encoding/json decodes from a
// state, not another parser's reading of its bytes (encoding/json matches keys without
// regard to case, and takes the last of duplicate keys).
type Decision struct {
	// CallID names the call (PendingCall.ID).
	CallID string
	// Approve runs an approval's call, or, for a deferred call, gives it Result. False
	// rejects the call: it never runs, and the model reads that the user declined it, with
	// Message; a rejection with Arguments or a Result is ErrDecision.
	Approve bool
	// Message is, for a rejection, the user's words for the model (why, what to do instead).
	// Empty adds nothing to the refusal.
	Message string
	// Arguments, when set on an approval, replace the call's arguments: the call runs with
	// them once they pass the tool's validation again (a refusal is a result the model
	// reads), and the model is told the arguments were edited. They must be a JSON object:
	// anything else (empty, not JSON, an array) is ErrDecision. Nil, or JSON null (what nil
	// becomes through JSON), runs the pending ones. Not allowed on a deferred call.
	Arguments json.RawMessage
	// Result is, for an approved deferred call, the tool's output the application produced:
	// what the model reads. Empty becomes tool.EmptyContent.
	Result string
}

// pendingAt returns the pending call of p with id, or nil.
func (p *Pause) pendingAt(id string) *PendingCall {
	for i := range p.Pending {
		if p.Pending[i].ID == id {
			return &p.Pending[i]
		}
	}
	return nil
}

// Resume continues a paused run with a decision for each pending call: approved calls run,
// through Options.Middleware, with the approval in their context (tool.Approved), so that the
// checks that paused them let them through; rejected calls get a tool.KindDenied result with
// the decision's Message; deferred calls get the decision's Result. With the results of the
// calls that ran before the pause, they are appended in emission order, and the loop goes on
// from the next model call, within the run's bounds (MaxIterations counts from the paused
// iteration; the loop guard keeps its count). A tool that is gone since the pause answers as
// an unknown tool; a schema that changed validates the arguments again.
//
// Before anything runs, Resume checks, in order: the version (ErrPauseVersion); the MAC when
// Options.PauseKey is set (ErrPauseTampered); that the state is consistent
// (ErrInvalidPause); that decisions name each pending call exactly once (ErrDecision); and
// it claims the pause's id in Options.Ledger (ErrNoLedger without one, ErrAlreadyResumed
// when it was claimed before), so that a state resumed twice, or concurrently, runs its
// approved calls once. Options.Toolsets are listed before the claim: one that fails refuses
// the resume, and the pause can be resumed later; so does a context canceled before the
// claim. All of it runs within
// Options.RunMiddleware: a middleware that does not call next claims nothing. A refused
// Resume returns a Result with Stop StopResumeRefused and no messages.
//
// Otherwise Resume returns as Run does, and may pause again on a later turn (a new Pause,
// with an id of its own). Result.Steps begins with the resumed turn: its Message is the
// paused assistant message, and it has no usage or duration of its own (those were the
// paused run's).
func (a *Agent) Resume(ctx context.Context, p *Pause, decisions []Decision) (*Result, error) {
	return a.resumeRun(ctx, p, decisions, nil)
}

// ResumeStream is Resume with the model's replies streamed, as RunStream: the events of the
// resumed turn's calls, then those of the following model calls. A refused Resume's
// StreamRun has only its EventRunEnd.
func (a *Agent) ResumeStream(ctx context.Context, p *Pause, decisions []Decision) *StreamRun {
	return startStream(ctx, func(ctx context.Context, sink func(Event)) (*Result, error) {
		return a.resumeRun(ctx, p, decisions, sink)
	})
}

func (a *Agent) resumeRun(ctx context.Context, p *Pause, decisions []Decision, sink func(Event)) (*Result, error) {
	r := &run{a: a, sink: sink, res: &Result{}}
	return r.start(ctx, func(ctx context.Context) (*Result, error) {
		box, err := a.claim(ctx, p, decisions)
		if err != nil {
			return r.refuse(ctx, err)
		}
		r.adopt(p, box)
		return r.resume(ctx, p, decisions)
	})
}

// refuse ends a Resume that ran nothing: StopResumeRefused, no messages.
func (r *run) refuse(ctx context.Context, err error) (*Result, error) {
	r.res, r.store = &Result{}, nil
	return r.finish(ctx, StopResumeRefused, err)
}

// claim checks p and decisions and claims p, within Options.RunMiddleware (a middleware that
// does not call next leaves the pause resumable), and returns the tools the resumed turn
// runs with.
func (a *Agent) claim(ctx context.Context, p *Pause, decisions []Decision) (*toolbox, error) {
	if err := a.checkPause(p, decisions); err != nil {
		return nil, err
	}
	if p.Session != "" { // its one copy is in the session's PauseStore, which hands it out once
		return nil, fmt.Errorf("%w: the pause of session %q resumes with ResumeSession", ErrInvalidPause, p.Session)
	}
	if a.opts.Ledger == nil {
		return nil, ErrNoLedger
	}
	box, err := a.toolbox(ctx) // before the claim: a Toolset that fails leaves the pause resumable
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil { // whatever the Ledger would do with it: nothing could run
		return nil, fmt.Errorf("agentkit: resuming pause %s: %w", p.ID, err)
	}
	won, err := a.opts.Ledger.Claim(ctx, "agentkit.pause:"+p.ID)
	switch {
	case err != nil:
		return nil, fmt.Errorf("agentkit: claiming pause %s: %w", p.ID, err)
	case !won:
		return nil, fmt.Errorf("%w: pause %s", ErrAlreadyResumed, p.ID)
	}
	return box, nil
}

// adopt makes r the run of p, its transcript the pause's without the assistant message.
func (r *run) adopt(p *Pause, box *toolbox) {
	msgs := slices.Clone(p.Messages[:len(p.Messages)-1])
	r.res = &Result{Messages: msgs, New: p.New, Omitted: p.Omitted, Usage: p.Usage, Cost: p.Cost, Iterations: p.Iteration}
	r.toolCalls, r.toolsOut = p.ToolCalls, p.ToolCallsOut
	r.tokens = tokens(p.Usage) // the paused run's, from its sums: a Pause keeps no call's own
	r.guard = loopGuard{prev: slices.Clone(p.Guard.Prev), repeats: p.Guard.Repeats}
	r.box = box
}

// checkPause checks p and decisions without running anything.
func (a *Agent) checkPause(p *Pause, decisions []Decision) error {
	if p == nil {
		return fmt.Errorf("%w: nil Pause", ErrInvalidPause)
	}
	if p.Version < 1 || p.Version > PauseVersion {
		return fmt.Errorf("%w %d: this version of agentkit reads versions 1 to %d", ErrPauseVersion, p.Version, PauseVersion)
	}
	if key := a.opts.PauseKey; key != nil {
		want, err := pauseMAC(key, p)
		if err != nil || !hmac.Equal(p.MAC, want) {
			return fmt.Errorf("%w (pause %q)", ErrPauseTampered, p.ID)
		}
	}
	if err := p.check(); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidPause, err)
	}
	if err := p.checkDecisions(decisions); err != nil {
		return fmt.Errorf("%w: %w", ErrDecision, err)
	}
	return nil
}

// check says what makes p inconsistent: its transcript must end with an assistant message
// whose every call is either answered (Results) or pending, once, and validate before it.
func (p *Pause) check() error {
	n := len(p.Messages)
	if n == 0 || p.Messages[n-1].Role != openai.ChatMessageRoleAssistant || len(p.Messages[n-1].ToolCalls) == 0 {
		return errors.New("the transcript does not end with the assistant message whose calls paused")
	}
	if p.ID == "" || p.Iteration < 1 || len(p.Pending) == 0 || p.New < 0 || p.New > n {
		return errors.New("no id, no iteration or no pending call")
	}
	// The transcript the resumed turn makes must validate: checked with a stand-in result
	// per call, before anything runs.
	whole := slices.Clone(p.Messages)
	for _, c := range p.Messages[n-1].ToolCalls {
		whole = append(whole, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: c.ID, Content: "-"})
	}
	if err := ValidateHistory(whole); err != nil {
		return err
	}
	seen := map[string]int{}
	for _, r := range p.Results {
		seen[r.ID]++
	}
	for _, c := range p.Pending {
		seen[c.ID]++
		if c.Kind != PendingApproval && c.Kind != PendingDeferred {
			return fmt.Errorf("call %q: unknown pending kind %q", c.ID, c.Kind)
		}
	}
	calls := p.Messages[n-1].ToolCalls
	for _, c := range calls {
		if seen[c.ID] != 1 {
			return fmt.Errorf("call %q has %d results or pending entries, want 1", c.ID, seen[c.ID])
		}
		if pc := p.pendingAt(c.ID); pc != nil && pc.Name != c.Function.Name {
			// The name shown to whoever decides is the name of the tool that runs.
			return fmt.Errorf("pending call %q names %q, the call %q", c.ID, pc.Name, c.Function.Name)
		}
	}
	if len(seen) != len(calls) {
		return errors.New("a result or pending entry names no call of the turn")
	}
	return nil
}

// checkDecisions says what is wrong with decisions for p's pending calls.
func (p *Pause) checkDecisions(decisions []Decision) error {
	seen := map[string]bool{}
	for _, d := range decisions {
		c := p.pendingAt(d.CallID)
		switch {
		case c == nil:
			return fmt.Errorf("no pending call has id %q", d.CallID)
		case seen[d.CallID]:
			return fmt.Errorf("two decisions for call %q", d.CallID)
		case !d.Approve && (edited(d) != nil || d.Result != ""):
			// Most likely an approval whose Approve was forgotten: dropping what it carries
			// would tell the model the user declined.
			return fmt.Errorf("call %q of %s is rejected (Approve false), yet the decision gives it arguments or a result", d.CallID, c.Name)
		case c.Kind == PendingDeferred && edited(d) != nil:
			return fmt.Errorf("call %q of deferred tool %s: a deferred call's arguments cannot be edited", d.CallID, c.Name)
		case c.Kind == PendingApproval && d.Result != "":
			return fmt.Errorf("call %q of %s waits for approval: it runs, a Result cannot be given", d.CallID, c.Name)
		case edited(d) != nil && !isObject(d.Arguments):
			return fmt.Errorf("call %q of %s: the edited arguments are not a JSON object", d.CallID, c.Name)
		}
		seen[d.CallID] = true
	}
	for _, c := range p.Pending {
		if !seen[c.ID] {
			return fmt.Errorf("no decision for call %q of %s", c.ID, c.Name)
		}
	}
	return nil
}

// resume runs the paused turn's approved calls, appends every result of the turn, and goes
// on with the loop.
func (r *run) resume(ctx context.Context, p *Pause, decisions []Decision) (*Result, error) {
	iter := p.Iteration
	r.ids = callIDs(p.Messages)
	if r.box != &r.a.tools {
		ctx = context.WithValue(ctx, toolboxKey{}, r.box) // for calls of unknown tools
	}
	msg := p.Messages[len(p.Messages)-1]
	r.res.Messages = append(r.res.Messages, msg)
	from := len(r.res.Messages) - 1
	calls, answers, approved := r.decided(msg, p, decisions)
	r.toolCalls += len(approved) // decided by a person: run whatever the tool-call budget says
	// A call the paused turn refused for the tool-call budget stops the run, as it would have
	// without the pause, unless the Resume's budget has room left.
	r.toolsOut = r.toolsOut && (r.budget.ToolCalls < 0 || r.toolCalls >= r.budget.ToolCalls)
	t := &turn{r: r, iter: iter, ctx: r.withPool(tool.WithApproved(ctx, approved...)), quiet: map[int]bool{}}
	for i, c := range calls {
		t.quiet[i] = slices.ContainsFunc(p.Results, func(r PausedResult) bool { return r.ID == c.ID }) // reported before the pause
	}
	r.approved = func(rec CallRecord) tool.Result { return ranAfterApproval(rec, p.pendingAt(rec.Call.ID)) }
	recs := t.finish(calls, func(i int) (tool.Result, bool) {
		res, ok := answers[i]
		return res, ok
	})
	r.approved = nil
	r.spendTools(ctx, sumCost(recs))
	r.res.Steps = append(r.res.Steps, Step{Iteration: iter, Message: msg, Calls: recs})
	stop, stopErr := r.endTurn(ctx, iter, recs, "", nil)
	if serr := r.save(ctx, r.res.Messages[from:]); serr != nil && stopErr == nil {
		stop, stopErr = StopMemoryError, serr
	}
	if stop != "" {
		return r.finish(ctx, stop, stopErr)
	}
	return r.iterations(ctx, iter+1)
}

// decided returns the calls of the paused message msg, the results of those that do not run
// now (by position: those that ran before the pause, the rejected and the deferred ones), and
// the ids of the approved calls, which run.
func (r *run) decided(msg openai.ChatCompletionMessage, p *Pause, decisions []Decision) ([]tool.Call, map[int]tool.Result, []string) {
	byID := map[string]Decision{}
	for _, d := range decisions {
		byID[d.CallID] = d
	}
	done := map[string]PausedResult{}
	for _, res := range p.Results {
		done[res.ID] = res
	}
	calls := make([]tool.Call, len(msg.ToolCalls))
	answers := map[int]tool.Result{}
	var approved []string
	for i, tc := range msg.ToolCalls {
		calls[i] = tool.Call{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments, Tool: r.box.byName[tc.Function.Name]}
		if res, ok := done[tc.ID]; ok {
			answers[i] = tool.Result{Kind: res.Kind, Content: res.Content}
			continue
		}
		c, d := p.pendingAt(tc.ID), byID[tc.ID]
		if res, ok := Decided(*c, d); ok {
			answers[i] = res
			continue
		}
		calls[i].Arguments = approvedArguments(c, d)
		approved = append(approved, tc.ID)
	}
	return calls, answers, approved
}

// approvedArguments returns the arguments an approved call c runs with: d's edited ones,
// or the pending ones.
func approvedArguments(c *PendingCall, d Decision) string {
	if args := edited(d); args != nil {
		return string(args)
	}
	return string(c.Arguments)
}

// edited returns the arguments d edits its call to, or nil when it edits none: no Arguments,
// or JSON null.
func edited(d Decision) json.RawMessage {
	if d.Arguments == nil || string(bytes.TrimSpace(d.Arguments)) == "null" {
		return nil
	}
	return d.Arguments
}

// isObject reports whether b is one JSON object.
func isObject(b json.RawMessage) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 0 && b[0] == '{' && json.Valid(b)
}

// declined is the result of a rejected call.
func declined(c *PendingCall, message string) tool.Result {
	content := "error: the user declined this call to " + c.Name + "; it did not run. Do not retry it; ask the user how to proceed, or answer without it."
	if message != "" {
		content += " The user said: " + message
	}
	return tool.Result{Kind: tool.KindDenied, Err: fmt.Errorf("agentkit: call %s to %s rejected", c.ID, c.Name), Content: content}
}

// ranAfterApproval is the result of an approved call as the model reads it: a call that is
// pending again (its tool became deferred since the pause) is not executed, and a call whose
// arguments the decision edited says so.
func ranAfterApproval(rec CallRecord, c *PendingCall) tool.Result {
	res := rec.Result
	if res.Kind == tool.KindPending {
		return notExecuted(tool.KindNotExecuted, "error: not executed: the call to "+c.Name+" was approved but still waits for a decision (the tool changed since it was approved). Tell the user.")
	}
	if rec.Call.Arguments != string(c.Arguments) {
		res.Content = "note: the user edited the arguments of this call before approving it, to " + rec.Call.Arguments + "; the result below is for those.\n" + res.Content
	}
	return res
}

// pause ends a turn whose calls include pending ones: the run stops with StopPaused and a
// Pause holding the turn. The assistant message leaves the transcript (Result.Messages and
// the session), which stays provider-valid; the Pause keeps it.
func (r *run) pause(ctx context.Context, iter int, recs []CallRecord) (StopReason, error) {
	p, err := r.pauseOf(recs)
	r.res.Messages = r.res.Messages[:len(r.res.Messages)-1]
	if err != nil {
		return StopInvalidHistory, err
	}
	if r.store != nil {
		if err := r.savePause(ctx, p); err != nil {
			return StopMemoryError, err // a Pause kept nowhere could be resumed nowhere
		}
	}
	r.res.Pause = p
	r.emit(ctx, Event{Kind: EventStepEnd, Iteration: iter})
	return StopPaused, ErrPaused
}

// unpausable answers the pending calls of a run that cannot pause not executed.
func unpausable(recs []CallRecord) {
	for i := range recs {
		if recs[i].Result.Kind == tool.KindPending {
			recs[i].Result = notExecuted(tool.KindNotExecuted, "error: not executed: the call to "+recs[i].Call.Name+" needs a decision from outside the run, and this run cannot wait for one. Tell the user it needs their approval.")
		}
	}
}

func pending(recs []CallRecord) bool {
	return slices.ContainsFunc(recs, func(c CallRecord) bool { return c.Result.Kind == tool.KindPending })
}
