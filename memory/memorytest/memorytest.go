package memorytest

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
)

// Run runs the conformance tests on the stores newMemory returns: one new, empty store per
// subtest (newMemory may use t.TempDir and t.Cleanup).
func Run(t *testing.T, newMemory func(t *testing.T) agentkit.Memory) {
	t.Helper()
	tests := []struct {
		name string
		run  func(t *testing.T, m agentkit.Memory)
	}{
		{"UnknownSessionIsEmpty", testUnknownSession},
		{"KeepsOrder", testOrder},
		{"KeepsStepsWhole", testSteps},
		{"RoundTripsEveryField", testFields},
		{"IsolatesSessions", testIsolation},
		{"SessionIDs", testSessionIDs},
		{"CopiesAppended", testCopiesAppended},
		{"CopiesLoaded", testCopiesLoaded},
		{"EmptyAppend", testEmptyAppend},
		{"LargeBatch", testLargeBatch},
		{"ConcurrentSessions", testConcurrentSessions},
		{"ConcurrentAppendsOneSession", testConcurrentOneSession},
		{"CanceledContext", testCanceled},
		{"Locker", testLocker},
		{"LoadedSliceIsTheCallers", testLoadedSlice},
		{"RecentTurns", testRecentTurns},
		{"Ledger", testLedger},
		{"PauseStore", testPauseStore},
		{"SummaryStore", testSummaryStore},
		{"Searcher", testSearcher},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.run(t, newMemory(t))
		})
	}
}

// equal compares histories as the wire does: a nil slice and an empty one are the same.
var equal = cmpopts.EquateEmpty()

// User returns a user message.
func User(s string) openai.ChatCompletionMessage {
	return openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: s}
}

// Assistant returns an assistant message without tool calls.
func Assistant(s string) openai.ChatCompletionMessage {
	return openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: s}
}

// Step returns one complete step: an assistant message calling n tools, with ids
// "<id>_0"…, then the n tool messages answering them, in order.
func Step(id string, n int) []openai.ChatCompletionMessage {
	a := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant}
	var results []openai.ChatCompletionMessage
	for i := range n {
		cid := id + "_" + strconv.Itoa(i)
		a.ToolCalls = append(a.ToolCalls, openai.ToolCall{
			ID: cid, Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: "get_weather", Arguments: `{"city":"北京","n":` + strconv.Itoa(i) + `}`},
		})
		results = append(results, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: cid, Content: "晴，26℃ #" + cid})
	}
	return append([]openai.ChatCompletionMessage{a}, results...)
}

func load(t *testing.T, m agentkit.Memory, session string) []openai.ChatCompletionMessage {
	t.Helper()
	got, err := m.Load(context.Background(), session)
	if err != nil {
		t.Fatalf("Load(%q): %v", session, err)
	}
	return got
}

func appendOK(t *testing.T, m agentkit.Memory, session string, msgs ...openai.ChatCompletionMessage) {
	t.Helper()
	if err := m.Append(context.Background(), session, msgs); err != nil {
		t.Fatalf("Append(%q, %d messages): %v", session, len(msgs), err)
	}
}

func testUnknownSession(t *testing.T, m agentkit.Memory) {
	got, err := m.Load(context.Background(), "never-used")
	if err != nil {
		t.Fatalf("Load of an unknown session: %v, want no error", err)
	}
	if len(got) != 0 {
		t.Fatalf("Load of an unknown session = %d messages, want none", len(got))
	}
}

func testOrder(t *testing.T, m agentkit.Memory) {
	var want []openai.ChatCompletionMessage
	batches := [][]openai.ChatCompletionMessage{
		{User("first")},
		{Assistant("one"), Assistant("two")},
		{User("second")},
		{Assistant("three")},
	}
	for _, b := range batches {
		appendOK(t, m, "s", b...)
		want = append(want, b...)
		if diff := cmp.Diff(want, load(t, m, "s"), equal); diff != "" {
			t.Fatalf("history after %d messages (-want +got):\n%s", len(want), diff)
		}
	}
}

