package agentkit

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/toolcall/toolcall/tool"
)

// turn runs the tool calls of one model message: the calls a streamed message started early,
// while it was still streaming, then the others.
//
// Calls of tools not marked Sequential run concurrently, at most Options.MaxConcurrency at a
// time (a semaphore): each in a goroutine of its own, but the last, which runs on the loop's
// goroutine beside them; sequential calls then run one by one, in emission order. With
// MaxConcurrency 1 every call is sequential. Each call's record is
// written by its own goroutine into a record of its own, and read once every goroutine has
// ended: finish waits for all of them, also when the run is canceled (the calls then get the
// canceled context). A panic is recovered per call (tool.Handle recovers the tool's, invoke
// the middleware's), so a call cannot disturb its siblings.
type turn struct {
	r       *run
	iter    int
	ctx     context.Context    // the run's context; once a call started, one the turn cancels
	cancel  context.CancelFunc // nil until a call started in a goroutine
	sem     chan struct{}
	wg      sync.WaitGroup
	ids     map[int]string      // the ids given to calls at early start, by position
	started map[int]*CallRecord // the records of the calls started, by position
	quiet   map[int]bool        // the refused calls finish does not report: a resumed turn's calls that ran before its pause

	panicOnce sync.Once
	panicked  any // the first panic of a call's goroutine outside the handler (an OnEvent's)
}

// parallel reports whether call may run concurrently with the turn's other calls.
func (t *turn) parallel(call tool.Call) bool {
	return t.r.a.opts.MaxConcurrency > 1 && (call.Tool == nil || !call.Tool.Sequential())
}

// start runs call i in a goroutine of its own.
func (t *turn) start(i int, call tool.Call) {
	rec := t.record(i, call)
	t.wg.Go(func() {
		defer func() {
			if p := recover(); p != nil { // raised again by wait, on the run's goroutine
				t.panicOnce.Do(func() { t.panicked = p })
			}
		}()
		t.run(rec)
	})
}

// wait waits for the calls' goroutines, and raises on the run's goroutine a panic one of them
// recovered, as it would have been raised there (sourcegraph/conc's WaitGroup does the same).
func (t *turn) wait() {
	t.wg.Wait()
	if t.panicked != nil {
		panic(t.panicked)
	}
}

// record returns the record of call i, started now.
func (t *turn) record(i int, call tool.Call) *CallRecord {
	if t.cancel == nil {
		t.ctx, t.cancel = context.WithCancel(t.ctx)
		t.sem = make(chan struct{}, t.r.a.opts.MaxConcurrency)
		t.started = map[int]*CallRecord{}
	}
	rec := &CallRecord{Call: call}
	t.started[i] = rec
	return rec
}

// run runs the call of rec once a place among MaxConcurrency is free.
func (t *turn) run(rec *CallRecord) {
	select {
	case t.sem <- struct{}{}:
		defer func() { <-t.sem }()
	case <-t.ctx.Done():
	}
	if err := t.ctx.Err(); err != nil { // both may have been ready: select picks at random
		rec.Result = canceled(rec.Call, err)
		return
	}
	*rec = t.r.invoke(t.ctx, t.iter, rec.Call)
}

