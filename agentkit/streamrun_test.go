package agentkit_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"go.uber.org/goleak"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/tool"
)

// chunkStream plays chunks, sleeping gap before each; err (or io.EOF) ends it.
type chunkStream struct {
	ctx    context.Context
	chunks []openai.ChatCompletionStreamResponse
	gap    time.Duration
	err    error
	ended  *atomic.Int64 // unix nanos when the first stream was exhausted
}

func (s *chunkStream) Recv() (openai.ChatCompletionStreamResponse, error) {
	if len(s.chunks) == 0 {
		if s.ended != nil {
			s.ended.CompareAndSwap(0, time.Now().UnixNano()) // the first stream's end
		}
		if s.err != nil {
			return openai.ChatCompletionStreamResponse{}, s.err
		}
		return openai.ChatCompletionStreamResponse{}, io.EOF
	}
	select {
	case <-time.After(s.gap):
	case <-s.ctx.Done():
		return openai.ChatCompletionStreamResponse{}, s.ctx.Err()
	}
	c := s.chunks[0]
	s.chunks = s.chunks[1:]
	return c, nil
}

func (s *chunkStream) Close() error { return nil }

// streamModel answers each request with the next scripted stream.
type streamModel struct {
	streams [][]openai.ChatCompletionStreamResponse
	gap     time.Duration
	errs    []error
	n       atomic.Int32
	ended   atomic.Int64
}

func (m *streamModel) CreateChatCompletion(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
	return openai.ChatCompletionResponse{}, errors.New("not streaming")
}

func (m *streamModel) CreateChatCompletionStream(ctx context.Context, req openai.ChatCompletionRequest) (agentkit.Stream, error) {
	if err := agentkit.ValidateHistory(req.Messages); err != nil {
		return nil, err
	}
	i := int(m.n.Add(1)) - 1
	var err error
	if i < len(m.errs) {
		err = m.errs[i]
	}
	return &chunkStream{ctx: ctx, chunks: m.streams[i], gap: m.gap, err: err, ended: &m.ended}, nil
}

func textChunks(parts ...string) []openai.ChatCompletionStreamResponse {
	var out []openai.ChatCompletionStreamResponse
	for _, p := range parts {
		out = append(out, openai.ChatCompletionStreamResponse{Choices: []openai.ChatCompletionStreamChoice{{Delta: openai.ChatCompletionStreamChoiceDelta{Content: p}}}})
	}
	out = append(out, openai.ChatCompletionStreamResponse{Choices: []openai.ChatCompletionStreamChoice{{FinishReason: "stop"}}})
	return out
}

func callChunk(index int, id, name, args string) openai.ChatCompletionStreamResponse {
	return openai.ChatCompletionStreamResponse{Choices: []openai.ChatCompletionStreamChoice{{Delta: openai.ChatCompletionStreamChoiceDelta{
		ToolCalls: []openai.ToolCall{{Index: &index, ID: id, Type: "function", Function: openai.FunctionCall{Name: name, Arguments: args}}},
	}}}}
}

func finishChunk(reason openai.FinishReason) openai.ChatCompletionStreamResponse {
	return openai.ChatCompletionStreamResponse{Choices: []openai.ChatCompletionStreamChoice{{FinishReason: reason}}}
}

func TestRunStreamEvents(t *testing.T) {
	m := &streamModel{streams: [][]openai.ChatCompletionStreamResponse{
		{callChunk(0, "c1", "get_weather", `{"ci`), callChunk(0, "", "", `ty":"北京"}`), finishChunk("tool_calls")},
		textChunks("北京", "今天", "晴。"),
	}}
	a := agentkit.New(m, &agentkit.Options{Tools: []*tool.Tool{weatherTool()}})
	s := a.RunStream(context.Background(), "北京天气？")
	var kinds []string
	var text strings.Builder
	for e := range s.Events() {
		switch e.Kind {
		case agentkit.EventTextDelta:
			text.WriteString(e.Text)
		case agentkit.EventToolCallStart, agentkit.EventToolCallReady, agentkit.EventToolStart, agentkit.EventToolEnd, agentkit.EventStepEnd, agentkit.EventAnswer, agentkit.EventRunEnd:
			kinds = append(kinds, string(e.Kind))
		}
	}
	res, err := s.Result()
	if err != nil {
		t.Fatal(err)
	}
	if text.String() != "北京今天晴。" || res.Output != "北京今天晴。" {
		t.Errorf("text = %q, output = %q", text.String(), res.Output)
	}
	want := "tool_call_start tool_call_ready tool_start tool_end step_end answer run_end"
	if got := strings.Join(kinds, " "); got != want {
		t.Errorf("events = %q\nwant     %q", got, want)
	}
	if got := res.Messages[1].ToolCalls[0].Function.Arguments; got != `{"city":"北京"}` {
		t.Errorf("assembled arguments = %q", got)
	}
}