func testSteps(t *testing.T, m agentkit.Memory) {
	var want []openai.ChatCompletionMessage
	add := func(msgs ...openai.ChatCompletionMessage) {
		t.Helper()
		appendOK(t, m, "s", msgs...)
		want = append(want, msgs...)
		got := load(t, m, "s")
		if err := agentkit.ValidateHistory(got); err != nil {
			t.Fatalf("after appending %d complete batches, the loaded history is invalid: %v", len(want), err)
		}
		if diff := cmp.Diff(want, got, equal); diff != "" {
			t.Fatalf("history (-want +got):\n%s", diff)
		}
	}
	add(User("北京天气怎么样？"))
	add(Step("call_a", 1)...)
	add(Step("call_b", 3)...)
	add(Assistant("北京晴。"))
	add(User("上海呢？"))
	add(Step("call_c", 2)...)
}

func testFields(t *testing.T, m agentkit.Memory) {
	idx := 0
	msgs := []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleUser, Name: "alice", MultiContent: []openai.ChatMessagePart{
			{Type: openai.ChatMessagePartTypeText, Text: "看这张图 🌧️"},
			{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: "https://example.com/a.png", Detail: openai.ImageURLDetailLow}},
		}},
		{Role: openai.ChatMessageRoleAssistant, Content: "让我查一下。", ReasoningContent: "用户问天气", ToolCalls: []openai.ToolCall{
			{Index: &idx, ID: "call_1", Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "get_weather", Arguments: `{"city":"北京","quote":"\"x\"\n"}`}},
		}},
		{Role: openai.ChatMessageRoleTool, ToolCallID: "call_1", Content: "line 1\nline 2\t\"quoted\" \\ \u0000 end"},
		{Role: openai.ChatMessageRoleAssistant, Refusal: "I can't help with that."},
		// Provider extras (reasoning_details, thought signatures) travel in FunctionCall.
		agentkit.SetExtras(openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, ToolCalls: []openai.ToolCall{
			{ID: "call_2", Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "get_weather", Arguments: `{}`}},
		}}, agentkit.ProviderExtras{
			Message:   map[string]json.RawMessage{"reasoning_details": json.RawMessage(`[{"type":"reasoning.encrypted","data":"c2ln+/=","index":0}]`)},
			ToolCalls: []map[string]json.RawMessage{{"extra_content": json.RawMessage(`{"google":{"thought_signature":"dHM="}}`)}},
		}),
		{Role: openai.ChatMessageRoleTool, ToolCallID: "call_2", Content: "晴"},
		{Role: openai.ChatMessageRoleDeveloper, Content: "developer note"},
	}
	appendOK(t, m, "s", msgs...)
	if diff := cmp.Diff(msgs, load(t, m, "s"), equal); diff != "" {
		t.Fatalf("round trip (-want +got):\n%s", diff)
	}
}

func testIsolation(t *testing.T, m agentkit.Memory) {
	appendOK(t, m, "a", User("a1"))
	appendOK(t, m, "b", User("b1"))
	appendOK(t, m, "a", Assistant("a2"))
	appendOK(t, m, "ab", User("ab1")) // a prefix of no other id, but one id prefixes it
	tests := []struct {
		session string
		want    []openai.ChatCompletionMessage
	}{
		{"a", []openai.ChatCompletionMessage{User("a1"), Assistant("a2")}},
		{"b", []openai.ChatCompletionMessage{User("b1")}},
		{"ab", []openai.ChatCompletionMessage{User("ab1")}},
		{"A", nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, load(t, m, tt.session), equal); diff != "" {
			t.Errorf("session %q (-want +got):\n%s", tt.session, diff)
		}
	}
}

func testSessionIDs(t *testing.T, m agentkit.Memory) {
	ids := []string{"user:42/chat#1", "会话-一", "it's \"quoted\"", "100%_like", "tab\there", "   ", "a?b=c&d"}
	for i, id := range ids {
		appendOK(t, m, id, User("message "+strconv.Itoa(i)))
	}
	for i, id := range ids {
		want := []openai.ChatCompletionMessage{User("message " + strconv.Itoa(i))}
		if diff := cmp.Diff(want, load(t, m, id), equal); diff != "" {
			t.Errorf("session %q (-want +got):\n%s", id, diff)
		}
	}
}

