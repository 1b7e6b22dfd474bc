package middleware_test

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/toolcall/toolcall/middleware"
	"github.com/toolcall/toolcall/tool"
)

// TestTimeoutCauseAfterDeadline pins the one difference from context.WithTimeout that
// callCtx documents: once a call's deadline has passed, context.Cause of a WithTimeout context
// stays context.DeadlineExceeded even if the run's context is canceled with a cause
// afterwards; Timeout's context forwards Value to its parent, so context.Cause finds the
// parent's cancelCtx and reports the parent's later cause. If this test fails, the difference
// is gone: update callCtx's doc and make this test want what WithTimeout does.
func TestTimeoutCauseAfterDeadline(t *testing.T) {
	later := errors.New("the run was canceled later")
	probe := func(ctx context.Context, cancelParent context.CancelCauseFunc) error {
		<-ctx.Done() // our deadline
		cancelParent(later)
		return context.Cause(ctx)
	}

	// The reference: context.WithTimeout.
	parent, cancelParent := context.WithCancelCause(context.Background())
	std, cancel := context.WithTimeout(parent, 20*time.Millisecond)
	want := probe(std, cancelParent)
	cancel()
	if !errors.Is(want, context.DeadlineExceeded) {
		t.Fatalf("context.WithTimeout: cause %v", want)
	}

	parent, cancelParent = context.WithCancelCause(context.Background())
	defer cancelParent(nil)
	got := make(chan error, 1)
	middleware.Timeout(20*time.Millisecond)(func(ctx context.Context, _ tool.Call) tool.Result {
		got <- probe(ctx, cancelParent)
		return tool.Text("done")
	})(parent, tool.Call{Name: "t"})
	select {
	case err := <-got:
		if err != later {
			t.Errorf("context.Cause of Timeout's context: %v; the documented difference says %v (context.WithTimeout's: %v)", err, later, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the tool never saw its deadline")
	}
}

// TestTimeoutGoexit: a tool whose goroutine ends with runtime.Goexit (t.FailNow in a test
// double, for one) returns no result: the call ends at its deadline with a timeout, as it did
// with context.WithTimeout, not as a success with empty content.
func TestTimeoutGoexit(t *testing.T) {
	h := middleware.Timeout(50 * time.Millisecond)(func(context.Context, tool.Call) tool.Result {
		runtime.Goexit()
		return tool.Text("unreachable")
	})
	res := h(context.Background(), tool.Call{Name: "t"})
	if res.Kind == "" {
		t.Errorf("a call whose goroutine exited without a result succeeded: %q %q (want %q, as before)", res.Kind, res.Content, tool.KindTimeout)
	}
}
