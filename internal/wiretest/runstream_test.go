package wiretest

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/tool"
)

// events collects a streaming run's events.
type events struct {
	mu  sync.Mutex
	all []agentkit.Event
}

func (e *events) record(_ context.Context, ev agentkit.Event) {
	e.mu.Lock()
	e.all = append(e.all, ev)
	e.mu.Unlock()
}

func (e *events) of(kind agentkit.EventKind) []agentkit.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []agentkit.Event
	for _, ev := range e.all {
		if ev.Kind == kind {
			out = append(out, ev)
		}
	}
	return out
}

// The streaming loop (Agent.RunStream over agentkit.OpenAIStreaming) against the server: the
// tool calls are assembled from their deltas and announced ready in order, their results go
// back in emission order, and the answer arrives as text deltas.
func TestRunStream(t *testing.T) {
	t.Parallel()
	eachClient(t, "stream.json", clientOptions{}, testRunStream)
}

func testRunStream(t *testing.T, e *env) {
	w := &weather{}
	agent := agentkit.New(e.streaming, &agentkit.Options{Model: "gpt-4o-mini", Tools: []*tool.Tool{w.tool()}})
	run := agent.RunStream(testContext(t), "用流式查询北京和广州的天气")
	var text strings.Builder
	var ready []string
	for ev := range run.Events() {
		switch ev.Kind {
		case agentkit.EventTextDelta:
			text.WriteString(ev.Text)
		case agentkit.EventToolCallReady:
			ready = append(ready, ev.Call.ID+" "+ev.Call.Arguments)
		}
	}
	res, err := run.Result()
	if err != nil {
		t.Fatalf("RunStream: %v", err)
	}
	const answer = "北京晴，气温26℃；广州阵雨，气温30℃。"
	if res.Stop != agentkit.StopAnswered || res.Output != answer || text.String() != answer {
		t.Errorf("Stop %q, Output %q, text deltas %q; want %q", res.Stop, res.Output, text.String(), answer)
	}
	if want := []string{`call_bj {"city":"北京"}`, `call_gz {"city":"广州"}`}; !cmp.Equal(ready, want) {
		t.Errorf("ready calls = %q, want %q", ready, want)
	}
	if err := agentkit.ValidateHistory(res.Messages); err != nil {
		t.Errorf("transcript: %v", err)
	}
	reqs := requests(t, e.capture.Exchanges())
	if len(reqs) != 2 || !reqs[0].Stream || !reqs[1].Stream {
		t.Fatalf("requests = %+v; want 2 streamed", reqs)
	}
	want := []wireMessage{
		{Role: "user", Content: "用流式查询北京和广州的天气"},
		{Role: "assistant", ToolCalls: []wireToolCall{
			call("call_bj", "get_weather", `{"city":"北京"}`),
			call("call_gz", "get_weather", `{"city":"广州"}`),
		}},
		{Role: "tool", ToolCallID: "call_bj", Content: forecasts["北京"]},
		{Role: "tool", ToolCallID: "call_gz", Content: forecasts["广州"]},
	}
	if diff := cmp.Diff(want, reqs[1].Messages); diff != "" {
		t.Errorf("second request messages (-want +got):\n%s", diff)
	}
}

// The streaming loop when the server cuts the connection in the middle of the second tool
// call: the run fails with a *agentkit.StreamError (the cut is io.ErrUnexpectedEOF, never a
// normal end), the transcript keeps nothing of the unfinished message, and no call of it is
// executed — or, with early start, the call started early is canceled and not recorded.
func TestRunStreamDisconnect(t *testing.T) {
	t.Parallel()
	eachClient(t, "disconnect.json", clientOptions{}, testRunStreamDisconnect)
}

func testRunStreamDisconnect(t *testing.T, e *env) {
	const question = "流中断开：北京和上海的天气"
	tests := []struct {
		name       string
		sequential bool // the tool is Sequential: never started early
		noEarly    bool // Options.NoEarlyStart
		early      bool // the first call is expected to start early, then be canceled
	}{
		{name: "no early start", noEarly: true},
		{name: "sequential tool", sequential: true},
		{name: "early start", early: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var started, canceled atomic.Int32
			w := &weather{before: func(ctx context.Context, city string) error {
				started.Add(1)
				<-ctx.Done() // holds until the run cancels it: a cut stream must
				canceled.Add(1)
				return ctx.Err()
			}}
			var ev events
			agent := agentkit.New(e.streaming, &agentkit.Options{
				Model:        "gpt-4o-mini",
				Tools:        []*tool.Tool{w.tool(tool.Options{Sequential: tt.sequential})},
				NoEarlyStart: tt.noEarly,
				OnEvent:      ev.record,
			})
			res, err := agent.RunStream(testContext(t), question).Result()
			checkFailedRun(t, res, err, w, nil)
			var se *agentkit.StreamError
			if !errors.As(err, &se) || se.LostCalls != 2 || !errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
				t.Errorf("err = %v; want a *agentkit.StreamError with 2 lost calls wrapping io.ErrUnexpectedEOF", err)
			}
			if len(res.Messages) != 1 || len(res.Steps) != 0 {
				t.Errorf("transcript %d messages, %d steps; want only the input", len(res.Messages), len(res.Steps))
			}
			if n := len(ev.of(agentkit.EventToolCallReady)); n != 1 {
				t.Errorf("%d calls ready; want 1 (the first, complete before the cut)", n)
			}
			wantStarted := int32(0)
			if tt.early {
				wantStarted = 1
			}
			if s, c := started.Load(), canceled.Load(); s != wantStarted || c != s {
				t.Errorf("tool started %d times, canceled %d; want %d and %d", s, c, wantStarted, wantStarted)
			}
		})
	}
}