func testCopiesAppended(t *testing.T, m agentkit.Memory) {
	msgs := append([]openai.ChatCompletionMessage{User("q")}, Step("call_x", 2)...)
	want := append([]openai.ChatCompletionMessage{User("q")}, Step("call_x", 2)...)
	appendOK(t, m, "s", msgs...)
	msgs[0].Content = "changed"
	msgs[1].ToolCalls[0].Function.Arguments = `{"changed":true}`
	msgs[2].Content = "changed"
	if diff := cmp.Diff(want, load(t, m, "s"), equal); diff != "" {
		t.Fatalf("changing the appended slice changed the store (-want +got):\n%s", diff)
	}
}

func testCopiesLoaded(t *testing.T, m agentkit.Memory) {
	want := append([]openai.ChatCompletionMessage{User("q")}, Step("call_x", 2)...)
	appendOK(t, m, "s", want...)
	got := load(t, m, "s")
	got[0].Content = "changed"
	got[1].ToolCalls[0].Function.Arguments = `{"changed":true}`
	_ = append(got[:1], Assistant("appended into the loaded slice")) // the agent appends to what it loads
	if diff := cmp.Diff(want, load(t, m, "s"), equal); diff != "" {
		t.Fatalf("changing a loaded slice changed the store (-want +got):\n%s", diff)
	}
}

func testEmptyAppend(t *testing.T, m agentkit.Memory) {
	appendOK(t, m, "s", User("q"))
	appendOK(t, m, "s")
	if err := m.Append(context.Background(), "s", []openai.ChatCompletionMessage{}); err != nil {
		t.Fatalf("Append of an empty slice: %v", err)
	}
	if got := load(t, m, "s"); len(got) != 1 {
		t.Fatalf("after empty appends, %d messages, want 1", len(got))
	}
}

func testLargeBatch(t *testing.T, m agentkit.Memory) {
	msgs := []openai.ChatCompletionMessage{User("q")}
	for i := range 200 {
		msgs = append(msgs, Step("call_"+strconv.Itoa(i), 4)...)
	}
	appendOK(t, m, "s", msgs...)
	got := load(t, m, "s")
	if diff := cmp.Diff(msgs, got, equal); diff != "" {
		t.Fatalf("a batch of %d messages (-want +got):\n%s", len(msgs), diff)
	}
}

// testLoadedSlice checks that what Load returns is the caller's to change as RunSession
// does: it inserts the system prompt at the front of the slice, appends to it, and may change
// any message; appending to one message's tool calls must not overwrite the next message's.
func testLoadedSlice(t *testing.T, m agentkit.Memory) {
	hist := append([]openai.ChatCompletionMessage{User("q")}, Step("call_a", 2)...)
	hist = append(hist, Assistant("a"), User("q2"))
	hist = append(hist, Step("call_b", 1)...)
	appendOK(t, m, "s", hist...)
	want := load(t, m, "s")
	got := load(t, m, "s")
	got = slices.Insert(got, 0, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleSystem, Content: "system"})
	got = append(got, User("appended by the run"))
	if len(got[7].ToolCalls) == 0 || got[7].ToolCalls[0].ID != "call_b_0" {
		t.Fatalf("unexpected history shape: %+v", got[7])
	}
	_ = append(got[2].ToolCalls, openai.ToolCall{ID: "appended"})
	if got[7].ToolCalls[0].ID == "appended" {
		t.Fatal("appending to one loaded message's tool calls overwrote the next message's")
	}
	for i := range got {
		got[i].Content = "changed"
		for j := range got[i].ToolCalls {
			got[i].ToolCalls[j].Function.Arguments = `{"changed":true}`
		}
	}
	if diff := cmp.Diff(want, load(t, m, "s"), equal); diff != "" {
		t.Fatalf("changing a loaded slice as RunSession does changed the store (-want +got):\n%s", diff)
	}
}
