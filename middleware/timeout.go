package middleware

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/toolcall/toolcall/tool"
)

// Timeout bounds every call to d. The call's context gets a deadline d from now; when it
// passes, the model gets a [tool.KindTimeout] result at once, even if the tool ignores its
// context.
//
// To return at once, Timeout runs the rest of the chain in a goroutine and waits for either
// its result or the deadline. The calls of one Timeout share one timer, set for the earliest
// pending deadline (their deadlines come in the order they started); between calls there is
// no goroutine and no timer pending beyond the last deadline. A tool that ignores its context keeps running in that goroutine
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
	w := &deadlines{d: d}
	return func(next tool.Handler) tool.Handler {
		return func(parent context.Context, call tool.Call) tool.Result {
			ctx := w.start(parent)
			go ctx.run(next, call)
			var ok bool // the call returned: ctx.res is its result
			if done := parent.Done(); done == nil {
				ok = <-ctx.ready
			} else {
				select {
				case ok = <-ctx.ready:
				case <-done:
					ctx.cancel(parent.Err())
				}
			}
			if !ok {
				select { // a result that arrived with the deadline or the cancellation wins
				case ok = <-ctx.ready:
				default:
				}
			}
			w.unlink(ctx)
			ctxErr := ctx.Err() // read before the call's end cancels it
			ctx.cancel(context.Canceled)
			abandoned := !ok
			var res tool.Result
			if ok {
				res = ctx.res
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
			if !abandoned && ctxErr == nil {
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
