package middleware_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/toolcall/toolcall/middleware"
	"github.com/toolcall/toolcall/tool"
)

func TestTimeout(t *testing.T) {
	tests := []struct {
		name     string
		d        time.Duration
		h        tool.Handler
		wantKind tool.Kind
		wantText string
	}{
		{"fast tool", time.Minute, func(context.Context, tool.Call) tool.Result { return tool.Text("ok") }, "", "ok"},
		{"tool honoring its context", 20 * time.Millisecond, func(ctx context.Context, _ tool.Call) tool.Result {
			<-ctx.Done()
			return tool.Failure(tool.KindToolError, ctx.Err())
		}, tool.KindTimeout, "did not finish within 20ms"},
		{"tool failing fast", time.Minute, func(context.Context, tool.Call) tool.Result {
			return tool.Failure(tool.KindToolError, errBackend)
		}, tool.KindToolError, "backend unavailable"},
		{"panicking middleware below", time.Minute, func(context.Context, tool.Call) tool.Result { panic("boom") }, tool.KindPanic, "crashed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := run(middleware.Timeout(tt.d), tt.h, tool.Call{Name: "slow"})
			if got.Kind != tt.wantKind || !strings.Contains(got.Content, tt.wantText) {
				t.Errorf("got %q %q, want kind %q containing %q", got.Kind, got.Content, tt.wantKind, tt.wantText)
			}
		})
	}
}

// TestTimeoutIgnoredContext: a tool that ignores its context still yields a timeout result
// at once, and its goroutine ends when the tool returns.
func TestTimeoutIgnoredContext(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	release := make(chan struct{})
	finished := make(chan struct{})
	h := middleware.Timeout(30 * time.Millisecond)(func(context.Context, tool.Call) tool.Result {
		defer close(finished)
		<-release // ignores ctx
		return tool.Text("late")
	})
	start := time.Now()
	got := h(context.Background(), tool.Call{Name: "stubborn"})
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Errorf("returned after %s, want about 30ms", elapsed)
	}
	if got.Kind != tool.KindTimeout || !errors.Is(got.Err, context.DeadlineExceeded) {
		t.Errorf("got kind %q err %v, want timeout wrapping context.DeadlineExceeded", got.Kind, got.Err)
	}
	if !strings.Contains(got.Content, "outcome is unknown") {
		t.Errorf("content %q does not warn that the outcome is unknown", got.Content)
	}
	close(release) // the abandoned goroutine can now finish: goleak waits for it
	<-finished
}

func TestTimeoutParentCanceled(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ctx, cancel := context.WithCancel(context.Background())
	started, release := make(chan struct{}), make(chan struct{})
	h := middleware.Timeout(time.Hour)(func(context.Context, tool.Call) tool.Result {
		close(started)
		<-release // ignores ctx
		return tool.Text("late")
	})
	go func() { <-started; cancel() }()
	got := h(ctx, tool.Call{Name: "x"})
	close(release)
	if got.Kind != tool.KindCanceled || !errors.Is(got.Err, context.Canceled) {
		t.Errorf("got %q %q (%v), want canceled", got.Kind, got.Content, got.Err)
	}
}

func TestTimeoutDeadlineVisibleToTool(t *testing.T) {
	h := middleware.Timeout(time.Minute)(func(ctx context.Context, _ tool.Call) tool.Result {
		d, ok := ctx.Deadline()
		if !ok || time.Until(d) > time.Minute {
			return tool.Text("no deadline")
		}
		return tool.Text("deadline")
	})
	if got := h(context.Background(), tool.Call{}); got.Content != "deadline" {
		t.Errorf("tool saw %q", got.Content)
	}
}

func TestTimeoutPanicsOnNonPositive(t *testing.T) {
	mustPanic(t, "Timeout(0)", func() { middleware.Timeout(0) })
	mustPanic(t, "Timeout(-1)", func() { middleware.Timeout(-1) })
}

func TestTimeoutParentDeadlineFirst(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	h := middleware.Timeout(time.Hour)(func(ctx context.Context, _ tool.Call) tool.Result {
		<-ctx.Done()
		return tool.Failure(tool.KindToolError, ctx.Err())
	})
	got := h(ctx, tool.Call{Name: "x"})
	if got.Kind != tool.KindTimeout || !strings.Contains(got.Content, "did not finish before the request's deadline") {
		t.Errorf("got %q %q", got.Kind, got.Content)
	}
}
