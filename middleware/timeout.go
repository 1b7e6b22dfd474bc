package middleware

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/toolcall/toolcall/tool"
)

// Timeout bounds every call to d. The call's context gets a deadline d from now; when it
// passes, the model gets a [tool.KindTimeout] result at once, even if the tool ignores its
// context.
//
// To return at once, Timeout runs the rest of the chain in a goroutine and waits for either
// its result or the deadline. A tool that ignores its context keeps running in that goroutine
// after the deadline, until it returns on its own: Go cannot stop a goroutine from outside.
// Neither the run nor Timeout waits for it; its late result is dropped into a buffered
// channel nobody reads, so the goroutine never blocks and ends as soon as the tool returns.
// Its side effects still happen, which is why the timeout result tells the model the outcome
// is unknown. A panic in that goroutine is recovered and becomes a [tool.KindPanic] result, as
// it would without Timeout.
//
// When the run's own context is canceled first, the result is [tool.KindCanceled].
//
// Timeout panics if d is not positive.
func Timeout(d time.Duration) tool.Middleware {
	if d <= 0 {
		panic(fmt.Sprintf("middleware.Timeout: duration must be positive, got %s", d))
	}
	return func(next tool.Handler) tool.Handler {
		return func(ctx context.Context, call tool.Call) tool.Result {
			parent := ctx
			ctx, cancel := context.WithTimeout(ctx, d)
			defer cancel()
			done := make(chan tool.Result, 1) // buffered: an abandoned goroutine never blocks
			go func() {
				defer func() {
					if p := recover(); p != nil {
						done <- tool.Result{Kind: tool.KindPanic, Err: fmt.Errorf("middleware: call to %s panicked: %v", call.Name, p), Stack: debug.Stack(),
							Content: "error: the call to " + call.Name + " crashed before it could finish. Do not retry it; try another way or tell the user."}
					}
				}()
				done <- next(ctx, call)
			}()
			var res tool.Result
			abandoned := false
			select {
			case res = <-done:
			case <-ctx.Done():
				select { // a result that arrived with the deadline wins
				case res = <-done:
				default:
					abandoned = true
				}
			}
			if !abandoned && !(res.Failed() && (errors.Is(res.Err, context.DeadlineExceeded) || errors.Is(res.Err, context.Canceled))) {
				return res
			}
			// The context ended the call: ours, or the run's.
			if err := parent.Err(); err != nil && !errors.Is(err, context.DeadlineExceeded) {
				if !abandoned && res.Kind == tool.KindCanceled {
					return res
				}
				return tool.Result{Kind: tool.KindCanceled, Err: err, Content: "error: the call to " + call.Name + " was canceled before it finished."}
			}
			if !abandoned && ctx.Err() == nil {
				return res // a context error of the tool's own making
			}
			within := "within " + d.String()
			if parent.Err() != nil { // the run's deadline came first
				within = "before the request's deadline"
			}
			return tool.Result{
				Kind: tool.KindTimeout,
				Err:  fmt.Errorf("middleware: tool %s: no result %s: %w", call.Name, within, context.DeadlineExceeded),
				Content: "error: tool " + call.Name + " did not finish " + within + " and was abandoned; its outcome is unknown (it may still complete). " +
					"Do not assume it succeeded. Try again later, with a smaller request, or another way.",
				Repair: res.Repair,
			}
		}
	}
}
