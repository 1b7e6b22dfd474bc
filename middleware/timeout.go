package middleware

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/toolcall/toolcall/tool"
)

// Timeout bounds every call to d: the call runs with a context.WithTimeout context, and when
// the deadline passes the model gets a [tool.KindTimeout] result at once, even if the tool
// ignores its context. When the run's context is canceled first, the result is
// [tool.KindCanceled]; when the run's deadline comes first, a timeout saying so.
//
// The rest of the chain runs in a goroutine, which Timeout waits for until the deadline. A
// tool that ignores its context keeps running in it after the deadline, until it returns on
// its own (Go cannot stop a goroutine from outside): this is the one documented exception
// to "Run waits for every goroutine it starts". Its late result goes into a buffered channel
// nobody reads, so the goroutine never blocks and ends when the tool returns. Its side
// effects still happen: the timeout result tells the model the outcome is unknown; and the
// next call starts while it runs, even the next call of a Sequential tool. A panic in the
// goroutine becomes a [tool.KindPanic] result, as it would without Timeout.
//
// Timeout panics if d is not positive.
func Timeout(d time.Duration) tool.Middleware {
	if d <= 0 {
		panic(fmt.Sprintf("middleware.Timeout: duration must be positive, got %s", d))
	}
	return func(next tool.Handler) tool.Handler {
		return func(parent context.Context, call tool.Call) tool.Result {
			ctx, cancel := context.WithTimeout(parent, d)
			defer cancel()
			results := make(chan tool.Result, 1) // room for a late result: the goroutine never blocks
			go runCall(ctx, next, call, results)
			var res tool.Result
			returned := true
			select {
			case res = <-results:
			case <-ctx.Done():
				select { // a result that arrived with the deadline or the cancellation wins
				case res = <-results:
				default:
					returned = false
				}
			}
			return timeoutResult(parent, ctx.Err(), call, d, res, returned)
		}
	}
}

// runCall runs the rest of the chain and sends its result; a panic becomes a KindPanic
// result. After runtime.Goexit nothing is sent: the call ends at its deadline.
func runCall(ctx context.Context, next tool.Handler, call tool.Call, results chan<- tool.Result) {
	defer func() {
		if p := recover(); p != nil {
			results <- tool.Result{Kind: tool.KindPanic, Err: fmt.Errorf("middleware: call to %s panicked: %v", call.Name, p), Stack: debug.Stack(),
				Content: "error: the call to " + call.Name + " crashed before it could finish. Do not retry it; try another way or tell the user."}
		}
	}()
	results <- next(ctx, call)
}

// timeoutResult is the result of a call that ran with ctx (whose error is ctxErr): the
// tool's own result when it returned one the context did not cause, else a canceled or
// timeout result. returned reports whether res is the tool's result.
func timeoutResult(parent context.Context, ctxErr error, call tool.Call, d time.Duration, res tool.Result, returned bool) tool.Result {
	byContext := res.Failed() && (errors.Is(res.Err, context.DeadlineExceeded) || errors.Is(res.Err, context.Canceled))
	if returned && !byContext {
		return res
	}
	if err := parent.Err(); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		if returned && res.Kind == tool.KindCanceled {
			return res
		}
		return tool.Result{Kind: tool.KindCanceled, Err: err, Content: "error: the call to " + call.Name + " was canceled before it finished."}
	}
	if returned && ctxErr == nil {
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
