package agentkit_test

import (
	"context"
	"errors"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"go.uber.org/goleak"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
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

// A tool that ignores its context: Run still returns promptly, and the goroutine ends when
// the tool returns.
func TestCancelWithToolIgnoringContext(t *testing.T) {
	defer goleak.VerifyNone(t)
	release := make(chan struct{})
	started := make(chan struct{})
	stubborn := tool.New("stubborn", "ignores ctx", func(ctx context.Context, in struct{}) (string, error) {
		close(started)
		<-release
		return "late", nil
	})
	m := agentkittest.New(t, agentkittest.ToolCalls(agentkittest.Call("stubborn", `{}`), agentkittest.Call("stubborn2", `{}`)))
	a := agentkit.New(m, &agentkit.Options{Tools: []*tool.Tool{stubborn}})
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
