package agentkit

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/toolcall/toolcall/tool"
)

// execute runs the calls of one turn and returns their records in emission order.
//
// Calls of tools not marked Sequential run concurrently, at most Options.MaxConcurrency at a
// time; then sequential calls run one by one in emission order. (A turn of typically quick
// tools under a context that cannot be canceled runs all its calls in emission order on this
// goroutine: nothing overlaps, so the Sequential guarantee holds.) A failure or panic in one
// call does not disturb the others. When ctx is canceled, execute returns at once: calls that
// had not finished get a canceled result, and no call starts after that. Their goroutines are
// not waited for — a tool that ignores its context keeps running until it returns, and its
// result is dropped — but every goroutine ends as soon as its tool returns: none blocks on a
// channel nobody reads.
func (r *run) execute(ctx context.Context, iter int, calls []tool.Call) []CallRecord {
	recs := make([]CallRecord, len(calls))
	if r.turn == nil && r.quick(ctx, calls) {
		// Quick tools, and a context that can never be canceled: one after the other,
		// here, with nothing to set up.
		for i := range calls {
			recs[i] = r.invoke(ctx, iter, calls[i])
		}
		return recs
	}
	var pending map[int]*pendingCall
	var sem chan struct{}
	if r.turn != nil { // streaming: some calls may have started already
		pending, sem = r.turn.pending, r.turn.sem
	}
	var parallel, sequential []int
	for i, c := range calls {
		switch {
		case pending[i] != nil:
			parallel = append(parallel, i)
		case c.Tool != nil && c.Tool.Sequential():
			sequential = append(sequential, i)
		default:
			parallel = append(parallel, i)
		}
	}
	if len(pending) == 0 && (len(parallel) == 1 || r.a.opts.MaxConcurrency == 1) {
		sequential = append(parallel, sequential...)
		parallel = nil
	}
	if sem == nil && len(parallel) > 0 {
		sem = make(chan struct{}, r.a.opts.MaxConcurrency)
	}
	done := make([]bool, len(calls))
	if len(parallel) > 0 {
		type outcome struct {
			i   int
			rec CallRecord
		}
		out := make(chan outcome, len(parallel)) // buffered: a late sender never blocks
		if len(pending) == 0 {
			// The calls are taken from a shared counter by at most MaxConcurrency workers.
			// The first works at once — this goroutine itself when ctx can never be canceled
			// (nothing can then make Run return before the calls end); the others join after
			// helperDelay. Quick tools are thus all done by the first worker, with no
			// goroutine wake-up to wait for; slow ones still overlap, joined within
			// microseconds of the first.
			var next atomic.Int32
			work := func() {
				for {
					if ctx.Err() != nil { // execute has given the rest up as canceled
						return
					}
					k := int(next.Add(1)) - 1
					if k >= len(parallel) {
						return
					}
					i := parallel[k]
					out <- outcome{i, r.invoke(ctx, iter, calls[i])}
				}
			}
			if helpers := min(len(parallel), r.a.opts.MaxConcurrency) - 1; helpers > 0 {
				// No goroutine until the turn has lasted helperDelay: a timer is cheaper
				// than a goroutine that sleeps, and the turn's calls are usually done first.
				t := time.AfterFunc(helperDelay, func() {
					for range helpers {
						if int(next.Load()) >= len(parallel) || ctx.Err() != nil {
							return
						}
						go work()
					}
				})
				defer t.Stop()
			}
			if ctx.Done() == nil {
				work()
			} else {
				go work()
			}
		} else {
			for _, i := range parallel {
				if p := pending[i]; p != nil {
					go func() {
						<-p.done // the early call ends when it returns or its turn is canceled
						out <- outcome{i, p.rec}
					}()
					continue
				}
				go func() {
					acquired := false
					select {
					case sem <- struct{}{}:
						acquired = true
					case <-ctx.Done():
					}
					if err := ctx.Err(); err != nil { // both may have been ready: select picks at random
						if acquired {
							<-sem
						}
						out <- outcome{i, CallRecord{Call: calls[i], Result: canceled(calls[i], err)}}
						return
					}
					rec := r.invoke(ctx, iter, calls[i])
					<-sem
					out <- outcome{i, rec}
				}()
			}
		}
	wait:
		for range parallel {
			select {
			case o := <-out:
				recs[o.i], done[o.i] = o.rec, true
			case <-ctx.Done():
				// Keep the results that are already in: select picks at random among
				// ready cases, and a finished call must not be reported canceled.
				for {
					select {
					case o := <-out:
						recs[o.i], done[o.i] = o.rec, true
					default:
						break wait
					}
				}
			}
		}
	}
	for _, i := range sequential {
		if ctx.Err() != nil {
			break
		}
		recs[i], done[i] = r.guarded(ctx, iter, calls[i])
	}
	for i := range recs {
		if !done[i] {
			recs[i] = CallRecord{Call: calls[i], Result: canceled(calls[i], ctx.Err())}
		}
	}
	return recs
}

