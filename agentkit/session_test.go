package agentkit_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/tool"
)

// sessionMemory is a minimal agentkit.Memory that records its calls.
type sessionMemory struct {
	mu       sync.Mutex
	sessions map[string][]openai.ChatCompletionMessage
	appends  int
	loads    []string // "Load" or "LoadRecent <turns>"
}

func (m *sessionMemory) Load(_ context.Context, s string) ([]openai.ChatCompletionMessage, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.loads = append(m.loads, "Load")
	return slices.Clone(m.sessions[s]), nil
}

func (m *sessionMemory) Append(_ context.Context, s string, msgs []openai.ChatCompletionMessage) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.appends++
	if m.sessions == nil {
		m.sessions = map[string][]openai.ChatCompletionMessage{}
	}
	m.sessions[s] = append(m.sessions[s], msgs...)
	return nil
}

// recentMemory is a sessionMemory that loads in part: it returns what it is given.
type recentMemory struct {
	sessionMemory
	recent  []openai.ChatCompletionMessage
	omitted int
	used    func(id string) (bool, error)
}

func (m *recentMemory) LoadRecent(_ context.Context, _ string, turns int) ([]openai.ChatCompletionMessage, int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.loads = append(m.loads, "LoadRecent "+strings.Repeat("I", turns))
	return slices.Clone(m.recent), m.omitted, nil
}

func (m *recentMemory) CallIDUsed(_ context.Context, _, id string) (bool, error) {
	if m.used == nil {
		return false, nil
	}
	return m.used(id)
}

// turnLimited is a ContextStrategy that sends everything and says it sends limit turns.
type turnLimited struct {
	limit int
	seen  []int // len(msgs) of each Apply
}

func (s *turnLimited) Apply(_ context.Context, _ string, msgs []openai.ChatCompletionMessage) ([]openai.ChatCompletionMessage, error) {
	s.seen = append(s.seen, len(msgs))
	return msgs, nil
}

func (s *turnLimited) TurnLimit() int { return s.limit }

var recentHistory = []openai.ChatCompletionMessage{
	{Role: openai.ChatMessageRoleUser, Content: "task"},
	{Role: openai.ChatMessageRoleUser, Content: "latest question"},
	{Role: openai.ChatMessageRoleAssistant, Content: "latest answer"},
}

// A RunSession loads only the latest turns when its strategy is a TurnLimiter and its
// Memory a RecentLoader (the run's own turn being one of the strategy's), and loads the whole
// session otherwise.
func TestSessionLoadsWhatTheStrategySends(t *testing.T) {
	cases := []struct {
		name        string
		limit       int // the strategy's TurnLimit; -1: the strategy is no TurnLimiter
		plain       bool
		wantLoads   []string
		wantOmitted int
	}{
		{"limited", 3, false, []string{"LoadRecent II"}, 6},
		{"limit of one turn still loads one", 1, false, []string{"LoadRecent I"}, 6},
		{"no limit", 0, false, []string{"Load"}, 0},
		{"not a TurnLimiter", -1, false, []string{"Load"}, 0},
		{"not a RecentLoader", 3, true, []string{"Load"}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rm := &recentMemory{recent: recentHistory, omitted: 6}
			rm.sessions = map[string][]openai.ChatCompletionMessage{"s": recentHistory}
			var mem agentkit.Memory = rm
			if c.plain {
				mem = &rm.sessionMemory
			}
			limited := &turnLimited{limit: c.limit}
			var strategy agentkit.ContextStrategy = limited
			if c.limit < 0 {
				strategy = agentkit.ContextStrategyFunc(limited.Apply)
			}
			a := agentkit.New(agentkittest.New(t, agentkittest.Text("ok")), &agentkit.Options{Memory: mem, Context: strategy})
			res, err := a.RunSession(context.Background(), "s", "new question")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.wantLoads, rm.loads); diff != "" {
				t.Errorf("loads (-want +got):\n%s", diff)
			}
			if res.Omitted != c.wantOmitted {
				t.Errorf("Result.Omitted = %d, want %d", res.Omitted, c.wantOmitted)
			}
			if want := []int{len(recentHistory) + 1}; !slices.Equal(limited.seen, want) {
				t.Errorf("the strategy saw %v messages, want %v", limited.seen, want)
			}
		})
	}
}

