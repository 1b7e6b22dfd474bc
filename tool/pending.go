package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// The two reasons a call is pending (Result.Err of a [KindPending] result wraps one).
var (
	// ErrApprovalRequired: the call needs a decision from outside the run before it may run
	// (Options.RequireApproval, or middleware.RequireApproval).
	ErrApprovalRequired = errors.New("tool: the call waits for approval")
	// ErrDeferred: the call is run by the application, not by the agent (a [Deferred] tool):
	// its result comes from outside the run.
	ErrDeferred = errors.New("tool: the call is run by the application")
)

// Pending returns the result of a call that did not run and waits for a decision from outside
// the run: a [KindPending] result whose Err wraps reason ([ErrApprovalRequired] or
// [ErrDeferred]) and whose Value is args, the call's canonical validated arguments (what
// [Tool.Arguments] returns). The agent loop does not send it to the model: it pauses the run.
func Pending(call Call, args json.RawMessage, reason error) Result {
	return Result{
		Kind:    KindPending,
		Err:     fmt.Errorf("tool: call %s to %s: %w", call.ID, call.Name, reason),
		Content: "the call to " + call.Name + " did not run: it waits for a decision from outside the run.",
		Value:   args,
	}
}

type approvedKey struct{}

// WithApproved returns a context in which the calls of the given ids are approved: [Approved]
// reports true for them, and [Tool.Handle] and middleware.RequireApproval run them instead of
// returning a pending result. It replaces the approvals ctx carried: WithApproved(ctx) with
// no ids approves nothing (the agent loop starts every run so, so that a run inside a tool,
// an agent used as a tool, never inherits its caller's approvals).
func WithApproved(ctx context.Context, ids ...string) context.Context {
	return context.WithValue(ctx, approvedKey{}, slices.Clone(ids))
}

// Approved reports whether ctx approves the call of id ([WithApproved]).
func Approved(ctx context.Context, id string) bool {
	ids, _ := ctx.Value(approvedKey{}).([]string)
	return id != "" && slices.Contains(ids, id)
}

// Deferred returns a tool the application runs itself (in a browser, on a device, by a
// person): it has a name, a description and the schema reflected from In, as [New] has, and
// no function. Its Handle validates the arguments and returns a [Pending] result wrapping
// [ErrDeferred], approved or not: the agent loop pauses the run with the call, and the
// application supplies its result when it resumes the run (agentkit.Decision). Deferred
// panics as New does.
func Deferred[In any](name, description string, opts ...Options) *Tool {
	t := New(name, description, func(context.Context, In) (struct{}, error) {
		panic("tool.Deferred: the function of a deferred tool runs") // never: Handle returns first
	}, opts...)
	t.deferred, t.output, t.outputValidator = true, nil, nil
	return t
}

// IsDeferred reports whether the tool is run by the application ([Deferred]).
func (t *Tool) IsDeferred() bool { return t.deferred }

// RequiresApproval reports whether the tool's calls need approval (Options.RequireApproval).
func (t *Tool) RequiresApproval() bool { return t.approval }

// pending returns the pending result of a call Handle does not run, with its canonical
// arguments, and whether it is pending at all.
func (t *Tool) pending(ctx context.Context, call Call, args []byte) (Result, bool) {
	switch {
	case t.deferred:
		return Pending(call, args, ErrDeferred), true
	case t.approval && !Approved(ctx, call.ID):
		return Pending(call, args, ErrApprovalRequired), true
	}
	return Result{}, false
}
