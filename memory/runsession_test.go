package memory_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/memory"
	"github.com/toolcall/toolcall/tool"
)

// Two runs of one session at once: the second waits for the first (InMemory's Lock), or
// gives up with ErrSessionBusy when its context ends first: a run canceled while it waits
// for the lock stops with StopCanceled.
func TestRunSessionLocking(t *testing.T) {
	defer goleak.VerifyNone(t)
	store := memory.NewInMemory()
	release := make(chan struct{})
	started := make(chan struct{})
	slow := tool.New("slow", "Takes a while.", func(ctx context.Context, in struct{}) (string, error) {
		close(started)
		<-release
		return "done", nil
	})
	model := agentkittest.New(t,
		agentkittest.ToolCalls(agentkittest.Call("slow", `{}`)),
		agentkittest.Text("first answer"),
		agentkittest.Text("second answer"))
	agent := agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{slow}, Memory: store})

	firstDone := make(chan error, 1)
	go func() {
		_, err := agent.RunSession(context.Background(), "s", "first")
		firstDone <- err
	}()
	<-started

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	res, err := agent.RunSession(ctx, "s", "impatient")
	cancel()
	if !errors.Is(err, agentkit.ErrSessionBusy) || !errors.Is(err, context.DeadlineExceeded) || res.Stop != agentkit.StopCanceled {
		t.Errorf("concurrent run: stop %q, err %v; want StopCanceled, ErrSessionBusy and DeadlineExceeded", res.Stop, err)
	}

	secondDone := make(chan error, 1)
	go func() {
		_, err := agent.RunSession(context.Background(), "s", "second")
		secondDone <- err
	}()
	time.Sleep(20 * time.Millisecond)
	close(release)
	if err := <-firstDone; err != nil {
		t.Fatal(err)
	}
	if err := <-secondDone; err != nil {
		t.Fatal(err)
	}
	stored, _ := store.Load(context.Background(), "s")
	var got []string
	for _, m := range stored {
		got = append(got, m.Role+":"+m.Content)
	}
	want := "user:first assistant: tool:done assistant:first answer user:second assistant:second answer"
	if strings.Join(got, " ") != want {
		t.Errorf("stored = %s\nwant     %s", strings.Join(got, " "), want)
	}
}