// With early start the first call runs while the model is still streaming the second.
func TestRunStreamEarlyStart(t *testing.T) {
	for _, tc := range []struct {
		name      string
		noEarly   bool
		wantEarly bool
	}{{"early", false, true}, {"no early start", true, false}} {
		t.Run(tc.name, func(t *testing.T) {
			var startedAt atomic.Int64
			probe := tool.New("probe", "records when it starts", func(ctx context.Context, in struct {
				N int `json:"n"`
			}) (string, error) {
				if in.N == 1 {
					startedAt.Store(time.Now().UnixNano())
				}
				return "ok", nil
			})
			m := &streamModel{gap: 5 * time.Millisecond, streams: [][]openai.ChatCompletionStreamResponse{
				{callChunk(0, "a", "probe", `{"n":1}`), callChunk(1, "b", "probe", `{"n":`), callChunk(1, "", "", `2}`),
					{}, {}, {}, {}, finishChunk("tool_calls")},
				textChunks("done"),
			}}
			a := agentkit.New(m, &agentkit.Options{Tools: []*tool.Tool{probe}, NoEarlyStart: tc.noEarly})
			res, err := a.RunStream(context.Background(), "go").Result()
			if err != nil {
				t.Fatal(err)
			}
			early := startedAt.Load() < m.ended.Load()
			if early != tc.wantEarly {
				t.Errorf("tool started early = %v, want %v", early, tc.wantEarly)
			}
			tm := res.Messages[2:4]
			if tm[0].ToolCallID != "a" || tm[1].ToolCallID != "b" {
				t.Errorf("results out of order: %+v", tm)
			}
		})
	}
}

// A stream cut after a complete call: error with the partial text, no call recorded or run
// to completion, transcript valid.
func TestRunStreamTruncated(t *testing.T) {
	var ran atomic.Int32
	slow := tool.New("slow", "slow", func(ctx context.Context, in struct{}) (string, error) {
		select {
		case <-time.After(time.Second):
			ran.Add(1)
		case <-ctx.Done():
		}
		return "x", nil
	})
	m := &streamModel{
		streams: [][]openai.ChatCompletionStreamResponse{{
			{Choices: []openai.ChatCompletionStreamChoice{{Delta: openai.ChatCompletionStreamChoiceDelta{Content: "let me check"}}}},
			callChunk(0, "a", "slow", `{}`), callChunk(1, "b", "slow", `{`),
		}},
		errs: []error{agentkit.ErrStreamTruncated},
	}
	a := agentkit.New(m, &agentkit.Options{Tools: []*tool.Tool{slow}})
	res, err := a.RunStream(context.Background(), "go").Result()
	var se *agentkit.StreamError
	if !errors.As(err, &se) || se.Partial != "let me check" || se.LostCalls != 2 {
		t.Fatalf("err = %v", err)
	}
	if res.Stop != agentkit.StopModelError || len(res.Messages) != 1 {
		t.Errorf("stop %q, %d messages", res.Stop, len(res.Messages))
	}
	time.Sleep(20 * time.Millisecond)
	if ran.Load() != 0 {
		t.Errorf("a call of the broken message ran to completion")
	}
}

func TestRunStreamStopEarlyCancels(t *testing.T) {
	defer goleak.VerifyNone(t)
	m := &streamModel{gap: time.Millisecond, streams: [][]openai.ChatCompletionStreamResponse{textChunks(strings.Split(strings.Repeat("x", 200), "")...)}}
	a := agentkit.New(m, nil)
	s := a.RunStream(context.Background(), "go")
	n := 0
	for e := range s.Events() {
		if e.Kind == agentkit.EventTextDelta {
			n++
			if n == 3 {
				break
			}
		}
	}
	res, err := s.Result()
	if !errors.Is(err, context.Canceled) || res.Stop != agentkit.StopCanceled {
		t.Fatalf("err = %v, stop = %q", err, res.Stop)
	}
}

