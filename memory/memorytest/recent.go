package memorytest

import (
	"context"
	"strconv"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
)

// recentSession returns a session of turns+1 turns with tool calls, preceded by head (the
// messages before the first user message): the first turn calls one tool, every later one
// two, then answers.
func recentSession(head []openai.ChatCompletionMessage, turns int) []openai.ChatCompletionMessage {
	msgs := append(append([]openai.ChatCompletionMessage(nil), head...), User("task"))
	msgs = append(msgs, Step("call_first", 1)...)
	msgs = append(msgs, Assistant("done"))
	for k := 1; k <= turns; k++ {
		msgs = append(msgs, User("question "+strconv.Itoa(k)))
		msgs = append(msgs, Step("call_turn"+strconv.Itoa(k), 2)...)
		msgs = append(msgs, Assistant("answer "+strconv.Itoa(k)))
	}
	return msgs
}

// testRecentTurns checks agentkit.RecentLoader, when m implements it: what LoadRecent loads
// must be the session's beginning (through the first user message) and its latest turns, at
// least as many as asked for, Omitted must count what it left out, and CallIDUsed must know
// the ids of what it left out, also while the session grows, and never the empty id.
func testRecentTurns(t *testing.T, m agentkit.Memory) {
	rl, ok := m.(agentkit.RecentLoader)
	if !ok {
		t.Skip("the Memory is not an agentkit.RecentLoader")
	}
	ctx := context.Background()
	sessions := []struct {
		id   string
		head []openai.ChatCompletionMessage
	}{
		{"plain", nil},
		{"greeted", []openai.ChatCompletionMessage{Assistant("welcome"), Assistant("how can I help?")}},
	}
	const turns = 6
	for _, s := range sessions {
		full := recentSession(s.head, turns)
		appendOK(t, m, s.id, full...)
		first := len(s.head)
		for _, recent := range []int{1, 2, turns - 1, turns, turns + 1, 100} {
			got, omitted, err := rl.LoadRecent(ctx, s.id, recent)
			if err != nil {
				t.Fatalf("session %s, LoadRecent %d: %v", s.id, recent, err)
			}
			what := "session " + s.id + ", LoadRecent " + strconv.Itoa(recent)
			checkRecent(t, what, rl, s.id, full, first, recent, got, omitted)
			if recent >= turns+1 && omitted != 0 {
				t.Errorf("%s: left out %d messages of a session of %d turns", what, omitted, turns+1)
			}
		}
	}
	if msgs, omitted, err := rl.LoadRecent(ctx, "unknown", 2); err != nil || len(msgs) != 0 || omitted != 0 {
		t.Errorf("LoadRecent of an unknown session = %d messages, %d omitted, %v; want none, 0, nil", len(msgs), omitted, err)
	}

	// What is loaded is the caller's, and CallIDUsed stays right while the session grows.
	full := recentSession(nil, turns)
	got, omitted, err := rl.LoadRecent(ctx, "plain", 1)
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		got[i].Content = "changed"
		for j := range got[i].ToolCalls {
			got[i].ToolCalls[j].ID = "changed"
		}
	}
	if diff := cmp.Diff(full, load(t, m, "plain"), equal); diff != "" {
		t.Fatalf("changing a partly loaded history changed the store (-want +got):\n%s", diff)
	}
	if omitted == 0 {
		t.Fatalf("LoadRecent 1 of a session of %d turns left nothing out", turns+1)
	}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 5 {
				step := Step("call_later"+strconv.Itoa(w)+"_"+strconv.Itoa(i), 1)
				if err := m.Append(ctx, "plain", append([]openai.ChatCompletionMessage{User("more")}, step...)); err != nil {
					t.Errorf("Append while CallIDUsed is used: %v", err)
				}
				if used, err := rl.CallIDUsed(ctx, "plain", "call_first_0"); !used || err != nil {
					t.Errorf("CallIDUsed(call_first_0) = %v, %v while the session grows, want true, nil", used, err)
				}
			}
		})
	}
	wg.Wait()
	if used, err := rl.CallIDUsed(ctx, "plain", "call_unknown"); used || err != nil {
		t.Errorf("CallIDUsed(call_unknown) = %v, %v after the session grew, want false, nil", used, err)
	}

	// A call without an id (some providers send none) does not make the empty id used: no
	// call is ever sent under it.
	unnamed := []openai.ChatCompletionMessage{User("q"), {Role: openai.ChatMessageRoleAssistant, ToolCalls: []openai.ToolCall{
		{Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "get_weather", Arguments: `{"city":"北京"}`}},
	}}, {Role: openai.ChatMessageRoleTool, Content: "晴"}}
	appendOK(t, m, "unnamed", unnamed...)
	appendOK(t, m, "unnamed", append([]openai.ChatCompletionMessage{User("more")}, Step("call_named", 1)...)...)
	for _, tc := range []struct {
		id   string
		want bool
	}{{"", false}, {"call_named_0", true}} {
		if used, err := rl.CallIDUsed(ctx, "unnamed", tc.id); used != tc.want || err != nil {
			t.Errorf("CallIDUsed(%q) of a session with a call without an id = %v, %v, want %v, nil", tc.id, used, err, tc.want)
		}
	}
}

// checkRecent checks one partial load of full, whose first user message is at first.
func checkRecent(t *testing.T, what string, rl agentkit.RecentLoader, session string, full []openai.ChatCompletionMessage, first, recent int, got []openai.ChatCompletionMessage, omitted int) {
	t.Helper()
	if omitted < 0 || omitted > len(full)-first-1 {
		t.Fatalf("%s: omitted %d, out of range for a session of %d messages", what, omitted, len(full))
	}
	want := append(append([]openai.ChatCompletionMessage(nil), full[:first+1]...), full[first+1+omitted:]...)
	if diff := cmp.Diff(want, got, equal); diff != "" {
		t.Fatalf("%s: with %d omitted, the messages are not the session's beginning and end (-want +got):\n%s", what, omitted, diff)
	}
	if omitted == 0 {
		return
	}
	rest := full[first+1+omitted:]
	if rest[0].Role != openai.ChatMessageRoleUser {
		t.Fatalf("%s: the loaded end begins with a %s message, want a user message (a turn's start)", what, rest[0].Role)
	}
	users := 0
	for _, msg := range rest {
		if msg.Role == openai.ChatMessageRoleUser {
			users++
		}
	}
	if users < recent {
		t.Fatalf("%s: loaded the latest %d turns, want at least %d", what, users, recent)
	}
	ctx := context.Background()
	for _, msg := range full[first+1 : first+1+omitted] {
		for _, c := range msg.ToolCalls {
			if used, err := rl.CallIDUsed(ctx, session, c.ID); !used || err != nil {
				t.Errorf("%s: CallIDUsed(%q) = %v, %v for a call left out, want true, nil", what, c.ID, used, err)
			}
		}
	}
	if used, err := rl.CallIDUsed(ctx, session, "call_unknown"); used || err != nil {
		t.Errorf("%s: CallIDUsed(call_unknown) = %v, %v, want false, nil", what, used, err)
	}
	if err := agentkit.ValidateHistory(got); err != nil {
		t.Errorf("%s: the loaded part of a valid session is not valid: %v", what, err)
	}
}