// A store whose LoadRecent says it left out a negative count breaks its contract: the run
// stops with StopMemoryError.
func TestSessionRecentLoaderBrokenContract(t *testing.T) {
	mem := &recentMemory{recent: recentHistory, omitted: -1}
	a := agentkit.New(agentkittest.New(t), &agentkit.Options{Memory: mem, Context: &turnLimited{limit: 2}})
	res, err := a.RunSession(context.Background(), "s", "go")
	if res.Stop != agentkit.StopMemoryError || err == nil {
		t.Errorf("stop %q, err %v; want %q and an error", res.Stop, err, agentkit.StopMemoryError)
	}
}

// The bound on the questions asked of RecentLoader.CallIDUsed is per call: after a store that
// answered "used" a few times in a row (its database unable to tell for a while), a later
// call of the run is checked against the left-out messages again and does not keep an id that
// one of them uses.
func TestSessionCallIDProbesArePerCall(t *testing.T) {
	outage := 9                                             // CallIDUsed cannot tell for its first 9 questions: the first call's probes
	mem := &recentMemory{recent: recentHistory, omitted: 6, // among them, a call with id "call_old"
		used: func(id string) (bool, error) {
			if outage > 0 {
				outage--
				return false, errors.New("database busy")
			}
			return id == "call_old", nil
		}}
	noop := tool.New("noop", "does nothing", func(context.Context, struct{}) (string, error) { return "ok", nil })
	model := agentkittest.New(t,
		agentkittest.ToolCalls(agentkittest.CallID("fresh", "noop", "{}")),
		agentkittest.ToolCalls(agentkittest.CallID("call_old", "noop", `{"again":1}`)),
		agentkittest.Text("done"))
	a := agentkit.New(model, &agentkit.Options{Memory: mem, Context: &turnLimited{limit: 2}, Tools: []*tool.Tool{noop}})
	res, err := a.RunSession(context.Background(), "s", "go")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range res.Messages[res.New:] {
		for _, c := range m.ToolCalls {
			if c.ID == "call_old" {
				t.Errorf("a call of the run kept id %q, which a message left out of the transcript uses", c.ID)
			}
		}
	}
}

// A stored history whose tool call arguments are not a JSON object is refused at the start
// of the run (StopInvalidHistory), without a request, and nothing of the run is stored: a
// retried RunSession must not pile up unanswered user messages.
func TestSessionBrokenHistoryStoresNothing(t *testing.T) {
	stored := []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleUser, Content: "old question"},
		{Role: openai.ChatMessageRoleAssistant, ToolCalls: []openai.ToolCall{{ID: "old", Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: "get_weather", Arguments: `{"city": cut off`}}}},
		{Role: openai.ChatMessageRoleTool, ToolCallID: "old", Content: "result"},
		{Role: openai.ChatMessageRoleAssistant, Content: "answer"},
	}
	keepAll := agentkit.ContextStrategyFunc(func(_ context.Context, _ string, msgs []openai.ChatCompletionMessage) ([]openai.ChatCompletionMessage, error) {
		return msgs, nil
	})
	mem := &sessionMemory{sessions: map[string][]openai.ChatCompletionMessage{"s": slices.Clone(stored)}}
	m := agentkittest.New(nil, agentkittest.Text("new answer"))
	a := agentkit.New(m, &agentkit.Options{Memory: mem, Context: keepAll})
	res, _ := a.RunSession(context.Background(), "s", "new question")
	if res.Stop != agentkit.StopInvalidHistory || len(m.Requests()) != 0 {
		t.Fatalf("stop %q after %d requests, want %q after 0", res.Stop, len(m.Requests()), agentkit.StopInvalidHistory)
	}
	if got := mem.sessions["s"]; mem.appends != 0 || len(got) != len(stored) {
		t.Errorf("a run refused for its history stored %d message(s) in %d Append call(s); want nothing stored", len(got)-len(stored), mem.appends)
	}
}