// A model that cannot stream still works in a streaming run: one text delta with the answer.
func TestRunStreamFallback(t *testing.T) {
	model := agentkit.ModelFunc(func(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		return openai.ChatCompletionResponse{Choices: []openai.ChatCompletionChoice{{Message: openai.ChatCompletionMessage{Role: "assistant", Content: "whole"}}}}, nil
	})
	s := agentkit.New(model, nil).RunStream(context.Background(), "go")
	var text string
	for e := range s.Events() {
		if e.Kind == agentkit.EventTextDelta {
			text += e.Text
		}
	}
	if res, err := s.Result(); err != nil || res.Output != "whole" || text != "whole" {
		t.Errorf("output %q text %q err %v", res.Output, text, err)
	}
}

// BenchmarkEarlyStart measures, on a scripted slow stream (2 ms between chunks, the second
// call's arguments in 10 chunks), the time from the moment the first call's arguments are
// complete (EventToolCallReady) to the moment that tool starts (EventToolStart), with and
// without early start. Reported as ms-ready-to-start; ns/op is the whole run.
func BenchmarkEarlyStart(b *testing.B) {
	for _, noEarly := range []bool{false, true} {
		name := "early"
		if noEarly {
			name = "no-early"
		}
		b.Run(name, func(b *testing.B) {
			work := tool.New("work", "works", func(ctx context.Context, in struct {
				N int `json:"n"`
			}) (string, error) {
				return "ok", nil
			})
			var total time.Duration
			for b.Loop() {
				stream := []openai.ChatCompletionStreamResponse{callChunk(0, "a", "work", `{"n":1}`), callChunk(1, "b", "work", `{"n":`)}
				for i := 0; i < 10; i++ {
					stream = append(stream, callChunk(1, "", "", " "))
				}
				stream = append(stream, callChunk(1, "", "", `2}`), finishChunk("tool_calls"))
				m := &streamModel{gap: 2 * time.Millisecond, streams: [][]openai.ChatCompletionStreamResponse{stream, textChunks("done")}}
				var ready, started time.Time
				a := agentkit.New(m, &agentkit.Options{Tools: []*tool.Tool{work}, NoEarlyStart: noEarly, OnEvent: func(ctx context.Context, e agentkit.Event) {
					if e.Call == nil || e.Call.ID != "a" {
						return
					}
					switch e.Kind {
					case agentkit.EventToolCallReady:
						ready = time.Now()
					case agentkit.EventToolStart:
						started = time.Now()
					}
				}})
				if _, err := a.RunStream(context.Background(), "go").Result(); err != nil {
					b.Fatal(err)
				}
				total += started.Sub(ready)
			}
			b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms-ready-to-start")
		})
	}
}

