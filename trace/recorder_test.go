package trace

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"go.uber.org/goleak"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/tool"
)

// clock is a Recorder's clock that moves 1ms at each reading.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(time.Millisecond)
	return c.now
}

// pageWriter records what was written, and whether the page was whole at each write.
type pageWriter struct {
	strings.Builder
	writes int
}

func (w *pageWriter) Write(p []byte) (int, error) {
	w.writes++
	return w.Builder.Write(p)
}

func TestRecorderWritesAsTheRunGoes(t *testing.T) {
	defer goleak.VerifyNone(t)
	var out pageWriter
	rec := NewRecorder(&out, &Options{Now: (&clock{now: time.Unix(0, 0)}).Now})
	var atFirstResponse int
	res, _ := richRun(t, func(ctx context.Context, e agentkit.Event) {
		rec.OnEvent(ctx, e)
		if e.Kind == agentkit.EventModelResponse && atFirstResponse == 0 {
			atFirstResponse = out.Len()
		}
	})
	if err := rec.Err(); err != nil {
		t.Fatal(err)
	}
	page := out.String()
	if atFirstResponse == 0 || atFirstResponse >= len(page) || !strings.Contains(page[:atFirstResponse], `id="t1"`) {
		t.Errorf("the first model call's section was not written before the run ended (%d of %d bytes)", atFirstResponse, len(page))
	}
	doc := parse(t, page)
	if got, want := len(doc.all(classed("rect", "bar"))), len(res.Steps)+callCount(res); got != want {
		t.Errorf("the timeline has %d bars, want %d", got, want)
	}
	if got, want := len(doc.all(classed("details", "call"))), callCount(res); got != want {
		t.Errorf("%d call sections, want %d", got, want)
	}
	if !strings.Contains(doc.textContent(), "stop: paused") {
		t.Errorf("the run's end is not on the page")
	}
	// Events after the run's end write nothing.
	n := out.writes
	rec.OnEvent(context.Background(), agentkit.Event{Kind: agentkit.EventModelRequest, Iteration: 9})
	if out.writes != n {
		t.Errorf("an event after EventRunEnd was written")
	}
}

// waitingModel streams agentkittest.Model's replies, holding each reply's last chunks until
// started is closed: so that the first call, started early, has begun before the model's
// response ends, whatever the scheduler does.
type waitingModel struct {
	*agentkittest.Model
	started chan struct{}
}

func (m waitingModel) CreateChatCompletionStream(ctx context.Context, req openai.ChatCompletionRequest) (agentkit.Stream, error) {
	s, err := m.Model.CreateChatCompletionStream(ctx, req)
	return waitingStream{s, m.started}, err
}

type waitingStream struct {
	agentkit.Stream
	started chan struct{}
}

func (s waitingStream) Recv() (openai.ChatCompletionStreamResponse, error) {
	c, err := s.Stream.Recv()
	if err == nil && len(c.Choices) > 0 && c.Choices[0].FinishReason == openai.FinishReasonToolCalls {
		select {
		case <-s.started:
		case <-time.After(10 * time.Second):
			return c, errors.New("no call was started early")
		}
	}
	return c, err
}

// TestRecorderDrawsEarlyStartedCalls: in a streamed run a call starts as soon as its
// arguments are complete, before the model's response ends; its bar begins inside the
// model call's.
func TestRecorderDrawsEarlyStartedCalls(t *testing.T) {
	defer goleak.VerifyNone(t)
	var out strings.Builder
	rec := NewRecorder(&out, &Options{Now: (&clock{now: time.Unix(0, 0)}).Now})
	started := make(chan struct{})
	var once sync.Once
	echo := tool.New("echo", "echo", func(_ context.Context, in struct {
		S string `json:"s"`
	}) (string, error) {
		once.Do(func() { close(started) })
		return in.S, nil
	})
	model := agentkittest.New(t,
		agentkittest.Reply{Message: openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, ToolCalls: []openai.ToolCall{
			agentkittest.Call("echo", `{"s":"一"}`), agentkittest.Call("echo", `{"s":"二"}`)}}, FinishReason: openai.FinishReasonToolCalls},
		agentkittest.Text("好"))
	agent := agentkit.New(waitingModel{model, started}, &agentkit.Options{Tools: []*tool.Tool{echo}, OnEvent: rec.OnEvent})
	s := agent.RunStream(context.Background(), "说")
	for range s.Events() {
	}
	if _, err := s.Result(); err != nil {
		t.Fatal(err)
	}
	doc := parse(t, out.String())
	bars := doc.all(classed("rect", "bar"))
	if len(bars) != 4 { // 2 model calls, 2 tool calls
		t.Fatalf("%d bars, want 4", len(bars))
	}
	x := func(n *node, attr string) float64 {
		f, err := strconv.ParseFloat(n.attr[attr], 64)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	var model1, call1 *node // the first model call's bar, the first call's
	for _, b := range bars {
		switch {
		case b.hasClass("model") && model1 == nil:
			model1 = b
		case !b.hasClass("model") && call1 == nil:
			call1 = b
		}
	}
	if end := x(model1, "x") + x(model1, "width"); x(call1, "x") >= end {
		t.Errorf("the early-started call's bar starts at %v, after its model call's ends (%v)", x(call1, "x"), end)
	}
}

type failingWriter struct{ after int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.after <= 0 {
		return 0, errors.New("disk full")
	}
	w.after--
	return len(p), nil
}

func TestWriteErrors(t *testing.T) {
	res, err := richRun(t, nil)
	for _, after := range []int{0, 3, 20} {
		if got := Write(&failingWriter{after: after}, res, &Options{Err: err}); got == nil || !strings.Contains(got.Error(), "disk full") {
			t.Errorf("Write failing after %d writes: got %v, want the writer's error", after, got)
		}
		rec := NewRecorder(&failingWriter{after: after}, nil)
		richRun(t, rec.OnEvent)
		if got := rec.Err(); got == nil || !strings.Contains(got.Error(), "disk full") {
			t.Errorf("Recorder failing after %d writes: got %v, want the writer's error", after, got)
		}
	}
	if err := Write(&strings.Builder{}, nil, nil); err == nil {
		t.Errorf("Write of a nil Result: no error")
	}
}
