package middleware

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"
	"time"

	"github.com/toolcall/toolcall/tool"
)

// run runs the rest of the chain in the call's goroutine. A panic becomes a KindPanic result;
// a goroutine ended by runtime.Goexit (t.FailNow in a test double) returns nothing, and the
// call ends at its deadline, as a call that never returns does.
func (c *callCtx) run(next tool.Handler, call tool.Call) {
	returned := false
	defer func() {
		if p := recover(); p != nil {
			c.res = tool.Result{Kind: tool.KindPanic, Err: fmt.Errorf("middleware: call to %s panicked: %v", call.Name, p), Stack: debug.Stack(),
				Content: "error: the call to " + call.Name + " crashed before it could finish. Do not retry it; try another way or tell the user."}
			returned = true
		}
		if returned {
			c.ready <- true
		}
	}()
	c.res = next(c, call)
	returned = true
}

// deadlines keeps the pending calls of one Timeout middleware in deadline order and ends
// each when its deadline passes, with one timer for all of them.
//
// A context.WithTimeout per call costs a timer, a cancelCtx and a Done channel that the
// waiting select allocates — about a microsecond, most of Timeout's cost. Since every call of
// one Timeout gets the same duration, deadlines are reached in the order the calls started:
// a linked list in start order is sorted by deadline, and one timer set for its head serves
// every call. A call that returns in time unlinks itself; the timer, when it fires, ends the
// calls whose deadline has passed and is set again for the new head, or left unset when no
// call is pending. No goroutine waits between calls: the timer's function runs only when it
// fires.
type deadlines struct {
	d time.Duration

	mu         sync.Mutex
	head, tail *callCtx
	timer      *time.Timer // nil until the first call
	armed      bool        // the timer is set and its function has not yet run
}

// start returns the context of a new call, with its deadline d from now, listed.
func (w *deadlines) start(parent context.Context) *callCtx {
	c := &callCtx{parent: parent, w: w, ready: make(chan bool, 2)}
	w.mu.Lock()
	c.deadline = time.Now().Add(w.d) // under the lock: the list stays in deadline order
	c.listed = true
	c.prev = w.tail
	if w.tail != nil {
		w.tail.next = c
	} else {
		w.head = c
	}
	w.tail = c
	if !w.armed {
		w.armed = true
		if w.timer == nil {
			w.timer = time.AfterFunc(w.d, w.fire)
		} else {
			w.timer.Reset(w.d)
		}
	}
	w.mu.Unlock()
	return c
}

// unlink removes c from the list, if it is still there. The timer is left as it is: when it
// fires early it finds no expired call and is set for the new head.
func (w *deadlines) unlink(c *callCtx) {
	w.mu.Lock()
	if c.listed {
		c.listed = false
		if c.prev != nil {
			c.prev.next = c.next
		} else {
			w.head = c.next
		}
		if c.next != nil {
			c.next.prev = c.prev
		} else {
			w.tail = c.prev
		}
		c.prev, c.next = nil, nil
	}
	w.mu.Unlock()
}

// fire is the timer's function: it ends every call whose deadline has passed.
func (w *deadlines) fire() {
	var expired *callCtx // a chain through next, in deadline order
	w.mu.Lock()
	now := time.Now()
	var last *callCtx
	for c := w.head; c != nil && !c.deadline.After(now); c = w.head {
		w.head = c.next
		if w.head != nil {
			w.head.prev = nil
		} else {
			w.tail = nil
		}
		c.listed, c.prev, c.next = false, nil, nil
		if last == nil {
			expired = c
		} else {
			last.next = c
		}
		last = c
	}
	w.armed = w.head != nil
	if w.armed {
		w.timer.Reset(w.head.deadline.Sub(now))
	}
	w.mu.Unlock()
	for c := expired; c != nil; {
		next := c.next
		c.next = nil
		c.expire()
		c = next
	}
}

