package tool

import (
	"context"
)

// Call is one tool call as the model emitted it.
//
// Arguments is the raw text of the call's arguments exactly as the model sent it: it may be
// empty, "null", malformed or wrapped in a markdown fence. [Tool.Handle] decodes, repairs and
// validates it; middleware that needs the decoded arguments calls [Tool.Arguments].
type Call struct {
	// ID is the provider's tool_call_id; the result is sent back under the same ID.
	ID string
	// Name is the tool name the model asked for. It may name no tool at all.
	Name string
	// Arguments is the raw argument text the model sent.
	Arguments string
	// Tool is the tool Name resolves to, set by the agent loop before the middleware chain
	// runs; nil when the model named a tool that does not exist. Middleware uses it to read
	// the schema or to validate the arguments early ([Tool.Arguments]).
	Tool *Tool
}

// Handler executes one call and returns its result. A Handler reports failure in the Result
// (Kind and Err), never by panicking: the agent loop feeds every Result back to the model.
//
// A Handler must be safe for concurrent use: the calls of one model turn run in parallel.
type Handler func(ctx context.Context, call Call) Result

// Middleware wraps a Handler, the way net/http middleware wraps an http.Handler. A Middleware
// may inspect or rewrite the call, short-circuit it with its own Result, or post-process the
// Result of next.
type Middleware func(next Handler) Handler

// Chain composes middleware into one. The first middleware is the outermost layer: it sees
// the call first and the result last.
//
//	Chain(a, b)(h)   ==   a(b(h))
//
//	call ──▶ a ──▶ b ──▶ h
//	result ◀── a ◀── b ◀──┘
//
// Nil entries are skipped. Chain of nothing is the identity.
func Chain(mw ...Middleware) Middleware {
	return func(h Handler) Handler {
		for i := len(mw) - 1; i >= 0; i-- {
			if mw[i] != nil {
				h = mw[i](h)
			}
		}
		return h
	}
}

type callKey struct{}

// WithCall returns a context carrying call, for code below the handler (the typed function of
// a tool, or inner middleware) that wants to know which call it is serving.
// [Tool.Handle] does this before running the tool's function.
func WithCall(ctx context.Context, call Call) context.Context {
	return context.WithValue(ctx, callKey{}, call)
}

// CallFromContext returns the call being served, as set by [WithCall].
func CallFromContext(ctx context.Context) (Call, bool) {
	c, ok := ctx.Value(callKey{}).(Call)
	return c, ok
}
