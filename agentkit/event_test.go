package agentkit_test

import (
	"bytes"
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/tool"
)

// seenCall is what a run records of one tool call, in comparable form.
type seenCall struct {
	Iteration            int
	ID, Name, Arguments  string
	Kind                 tool.Kind
	Content, Err, Repair string
	Stack                bool // a stack trace is recorded, intact
}

// seenRun is what a run records: its calls, its transcript, and the arguments its tool ran with.
type seenRun struct {
	Calls    []seenCall
	Messages []openai.ChatCompletionMessage
	Ran      []int
}

// An event carries copies: an OnEvent that edits the Call or Result of a tool event leaves the
// run as it is (the calls it runs, Result.Steps, Result.Messages), for calls that run and for
// calls the loop refuses.
func TestOnEventEditsNoRecord(t *testing.T) {
	call := func(n string) openai.ToolCall { return agentkittest.Call("f", `{"n":`+n+`}`) }
	cut := agentkittest.ToolCalls(call("1"))
	cut.FinishReason = openai.FinishReasonLength
	tests := []struct {
		name     string
		script   []agentkittest.Reply
		opts     agentkit.Options
		streamed bool
	}{
		{"run call", []agentkittest.Reply{agentkittest.ToolCalls(call("1")), agentkittest.Text("done")}, agentkit.Options{}, false},
		{"unknown tool", []agentkittest.Reply{agentkittest.ToolCalls(agentkittest.Call("nope", `{}`)), agentkittest.Text("done")}, agentkit.Options{}, false},
		{"past MaxToolCalls", []agentkittest.Reply{agentkittest.ToolCalls(call("1"), call("2")), agentkittest.Text("done")}, agentkit.Options{MaxToolCalls: 1}, false},
		{"cut off", []agentkittest.Reply{cut, agentkittest.Text("done")}, agentkit.Options{}, false},
		{"repeated", []agentkittest.Reply{agentkittest.ToolCalls(call("1")), agentkittest.ToolCalls(call("1")), agentkittest.Text("done")}, agentkit.Options{LoopLimit: 1, LoopStop: 3}, false},
		{"budget exhausted", []agentkittest.Reply{agentkittest.ToolCalls(call("1")), agentkittest.ToolCalls(call("2"))}, agentkit.Options{MaxIterations: 1, FinalAnswerOnLimit: true}, false},
		{"panicking tool", []agentkittest.Reply{agentkittest.ToolCalls(call("9")), agentkittest.Text("done")}, agentkit.Options{}, false},
		{"streamed, started early", []agentkittest.Reply{agentkittest.ToolCalls(call("1"), call("2")), agentkittest.Text("done")}, agentkit.Options{}, true},
	}
	vandal := func(_ context.Context, e agentkit.Event) {
		if e.Call != nil {
			*e.Call = tool.Call{ID: "vandal", Name: "vandal", Arguments: `{"n":0}`}
		}
		if e.Message != nil {
			for i := range e.Message.ToolCalls {
				e.Message.ToolCalls[i].Function.Arguments = `{"n":0}`
			}
		}
		if e.Result != nil {
			clear(e.Result.Stack)
			*e.Result = tool.Result{Content: "vandal", Kind: tool.KindPanic, Stack: []byte("vandal")}
		}
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := observeRun(t, tc.script, tc.opts, tc.streamed, vandal)
			want := observeRun(t, tc.script, tc.opts, tc.streamed, nil)
			if len(want.Calls) == 0 {
				t.Fatal("the run made no call: the case tests nothing")
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("the run with an OnEvent that edits tool events (-without +with):\n%s", diff)
			}
		})
	}
}

// observeRun runs script with opts and onEvent, and returns what the run recorded.
func observeRun(t *testing.T, script []agentkittest.Reply, opts agentkit.Options, streamed bool, onEvent agentkit.OnEvent) seenRun {
	t.Helper()
	var (
		mu   sync.Mutex
		seen seenRun
	)
	f := tool.New("f", "records its argument", func(ctx context.Context, in struct {
		N int `json:"n"`
	}) (int, error) {
		if in.N == 9 {
			panic("nine")
		}
		mu.Lock()
		defer mu.Unlock()
		seen.Ran = append(seen.Ran, in.N)
		return in.N, nil
	})
	opts.Tools = []*tool.Tool{f}
	opts.OnEvent = onEvent
	a := agentkit.New(agentkittest.New(t, script...), &opts)
	var res *agentkit.Result
	if streamed {
		s := a.RunStream(context.Background(), "q")
		for range s.Events() {
		}
		res, _ = s.Result()
	} else {
		res, _ = a.Run(context.Background(), "q")
	}
	for _, step := range res.Steps {
		for _, c := range step.Calls {
			errText := ""
			if c.Result.Err != nil {
				errText = c.Result.Err.Error()
			}
			seen.Calls = append(seen.Calls, seenCall{step.Iteration, c.Call.ID, c.Call.Name, c.Call.Arguments,
				c.Result.Kind, c.Result.Content, errText, c.Result.Repair, bytes.HasPrefix(c.Result.Stack, []byte("goroutine "))})
		}
	}
	seen.Messages = res.Messages
	slices.Sort(seen.Ran) // parallel calls run in any order
	return seen
}