// The final tool-free request of FinalAnswerOnLimit starts no call early: a model that
// ignores tool_choice "none" and calls tools anyway has them refused, not run.
func TestStreamFinalTurnStartsNoCall(t *testing.T) {
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

// A StreamRun whose parent context is canceled still delivers every event to a reader that
// keeps reading, EventRunEnd included.
func TestStreamCanceledDeliversRunEnd(t *testing.T) {
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

// A model middleware of the user's own, written as a CallMiddlewareFunc, keeps a streamed run
// streaming: streamed calls pass through it, plain ones go through it.
func TestStreamUserModelMiddlewareKeepsStreaming(t *testing.T) {
	var calls int
	count := agentkit.CallMiddlewareFunc(func(next agentkit.CallFunc) agentkit.CallFunc {
		return func(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
			calls++
			return next(ctx, req)
		}
	})
	m := agentkittest.New(t, agentkittest.Text("a streamed answer of several fragments"), agentkittest.Text("plain"))
	a := agentkit.New(m, &agentkit.Options{ModelMiddleware: []agentkit.ModelMiddleware{count}})
	s := a.RunStream(context.Background(), "q")
	deltas := 0
	for e := range s.Events() {
		if e.Kind == agentkit.EventTextDelta {
			deltas++
		}
	}
	if res, err := s.Result(); err != nil || res.Output != "a streamed answer of several fragments" {
		t.Fatalf("output %q, err %v", res.Output, err)
	}
	if deltas < 2 || calls != 0 {
		t.Errorf("streamed run: %d deltas (want several), %d plain calls through the middleware (want 0)", deltas, calls)
	}
	if _, err := a.Run(context.Background(), "q"); err != nil || calls != 1 {
		t.Errorf("plain run: err %v, %d calls through the middleware, want 1", err, calls)
	}
}

// A streamed message whose calls reuse ids at other indexes runs all its calls, each under an
// id of its own, as the same message does unstreamed.
func TestStreamCallsSharingIDs(t *testing.T) {
	var ran atomic.Int32
	f := tool.New("f", "counts", func(ctx context.Context, in struct {
		N int `json:"n"`
	}) (string, error) {
		ran.Add(1)
		return "ok", nil
	})
	m := &streamModel{streams: [][]openai.ChatCompletionStreamResponse{
		{callChunk(0, "call_0", "f", `{"n":1}`), callChunk(1, "call_1", "f", `{"n":2}`),
			callChunk(2, "call_0", "f", `{"n":3}`), callChunk(3, "call_1", "f", `{"n":4}`), finishChunk("tool_calls")},
		textChunks("done"),
	}}
	a := agentkit.New(m, &agentkit.Options{Tools: []*tool.Tool{f}})
	res, err := a.RunStream(context.Background(), "go").Result()
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, c := range res.Steps[0].Calls {
		ids[c.Call.ID] = true
	}
	if n := ran.Load(); n != 4 || len(ids) != 4 {
		t.Errorf("%d calls ran under %d distinct ids, want 4 and 4", n, len(ids))
	}
}

// In a streamed reply cut short (finish_reason length), a call whose arguments were complete
// when a later call began may have started early, and keeps its result; the calls done only
// when the reply ends do not run.
func TestStreamCutOffReply(t *testing.T) {
	var mu sync.Mutex
	var ran []int
	f := tool.New("f", "records", func(ctx context.Context, in struct {
		N int `json:"n"`
	}) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		ran = append(ran, in.N)
		return "ok", nil
	})
	m := &streamModel{gap: time.Millisecond, streams: [][]openai.ChatCompletionStreamResponse{
		{callChunk(0, "a", "f", `{"n":1}`), callChunk(1, "b", "f", `{"n":2`), finishChunk(openai.FinishReasonLength)},
		textChunks("done"),
	}}
	res, err := agentkit.New(m, &agentkit.Options{Tools: []*tool.Tool{f}}).RunStream(context.Background(), "go").Result()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ran, []int{1}) {
		t.Errorf("ran %v, want [1]", ran)
	}
	if k := res.Steps[0].Calls[1].Result.Kind; k != tool.KindNotExecuted {
		t.Errorf("the cut call's kind %q, want not_executed", k)
	}
}

// A reader that lags behind when the run is canceled still gets every event, EventRunEnd
// last, as TestStreamCanceledDeliversRunEnd states the contract ("Events yields the run's
// events in order"; "EventRunEnd is the last event of a run"). The sink drops events once
// the run's context is done and the 64-event buffer is full, so a turn of many calls
// canceled while the reader is busy (a server forwarding events to a slow client, which
// cancels the run on its own deadline) loses tool ends, the step end and the run end.
func TestStreamCanceledLaggingReaderGetsRunEnd(t *testing.T) {
	const calls = 40
	var started atomic.Int32
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	block := tool.New("block", "waits for its context", func(ctx context.Context, in struct {
		N int `json:"n"`
	}) (string, error) {
		if started.Add(1) == calls {
			cancel() // the caller cancels while its reader is behind
		}
		<-ctx.Done()
		return "", ctx.Err()
	})
	var cs []openai.ToolCall
	for i := range calls {
		cs = append(cs, agentkittest.CallID(fmt.Sprintf("c%d", i), "block", fmt.Sprintf(`{"n":%d}`, i)))
	}
	// A model that does not stream: the run's events before the calls start are few.
	model := agentkit.ModelFunc(func(context.Context, openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		return openai.ChatCompletionResponse{Choices: []openai.ChatCompletionChoice{{
			Message:      openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, ToolCalls: cs},
			FinishReason: openai.FinishReasonToolCalls}}}, nil
	})
	done := make(chan struct{})
	ended := func(next agentkit.RunFunc) agentkit.RunFunc {
		return func(ctx context.Context) (*agentkit.Result, error) {
			defer close(done)
			return next(ctx)
		}
	}
	a := agentkit.New(model, &agentkit.Options{
		Tools: []*tool.Tool{block}, MaxConcurrency: calls, MaxToolCalls: calls,
		RunMiddleware: []agentkit.RunMiddleware{ended}})
	s := a.RunStream(ctx, "go")
	var kinds []agentkit.EventKind
	for e := range s.Events() {
		if len(kinds) == 0 {
			<-done // the reader is busy until the run has ended
		}
		kinds = append(kinds, e.Kind)
	}
	res, _ := s.Result()
	if res.Stop != agentkit.StopCanceled {
		t.Fatalf("stop %q, want %q", res.Stop, agentkit.StopCanceled)
	}
	ends := 0
	for _, k := range kinds {
		if k == agentkit.EventToolEnd {
			ends++
		}
	}
	if got, want := fmt.Sprintf("%d tool ends, last event %q", ends, kinds[len(kinds)-1]), fmt.Sprintf("%d tool ends, last event %q", calls, agentkit.EventRunEnd); got != want {
		t.Errorf("the reader got %s; want %s (%d events in all)", got, want, len(kinds))
	}
}

