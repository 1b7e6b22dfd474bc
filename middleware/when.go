package middleware

import (
	"context"

	"github.com/toolcall/toolcall/tool"
)

// When applies mw only to the calls pred accepts; the others go straight to the next handler.
// With the predicates below it gives each tool the middleware its nature asks for:
//
//	middleware.When(middleware.Destructive, middleware.Approve(ask, nil)) // approval before destruction
//	middleware.When(middleware.Idempotent, middleware.Retry(nil))        // retry only what may repeat
//
// pred reads the call ([tool.Call].Tool is nil for a tool that does not exist). When panics
// if pred or mw is nil.
func When(pred func(tool.Call) bool, mw tool.Middleware) tool.Middleware {
	if pred == nil || mw == nil {
		panic("middleware.When: nil predicate or middleware")
	}
	return func(next tool.Handler) tool.Handler {
		wrapped := mw(next)
		return func(ctx context.Context, call tool.Call) tool.Result {
			if pred(call) {
				return wrapped(ctx, call)
			}
			return next(ctx, call)
		}
	}
}

// Destructive reports whether the call's tool may destroy something, by its annotations
// ([tool.Annotations.IsDestructive]: a tool that says nothing may). A call to a tool that does
// not exist is not destructive: it runs nothing.
func Destructive(call tool.Call) bool {
	return call.Tool != nil && call.Tool.Annotations().IsDestructive()
}

// Idempotent reports whether the call's tool may be called again without further effect, by
// its annotations ([tool.Annotations.IsIdempotent]: read-only or marked idempotent).
func Idempotent(call tool.Call) bool {
	return call.Tool != nil && call.Tool.Annotations().IsIdempotent()
}

// ReadOnly reports whether the call's tool is marked read-only.
func ReadOnly(call tool.Call) bool {
	return call.Tool != nil && call.Tool.Annotations().ReadOnly
}
