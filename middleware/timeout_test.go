package middleware_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
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

// TestTimeoutContextLikeWithDeadline runs the same probes on the context Timeout gives a call
// and on one from context.WithTimeout, and wants the same observations: the tool sees its
// parent's values and cancellation and a deadline d from now, as with the standard one.
func TestTimeoutContextLikeWithDeadline(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	type key struct{}
	const d = 30 * time.Millisecond
	probes := []struct {
		name  string
		probe func(ctx context.Context) string
	}{
		{"value passes through", func(ctx context.Context) string { return fmt.Sprint(ctx.Value(key{})) }},
		{"live at first", func(ctx context.Context) string {
			_, ok := ctx.Deadline()
			return fmt.Sprint(ctx.Err(), ok)
		}},
		{"done at the deadline", func(ctx context.Context) string {
			<-ctx.Done()
			return fmt.Sprint(ctx.Err())
		}},
		{"err without done", func(ctx context.Context) string {
			for ctx.Err() == nil {
				time.Sleep(time.Millisecond)
			}
			return fmt.Sprint(ctx.Err(), isClosed(ctx.Done()))
		}},
		{"child canceled", func(ctx context.Context) string {
			child, cancel := context.WithCancel(ctx)
			defer cancel()
			<-child.Done()
			return fmt.Sprint(child.Err())
		}},
		{"child with its own timeout", func(ctx context.Context) string {
			child, cancel := context.WithTimeout(ctx, time.Hour)
			defer cancel()
			<-child.Done()
			return fmt.Sprint(child.Err())
		}},
		{"AfterFunc runs", func(ctx context.Context) string {
			ran := make(chan struct{})
			context.AfterFunc(ctx, func() { close(ran) })
			<-ran
			return fmt.Sprint(ctx.Err())
		}},
		{"AfterFunc stopped", func(ctx context.Context) string {
			stop := context.AfterFunc(ctx, func() { panic("stopped func ran") })
			first := stop()
			<-ctx.Done()
			return fmt.Sprint(first, stop())
		}},
		{"cause", func(ctx context.Context) string {
			<-ctx.Done()
			return fmt.Sprint(context.Cause(ctx))
		}},
	}
	parents := []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
	}{
		{"parent that cannot end", func() (context.Context, context.CancelFunc) {
			return context.WithValue(context.Background(), key{}, "v"), func() {}
		}},
		{"cancelable parent", func() (context.Context, context.CancelFunc) {
			return context.WithCancel(context.WithValue(context.Background(), key{}, "v"))
		}},
	}
	for _, pa := range parents {
		for _, p := range probes {
			t.Run(pa.name+"/"+p.name, func(t *testing.T) {
				parent, stop := pa.ctx()
				defer stop()
				std, cancel := context.WithTimeout(parent, d)
				want := p.probe(std)
				cancel()
				out := make(chan string, 1)
				res := middleware.Timeout(d)(func(ctx context.Context, _ tool.Call) tool.Result {
					got := p.probe(ctx)
					out <- got
					return tool.Text(got)
				})(parent, tool.Call{})
				if res.Kind != "" && res.Kind != tool.KindTimeout {
					t.Fatalf("result %q %q", res.Kind, res.Content)
				}
				got := <-out // after a timeout result, the probe still finishes
				if got != want {
					t.Errorf("Timeout's context: %q, context.WithTimeout's: %q", got, want)
				}
			})
		}
	}
}

// TestTimeoutParentCanceledReachesTool: the run's cancellation reaches a tool waiting on its
// context, and contexts it derived, with the parent's error.
func TestTimeoutParentCanceledReachesTool(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ctx, cancel := context.WithCancel(context.Background())
	seen := make(chan string, 1)
	h := middleware.Timeout(time.Hour)(func(ctx context.Context, _ tool.Call) tool.Result {
		child, stop := context.WithCancel(ctx)
		defer stop()
		cancel()
		<-child.Done()
		seen <- fmt.Sprint(ctx.Err(), child.Err())
		return tool.Failure(tool.KindCanceled, ctx.Err())
	})
	got := h(ctx, tool.Call{Name: "x"})
	if want := fmt.Sprint(context.Canceled, context.Canceled); <-seen != want {
		t.Errorf("tool saw another error than %q", want)
	}
	if got.Kind != tool.KindCanceled {
		t.Errorf("got %q %q, want canceled", got.Kind, got.Content)
	}
}

func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// TestTimeoutRacingDeadlines: with a deadline about as long as the calls, results and
// deadlines race on every call; each call gets exactly one answer, its own or a timeout.
func TestTimeoutRacingDeadlines(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	h := middleware.Timeout(50 * time.Microsecond)(func(_ context.Context, c tool.Call) tool.Result {
		if c.ID[0]%2 == 0 {
			time.Sleep(100 * time.Microsecond)
		}
		return tool.Text(c.ID)
	})
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100 {
				id := fmt.Sprintf("%d-%d", g, i)
				res := h(context.Background(), tool.Call{Name: "t", ID: id})
				if res.Kind != tool.KindTimeout && res.Content != id {
					t.Errorf("call %s got %q %q: another call's result", id, res.Kind, res.Content)
				}
			}
		}()
	}
	wg.Wait()
	time.Sleep(time.Millisecond) // the abandoned sleeps end
}

// TestTimeoutGoexit: a tool whose goroutine ends with runtime.Goexit (t.FailNow in a test
// double, for one) returns no result: the call ends at its deadline with a timeout, not as a
// success with empty content.
func TestTimeoutGoexit(t *testing.T) {
	h := middleware.Timeout(50 * time.Millisecond)(func(context.Context, tool.Call) tool.Result {
		runtime.Goexit()
		return tool.Text("unreachable")
	})
	got := h(context.Background(), tool.Call{Name: "t"})
	if got.Kind != tool.KindTimeout {
		t.Errorf("got %q %q, want %q", got.Kind, got.Content, tool.KindTimeout)
	}
}
