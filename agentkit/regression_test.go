package agentkit_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/tool"
)

// R1: FinalAnswerOnLimit + streaming: the final "tool-free" turn still early-starts the
// calls the model emits, so the tool RUNS although the transcript says it was not executed.
func TestRegressionFinalTurnEarlyStartRunsTool(t *testing.T) {
	var ran atomic.Int32
	charge := tool.New("charge", "charges a card", func(ctx context.Context, in struct {
		N int `json:"n"`
	}) (string, error) {
		ran.Add(1)
		return "charged", nil
	})
	// A real stream: chunks arrive 5ms apart. In the final turn the model (ignoring
	// tool_choice "none", as several providers do) emits two calls.
	m := &streamModel{gap: 5 * time.Millisecond, streams: [][]openai.ChatCompletionStreamResponse{
		{callChunk(0, "c1", "charge", `{"n":1}`), finishChunk("tool_calls")},
		{callChunk(0, "c2", "charge", `{"n":2}`), callChunk(1, "c3", "charge", `{"n":3}`), finishChunk("tool_calls")},
	}}
	a := agentkit.New(m, &agentkit.Options{Tools: []*tool.Tool{charge}, MaxIterations: 1, FinalAnswerOnLimit: true})
	s := a.RunStream(context.Background(), "go")
	res, err := s.Result()
	time.Sleep(50 * time.Millisecond)
	last := res.Messages[len(res.Messages)-1]
	t.Logf("err=%v stop=%s last tool msg=%q", err, res.Stop, last.Content)
	if n := ran.Load(); n != 1 {
		t.Errorf("charge ran %d times; want 1 (the final turn's call was reported %q)", n, last.Content)
	}
}

// R2: a StreamRun whose parent context is canceled drops events at random, EventRunEnd
// included, even though the reader keeps reading: the sink's select picks ctx.Done() or
// the (buffered, free) channel at random.
func TestRegressionStreamRunEndDroppedOnParentCancel(t *testing.T) {
	missing := 0
	const runs = 200
	for range runs {
		block := tool.New("block", "waits for ctx", func(ctx context.Context, in struct{}) (string, error) {
			<-ctx.Done()
			return "", ctx.Err()
		})
		m := agentkittest.New(nil, agentkittest.ToolCalls(agentkittest.Call("block", `{}`)))
		a := agentkit.New(m, &agentkit.Options{Tools: []*tool.Tool{block}})
		ctx, cancel := context.WithCancel(context.Background())
		s := a.RunStream(ctx, "go")
		got := false
		for e := range s.Events() {
			if e.Kind == agentkit.EventToolStart {
				cancel()
			}
			if e.Kind == agentkit.EventRunEnd {
				got = true
			}
		}
		res, _ := s.Result()
		if res.Stop != agentkit.StopCanceled {
			t.Fatalf("stop = %s", res.Stop)
		}
		if !got {
			missing++
		}
		cancel()
	}
	if missing > 0 {
		t.Errorf("EventRunEnd missing from Events() in %d of %d canceled runs", missing, runs)
	}
}

// R3: after Run returns on cancellation, the shared-counter worker goes on to start the
// turn's remaining calls: middleware runs and OnEvent receives tool events after run_end.
func TestRegressionWorkerStartsCallsAfterCancel(t *testing.T) {
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

type recMem struct {
	mu      sync.Mutex
	appends [][]openai.ChatCompletionMessage
}

func (m *recMem) Load(ctx context.Context, s string, _ agentkit.LoadOptions) (agentkit.History, error) {
	return agentkit.History{}, nil
}
func (m *recMem) Append(ctx context.Context, s string, msgs []openai.ChatCompletionMessage) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.appends = append(m.appends, append([]openai.ChatCompletionMessage(nil), msgs...))
	return nil
}
func (m *recMem) n() int { m.mu.Lock(); defer m.mu.Unlock(); return len(m.appends) }

// R4: Memory's doc says the user message is appended before the run proceeds; it is only
// appended together with the first step, so a crash during the first model call loses it.
func TestRegressionSessionInputAppendedFirst(t *testing.T) {
	mem := &recMem{}
	var before int
	m := agentkittest.New(t, agentkittest.Func(func(req openai.ChatCompletionRequest) agentkittest.Reply {
		before = mem.n()
		return agentkittest.Text("hi")
	}))
	a := agentkit.New(m, &agentkit.Options{Memory: mem})
	if _, err := a.RunSession(context.Background(), "s", "hello"); err != nil {
		t.Fatal(err)
	}
	if before == 0 {
		t.Errorf("no Append before the first model call: the user message is not stored until the first step completes (appends: %d)", mem.n())
	}
}

// R5: the final answer message is appended without any validation: an answer that is not
// provider-valid ends the run StopAnswered with an invalid transcript.
func TestRegressionAnswerNotValidated(t *testing.T) {
	for name, msg := range map[string]openai.ChatCompletionMessage{
		"empty part":    {MultiContent: []openai.ChatMessagePart{{Type: openai.ChatMessagePartTypeText, Text: "ok"}, {Type: openai.ChatMessagePartTypeText}}},
		"function_call": {Content: "ok", FunctionCall: &openai.FunctionCall{Name: "f", Arguments: "{}"}},
	} {
		m := agentkittest.New(t, agentkittest.Reply{Message: msg})
		a := agentkit.New(m, nil)
		res, err := a.Run(context.Background(), "hi")
		if verr := agentkit.ValidateHistory(res.Messages); verr != nil {
			t.Errorf("%s: err=%v stop=%s but transcript invalid: %v", name, err, res.Stop, verr)
		}
	}
}
