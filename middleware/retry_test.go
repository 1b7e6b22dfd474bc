package middleware_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolcall/toolcall/middleware"
	"github.com/toolcall/toolcall/tool"
)

// flaky returns a handler that fails with the given results first, then succeeds.
func flaky(fails []tool.Result, calls *int) tool.Handler {
	return func(context.Context, tool.Call) tool.Result {
		*calls++
		if *calls <= len(fails) {
			return fails[*calls-1]
		}
		return tool.Text("ok")
	}
}

func TestRetry(t *testing.T) {
	transient := tool.Failure(tool.KindToolError, middleware.Transient(errBackend))
	plain := tool.Failure(tool.KindToolError, errBackend)
	tests := []struct {
		name      string
		opts      *middleware.RetryOptions
		fails     []tool.Result
		wantCalls int
		wantKind  tool.Kind
		wantWaits []time.Duration
	}{
		{"success at once", nil, nil, 1, "", nil},
		{"transient then success", nil, []tool.Result{transient, transient}, 3, "", []time.Duration{50 * time.Millisecond, 100 * time.Millisecond}},
		{"attempts bounded", nil, []tool.Result{transient, transient, transient, transient}, 3, tool.KindToolError, []time.Duration{50 * time.Millisecond, 100 * time.Millisecond}},
		{"more attempts, delay capped", &middleware.RetryOptions{MaxAttempts: 5, BaseDelay: time.Second, MaxDelay: 3 * time.Second},
			[]tool.Result{transient, transient, transient, transient}, 5, "", []time.Duration{500 * time.Millisecond, time.Second, 1500 * time.Millisecond, 1500 * time.Millisecond}},
		{"unmarked error not retried", nil, []tool.Result{plain}, 1, tool.KindToolError, nil},
		{"classifier retries unmarked", &middleware.RetryOptions{Retryable: func(_ tool.Call, r tool.Result) bool { return r.Kind == tool.KindTimeout }},
			[]tool.Result{tool.Failure(tool.KindTimeout, errBackend)}, 2, "", []time.Duration{50 * time.Millisecond}},
		{"fatal never retried", nil, []tool.Result{tool.Failure(tool.KindToolError, tool.Fatal(middleware.Transient(errBackend)))}, 1, tool.KindToolError, nil},
	}
	always := func(tool.Call, tool.Result) bool { return true }
	for _, k := range []tool.Kind{tool.KindInvalidJSON, tool.KindInvalidArguments, tool.KindUnknownTool, tool.KindDenied, tool.KindPanic, tool.KindCanceled, tool.KindLoop, tool.KindNotExecuted, tool.KindPending} {
		tests = append(tests, struct {
			name      string
			opts      *middleware.RetryOptions
			fails     []tool.Result
			wantCalls int
			wantKind  tool.Kind
			wantWaits []time.Duration
		}{"permanent " + string(k), &middleware.RetryOptions{Retryable: always}, []tool.Result{tool.Failure(k, middleware.Transient(errBackend))}, 1, k, nil})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s sleeps
			var o middleware.RetryOptions
			if tt.opts != nil {
				o = *tt.opts
			}
			o.Sleep = s.sleep
			o.Rand = func() float64 { return 0 } // the lower bound of the jitter: d/2
			calls := 0
			got := run(middleware.Retry(&o), flaky(tt.fails, &calls), tool.Call{Name: "t"})
			if calls != tt.wantCalls || got.Kind != tt.wantKind {
				t.Errorf("calls %d kind %q, want %d %q", calls, got.Kind, tt.wantCalls, tt.wantKind)
			}
			if diff := cmp.Diff(tt.wantWaits, s.got()); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
			if wantNote := tt.wantKind != "" && tt.wantCalls > 1; wantNote != strings.Contains(got.Content, "attempts made") {
				t.Errorf("content %q: note of attempts present = %v, want %v", got.Content, !wantNote, wantNote)
			}
		})
	}
}

func TestRetryJitter(t *testing.T) {
	var s sleeps
	calls := 0
	transient := tool.Failure(tool.KindToolError, middleware.Transient(errBackend))
	mw := middleware.Retry(&middleware.RetryOptions{MaxAttempts: 3, Sleep: s.sleep, Rand: func() float64 { return 0.5 }})
	run(mw, flaky([]tool.Result{transient, transient}, &calls), tool.Call{})
	want := []time.Duration{75 * time.Millisecond, 150 * time.Millisecond} // d/2 + 0.5·d/2
	if diff := cmp.Diff(want, s.got()); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
}

func TestRetryContextDone(t *testing.T) {
	transient := tool.Failure(tool.KindToolError, middleware.Transient(errBackend))
	t.Run("canceled during the wait", func(t *testing.T) {
		s := sleeps{err: context.Canceled}
		calls := 0
		got := run(middleware.Retry(&middleware.RetryOptions{Sleep: s.sleep}), flaky([]tool.Result{transient, transient}, &calls), tool.Call{})
		if calls != 1 || got.Kind != tool.KindToolError {
			t.Errorf("calls %d kind %q, want 1 tool_error", calls, got.Kind)
		}
	})
	t.Run("real sleep, canceled", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		calls := 0
		h := middleware.Retry(&middleware.RetryOptions{BaseDelay: time.Hour, MaxDelay: time.Hour})(flaky([]tool.Result{transient, transient}, &calls))
		start := time.Now()
		h(ctx, tool.Call{})
		if el := time.Since(start); el > 5*time.Second || calls != 1 {
			t.Errorf("returned after %s and %d calls, want at once after 1", el, calls)
		}
	})
}

func TestTransient(t *testing.T) {
	if middleware.Transient(nil) != nil {
		t.Error("Transient(nil) != nil")
	}
	err := fmt.Errorf("lookup: %w", middleware.Transient(errBackend))
	if !middleware.IsTransient(err) || !errors.Is(err, errBackend) || err.Error() != "lookup: backend unavailable" {
		t.Errorf("wrapped transient: IsTransient %v, Is(errBackend) %v, %q", middleware.IsTransient(err), errors.Is(err, errBackend), err)
	}
	if middleware.IsTransient(errBackend) {
		t.Error("plain error reported transient")
	}
}

// TestRetryRealTool: a typed tool returning Transient is retried through tool.Handle.
func TestRetryRealTool(t *testing.T) {
	n := 0
	lookup := tool.New("lookup", "Look up.", func(ctx context.Context, in struct{}) (string, error) {
		n++
		if n < 3 {
			return "", middleware.Transient(errors.New("503 from upstream"))
		}
		return "found", nil
	})
	var s sleeps
	h := middleware.Retry(&middleware.RetryOptions{Sleep: s.sleep})(lookup.Handle)
	got := h(context.Background(), tool.Call{Name: "lookup", Arguments: "{}", Tool: lookup})
	if got.Content != "found" || n != 3 || len(s.got()) != 2 {
		t.Errorf("got %q after %d calls and %d waits", got.Content, n, len(s.got()))
	}
}