// guarded runs one call and returns its record, or returns at once with done false when ctx
// is canceled first. A context that can never be canceled (context.Background) needs no
// goroutine: the call runs inline.
func (r *run) guarded(ctx context.Context, iter int, call tool.Call) (CallRecord, bool) {
	if ctx.Done() == nil {
		return r.invoke(ctx, iter, call), true
	}
	out := make(chan CallRecord, 1) // buffered: the goroutine never blocks, even when abandoned
	go func() { out <- r.invoke(ctx, iter, call) }()
	select {
	case rec := <-out:
		return rec, true
	case <-ctx.Done():
		select {
		case rec := <-out: // finished at the same moment: keep it
			return rec, true
		default:
			return CallRecord{}, false
		}
	}
}

// quickCall is the typical duration under which a tool's calls run one after the other on
// the loop's goroutine: handing a call to another goroutine costs microseconds, more than
// such a call takes.
const quickCall = 20 * time.Microsecond

// quick reports whether every call of the turn is to a tool whose calls typically take
// less than quickCall, or to no tool at all, and the context can never be canceled (with
// one that can, calls run on other goroutines so that Run returns at once when it is).
func (r *run) quick(ctx context.Context, calls []tool.Call) bool {
	if ctx.Done() != nil || len(calls) > 8 {
		return false
	}
	for i := range calls {
		if t := calls[i].Tool; t != nil {
			d := r.a.typical[t].Load()
			if d == 0 || d > int64(quickCall) {
				return false
			}
		}
	}
	return true
}

// helperDelay is how long the workers after the first wait before taking calls of a turn:
// long enough for a quick tool to be done by the first worker alone, short against the
// latency of a tool worth running in parallel (network calls take milliseconds).
const helperDelay = 50 * time.Microsecond

func canceled(c tool.Call, err error) tool.Result {
	return tool.Result{Kind: tool.KindCanceled, Err: err, Content: "error: the call to " + c.Name + " was canceled before it finished."}
}

// invoke runs one call through the middleware chain, timing it, recovering a panic in
// middleware (the tool's own panics are recovered by tool.Handle), and reporting it.
func (r *run) invoke(ctx context.Context, iter int, call tool.Call) (rec CallRecord) {
	rec.Call = call
	if r.observed() {
		c := call // copies: taking rec's address would move it to the heap for every call
		r.emit(ctx, Event{Kind: EventToolStart, Iteration: iter, Call: &c})
	}
	start := time.Now()
	func() {
		defer func() {
			if p := recover(); p != nil {
				err := fmt.Errorf("agentkit: middleware panicked on call to %s: %v", call.Name, p)
				rec.Result = tool.Result{Kind: tool.KindPanic, Err: err, Stack: debug.Stack(),
					Content: "error: the call to " + call.Name + " crashed before it could finish. Do not retry it; try another way or tell the user."}
			}
		}()
		rec.Result = r.a.handler(ctx, call)
	}()
	rec.Duration = time.Since(start)
	if t := call.Tool; t != nil {
		if avg := r.a.typical[t]; avg != nil { // nil for a tool swapped in by middleware
			d, old := int64(rec.Duration), avg.Load()
			if old != 0 {
				d = old + (d-old)/4
			}
			avg.Store(d) // no lock: an estimate, which concurrent calls only blur
		}
	}
	if rec.Result.Content == "" {
		rec.Result.Content = tool.EmptyContent
	}
	if r.observed() {
		c, res := rec.Call, rec.Result
		r.emit(ctx, Event{Kind: EventToolEnd, Iteration: iter, Call: &c, Result: &res, Duration: rec.Duration})
	}
	if l := r.a.opts.Logger; l != nil {
		attrs := []slog.Attr{slog.Int("iteration", iter), slog.String("tool", call.Name), slog.String("call_id", call.ID),
			slog.Duration("duration", rec.Duration), slog.String("kind", string(rec.Result.Kind))}
		if rec.Result.Repair != "" {
			attrs = append(attrs, slog.String("repair", rec.Result.Repair))
		}
		if rec.Result.Err != nil {
			attrs = append(attrs, slog.Any("error", rec.Result.Err))
		}
		l.LogAttrs(ctx, slog.LevelDebug, "agentkit: tool call", attrs...)
	}
	return rec
}
