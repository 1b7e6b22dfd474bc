package memorytest

import (
	"context"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/memory"
)

// testSummaryStore checks a memory.SummaryStore: no summary for a new session, a saved one
// read back exactly (the fingerprint's 64 bits included), a second save replacing the first,
// sessions kept apart.
func testSummaryStore(t *testing.T, m agentkit.Memory) {
	s, ok := m.(memory.SummaryStore)
	if !ok {
		t.Skip("the store is not a memory.SummaryStore")
	}
	ctx := context.Background()
	got, err := s.LoadSummary(ctx, "s")
	if err != nil || got != (memory.Summary{}) {
		t.Fatalf("LoadSummary of a new session = %+v, %v; want the zero Summary", got, err)
	}
	first := memory.Summary{Text: "用户问了北京的天气；晴，26℃。", Folded: 12, Fingerprint: math.MaxUint64}
	second := memory.Summary{Text: "the user asked twice", Folded: 40, Fingerprint: 1 << 63}
	for _, want := range []memory.Summary{first, second} {
		if err := s.SaveSummary(ctx, "s", want); err != nil {
			t.Fatalf("SaveSummary: %v", err)
		}
		got, err := s.LoadSummary(ctx, "s")
		if err != nil {
			t.Fatalf("LoadSummary: %v", err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("the summary read back (-want +got):\n%s", diff)
		}
	}
	if got, err := s.LoadSummary(ctx, "other"); err != nil || got != (memory.Summary{}) {
		t.Errorf("LoadSummary of another session = %+v, %v; want the zero Summary", got, err)
	}
}

// testSearcher checks a memory.Searcher: a word of a message and a substring of Chinese text
// find it with its stored position, a tool result names its tool, Limit bounds the matches,
// an unknown session and a word found nowhere have none.
func testSearcher(t *testing.T, m agentkit.Memory) {
	s, ok := m.(memory.Searcher)
	if !ok {
		t.Skip("the store is not a memory.Searcher")
	}
	ctx := context.Background()
	msgs := []openai.ChatCompletionMessage{
		User("What is the weather in Paris tomorrow?"),
		{Role: openai.ChatMessageRoleAssistant, ToolCalls: []openai.ToolCall{{ID: "c1", Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: "get_weather", Arguments: `{"city":"Paris"}`}}}},
		{Role: openai.ChatMessageRoleTool, ToolCallID: "c1", Content: "sunny, 24 degrees"},
		Assistant("It will be sunny in Paris."),
		User("北京明天的天气怎么样？"),
		Assistant("北京明天多云，气温十八度。"),
	}
	appendOK(t, m, "s", msgs...)
	appendOK(t, m, "other", User("sunny elsewhere"))

	indexes := func(q memory.Query) []int {
		t.Helper()
		found, err := s.Search(ctx, "s", q)
		if err != nil {
			t.Fatalf("Search(%q): %v", q.Text, err)
		}
		var idx []int
		for _, f := range found {
			if f.Index < 0 || f.Index >= len(msgs) {
				t.Fatalf("Search(%q) returned index %d of a %d-message session", q.Text, f.Index, len(msgs))
			}
			if diff := cmp.Diff(msgs[f.Index], f.Message, equal); diff != "" {
				t.Errorf("Search(%q): the match at %d is not the stored message (-want +got):\n%s", q.Text, f.Index, diff)
			}
			if f.Index == 2 && f.Tool != "get_weather" {
				t.Errorf("Search(%q): the tool result's Tool = %q, want get_weather", q.Text, f.Tool)
			}
			idx = append(idx, f.Index)
		}
		return idx
	}
	contains := func(idx []int, want int) bool {
		for _, i := range idx {
			if i == want {
				return true
			}
		}
		return false
	}
	for _, tc := range []struct {
		text string
		want int
	}{{"sunny", 2}, {"sunny", 3}, {"Paris", 0}, {"多云", 5}, {"北京", 4}} {
		if got := indexes(memory.Query{Text: tc.text, Limit: 10}); !contains(got, tc.want) {
			t.Errorf("Search(%q) = messages %v, want message %d among them", tc.text, got, tc.want)
		}
	}
	if got := indexes(memory.Query{Text: "Paris", Limit: 1}); len(got) != 1 {
		t.Errorf("Search with Limit 1 returned %d matches", len(got))
	}
	if got := indexes(memory.Query{Text: "zebra", Limit: 10}); len(got) != 0 {
		t.Errorf("Search(zebra) = messages %v, want none", got)
	}
	if found, err := s.Search(ctx, "unknown", memory.Query{Text: "sunny"}); err != nil || len(found) != 0 {
		t.Errorf("Search of an unknown session = %d matches, %v; want none", len(found), err)
	}
}