// lockedMemory is a sessionMemory whose sessions are always locked by another run: Lock
// waits until its context is done.
type lockedMemory struct{ sessionMemory }

func (*lockedMemory) Lock(ctx context.Context, _ string) (func(), error) {
	<-ctx.Done()
	return nil, errors.Join(agentkit.ErrSessionBusy, ctx.Err())
}

// A RunSession canceled while it waits for the session's lock stops with StopCanceled, not
// StopMemoryError: the store did not fail.
func TestSessionCanceledWaitingForTheLock(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	a := agentkit.New(agentkittest.New(t), &agentkit.Options{Memory: &lockedMemory{}})
	res, err := a.RunSession(ctx, "s", "hello")
	if res.Stop != agentkit.StopCanceled || !errors.Is(err, context.Canceled) || !errors.Is(err, agentkit.ErrSessionBusy) {
		t.Errorf("stop %q, err %v; want %q, wrapping context.Canceled and ErrSessionBusy", res.Stop, err, agentkit.StopCanceled)
	}
}

// RunSessionStream streams a session run: the text arrives as deltas, and what the run added
// is stored, as RunSession stores it.
func TestSessionStream(t *testing.T) {
	mem := &sessionMemory{}
	model := agentkittest.New(t,
		agentkittest.ToolCalls(agentkittest.CallID("c1", "get_weather", `{"city":"Paris"}`)),
		agentkittest.Text("It is sunny in Paris today."))
	a := agentkit.New(model, &agentkit.Options{Memory: mem, Tools: []*tool.Tool{weatherTool()}})
	s := a.RunSessionStream(context.Background(), "s", "weather in Paris?")
	var text strings.Builder
	for e := range s.Events() {
		if e.Kind == agentkit.EventTextDelta {
			text.WriteString(e.Text)
		}
	}
	res, err := s.Result()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := text.String(), "It is sunny in Paris today."; got != want {
		t.Errorf("streamed text %q, want %q", got, want)
	}
	if n := len(model.Requests()); n == 0 || model.Requests()[0].StreamOptions == nil {
		t.Errorf("the requests did not stream (stream_options unset)")
	}
	if got, want := len(mem.sessions["s"]), len(res.Messages); got != want {
		t.Errorf("the session holds %d messages, the transcript %d (no system prompt here): want them equal", got, want)
	}
}

type recMem struct {
	mu      sync.Mutex
	appends [][]openai.ChatCompletionMessage
}

func (m *recMem) Load(ctx context.Context, s string) ([]openai.ChatCompletionMessage, error) {
	return nil, nil
}
func (m *recMem) Append(ctx context.Context, s string, msgs []openai.ChatCompletionMessage) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.appends = append(m.appends, append([]openai.ChatCompletionMessage(nil), msgs...))
	return nil
}
func (m *recMem) n() int { m.mu.Lock(); defer m.mu.Unlock(); return len(m.appends) }

// The user message of a RunSession is appended before the first model call: a crash during
// that call does not lose it.
func TestSessionInputAppendedFirst(t *testing.T) {
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

// failingLoadMemory is a sessionMemory whose Load fails.
type failingLoadMemory struct{ sessionMemory }

func (*failingLoadMemory) Load(context.Context, string) ([]openai.ChatCompletionMessage, error) {
	return nil, errors.New("store down")
}

// A RunMiddleware "wraps whole runs (every Run, RunMessages and RunSession, streamed or not):
// … a per-run deadline, a metric" (RunMiddleware's doc). RunSession locks and loads the
// session before it applies RunMiddleware, so a per-run deadline does not bound the wait for
// a busy session's lock (the run waits for the other run, however long), and a run that
// fails to lock or load is never seen by a metric or span middleware.
func TestSessionRunMiddlewareWrapsLockAndLoad(t *testing.T) {
	tests := []struct {
		name     string
		mem      agentkit.Memory
		wantStop agentkit.StopReason
	}{
		{"waiting for the lock", &lockedMemory{}, agentkit.StopCanceled},
		{"failing to load", &failingLoadMemory{}, agentkit.StopMemoryError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var runs atomic.Int32
			deadline := func(next agentkit.RunFunc) agentkit.RunFunc {
				return func(ctx context.Context) (*agentkit.Result, error) {
					runs.Add(1)
					ctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
					defer cancel()
					return next(ctx)
				}
			}
			a := agentkit.New(agentkittest.New(nil, agentkittest.Text("hi")), &agentkit.Options{
				Memory: tt.mem, RunMiddleware: []agentkit.RunMiddleware{deadline}})
			ctx, cancel := context.WithTimeout(context.Background(), time.Second) // the test's own bound
			defer cancel()
			start := time.Now()
			res, _ := a.RunSession(ctx, "s", "hello")
			if got, want := runs.Load(), int32(1); got != want {
				t.Errorf("the run middleware saw %d runs, want %d", got, want)
			}
			if d := time.Since(start); d > 500*time.Millisecond {
				t.Errorf("RunSession took %s: the run middleware's 20ms deadline did not bound it", d.Round(time.Millisecond))
			}
			if res.Stop != tt.wantStop {
				t.Errorf("stop %q, want %q", res.Stop, tt.wantStop)
			}
		})
	}
}

