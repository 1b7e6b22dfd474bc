package memory_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/memory"
	"github.com/toolcall/toolcall/tool"
)

// Partial loads: a RunSession whose strategy is a TurnLimiter (a Window with MaxTurns) on a
// RecentLoader store (InMemory; memory/sqlite's Store, tested there) loads only the session's
// first user message and the turns the window sends.

// sessionRun is what one RunSession of windowRuns sent and returned.
type sessionRun struct {
	requests [][]openai.ChatCompletionMessage
	messages int // len(Result.Messages) + Result.Omitted: the whole transcript's length
	omitted  int
	stop     agentkit.StopReason
}

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

// Only a TurnLimiter strategy loads in part. Fold summarizes the whole history, a Budget
// alone cannot say how many turns it keeps, and a Chain is no TurnLimiter whatever it
// chains: RunSession loads the whole session for them, and Fold's summarizer reads turns a
// partial load would have left out.
func TestOnlyTurnLimitersLoadInPart(t *testing.T) {
	ctx := context.Background()
	var stored []openai.ChatCompletionMessage
	for k := range 6 {
		stored = append(stored,
			openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: fmt.Sprintf("question %d", k)},
			openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: fmt.Sprintf("answer %d", k)})
	}
	summarizer := &recorder{}
	fold := memory.Fold(memory.FoldOptions{Trigger: 60, Keep: 1, Summarizer: summarizer, Counter: &memory.Counter{}})
	tests := []struct {
		name        string
		strategy    agentkit.ContextStrategy
		wantOmitted bool
	}{
		{"none", nil, false},
		{"Window MaxTurns", memory.Window(memory.WindowOptions{MaxTurns: 2}), true},
		{"Window MaxTurns and Budget", memory.Window(memory.WindowOptions{MaxTurns: 2, Budget: 10_000}), true},
		{"Window Budget", memory.Window(memory.WindowOptions{Budget: 10_000}), false},
		{"ClearToolResults", memory.ClearToolResults(1), false},
		{"Fold", fold, false},
		{"Chain of a Window MaxTurns", memory.Chain(memory.Window(memory.WindowOptions{MaxTurns: 2})), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := memory.NewInMemory()
			if err := store.Append(ctx, "s", stored); err != nil {
				t.Fatal(err)
			}
			model := agentkittest.New(t, agentkittest.Text("ok"))
			agent := agentkit.New(model, &agentkit.Options{Memory: store, Context: tt.strategy})
			res, err := agent.RunSession(ctx, "s", "next")
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Omitted > 0; got != tt.wantOmitted {
				t.Errorf("Result.Omitted = %d, want messages left out: %v", res.Omitted, tt.wantOmitted)
			}
			if got, want := len(res.Messages)+res.Omitted, len(stored)+2; got != want { // + the input and the answer
				t.Errorf("len(Messages)+Omitted = %d, want %d", got, want)
			}
		})
	}
	if summarizer.count() == 0 {
		t.Fatal("Fold never summarized: the test needs a fold")
	}
	if turns := summarizer.calls[0].turns; !slices.ContainsFunc(turns, func(m openai.ChatCompletionMessage) bool { return m.Content == "question 1" }) {
		t.Errorf("Fold summarized %d messages without question 1, which only a whole load has:\n%s", len(turns), agentkit.FormatTranscript(turns))
	}
}

// fixedRecent is a RecentLoader that loads fixed messages, reports omitted of them left out
// and stores nothing; used answers CallIDUsed.
type fixedRecent struct {
	msgs    []openai.ChatCompletionMessage
	omitted int
	err     error // returned by LoadRecent, when set
	used    func() (bool, error)
}

func (m fixedRecent) Load(context.Context, string) ([]openai.ChatCompletionMessage, error) {
	return slices.Clone(m.msgs), nil
}

func (m fixedRecent) LoadRecent(context.Context, string, int) ([]openai.ChatCompletionMessage, int, error) {
	return slices.Clone(m.msgs), m.omitted, m.err
}