// A panic in OnEvent during a streamed run is raised to the reader, from Result, never on the
// run's own goroutine, where nothing could recover it.
func TestStreamOnEventPanicIsRaisedFromResult(t *testing.T) {
	m := agentkittest.New(nil, agentkittest.Text("a streamed answer"))
	onEvent := func(_ context.Context, e agentkit.Event) {
		if e.Kind == agentkit.EventTextDelta {
			panic("observer bug")
		}
	}
	s := agentkit.New(m, &agentkit.Options{OnEvent: onEvent}).RunStream(context.Background(), "q")
	defer func() {
		if p := recover(); p != "observer bug" {
			t.Errorf("recovered %v, want the OnEvent's panic", p)
		}
	}()
	s.Result()
	t.Error("Result returned")
}

// A panic raised on the run's goroutine while a call started early is still running (here an
// OnEvent panicking on the second call's EventToolCallReady, while the first call, started
// early, runs) reaches the reader only once that call has ended. Run's contract: it "returns
// once every goroutine it started has ended"; TestOnEventPanicIsRaisedFromRun holds it for a
// panic on a call's goroutine. On the run's goroutine, step does not abandon the turn when
// callStream (or the emits after it) panics, so the reader recovers the panic while the tool
// still runs — in a RunSessionStream, after the session's lock was released.
func TestStreamPanicWaitsForEarlyCalls(t *testing.T) {
	var ended atomic.Bool
	started := make(chan struct{})
	slow := tool.New("slow", "ends a while after its context", func(ctx context.Context, in struct {
		N int `json:"n"`
	}) (string, error) {
		if in.N == 1 {
			close(started)
		}
		<-ctx.Done()
		time.Sleep(100 * time.Millisecond)
		ended.Store(true)
		return "", ctx.Err()
	})
	m := &streamModel{streams: [][]openai.ChatCompletionStreamResponse{{
		callChunk(0, "c1", "slow", `{"n":1}`),
		callChunk(1, "c2", "slow", `{"n":2}`),
		finishChunk("tool_calls"),
	}}}
	ready := 0
	onEvent := func(_ context.Context, e agentkit.Event) {
		if e.Kind == agentkit.EventToolCallReady {
			if ready++; ready == 2 {
				<-started // the first call runs
				panic("observer bug")
			}
		}
	}
	a := agentkit.New(m, &agentkit.Options{Tools: []*tool.Tool{slow}, OnEvent: onEvent})
	s := a.RunStream(context.Background(), "go")
	func() {
		defer func() {
			if p := recover(); p != "observer bug" {
				t.Errorf("recovered %v, want the OnEvent's panic", p)
			}
		}()
		s.Result()
	}()
	if !ended.Load() {
		t.Error("the panic reached the reader while the call started early was still running")
	}
	for deadline := time.Now().Add(2 * time.Second); !ended.Load() && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond) // leave no goroutine to the tests that check for leaks
	}
}