// "EventRunEnd is the last event of a run" (OnEvent's doc), and a StreamRun's reader learns
// why a run stopped from it. A RunSession whose session fails to load (or lock) returns
// StopMemoryError without emitting any event: a chat UI reading RunSessionStream's Events
// sees the stream close with no end and no error.
func TestSessionEventsEndWithRunEnd(t *testing.T) {
	collect := func(a *agentkit.Agent, events *[]agentkit.Event) {
		for e := range a.RunSessionStream(context.Background(), "s", "hello").Events() {
			*events = append(*events, e)
		}
	}
	tests := []struct {
		name string
		run  func(mem agentkit.Memory) []agentkit.Event
	}{
		{"RunSession with OnEvent", func(mem agentkit.Memory) []agentkit.Event {
			var mu sync.Mutex
			var events []agentkit.Event
			a := agentkit.New(agentkittest.New(nil, agentkittest.Text("hi")), &agentkit.Options{Memory: mem,
				OnEvent: func(_ context.Context, e agentkit.Event) { mu.Lock(); events = append(events, e); mu.Unlock() }})
			a.RunSession(context.Background(), "s", "hello")
			return events
		}},
		{"RunSessionStream's Events", func(mem agentkit.Memory) []agentkit.Event {
			var events []agentkit.Event
			collect(agentkit.New(agentkittest.New(nil, agentkittest.Text("hi")), &agentkit.Options{Memory: mem}), &events)
			return events
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			events := tt.run(&failingLoadMemory{})
			if len(events) == 0 {
				t.Fatalf("no events; want the last one to be %q with stop %q", agentkit.EventRunEnd, agentkit.StopMemoryError)
			}
			last := events[len(events)-1]
			if got, want := string(last.Kind)+" "+string(last.Stop), string(agentkit.EventRunEnd)+" "+string(agentkit.StopMemoryError); got != want {
				t.Errorf("last event %q, want %q", got, want)
			}
		})
	}
}

// ctxMemory is a sessionMemory whose Load honors its context, as a database's does.
type ctxMemory struct{ sessionMemory }

func (m *ctxMemory) Load(ctx context.Context, s string) ([]openai.ChatCompletionMessage, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return m.sessionMemory.Load(ctx, s)
}

// A RunSession canceled before its session is loaded stops with StopCanceled: RunSession's
// doc reserves StopMemoryError for "Errors from the Memory", and issue 14 #9 fixed the same
// confusion for a run canceled while waiting for the lock. A Memory without SessionLocker
// whose Load sees the canceled context makes the run stop with StopMemoryError.
func TestSessionCanceledBeforeLoad(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	a := agentkit.New(agentkittest.New(nil, agentkittest.Text("hi")), &agentkit.Options{Memory: &ctxMemory{}})
	res, err := a.RunSession(ctx, "s", "hello")
	if res.Stop != agentkit.StopCanceled || !errors.Is(err, context.Canceled) {
		t.Errorf("stop %q, err %v; want %q wrapping context.Canceled", res.Stop, err, agentkit.StopCanceled)
	}
}
