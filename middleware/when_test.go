package middleware_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolcall/toolcall/middleware"
	"github.com/toolcall/toolcall/tool"
)

func handle(ctx context.Context, c tool.Call) tool.Result { return c.Tool.Handle(ctx, c) }

func annotated(name string, a tool.Annotations, runs *atomic.Int32, err error) *tool.Tool {
	return tool.New(name, "a tool annotated for the test", func(context.Context, struct{}) (string, error) {
		runs.Add(1)
		return "ran", err
	}, tool.Options{Annotations: a})
}

// TestWhenDestructiveApproves: approval is asked for exactly the calls whose tool may destroy
// something — a tool that says nothing included, as MCP reads it.
func TestWhenDestructiveApproves(t *testing.T) {
	no := false
	var runs atomic.Int32
	tools := []*tool.Tool{
		annotated("read", tool.Annotations{ReadOnly: true}, &runs, nil),
		annotated("append", tool.Annotations{Destructive: &no}, &runs, nil),
		annotated("unsaid", tool.Annotations{}, &runs, nil),
		annotated("delete", tool.Annotations{Destructive: new(bool(true))}, &runs, nil),
	}
	var asked []string
	ask := func(_ context.Context, c tool.Call) (bool, error) {
		asked = append(asked, c.Name)
		return false, nil
	}
	h := middleware.When(middleware.Destructive, middleware.Approve(ask, nil))(handle)
	var denied []string
	for _, tl := range tools {
		if res := h(context.Background(), tool.Call{ID: "c", Name: tl.Name(), Arguments: "{}", Tool: tl}); res.Kind == tool.KindDenied {
			denied = append(denied, tl.Name())
		}
	}
	want := []string{"unsaid", "delete"}
	if diff := cmp.Diff(want, asked); diff != "" {
		t.Errorf("asked (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, denied); diff != "" {
		t.Errorf("denied (-want +got):\n%s", diff)
	}
	if got := runs.Load(); got != 2 {
		t.Errorf("%d tools ran, want the 2 not destructive", got)
	}
	// A call to no tool at all passes through to the loop's unknown-tool handling.
	if middleware.Destructive(tool.Call{Name: "ghost"}) || middleware.Idempotent(tool.Call{Name: "ghost"}) || middleware.ReadOnly(tool.Call{Name: "ghost"}) {
		t.Errorf("a call with no tool matched a predicate")
	}
}

// TestWhenIdempotentRetries: a transient failure is retried only for a tool whose calls may
// repeat without further effect.
func TestWhenIdempotentRetries(t *testing.T) {
	flaky := middleware.Transient(errors.New("503 from upstream"))
	tests := []struct {
		name     string
		a        tool.Annotations
		wantRuns int32
	}{
		{"idempotent", tool.Annotations{Idempotent: true}, 3},
		{"read-only", tool.Annotations{ReadOnly: true}, 3},
		{"not idempotent", tool.Annotations{}, 1},
	}
	noSleep := func(context.Context, time.Duration) error { return nil }
	for _, tc := range tests {
		var runs atomic.Int32
		tl := annotated("t", tc.a, &runs, flaky)
		h := middleware.When(middleware.Idempotent, middleware.Retry(&middleware.RetryOptions{Sleep: noSleep}))(handle)
		res := h(context.Background(), tool.Call{ID: "c", Name: "t", Arguments: "{}", Tool: tl})
		if !res.Failed() || runs.Load() != tc.wantRuns {
			t.Errorf("%s: ran %d times (failed %v), want %d", tc.name, runs.Load(), res.Failed(), tc.wantRuns)
		}
	}
}

func TestWhenPanicsOnNil(t *testing.T) {
	for _, tc := range []struct {
		pred func(tool.Call) bool
		mw   tool.Middleware
	}{{nil, middleware.Retry(nil)}, {middleware.Destructive, nil}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("When(%v, %v) did not panic", tc.pred != nil, tc.mw != nil)
				}
			}()
			middleware.When(tc.pred, tc.mw)
		}()
	}
}
