package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/memory"
	"github.com/toolcall/toolcall/memory/memorytest"
	"github.com/toolcall/toolcall/tool"
)

// recentTurnsSession is a session of 7 turns (the first calls a tool, every turn answers),
// preceded by a greeting.
func recentTurnsSession() []openai.ChatCompletionMessage {
	msgs := []openai.ChatCompletionMessage{memorytest.Assistant("welcome"), memorytest.User("task")}
	msgs = append(msgs, memorytest.Step("call_first", 1)...)
	msgs = append(msgs, memorytest.Assistant("done"))
	for _, q := range []string{"a", "b", "c", "d", "e", "f"} {
		msgs = append(msgs, memorytest.User(q))
		msgs = append(msgs, memorytest.Step("call_"+q, 2)...)
		msgs = append(msgs, memorytest.Assistant("answer "+q))
	}
	return msgs
}

// checkSameLoads compares the partial loads of a store with InMemory's, for every number
// of turns, and their CallIDUsed on every id of the session.
func checkSameLoads(t *testing.T, got agentkit.RecentLoader, session string, msgs []openai.ChatCompletionMessage) {
	t.Helper()
	ctx := context.Background()
	ref := memory.NewInMemory()
	if err := ref.Append(ctx, session, msgs); err != nil {
		t.Fatal(err)
	}
	ids := []string{"call_unknown"}
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			ids = append(ids, c.ID)
		}
	}
	for _, id := range ids {
		w, err := ref.CallIDUsed(ctx, session, id)
		if err != nil {
			t.Fatal(err)
		}
		if g, err := got.CallIDUsed(ctx, session, id); g != w || err != nil {
			t.Errorf("CallIDUsed(%q) = %v, %v; want %v, nil", id, g, err, w)
		}
	}
	omitted := 0
	for recent := 1; recent <= 8; recent++ {
		want, wantOmitted, err := ref.LoadRecent(ctx, session, recent)
		if err != nil {
			t.Fatal(err)
		}
		h, gotOmitted, err := got.LoadRecent(ctx, session, recent)
		if err != nil {
			t.Fatalf("LoadRecent %d: %v", recent, err)
		}
		if gotOmitted != wantOmitted {
			t.Errorf("LoadRecent %d: omitted = %d, want %d", recent, gotOmitted, wantOmitted)
		}
		if diff := cmp.Diff(want, h, equateEmpty); diff != "" {
			t.Errorf("LoadRecent %d: messages differ from InMemory's (-InMemory +got):\n%s", recent, diff)
		}
		omitted = max(omitted, gotOmitted)
	}
	if omitted == 0 {
		t.Error("no load left anything out")
	}
}

// A Store's partial loads are InMemory's.
func TestLoadsRecentTurns(t *testing.T) {
	s := openStore(t, filepath.Join(t.TempDir(), "memory.db"))
	msgs := recentTurnsSession()
	// Appended in steps, as runs do.
	for i := 0; i < len(msgs); {
		n := min(3, len(msgs)-i)
		if err := s.Append(context.Background(), "s", msgs[i:i+n]); err != nil {
			t.Fatal(err)
		}
		i += n
	}
	checkSameLoads(t, s, "s", msgs)
}

// Partial loads in RunSession: a Window with MaxTurns on a Store loads only the session's
// first user message and the turns the window sends, and the run is the one a whole load
// gives, as on InMemory. sessionRun and windowRuns are copies of package memory's test
// helpers (recent_test.go there), which test packages cannot share.

// sessionRun is what one RunSession of windowRuns sent and returned.
type sessionRun struct {
	requests [][]openai.ChatCompletionMessage
	messages int // len(Result.Messages) + Result.Omitted: the whole transcript's length
	omitted  int
	stop     agentkit.StopReason
}

// wholeLoads hides the optional interfaces of a store (RecentLoader, SessionLocker): a
// RunSession on it loads every session whole.
type wholeLoads struct{ agentkit.Memory }

// windowRuns runs turns runs of one session on store, with Window(window) as the strategy.
// Every turn's model calls a tool with the id call_0, as providers that number their calls
// per reply do, then answers.
func windowRuns(t *testing.T, store agentkit.Memory, turns int, window memory.WindowOptions) ([]sessionRun, []openai.ChatCompletionMessage) {
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
			Context:      memory.Window(window),
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
	stored, err := store.Load(context.Background(), "s")
	if err != nil {
		t.Fatal(err)
	}
	return runs, stored
}

// With a Window of MaxTurns, RunSession loads only the session's beginning and end, and
// sends and stores exactly what it does when it loads everything — tool call ids included:
// a provider's call_0, reused every turn, is renamed also when the turn that used it first
// was not loaded.
func TestRecentLoadSendsWhatTheWholeSessionWould(t *testing.T) {
	const turns = 9
	windows := []memory.WindowOptions{
		{MaxTurns: 1}, {MaxTurns: 2}, {MaxTurns: 3}, {MaxTurns: 4}, {MaxTurns: 7}, {MaxTurns: 8},
		{MaxTurns: 4, Budget: 150}, // the budget cuts inside what the turns load
	}
	stores := []struct {
		name string
		new  func(t *testing.T) agentkit.Memory
	}{
		{"InMemory", func(*testing.T) agentkit.Memory { return memory.NewInMemory() }},
		{"SQLite", func(t *testing.T) agentkit.Memory { return openStore(t, filepath.Join(t.TempDir(), "memory.db")) }},
	}
	for _, st := range stores {
		for _, w := range windows {
			t.Run(fmt.Sprintf("%s/turns%d-budget%d", st.name, w.MaxTurns, w.Budget), func(t *testing.T) {
				testRecentLikeWhole(t, st.new, turns, w)
			})
		}
	}
}

// testRecentLikeWhole runs a session twice on new stores, loading it whole (the store
// wrapped in wholeLoads), then in part, and compares what was sent and stored.
func testRecentLikeWhole(t *testing.T, newStore func(t *testing.T) agentkit.Memory, turns int, window memory.WindowOptions) {
	want, wantStored := windowRuns(t, wholeLoads{newStore(t)}, turns, window)
	got, gotStored := windowRuns(t, newStore(t), turns, window)
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
			t.Errorf("turn %d, loaded whole: Result.Omitted = %d, want 0", k, want[k].omitted)
		}
		if got[k].messages != want[k].messages {
			t.Errorf("turn %d: len(Messages)+Omitted = %d, want the whole transcript's %d", k, got[k].messages, want[k].messages)
		}
		if got[k].stop != want[k].stop {
			t.Errorf("turn %d: stop %q, want %q", k, got[k].stop, want[k].stop)
		}
		omitted = max(omitted, got[k].omitted)
	}
	// The last run finds turns-1 stored turns, turns-2 after the first; it loads
	// TurnLimit-1 = MaxTurns of them.
	if wantOmitted := turns-2 > window.MaxTurns; (omitted > 0) != wantOmitted {
		t.Errorf("largest Result.Omitted = %d; want omissions: %v", omitted, wantOmitted)
	}
}
