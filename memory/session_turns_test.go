package memory_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/memory"
	"github.com/toolcall/toolcall/tool"
)

// sessionRun is what one RunSession of sessionTurnsRuns sent and returned.
type sessionRun struct {
	requests [][]openai.ChatCompletionMessage
	messages int // len(Result.Messages) + Result.Omitted: the whole transcript's length
	omitted  int
	stop     agentkit.StopReason
}

// sessionTurnsRuns runs turns runs of one session on a new InMemory, with a Window of
// windowTurns and the given SessionTurns. Every turn's model calls a tool with the id call_0,
// as providers that number their calls per reply do, then answers.
func sessionTurnsRuns(t *testing.T, turns, windowTurns, sessionTurns int) ([]sessionRun, []openai.ChatCompletionMessage) {
	return sessionTurnsRunsOn(t, memory.NewInMemory(), turns, windowTurns, sessionTurns)
}

// sessionTurnsRunsOn is sessionTurnsRuns on store.
func sessionTurnsRunsOn(t *testing.T, store agentkit.Memory, turns, windowTurns, sessionTurns int) ([]sessionRun, []openai.ChatCompletionMessage) {
	t.Helper()
	weather := tool.New("get_weather", "Current weather of a city.", func(ctx context.Context, in struct {
		City string `json:"city"`
	}) (string, error) {
		return in.City + "：晴，26℃", nil
	})
	var runs []sessionRun
	for k := range turns {
		city := fmt.Sprintf("城市%d", k)
		model := agentkittest.New(t,
			agentkittest.ToolCalls(agentkittest.CallID("call_0", "get_weather", `{"city":"`+city+`"}`)),
			agentkittest.Text(city+"晴。"))
		agent := agentkit.New(model, &agentkit.Options{
			Instructions: "You are a weather assistant.",
			Tools:        []*tool.Tool{weather},
			Memory:       store,
			Context:      memory.Window(memory.WindowOptions{MaxTurns: windowTurns}),
			SessionTurns: sessionTurns,
		})
		res, err := agent.RunSession(context.Background(), "s", city+"呢？")
		if err != nil {
			t.Fatalf("turn %d: %v", k, err)
		}
		run := sessionRun{messages: len(res.Messages) + res.Omitted, omitted: res.Omitted, stop: res.Stop}
		for _, req := range model.Requests() {
			run.requests = append(run.requests, req.Messages)
		}
		runs = append(runs, run)
	}
	stored, err := store.Load(context.Background(), "s", agentkit.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return runs, stored.Messages
}

// With SessionTurns at least the window's MaxTurns, RunSession loads only the session's
// beginning and end, and sends and stores exactly what it does when it loads everything —
// tool call ids included: a provider's call_0, reused every turn, is renamed also when the
// turn that used it first was not loaded.
func TestSessionTurnsSendsWhatTheWholeSessionWould(t *testing.T) {
	const turns = 9
	tests := []struct{ window, session int }{
		{1, 1}, {2, 2}, {3, 3}, {3, 5}, {4, 100}, {7, 7}, {8, 8},
	}
	stores := []struct {
		name string
		new  func(t *testing.T) agentkit.Memory
	}{
		{"InMemory", func(*testing.T) agentkit.Memory { return memory.NewInMemory() }},
		{"SQLite", func(t *testing.T) agentkit.Memory { return openSQLite(t, filepath.Join(t.TempDir(), "memory.db")) }},
	}
	for _, st := range stores {
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s/window%d-session%d", st.name, tt.window, tt.session), func(t *testing.T) {
				testSessionTurnsLikeWhole(t, st.new, turns, tt.window, tt.session)
			})
		}
	}
}

// testSessionTurnsLikeWhole runs a session twice on new stores, loading it whole, then with
// SessionTurns, and compares what was sent and stored.
func testSessionTurnsLikeWhole(t *testing.T, newStore func(t *testing.T) agentkit.Memory, turns, window, session int) {
	want, wantStored := sessionTurnsRunsOn(t, newStore(t), turns, window, 0)
	got, gotStored := sessionTurnsRunsOn(t, newStore(t), turns, window, session)
	if err := agentkit.ValidateHistory(gotStored); err != nil {
		t.Fatalf("the stored session is not valid: %v", err)
	}
	if diff := cmp.Diff(wantStored, gotStored, cmpopts.EquateEmpty()); diff != "" {
		t.Fatalf("stored sessions differ (-whole loads +partial loads):\n%s", diff)
	}
	omitted := 0
	for k := range want {
		if diff := cmp.Diff(want[k].requests, got[k].requests, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("turn %d: requests differ (-whole loads +partial loads):\n%s", k, diff)
		}
		if want[k].omitted != 0 {
			t.Errorf("turn %d without SessionTurns: Result.Omitted = %d, want 0", k, want[k].omitted)
		}
		if got[k].messages != want[k].messages {
			t.Errorf("turn %d: len(Messages)+Omitted = %d, want the whole transcript's %d", k, got[k].messages, want[k].messages)
		}
		omitted = max(omitted, got[k].omitted)
	}
	// The last run finds turns-1 stored turns, turns-2 after the first; it loads
	// SessionTurns-1 of them (at least one).
	if wantOmitted := turns-2 > max(session-1, 1); (omitted > 0) != wantOmitted {
		t.Errorf("largest Result.Omitted = %d; want omissions: %v", omitted, wantOmitted)
	}
}