func (m fixedRecent) CallIDUsed(context.Context, string, string) (bool, error) {
	if m.used == nil {
		return false, nil
	}
	return m.used()
}

func (m fixedRecent) Append(context.Context, string, []openai.ChatCompletionMessage) error {
	return nil
}

// A RecentLoader that fails, or says it left out a negative number of messages, breaks the
// run: RunSession refuses the load with StopMemoryError and sends nothing.
func TestRecentLoadRefusesABrokenLoad(t *testing.T) {
	errDown := errors.New("store down")
	tests := []struct {
		name  string
		store fixedRecent
	}{
		{"negative omitted", fixedRecent{omitted: -1}},
		{"error", fixedRecent{err: errDown}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := agentkittest.New(t)
			agent := agentkit.New(model, &agentkit.Options{Memory: tt.store, Context: memory.Window(memory.WindowOptions{MaxTurns: 3})})
			res, err := agent.RunSession(context.Background(), "s", "hi")
			if err == nil || res.Stop != agentkit.StopMemoryError {
				t.Fatalf("RunSession = %v, %v; want StopMemoryError and an error", res.Stop, err)
			}
			if tt.store.err != nil && !errors.Is(err, tt.store.err) {
				t.Errorf("err = %v, want it to wrap %v", err, tt.store.err)
			}
			if n := len(model.Requests()); n != 0 {
				t.Errorf("%d requests sent, want 0", n)
			}
		})
	}
}

// A provider that names its call call_0 every turn gets every later call renamed once,
// with a name of fixed length: "call_<position>_<index>", never a chain of suffixes that
// grows with the session.
func TestRecentLoadRenamesReusedIDsOnce(t *testing.T) {
	const turns = 30
	_, stored := windowRuns(t, memory.NewInMemory(), turns, memory.WindowOptions{MaxTurns: 3})
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

// A RecentLoader whose CallIDUsed says every id is used, or always fails (broken, or unable
// to tell for a while), does not hang the run: after a few tries the loop settles for an id
// unique in what it loaded.
func TestRecentLoadSurvivesABrokenCallIDUsed(t *testing.T) {
	tests := []struct {
		name string
		used func() (bool, error)
	}{
		{"always used", func() (bool, error) { return true, nil }},
		{"always failing", func() (bool, error) { return false, errors.New("store down") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			weather := tool.New("get_weather", "Current weather of a city.", func(ctx context.Context, in struct {
				City string `json:"city"`
			}) (string, error) {
				return in.City + "：晴", nil
			})
			store := fixedRecent{
				msgs: []openai.ChatCompletionMessage{
					{Role: openai.ChatMessageRoleUser, Content: "task"},
					{Role: openai.ChatMessageRoleUser, Content: "latest"},
					{Role: openai.ChatMessageRoleAssistant, Content: "ok"},
				},
				omitted: 10,
				used:    tt.used,
			}
			model := agentkittest.New(t,
				agentkittest.ToolCalls(agentkittest.CallID("call_0", "get_weather", `{"city":"北京"}`), agentkittest.CallID("call_1", "get_weather", `{"city":"上海"}`)),
				agentkittest.Text("晴。"))
			agent := agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{weather}, Memory: store, Context: memory.Window(memory.WindowOptions{MaxTurns: 3})})
			res, err := agent.RunSession(context.Background(), "s", "天气？")
			if err != nil || res.Stop != agentkit.StopAnswered {
				t.Fatalf("RunSession = %v, %v; want an answer", res.Stop, err)
			}
			if res.Omitted != 10 {
				t.Errorf("Result.Omitted = %d, want 10: the test needs a partial load", res.Omitted)
			}
			if err := agentkit.ValidateHistory(res.Messages); err != nil {
				t.Fatal(err)
			}
			// Every id the store could not vouch for is renamed.
			for _, m := range res.Messages {
				for _, c := range m.ToolCalls {
					if !strings.HasPrefix(c.ID, "call_") || c.ID == "call_0" || c.ID == "call_1" {
						t.Errorf("call id %q kept: the store could not say it is free", c.ID)
					}
				}
			}
		})
	}
}
