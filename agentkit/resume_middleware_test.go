package agentkit_test

import (
	"context"
	"errors"
	"testing"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/memory"
	"github.com/toolcall/toolcall/tool"
)

// errOverQuota is the refusal of quota, a RunMiddleware that does not call next.
var errOverQuota = errors.New("over quota")

// quota refuses runs while closed is true, without calling next (as a RunMiddleware may).
func quota(closed *bool) agentkit.RunMiddleware {
	return func(next agentkit.RunFunc) agentkit.RunFunc {
		return func(ctx context.Context) (*agentkit.Result, error) {
			if *closed {
				return &agentkit.Result{Stop: agentkit.StopResumeRefused}, errOverQuota
			}
			return next(ctx)
		}
	}
}

// A RunMiddleware that refuses a resume, not calling next, refuses it before the claim (or
// the take of a session's pause): the pause stays resumable, and resumes later, once.
func TestResumeRunMiddlewareRefuses(t *testing.T) {
	decisions := []agentkit.Decision{{CallID: "call_a", Approve: true}, {CallID: "call_b", Approve: true}}
	tests := []struct {
		name   string
		resume func(a *agentkit.Agent, closed *bool) (*agentkit.Result, error)
	}{
		{"Resume", func(a *agentkit.Agent, closed *bool) (*agentkit.Result, error) {
			*closed = false
			p := paused(t, a)
			*closed = true
			if _, err := a.Resume(context.Background(), p, decisions); !errors.Is(err, errOverQuota) {
				t.Fatalf("Resume refused by the middleware = %v, want its error", err)
			}
			*closed = false
			return a.Resume(context.Background(), p, decisions)
		}},
		{"ResumeSession", func(a *agentkit.Agent, closed *bool) (*agentkit.Result, error) {
			*closed = false
			if _, err := a.RunSession(context.Background(), "u1", "转账"); !errors.Is(err, agentkit.ErrPaused) {
				t.Fatalf("RunSession = %v, want a pause", err)
			}
			*closed = true
			if _, err := a.ResumeSession(context.Background(), "u1", decisions); !errors.Is(err, errOverQuota) {
				t.Fatalf("ResumeSession refused by the middleware = %v, want its error", err)
			}
			*closed = false
			return a.ResumeSession(context.Background(), "u1", decisions)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bank
			var closed bool
			store := memory.NewInMemory()
			model := agentkittest.New(t, pauseTurn(), agentkittest.Text("办好了"))
			a := agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{b.transfer(), b.lookup()}, Ledger: store, Memory: store,
				RunMiddleware: []agentkit.RunMiddleware{quota(&closed)}})
			res, err := tt.resume(a, &closed)
			if err != nil || res.Output != "办好了" {
				t.Fatalf("the resume after the refusal = %q, %v; want the answer", res.Output, err)
			}
			if n := b.transfers.Load(); n != 2 {
				t.Errorf("transfer ran %d times, want 2", n)
			}
		})
	}
}