// finish runs the calls not started yet, waits for every call, and returns their records in
// emission order. A call that refused answers (and that did not start early) is not run: its
// record holds the refusal.
func (t *turn) finish(calls []tool.Call, refused func(i int) (tool.Result, bool)) []CallRecord {
	defer t.abandon()
	var parallel []int
	for i, c := range calls {
		if _, no := refused(i); !no && t.started[i] == nil && t.parallel(c) {
			parallel = append(parallel, i)
		}
	}
	if n := len(parallel); n > 0 {
		for _, i := range parallel[:n-1] {
			t.start(i, calls[i])
		}
		// The last one runs on this goroutine, beside the others (alone, it has nothing to
		// overlap with): a goroutine fewer. Sequential calls run after all of them, below.
		t.run(t.record(parallel[n-1], calls[parallel[n-1]]))
	}
	t.wait()
	recs := make([]CallRecord, len(calls))
	for i, c := range calls {
		if rec := t.started[i]; rec != nil {
			recs[i] = *rec
			continue
		}
		if res, no := refused(i); no {
			recs[i] = CallRecord{Call: c, Result: res}
			if !t.quiet[i] {
				t.r.emit(t.ctx, toolEnd(t.iter, recs[i]))
			}
			continue
		}
		if err := t.ctx.Err(); err != nil {
			recs[i] = CallRecord{Call: c, Result: canceled(c, err)}
			continue
		}
		recs[i] = t.r.invoke(t.ctx, t.iter, c)
	}
	return recs
}

// abandon cancels the calls started early and waits for them to end: the message they came
// from will not be executed (a broken stream, a refused turn). Nil-safe.
func (t *turn) abandon() {
	if t == nil || t.cancel == nil {
		return
	}
	t.cancel()
	t.wait()
}

// startedCost is what the calls started so far reported, once they ended (after wait or
// abandon).
func (t *turn) startedCost() Cost {
	var c Cost
	for _, rec := range t.started {
		c.Add(rec.Cost)
	}
	return c
}

// notExecuted is the result of a call the loop refuses to run; content says why, for the
// model.
func notExecuted(kind tool.Kind, content string) tool.Result {
	return tool.Result{Kind: kind, Err: errors.New(content), Content: content}
}

func canceled(c tool.Call, err error) tool.Result {
	return tool.Result{Kind: tool.KindCanceled, Err: err, Content: "error: the call to " + c.Name + " was canceled before it finished."}
}

// invoke runs one call through the middleware chain, timing it, recovering a panic in
// middleware (the tool's own panics are recovered by tool.Handle), and reporting it.
func (r *run) invoke(ctx context.Context, iter int, call tool.Call) (rec CallRecord) {
	rec.Call = call
	if r.observed() {
		c := call // the event's own: an OnEvent that edits it changes neither the call run nor its record
		r.emit(ctx, Event{Kind: EventToolStart, Iteration: iter, Call: &c})
	}
	ctx, progress := r.withProgress(ctx, iter, call)
	ctx, costs := r.withCostReport(ctx)
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
	var own Cost
	rec.Duration = time.Since(start)
	rec.Cost, own = costs.end()
	r.unrecorded(own)
	if r.approved != nil {
		rec.Result = r.approved(rec)
	}
	if rec.Result.Content == "" {
		rec.Result.Content = tool.EmptyContent
	}
	if progress != nil {
		progress.end() // no EventToolProgress after EventToolEnd
		r.emit(ctx, toolEnd(iter, rec))
	}
	return rec
}

// withProgress returns the context a call runs with: one where [ReportProgress] emits the
// call's EventToolProgress, when anyone receives events; and the reporter, nil otherwise.
func (r *run) withProgress(ctx context.Context, iter int, call tool.Call) (context.Context, *progressReporter) {
	if !r.observed() {
		return ctx, nil
	}
	runCtx := ctx
	p := &progressReporter{emit: func(p Progress) {
		c := call // the event's own
		r.emit(runCtx, Event{Kind: EventToolProgress, Iteration: iter, Call: &c, Progress: p})
	}}
	return context.WithValue(ctx, progressKey{}, p), p
}

// toolEnd returns the EventToolEnd of rec. The event carries copies of the call and the
// result (the stack too): an OnEvent that edits them changes neither the run's record nor
// its transcript.
func toolEnd(iter int, rec CallRecord) Event {
	rec.Result.Stack = slices.Clone(rec.Result.Stack)
	return Event{Kind: EventToolEnd, Iteration: iter, Call: &rec.Call, Result: &rec.Result, Duration: rec.Duration, Cost: rec.Cost}
}
