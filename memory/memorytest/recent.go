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

// testRecentTurns checks Load with LoadOptions.RecentTurns: a store may ignore it and load
// everything; when it leaves messages out, what it loads must be the session's beginning
// (through the first user message) and its latest turns, at least RecentTurns of them, and
// CallIDUsed must know the ids of what it left out.
func testRecentTurns(t *testing.T, m agentkit.Memory) {
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
			got, err := m.Load(ctx, s.id, agentkit.LoadOptions{RecentTurns: recent})
			if err != nil {
				t.Fatalf("session %s, Load with RecentTurns %d: %v", s.id, recent, err)
			}
			what := "session " + s.id + ", Load with RecentTurns " + strconv.Itoa(recent)
			checkRecent(t, what, full, first, recent, got)
			if recent >= turns+1 && got.Omitted != 0 {
				t.Errorf("%s: left out %d messages of a session of %d turns", what, got.Omitted, turns+1)
			}
		}
	}

	// What is loaded is the caller's, and CallIDUsed stays usable while the session grows.
	full := recentSession(nil, turns)
	got, err := m.Load(ctx, "plain", agentkit.LoadOptions{RecentTurns: 1})
	if err != nil {
		t.Fatal(err)
	}
	for i := range got.Messages {
		got.Messages[i].Content = "changed"
		for j := range got.Messages[i].ToolCalls {
			got.Messages[i].ToolCalls[j].ID = "changed"
		}
	}
	if diff := cmp.Diff(full, load(t, m, "plain"), equal); diff != "" {
		t.Fatalf("changing a partly loaded history changed the store (-want +got):\n%s", diff)
	}
	if got.Omitted == 0 {
		return // the store loads everything: nothing more to check
	}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 5 {
				step := Step("call_later"+strconv.Itoa(w)+"_"+strconv.Itoa(i), 1)
				if err := m.Append(ctx, "plain", append([]openai.ChatCompletionMessage{User("more")}, step...)); err != nil {
					t.Errorf("Append while CallIDUsed is used: %v", err)
				}
				if !got.CallIDUsed(context.Background(), "call_first_0") {
					t.Error("CallIDUsed(call_first_0) = false while the session grows")
				}
			}
		})
	}
	wg.Wait()
	if got.CallIDUsed(context.Background(), "call_unknown") {
		t.Error("CallIDUsed(call_unknown) = true after the session grew, want false")
	}
}

// checkRecent checks one partial load of full, whose first user message is at first.
func checkRecent(t *testing.T, what string, full []openai.ChatCompletionMessage, first, recent int, got agentkit.History) {
	t.Helper()
	if got.Omitted < 0 || got.Omitted > len(full)-first-1 {
		t.Fatalf("%s: Omitted = %d, out of range for a session of %d messages", what, got.Omitted, len(full))
	}
	want := append(append([]openai.ChatCompletionMessage(nil), full[:first+1]...), full[first+1+got.Omitted:]...)
	if diff := cmp.Diff(want, got.Messages, equal); diff != "" {
		t.Fatalf("%s: with Omitted %d, Messages are not the session's beginning and end (-want +got):\n%s", what, got.Omitted, diff)
	}
	if got.Omitted == 0 {
		return
	}
	rest := full[first+1+got.Omitted:]
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
	if got.CallIDUsed == nil {
		t.Fatalf("%s: left out %d messages and gave no CallIDUsed", what, got.Omitted)
	}
	for _, msg := range full[first+1 : first+1+got.Omitted] {
		for _, c := range msg.ToolCalls {
			if !got.CallIDUsed(context.Background(), c.ID) {
				t.Errorf("%s: CallIDUsed(%q) = false for a call left out", what, c.ID)
			}
		}
	}
	if got.CallIDUsed(context.Background(), "call_unknown") {
		t.Errorf("%s: CallIDUsed(call_unknown) = true, want false", what)
	}
	if err := agentkit.ValidateHistory(got.Messages); err != nil {
		t.Errorf("%s: the loaded part of a valid session is not valid: %v", what, err)
	}
}
