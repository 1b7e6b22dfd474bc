package middleware

import (
	"context"
	"fmt"

	"github.com/toolcall/toolcall/tool"
)

// ApproveOptions configures [Approve]. The zero value asks about every call.
type ApproveOptions struct {
	// Tools restricts approval to the calls of these tools; the others run without asking.
	// Empty means every tool.
	Tools []string
}

// Approve asks approve before each call runs: human-in-the-loop approval for tools with
// consequences (payments, deletions, messages sent in the user's name).
//
// The arguments are repaired and validated first: a call the tool would refuse gets the
// tool's own invalid-arguments result and never reaches the approver. The approver sees the
// call with Arguments replaced by the validated JSON object ([tool.Tool.Arguments]), the
// exact values the tool would run with, never the raw text. Then:
//
//   - approved (true, nil): the call runs;
//   - declined (false, nil): a [tool.KindDenied] result tells the model the user declined
//     and not to retry;
//   - an error: the call fails closed, as a [tool.KindDenied] result saying approval could not
//     be obtained ([tool.KindCanceled] if the run's context is done); Result.Err wraps the
//     approver's error, which the model does not see.
//
// approve may block, waiting for a human, for as long as the call's context allows. Calls
// of one turn run concurrently, so it may be asked about several calls at once. Calls to
// tools that do not exist pass through. opts may be nil. Approve panics if approve is nil.
func Approve(approve func(ctx context.Context, call tool.Call) (bool, error), opts *ApproveOptions) tool.Middleware {
	if approve == nil {
		panic("middleware.Approve: nil approver")
	}
	var only map[string]struct{}
	if opts != nil && len(opts.Tools) > 0 {
		only = nameSet(opts.Tools)
	}
	return func(next tool.Handler) tool.Handler {
		return func(ctx context.Context, call tool.Call) tool.Result {
			if call.Tool == nil {
				return next(ctx, call)
			}
			if _, ok := only[call.Name]; only != nil && !ok {
				return next(ctx, call)
			}
			args, fail := validated(call)
			if fail != nil {
				return *fail
			}
			shown := call
			shown.Arguments = string(args)
			ok, err := approve(ctx, shown)
			switch {
			case err != nil && ctx.Err() != nil:
				return tool.Result{Kind: tool.KindCanceled, Err: fmt.Errorf("middleware: approval of call to %s: %w", call.Name, err),
					Content: "error: the call to " + call.Name + " was canceled while waiting for approval; it did not run."}
			case err != nil:
				return tool.Result{Kind: tool.KindDenied, Err: fmt.Errorf("middleware: approval of call to %s failed: %w", call.Name, err),
					Content: "error: the call to " + call.Name + " did not run: approval could not be obtained. Do not retry it now; tell the user it needs their approval."}
			case !ok:
				return tool.Result{Kind: tool.KindDenied, Err: fmt.Errorf("middleware: call to %s declined by the approver", call.Name),
					Content: "error: the user declined this call to " + call.Name + "; it did not run. Do not retry it; ask the user how to proceed, or answer without it."}
			}
			return next(ctx, call)
		}
	}
}
