package agentkit_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"go.uber.org/goleak"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/middleware"
	"github.com/toolcall/toolcall/tool"
)

func TestCancelMidToolLeavesNoGoroutine(t *testing.T) {
	defer goleak.VerifyNone(t)
	started := make(chan struct{}, 4)
	block := tool.New("block", "blocks until canceled", func(ctx context.Context, in struct {
		N int `json:"n"`
	}) (string, error) {
		started <- struct{}{}
		<-ctx.Done()
		return "", ctx.Err()
	})
	fastDone := make(chan struct{})
	fast := tool.New("fast", "returns at once", func(ctx context.Context, in struct{}) (string, error) {
		defer close(fastDone)
		return "fast", nil
	})
	m := agentkittest.New(t, agentkittest.ToolCalls(
		agentkittest.Call("fast", `{}`),
		agentkittest.Call("block", `{"n":1}`),
		agentkittest.Call("block", `{"n":2}`),
	))
	a := agentkit.New(m, &agentkit.Options{Tools: []*tool.Tool{fast, block}})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-started
		<-started
		<-fastDone
		time.Sleep(10 * time.Millisecond) // let the fast call's outcome reach the loop
		cancel()
	}()
	begin := time.Now()
	res, err := a.Run(ctx, "q")
	if !errors.Is(err, context.Canceled) || res.Stop != agentkit.StopCanceled {
		t.Fatalf("err = %v, stop = %q", err, res.Stop)
	}
	if d := time.Since(begin); d > 5*time.Second {
		t.Errorf("Run took %v after cancel", d)
	}
	if err := agentkit.ValidateHistory(res.Messages); err != nil {
		t.Fatalf("partial transcript invalid: %v", err)
	}
	calls := res.Steps[0].Calls
	if calls[0].Result.Kind != "" || calls[1].Result.Kind != tool.KindCanceled || calls[2].Result.Kind != tool.KindCanceled {
		t.Errorf("kinds = %q %q %q, want ok canceled canceled", calls[0].Result.Kind, calls[1].Result.Kind, calls[2].Result.Kind)
	}
}

// A tool that ignores its context holds a canceled run until it returns: Run waits for every
// goroutine it starts. Its result is what it returned.
func TestCancelWaitsForToolIgnoringContext(t *testing.T) {
	defer goleak.VerifyNone(t)
	started := make(chan struct{})
	var returned atomic.Bool
	stubborn := tool.New("stubborn", "ignores ctx", func(ctx context.Context, in struct{}) (string, error) {
		close(started)
		time.Sleep(50 * time.Millisecond)
		returned.Store(true)
		return "late", nil
	})
	m := agentkittest.New(t, agentkittest.ToolCalls(agentkittest.Call("stubborn", `{}`)))
	a := agentkit.New(m, &agentkit.Options{Tools: []*tool.Tool{stubborn}})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	res, err := a.Run(ctx, "q")
	if !errors.Is(err, context.Canceled) || res.Stop != agentkit.StopCanceled {
		t.Fatalf("stop %q, err %v; want %q, context.Canceled", res.Stop, err, agentkit.StopCanceled)
	}
	if !returned.Load() {
		t.Error("Run returned before the tool did")
	}
	if got := res.Steps[0].Calls[0].Result.Content; got != "late" {
		t.Errorf("result %q, want the tool's own %q", got, "late")
	}
}

// middleware.Timeout is the one way a call may outlive its run: at cancellation it abandons
// the call of a tool that ignores its context, Run returns at once with the call canceled,
// and the goroutine ends when the tool returns.
func TestCancelTimeoutAbandonsToolIgnoringContext(t *testing.T) {
	defer goleak.VerifyNone(t)
	release := make(chan struct{})
	started := make(chan struct{})
	stubborn := tool.New("stubborn", "ignores ctx", func(ctx context.Context, in struct{}) (string, error) {
		close(started)
		<-release
		return "late", nil
	})
	m := agentkittest.New(t, agentkittest.ToolCalls(agentkittest.Call("stubborn", `{}`), agentkittest.Call("stubborn2", `{}`)))
	a := agentkit.New(m, &agentkit.Options{Tools: []*tool.Tool{stubborn}, Middleware: []tool.Middleware{middleware.Timeout(time.Hour)}})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	res, err := a.Run(ctx, "q")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if k := res.Steps[0].Calls[0].Result.Kind; k != tool.KindCanceled {
		t.Errorf("kind = %q, want canceled", k)
	}
	close(release) // the abandoned goroutine can now finish; goleak waits for it
}

func TestCancelBeforeModelCall(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m := agentkittest.New(t)
	res, err := agentkit.New(m, nil).RunMessages(ctx, []openai.ChatCompletionMessage{{Role: "user", Content: "q"}})
	if !errors.Is(err, context.Canceled) || res.Stop != agentkit.StopCanceled || len(m.Requests()) != 0 {
		t.Fatalf("err = %v stop = %q requests = %d", err, res.Stop, len(m.Requests()))
	}
}

// After Run returns on cancellation nothing of the run goes on: no call starts, no
// middleware runs, no event is emitted after EventRunEnd.
func TestCancelNothingRunsAfterReturn(t *testing.T) {
	var mwCalls atomic.Int32
	slow := tool.New("slow", "ignores ctx", func(ctx context.Context, in struct {
		N int `json:"n"`
	}) (string, error) {
		time.Sleep(100 * time.Millisecond)
		return "ok", nil
	})
	audit := func(next tool.Handler) tool.Handler {
		return func(ctx context.Context, c tool.Call) tool.Result {
			mwCalls.Add(1)
			return next(ctx, c)
		}
	}
	var mu sync.Mutex
	var afterEnd []agentkit.EventKind
	ended := false
	onEvent := func(ctx context.Context, e agentkit.Event) {
		mu.Lock()
		defer mu.Unlock()
		if ended {
			afterEnd = append(afterEnd, e.Kind)
		}
		if e.Kind == agentkit.EventRunEnd {
			ended = true
		}
	}
	m := agentkittest.New(nil, agentkittest.ToolCalls(
		agentkittest.Call("slow", `{"n":1}`), agentkittest.Call("slow", `{"n":2}`),
		agentkittest.Call("slow", `{"n":3}`), agentkittest.Call("slow", `{"n":4}`)))
	a := agentkit.New(m, &agentkit.Options{Tools: []*tool.Tool{slow}, Middleware: []tool.Middleware{audit}, MaxConcurrency: 2, OnEvent: onEvent})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	res, err := a.Run(ctx, "go")
	atReturn := mwCalls.Load()
	time.Sleep(400 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	t.Logf("err=%v stop=%s; middleware calls at return=%d, later=%d; events after run_end: %v", err, res.Stop, atReturn, mwCalls.Load(), afterEnd)
	if mwCalls.Load() != atReturn || len(afterEnd) > 0 {
		t.Errorf("calls were started (middleware ran %d more times) and events emitted after Run returned", mwCalls.Load()-atReturn)
	}
}
