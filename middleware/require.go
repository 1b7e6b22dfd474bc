package middleware

import (
	"context"

	"github.com/toolcall/toolcall/tool"
)

// RequireApproval makes the calls pred accepts wait for a decision from outside the run: the
// asynchronous counterpart of [Approve], for approvers who answer in hours, from another
// process. The arguments are repaired and validated first, as Approve does: a call the tool
// would refuse gets the tool's own invalid-arguments result and never waits. A valid call pred
// accepts is not run: its result is [tool.Pending] with the canonical arguments, on which the
// agent loop pauses the run (agentkit.Pause); the resumed run approves it in its context
// ([tool.Approved]), and the same call then passes through to next.
//
//	middleware.RequireApproval(middleware.Destructive)  // by the tools' MCP annotations
//	middleware.RequireApproval(func(c tool.Call) bool { return c.Name == "transfer" })
//
// pred sees the call with its raw arguments ([tool.Call].Tool is set). Calls to tools that do
// not exist pass through, and so do calls to [tool.Deferred] tools: the application runs
// those, and the result it gives is its decision (waiting for approval first, the call would
// wait again once approved). RequireApproval panics if pred is nil.
func RequireApproval(pred func(tool.Call) bool) tool.Middleware {
	if pred == nil {
		panic("middleware.RequireApproval: nil predicate")
	}
	return func(next tool.Handler) tool.Handler {
		return func(ctx context.Context, call tool.Call) tool.Result {
			if call.Tool == nil || call.Tool.IsDeferred() || !pred(call) || tool.Approved(ctx, call.ID) {
				return next(ctx, call)
			}
			args, fail := validated(call)
			if fail != nil {
				return *fail
			}
			return tool.Pending(call, args, tool.ErrApprovalRequired)
		}
	}
}
