package memory_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/memory"
)

func TestClearToolResults(t *testing.T) {
	msgs := syntheticConversation(9, 2) // 9 turns of 8 messages: user, (assistant, tool, tool)×2, answer
	ts := turnStarts(msgs)
	tests := []struct {
		name    string
		keep    int
		clearTo int // tool results before this index are cleared
	}{
		// The boundary is the latest multiple of keep+2 at least keep turns from the end.
		{"keep 1", 1, ts[6]},
		{"keep 2", 2, ts[4]},
		{"keep 3", 3, ts[5]},
		{"keep 0 means 1", 0, ts[6]},
		{"keep 7: the boundary is at 0", 7, 0},
		{"keep all", 9, 0},
		{"keep more than all", 12, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := cat(msgs)
			got, err := memory.ClearToolResults(tt.keep).Apply(context.Background(), "s", in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(msgs, in); diff != "" {
				t.Fatalf("Apply modified its input (-before +after):\n%s", diff)
			}
			want := cat(msgs)
			for i := range want {
				if i < tt.clearTo && want[i].Role == openai.ChatMessageRoleTool {
					want[i].Content = fmt.Sprintf("[tool result cleared to save context: %d characters]", utf8.RuneCountInString(msgs[i].Content))
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("view (-want +got):\n%s", diff)
			}
			if err := agentkit.ValidateHistory(got); err != nil {
				t.Errorf("view invalid: %v", err)
			}
		})
	}
}

func TestClearToolResultsKeepsShortAndHeadResults(t *testing.T) {
	call := func(id string) openai.ChatCompletionMessage {
		return openai.ChatCompletionMessage{Role: "assistant", ToolCalls: []openai.ToolCall{{ID: id, Type: "function", Function: openai.FunctionCall{Name: "f", Arguments: "{}"}}}}
	}
	result := func(id, content string) openai.ChatCompletionMessage {
		return openai.ChatCompletionMessage{Role: "tool", ToolCallID: id, Content: content}
	}
	long := strings.Repeat("数据", 100)
	msgs := []openai.ChatCompletionMessage{
		{Role: "system", Content: "s"},
		call("h"), result("h", long), // before the first user message: never changed
		{Role: "user", Content: "q1"},
		call("a"), result("a", "ok"), // shorter than its placeholder
		call("b"), {Role: "tool", ToolCallID: "b", MultiContent: []openai.ChatMessagePart{{Type: "text", Text: long}}},
		{Role: "user", Content: "q2"},
		call("c"), result("c", long),
		{Role: "user", Content: "q3"},
		{Role: "user", Content: "q4"}, // the boundary of keep 1 is at 3 turns
	}
	got, err := memory.ClearToolResults(1).Apply(context.Background(), "", msgs)
	if err != nil {
		t.Fatal(err)
	}
	want := cat(msgs)
	want[7] = openai.ChatCompletionMessage{Role: "tool", ToolCallID: "b", Content: "[tool result cleared to save context: 200 characters]"}
	want[10].Content = "[tool result cleared to save context: 200 characters]"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("view (-want +got):\n%s", diff)
	}
}