// callCtx is the context a call runs with under Timeout: its parent's values and
// cancellation, and a deadline that the call's deadlines list enforces. It behaves as a
// context from context.WithDeadline does — Done is closed and Err is
// context.DeadlineExceeded once the deadline passes, or the parent's error when the parent
// ends first, or context.Canceled when the call is over; contexts derived from it end with
// it, and context.AfterFunc and context.Cause work on it (TestTimeoutContextLikeWithDeadline
// compares the two). One difference remains: when the parent is canceled with a cause after
// the call's deadline passed, context.Cause reports the parent's cause where a WithDeadline
// context would keep context.DeadlineExceeded (Value leads Cause to the parent's cancelCtx;
// its key is the context package's own, which no other type can intercept).
type callCtx struct {
	parent   context.Context
	deadline time.Time

	// The call's goroutine sets res, then sends true on ready; the timer sends false. With
	// room for both, neither ever blocks.
	res   tool.Result
	ready chan bool

	w          *deadlines
	prev, next *callCtx // in w's list, guarded by w.mu
	listed     bool     // guarded by w.mu

	mu         sync.Mutex
	done       chan struct{} // made on the first Done
	err        error
	afters     []*afterFunc
	stopParent func() bool
}

type afterFunc struct {
	f    func()
	done bool // run or stopped; guarded by the callCtx's mu
}

// expire ends the call because its deadline passed, and wakes its waiter.
func (c *callCtx) expire() {
	c.cancel(context.DeadlineExceeded)
	c.ready <- false
}

// cancel ends the context with err, once.
func (c *callCtx) cancel(err error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = err
	if c.done != nil {
		close(c.done)
	}
	afters, stop := c.afters, c.stopParent
	c.afters, c.stopParent = nil, nil
	for _, a := range afters {
		a.done = true
	}
	c.mu.Unlock()
	if stop != nil {
		stop()
	}
	for _, a := range afters {
		go a.f()
	}
}

// Deadline returns the earlier of the call's deadline and its parent's.
func (c *callCtx) Deadline() (time.Time, bool) {
	if d, ok := c.parent.Deadline(); ok && d.Before(c.deadline) {
		return d, true
	}
	return c.deadline, true
}

// Done returns a channel closed when the context ends. It is made on the first call, and only
// then does the context watch its parent's Done.
func (c *callCtx) Done() <-chan struct{} {
	if err := c.parent.Err(); err != nil {
		c.cancel(err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done == nil {
		c.done = make(chan struct{})
		if c.err != nil {
			close(c.done)
		} else if c.parent.Done() != nil {
			c.stopParent = context.AfterFunc(c.parent, func() { c.cancel(c.parent.Err()) })
		}
	}
	return c.done
}

// Err returns nil while the context is live, then why it ended.
func (c *callCtx) Err() error {
	c.mu.Lock()
	err := c.err
	c.mu.Unlock()
	if err != nil {
		return err
	}
	if err := c.parent.Err(); err != nil {
		c.cancel(err)
		c.mu.Lock()
		err = c.err
		c.mu.Unlock()
		return err
	}
	return nil
}

// Value returns the parent's value for key.
func (c *callCtx) Value(key any) any { return c.parent.Value(key) }

// AfterFunc arranges for f to run in its own goroutine when the context ends; the context
// package uses it for the contexts derived from this one instead of a goroutine each.
func (c *callCtx) AfterFunc(f func()) (stop func() bool) {
	a := &afterFunc{f: f}
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		a.done = true
		go f()
	} else {
		c.afters = append(c.afters, a)
		c.mu.Unlock()
		if c.parent.Done() != nil {
			c.Done() // watch the parent
		}
	}
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		if a.done {
			return false
		}
		a.done = true
		for i, b := range c.afters {
			if b == a {
				c.afters = append(c.afters[:i], c.afters[i+1:]...)
				break
			}
		}
		return true
	}
}

// String names the context, as the context package's own do.
func (c *callCtx) String() string {
	return "middleware.Timeout(" + c.w.d.String() + ")"
}