// A Memory that leaves messages out without CallIDUsed, or without being asked, or says it
// left out a negative number, breaks the contract: RunSession refuses the load with
// StopMemoryError and sends nothing.
func TestSessionTurnsRefusesABrokenHistory(t *testing.T) {
	task := []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: "task"}}
	used := func(context.Context, string) bool { return false }
	tests := []struct {
		name         string
		h            agentkit.History
		sessionTurns int
	}{
		{"no CallIDUsed", agentkit.History{Messages: task, Omitted: 3}, 2},
		{"negative Omitted", agentkit.History{Omitted: -1, CallIDUsed: used}, 2},
		{"left out unasked", agentkit.History{Messages: task, Omitted: 3, CallIDUsed: used}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := agentkittest.New(t)
			agent := agentkit.New(model, &agentkit.Options{Memory: fixedMemory{tt.h}, SessionTurns: tt.sessionTurns})
			res, err := agent.RunSession(context.Background(), "s", "hi")
			if err == nil || res.Stop != agentkit.StopMemoryError {
				t.Fatalf("RunSession = %v, %v; want StopMemoryError and an error", res.Stop, err)
			}
			if n := len(model.Requests()); n != 0 {
				t.Errorf("%d requests sent, want 0", n)
			}
		})
	}
}

// fixedMemory loads one History and stores nothing.
type fixedMemory struct{ h agentkit.History }

func (m fixedMemory) Load(context.Context, string, agentkit.LoadOptions) (agentkit.History, error) {
	return m.h, nil
}

func (m fixedMemory) Append(context.Context, string, []openai.ChatCompletionMessage) error {
	return nil
}

// A provider that names its call call_0 every turn gets every later call renamed once,
// with a name of fixed length: "call_<position>_<index>", never a chain of suffixes that
// grows with the session.
func TestSessionTurnsRenamesReusedIDsOnce(t *testing.T) {
	const turns = 30
	_, stored := sessionTurnsRuns(t, turns, 3, 3)
	if err := agentkit.ValidateHistory(stored); err != nil {
		t.Fatalf("the stored session is not valid: %v", err)
	}
	var got []string
	for i, m := range stored {
		for _, c := range m.ToolCalls {
			got = append(got, c.ID)
			// The stored session has no system prompt: the transcript's position is i+1.
			if want := fmt.Sprintf("call_%d_0", i+1); c.ID != "call_0" && c.ID != want {
				t.Errorf("message %d: call id %q, want call_0 or %q", i, c.ID, want)
			}
		}
	}
	if len(got) != turns || got[0] != "call_0" {
		t.Errorf("call ids %q, want %d of them, the first call_0", got, turns)
	}
}

// A Memory whose CallIDUsed says every id is used (broken) does not hang the run: after a
// few tries the loop settles for an id unique in what it loaded.
func TestSessionTurnsSurvivesCallIDUsedAlwaysTrue(t *testing.T) {
	weather := tool.New("get_weather", "Current weather of a city.", func(ctx context.Context, in struct {
		City string `json:"city"`
	}) (string, error) {
		return in.City + "：晴", nil
	})
	h := agentkit.History{
		Messages: []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleUser, Content: "task"},
			{Role: openai.ChatMessageRoleUser, Content: "latest"},
			{Role: openai.ChatMessageRoleAssistant, Content: "ok"},
		},
		Omitted:    10,
		CallIDUsed: func(context.Context, string) bool { return true },
	}
	model := agentkittest.New(t,
		agentkittest.ToolCalls(agentkittest.CallID("call_0", "get_weather", `{"city":"北京"}`), agentkittest.CallID("call_1", "get_weather", `{"city":"上海"}`)),
		agentkittest.Text("晴。"))
	agent := agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{weather}, Memory: fixedMemory{h}, SessionTurns: 2})
	res, err := agent.RunSession(context.Background(), "s", "天气？")
	if err != nil || res.Stop != agentkit.StopAnswered {
		t.Fatalf("RunSession = %v, %v; want an answer", res.Stop, err)
	}
	if err := agentkit.ValidateHistory(res.Messages); err != nil {
		t.Fatal(err)
	}
}

// Fold summarizes the whole history: given a session loaded in part, it refuses with
// ErrPartialTranscript before any request, rather than summarizing only what was loaded.
func TestFoldRefusesAPartialTranscript(t *testing.T) {
	store := memory.NewInMemory()
	var stored []openai.ChatCompletionMessage
	for k := range 6 {
		stored = append(stored,
			openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: fmt.Sprintf("question %d", k)},
			openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: fmt.Sprintf("answer %d", k)})
	}
	if err := store.Append(context.Background(), "s", stored); err != nil {
		t.Fatal(err)
	}
	summarizer := memory.SummarizerFunc(func(context.Context, string, []openai.ChatCompletionMessage) (string, error) {
		return "summary", nil
	})
	fold := memory.Fold(memory.FoldOptions{Trigger: 60, Keep: 1, Summarizer: summarizer, Counter: &memory.Counter{}})
	for _, sessionTurns := range []int{0, 2} {
		model := agentkittest.New(t, agentkittest.Text("ok"))
		agent := agentkit.New(model, &agentkit.Options{Memory: store, Context: fold, SessionTurns: sessionTurns})
		res, err := agent.RunSession(context.Background(), "s", "next")
		if sessionTurns == 0 {
			if err != nil {
				t.Fatalf("whole load: %v", err)
			}
			continue
		}
		if !errors.Is(err, memory.ErrPartialTranscript) || res.Stop != agentkit.StopContextError {
			t.Fatalf("SessionTurns %d: %v, %v; want StopContextError and ErrPartialTranscript", sessionTurns, res.Stop, err)
		}
		if n := len(model.Requests()); n != 0 {
			t.Errorf("%d requests sent, want 0", n)
		}
	}
}
