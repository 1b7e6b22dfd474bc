package agentkit_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/internal/shared"
	"github.com/toolcall/toolcall/tool"
)

func sysMsg(s string) openai.ChatCompletionMessage {
	return openai.ChatCompletionMessage{Role: openai.ChatMessageRoleSystem, Content: s}
}

func userMsg(s string) openai.ChatCompletionMessage {
	return openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: s}
}

func asstMsg(s string, calls ...openai.ToolCall) openai.ChatCompletionMessage {
	return openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: s, ToolCalls: calls}
}

func toolCall(id, name, args string) openai.ToolCall {
	return openai.ToolCall{ID: id, Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: name, Arguments: args}}
}

func toolMsg(id, content string) openai.ChatCompletionMessage {
	return openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: id, Content: content}
}

func notExecuted(id string) openai.ChatCompletionMessage {
	return toolMsg(id, agentkit.NotExecutedContent)
}

func chat(m ...openai.ChatCompletionMessage) []openai.ChatCompletionMessage { return m }

// historyProblems returns the problems of err, which must be nil or a *HistoryError.
func historyProblems(t *testing.T, err error) []agentkit.HistoryProblem {
	t.Helper()
	if err == nil {
		return nil
	}
	var he *agentkit.HistoryError
	if !errors.As(err, &he) {
		t.Fatalf("ValidateHistory returned %T %v, want a *HistoryError", err, err)
	}
	if len(he.Problems) == 0 {
		t.Fatalf("ValidateHistory returned a HistoryError without problems")
	}
	return he.Problems
}

// A run canceled while its second call was running leaves a history that providers reject;
// RepairHistory answers the call so that the conversation can go on.
func ExampleRepairHistory() {
	history := []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleUser, Content: "Weather in Paris and Rome?"},
		{Role: openai.ChatMessageRoleAssistant, ToolCalls: []openai.ToolCall{
			{ID: "call_1", Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "get_weather", Arguments: `{"city":"Paris"}`}},
			{ID: "call_2", Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "get_weather", Arguments: `{"city":"Rome"}`}},
		}},
		{Role: openai.ChatMessageRoleTool, ToolCallID: "call_1", Content: "18°C, sunny"},
	}
	fmt.Println(agentkit.ValidateHistory(history))

	repaired, fixes := agentkit.RepairHistory(history)
	for _, fix := range fixes {
		fmt.Println("fix:", fix)
	}
	fmt.Println(agentkit.ValidateHistory(repaired))
	last := repaired[len(repaired)-1]
	fmt.Printf("%s %s: %s\n", last.Role, last.ToolCallID, last.Content)
	// Output:
	// agentkit: history has 1 problem: message 1, call "call_2": tool call is not answered by a tool message directly after its assistant message
	// fix: message 1, call "call_2": added a tool message "not executed: the run stopped before this call ran": the call had no answer
	// <nil>
	// tool call_2: not executed: the run stopped before this call ran
}

func TestValidateHistoryValid(t *testing.T) {
	tests := []struct {
		name string
		msgs []openai.ChatCompletionMessage
	}{
		{"empty", nil},
		{"plain conversation", chat(sysMsg("be brief"), userMsg("hi"), asstMsg("hello"), userMsg("bye"))},
		{"developer role", chat(openai.ChatCompletionMessage{Role: openai.ChatMessageRoleDeveloper, Content: "rules"}, userMsg("hi"))},
		{"one call answered", chat(
			userMsg("weather in Paris?"),
			asstMsg("", toolCall("c1", "weather", `{"city":"Paris"}`)),
			toolMsg("c1", "sunny"),
			asstMsg("It is sunny."),
		)},
		{"parallel calls answered out of order", chat(
			userMsg("add and multiply 2 and 3"),
			asstMsg("", toolCall("c1", "add", `{"a":2,"b":3}`), toolCall("c2", "mul", `{"a":2,"b":3}`), toolCall("c3", "sub", `{}`)),
			toolMsg("c3", "-1"), toolMsg("c1", "5"), toolMsg("c2", "6"),
			asstMsg("5, 6 and -1"),
		)},
		{"assistant with content and calls", chat(
			userMsg("x"),
			asstMsg("Let me check.", toolCall("c1", "f", " {\n} ")),
			toolMsg("c1", "ok"),
		)},
		{"history ending with a tool block", chat(userMsg("x"), asstMsg("", toolCall("c1", "f", "{}")), toolMsg("c1", "ok"))},
		{"multi-turn", chat(
			sysMsg("s"), userMsg("a"),
			asstMsg("", toolCall("c1", "f", "{}")), toolMsg("c1", "1"),
			asstMsg("", toolCall("c2", "f", "{}"), toolCall("c3", "g", "{}")), toolMsg("c2", "2"), toolMsg("c3", "3"),
			asstMsg("done"), userMsg("again"),
			asstMsg("", toolCall("c4", "f", `{"deep":{"list":[1,2,{"x":null}]}}`)), toolMsg("c4", "4"),
			asstMsg("done again"),
		)},
		{"multi content", chat(
			openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, MultiContent: []openai.ChatMessagePart{
				{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: "https://example.com/a.png"}},
			}},
			asstMsg("", toolCall("c1", "f", "{}")),
			openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: "c1", MultiContent: []openai.ChatMessagePart{
				{Type: openai.ChatMessagePartTypeText, Text: "result"},
			}},
		)},
		{"part types go-openai does not know are not checked", chat(openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, MultiContent: []openai.ChatMessagePart{
			{Type: openai.ChatMessagePartTypeText, Text: "listen"}, {Type: "input_audio"},
		}})},
		{"assistant refusal", chat(userMsg("x"), openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Refusal: "no"})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := agentkit.ValidateHistory(tt.msgs); err != nil {
				t.Errorf("ValidateHistory = %v, want nil", err)
			}
		})
	}
}

func TestValidateHistoryInvalid(t *testing.T) {
	type P = agentkit.HistoryProblem
	tests := []struct {
		name string
		msgs []openai.ChatCompletionMessage
		want []agentkit.HistoryProblem
	}{
		{
			"unknown role",
			chat(userMsg("x"), openai.ChatCompletionMessage{Role: "model", Content: "hi"}),
			[]P{{Index: 1, Reason: `role "model" is not one of system, developer, user, assistant, tool`}},
		},
		{
			"legacy function role and function_call",
			chat(userMsg("x"),
				openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, FunctionCall: &openai.FunctionCall{Name: "f", Arguments: "{}"}},
				openai.ChatCompletionMessage{Role: openai.ChatMessageRoleFunction, Name: "f", Content: "1"}),
			[]P{
				{Index: 1, Reason: "message uses the legacy function_call field, which is not supported: use tool calls"},
				{Index: 1, Reason: "assistant message has neither content nor tool calls"},
				{Index: 2, Reason: `role "function" is legacy function calling, which is not supported: use tool calls and tool messages`},
			},
		},
		{
			"empty user and system messages",
			chat(sysMsg(""), userMsg(""), openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, MultiContent: []openai.ChatMessagePart{{Type: openai.ChatMessagePartTypeText}}}),
			[]P{
				{Index: 0, Reason: "system message has no content"},
				{Index: 1, Reason: "user message has no content"},
				{Index: 2, Reason: "message has an empty MultiContent part, which go-openai sends without its text or URL"},
				{Index: 2, Reason: "user message has no content"},
			},
		},
		{
			"empty multi content part",
			chat(openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, MultiContent: []openai.ChatMessagePart{
				{Type: openai.ChatMessagePartTypeText, Text: "what is it?"},
				{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{}},
			}}),
			[]P{{Index: 0, Reason: "message has an empty MultiContent part, which go-openai sends without its text or URL"}},
		},
		{
			"empty assistant message",
			chat(userMsg("x"), openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, ReasoningContent: "thinking"}),
			[]P{{Index: 1, Reason: "assistant message has neither content nor tool calls"}},
		},
		{
			"call without id",
			chat(userMsg("x"), asstMsg("", toolCall("", "f", "{}")), toolMsg("", "ok")),
			[]P{
				{Index: 1, Reason: "tool call 0 (f) has no id"},
				{Index: 2, Reason: "tool message has no tool_call_id"},
			},
		},
		{
			"call ids and arguments that are not valid UTF-8",
			chat(userMsg("x"), asstMsg("", toolCall("c\xff", "f", "{}"), toolCall("c2", "f", "{\"a\":\"\xfe\"}")), toolMsg("c\xff", "1"), toolMsg("c2", "2")),
			[]P{
				{Index: 1, CallID: "c\xff", Reason: "tool call id is not valid UTF-8: it would reach the provider altered, and two such ids as one"},
				{Index: 1, CallID: "c2", Reason: "tool call arguments are not valid UTF-8: they would reach the provider altered"},
				{Index: 2, CallID: "c\xff", Reason: "tool message's tool_call_id is not valid UTF-8"},
			},
		},
		{
			"duplicate call id across turns",
			chat(userMsg("x"),
				asstMsg("", toolCall("c1", "f", "{}")), toolMsg("c1", "1"),
				asstMsg("", toolCall("c1", "f", "{}")), toolMsg("c1", "2")),
			[]P{{Index: 3, CallID: "c1", Reason: "tool call id is already used by a call in message 1"}},
		},
		{
			"duplicate call id in one message",
			chat(userMsg("x"), asstMsg("", toolCall("c1", "f", "{}"), toolCall("c1", "g", "{}")), toolMsg("c1", "1"), toolMsg("c1", "2")),
			[]P{
				{Index: 1, CallID: "c1", Reason: "tool call id is used twice in this message"},
				{Index: 3, CallID: "c1", Reason: "tool message answers a call already answered by message 2"},
			},
		},
		{
			"call type, name and arguments",
			chat(userMsg("x"),
				asstMsg("",
					openai.ToolCall{ID: "c1", Function: openai.FunctionCall{Name: "f", Arguments: "{}"}},
					toolCall("c2", "", "{}"),
					toolCall("c3", "f", ""),
					toolCall("c4", "f", `{"a":`),
					toolCall("c5", "f", `"just a string"`),
					toolCall("c6", "f", "Go programming language version 1.0"),
				),
				toolMsg("c1", "1"), toolMsg("c2", "2"), toolMsg("c3", "3"), toolMsg("c4", "4"), toolMsg("c5", "5"), toolMsg("c6", "6")),
			[]P{
				{Index: 1, CallID: "c1", Reason: `tool call has type ""; want "function"`},
				{Index: 1, CallID: "c2", Reason: "tool call has no function name"},
				{Index: 1, CallID: "c3", Reason: `tool call arguments are empty; some providers reject them (want a JSON object such as "{}")`},
				{Index: 1, CallID: "c4", Reason: "tool call arguments are not a JSON object; providers such as Qwen reject replaying them"},
				{Index: 1, CallID: "c5", Reason: "tool call arguments are not a JSON object; providers such as Qwen reject replaying them"},
				{Index: 1, CallID: "c6", Reason: "tool call arguments are not a JSON object; providers such as Qwen reject replaying them"},
			},
		},
		{
			"unanswered call at the end (a canceled run)",
			chat(userMsg("x"), asstMsg("", toolCall("c1", "f", "{}"), toolCall("c2", "g", "{}")), toolMsg("c1", "1")),
			[]P{{Index: 1, CallID: "c2", Reason: "tool call is not answered by a tool message directly after its assistant message"}},
		},
		{
			"answer separated from its call",
			chat(userMsg("x"), asstMsg("", toolCall("c1", "f", "{}")), userMsg("hurry"), toolMsg("c1", "1")),
			[]P{
				{Index: 1, CallID: "c1", Reason: "tool call is not answered by a tool message directly after its assistant message"},
				{Index: 3, CallID: "c1", Reason: "tool message does not follow an assistant message with tool calls"},
			},
		},
		{
			"duplicate answer",
			chat(userMsg("x"), asstMsg("", toolCall("c1", "f", "{}"), toolCall("c2", "f", "{}")), toolMsg("c1", "1"), toolMsg("c2", "2"), toolMsg("c1", "again")),
			[]P{{Index: 4, CallID: "c1", Reason: "tool message answers a call already answered by message 2"}},
		},
		{
			"orphan tool messages",
			chat(toolMsg("c0", "first"), userMsg("x"), asstMsg("", toolCall("c1", "f", "{}")), toolMsg("c1", "1"), toolMsg("c9", "crossed wires"),
				asstMsg("ok"), toolMsg("c1", "late")),
			[]P{
				{Index: 0, CallID: "c0", Reason: "tool message does not follow an assistant message with tool calls"},
				{Index: 4, CallID: "c9", Reason: "tool message answers no call of the assistant message 2 before it"},
				{Index: 6, CallID: "c1", Reason: "tool message does not follow an assistant message with tool calls"},
			},
		},
		{
			"answer to an earlier turn's call",
			chat(userMsg("x"), asstMsg("", toolCall("c1", "f", "{}")), toolMsg("c1", "1"), asstMsg("", toolCall("c2", "f", "{}")), toolMsg("c1", "1 again")),
			[]P{
				{Index: 3, CallID: "c2", Reason: "tool call is not answered by a tool message directly after its assistant message"},
				{Index: 4, CallID: "c1", Reason: "tool message answers no call of the assistant message 3 before it"},
			},
		},
		{
			"empty tool content",
			chat(userMsg("x"), asstMsg("", toolCall("c1", "f", "{}"), toolCall("c2", "f", "{}")), toolMsg("c1", ""),
				openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: "c2", MultiContent: []openai.ChatMessagePart{
					{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: "https://example.com/a.png"}},
				}}),
			[]P{
				{Index: 2, CallID: "c1", Reason: "tool message has empty content"},
				{Index: 3, CallID: "c2", Reason: "tool message has empty content"},
			},
		},
		{
			"tool fields on the wrong role, content and multi content",
			chat(
				openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: "x", ToolCallID: "c1", ToolCalls: []openai.ToolCall{toolCall("c0", "f", "{}")}},
				openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: "x", MultiContent: []openai.ChatMessagePart{}},
			),
			[]P{
				{Index: 0, Reason: "user message carries tool calls; only assistant messages may"},
				{Index: 0, CallID: "c1", Reason: "user message carries a tool_call_id; only tool messages may"},
				{Index: 1, Reason: "message sets both Content and MultiContent, which go-openai refuses to send"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := historyProblems(t, agentkit.ValidateHistory(tt.msgs))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ValidateHistory problems mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestValidateHistoryManyCalls covers histories with more calls than the id set keeps on
// the stack.
func TestValidateHistoryManyCalls(t *testing.T) {
	h := chat(userMsg("x"))
	for i := range 300 {
		id := "call_" + strconv.Itoa(i)
		h = append(h, asstMsg("", toolCall(id, "f", "{}")), toolMsg(id, "ok"))
	}
	if err := agentkit.ValidateHistory(h); err != nil {
		t.Fatalf("ValidateHistory = %v, want nil", err)
	}
	h = append(h, asstMsg("", toolCall("call_7", "f", "{}")), toolMsg("call_7", "ok"))
	want := []agentkit.HistoryProblem{{Index: 601, CallID: "call_7", Reason: "tool call id is already used by a call in message 15"}}
	if diff := cmp.Diff(want, historyProblems(t, agentkit.ValidateHistory(h))); diff != "" {
		t.Errorf("ValidateHistory problems mismatch (-want +got):\n%s", diff)
	}
}

func TestHistoryErrorError(t *testing.T) {
	one := &agentkit.HistoryError{Problems: []agentkit.HistoryProblem{{Index: 2, CallID: "c1", Reason: "tool message has empty content"}}}
	if got, want := one.Error(), `agentkit: history has 1 problem: message 2, call "c1": tool message has empty content`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}

	two := &agentkit.HistoryError{Problems: []agentkit.HistoryProblem{{Index: 0, Reason: "a"}, {Index: 1, CallID: "x", Reason: "b"}}}
	if got, want := two.Error(), "agentkit: history has 2 problems:\nmessage 0: a\nmessage 1, call \"x\": b"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}

	many := &agentkit.HistoryError{}
	for i := range 25 {
		many.Problems = append(many.Problems, agentkit.HistoryProblem{Index: i, Reason: "r"})
	}
	lines := strings.Split(many.Error(), "\n")
	if got, want := len(lines), 22; got != want {
		t.Fatalf("Error() of 25 problems has %d lines, want %d:\n%s", got, want, many.Error())
	}
	if got, want := lines[0], "agentkit: history has 25 problems:"; got != want {
		t.Errorf("first line = %q, want %q", got, want)
	}
	if got, want := lines[20], "message 19: r"; got != want {
		t.Errorf("line 20 = %q, want %q", got, want)
	}
	if got, want := lines[21], "and 5 more"; got != want {
		t.Errorf("last line = %q, want %q", got, want)
	}
}

func TestRepairHistory(t *testing.T) {
	tests := []struct {
		name      string
		in        []openai.ChatCompletionMessage
		want      []openai.ChatCompletionMessage
		wantFixes []string
	}{
		{
			name: "valid history unchanged",
			in:   chat(sysMsg("s"), userMsg("x"), asstMsg("", toolCall("c1", "f", "{}")), toolMsg("c1", "1"), asstMsg("done")),
			want: chat(sysMsg("s"), userMsg("x"), asstMsg("", toolCall("c1", "f", "{}")), toolMsg("c1", "1"), asstMsg("done")),
		},
		{
			name: "canceled run: unanswered calls get a placeholder in emission order",
			in:   chat(userMsg("x"), asstMsg("", toolCall("c1", "f", "{}"), toolCall("c2", "g", "{}"), toolCall("c3", "h", "{}")), toolMsg("c2", "2")),
			want: chat(userMsg("x"), asstMsg("", toolCall("c1", "f", "{}"), toolCall("c2", "g", "{}"), toolCall("c3", "h", "{}")),
				notExecuted("c1"), toolMsg("c2", "2"), notExecuted("c3")),
			wantFixes: []string{
				`message 1, call "c1": added a tool message "not executed: the run stopped before this call ran": the call had no answer`,
				`message 1, call "c3": added a tool message "not executed: the run stopped before this call ran": the call had no answer`,
			},
		},
		{
			name: "out of order block is put in emission order",
			in:   chat(userMsg("x"), asstMsg("", toolCall("c1", "f", "{}"), toolCall("c2", "g", "{}")), toolMsg("c2", "2"), toolMsg("c1", "1"), asstMsg("ok")),
			want: chat(userMsg("x"), asstMsg("", toolCall("c1", "f", "{}"), toolCall("c2", "g", "{}")), toolMsg("c1", "1"), toolMsg("c2", "2"), asstMsg("ok")),
			wantFixes: []string{
				"message 1: put the tool messages after the message in the order of its calls",
			},
		},
		{
			name: "orphans and duplicate answers dropped, late answer replaced by a placeholder",
			in: chat(toolMsg("c0", "stray"), userMsg("x"),
				asstMsg("", toolCall("c1", "f", "{}"), toolCall("c2", "g", "{}")), toolMsg("c1", "1"), toolMsg("c9", "crossed"), toolMsg("c1", "again"),
				userMsg("hurry"), toolMsg("c2", "late")),
			want: chat(userMsg("x"),
				asstMsg("", toolCall("c1", "f", "{}"), toolCall("c2", "g", "{}")), toolMsg("c1", "1"), notExecuted("c2"),
				userMsg("hurry")),
			wantFixes: []string{
				`message 0, call "c0": dropped the tool message: it does not follow an assistant message with tool calls`,
				`message 4, call "c9": dropped the tool message: it answers no call of message 2`,
				`message 5, call "c1": dropped the tool message: it answers a call already answered`,
				`message 2, call "c2": added a tool message "not executed: the run stopped before this call ran": the call had no answer`,
				`message 7, call "c2": dropped the tool message: it does not follow an assistant message with tool calls`,
			},
		},
		{
			name: "calls normalized",
			in: chat(userMsg("x"),
				asstMsg("",
					openai.ToolCall{ID: "c1", Function: openai.FunctionCall{Name: "f", Arguments: ""}},
					toolCall("c2", "g", "Go programming language version 1.0"),
					toolCall("c3", "", "{}"),
				),
				toolMsg("c1", ""), toolMsg("c2", "2"), toolMsg("c3", "3")),
			want: chat(userMsg("x"),
				asstMsg("", toolCall("c1", "f", "{}"), toolCall("c2", "g", "{}")),
				toolMsg("c1", tool.EmptyContent), toolMsg("c2", "2")),
			wantFixes: []string{
				`message 1, call "c1": set the type "" of tool call 0 to "function"`,
				`message 1, call "c1": set the empty arguments of tool call 0 to "{}"`,
				`message 1, call "c2": replaced the arguments of tool call 1, which were not a JSON object (35 bytes), with "{}"`,
				`message 1, call "c3": dropped tool call 2: it has no function name`,
				`message 4, call "c3": dropped the tool message: its call was dropped`,
				`message 2, call "c1": set the empty content of the tool message to "(the tool returned no output)"`,
			},
		},
		{
			name: "missing and duplicate ids get new ids, answers follow positionally",
			in: chat(userMsg("x"),
				asstMsg("", toolCall("c1", "f", "{}")), toolMsg("c1", "1"),
				asstMsg("", toolCall("c1", "f", "{}"), toolCall("", "g", "{}"), toolCall("", "h", "{}")), toolMsg("", "g result"), toolMsg("c1", "f result")),
			want: chat(userMsg("x"),
				asstMsg("", toolCall("c1", "f", "{}")), toolMsg("c1", "1"),
				asstMsg("", toolCall("call_repaired_3_0", "f", "{}"), toolCall("call_repaired_3_1", "g", "{}"), toolCall("call_repaired_3_2", "h", "{}")),
				toolMsg("call_repaired_3_0", "f result"), toolMsg("call_repaired_3_1", "g result"), notExecuted("call_repaired_3_2")),
			wantFixes: []string{
				`message 3, call "c1": gave tool call 0, whose id an earlier call uses, the id "call_repaired_3_0"`,
				`message 3: gave tool call 1, which had no id, the id "call_repaired_3_1"`,
				`message 3: gave tool call 2, which had no id, the id "call_repaired_3_2"`,
				`message 5, call "c1": set the tool_call_id to "call_repaired_3_0", the new id of its call`,
				`message 4: set the tool_call_id to "call_repaired_3_1", the new id of its call`,
				`message 3, call "call_repaired_3_2": added a tool message "not executed: the run stopped before this call ran": the call had no answer`,
				"message 3: put the tool messages after the message in the order of its calls",
			},
		},
		{
			name: "new ids avoid ids already in the history",
			in:   chat(userMsg("x"), asstMsg("", toolCall("", "f", "{}"), toolCall("call_repaired_1_0", "g", "{}")), toolMsg("call_repaired_1_0", "g")),
			want: chat(userMsg("x"), asstMsg("", toolCall("call_repaired_1_0_2", "f", "{}"), toolCall("call_repaired_1_0", "g", "{}")),
				notExecuted("call_repaired_1_0_2"), toolMsg("call_repaired_1_0", "g")),
			wantFixes: []string{
				`message 1: gave tool call 0, which had no id, the id "call_repaired_1_0_2"`,
				`message 1, call "call_repaired_1_0_2": added a tool message "not executed: the run stopped before this call ran": the call had no answer`,
			},
		},
		{
			name: "empty and unsupported messages dropped",
			in: chat(sysMsg(""), userMsg("x"),
				openai.ChatCompletionMessage{Role: "model", Content: "hi"},
				openai.ChatCompletionMessage{Role: openai.ChatMessageRoleFunction, Name: "f", Content: "1"},
				openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, ReasoningContent: "hmm"},
				openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: "ok", FunctionCall: &openai.FunctionCall{Name: "f"}},
				asstMsg("", toolCall("c1", "", "{}")), toolMsg("c1", "1"),
			),
			want: chat(userMsg("x"), asstMsg("ok")),
			wantFixes: []string{
				"message 0: dropped the system message: it has no content",
				`message 2: dropped the message: role "model" is not supported`,
				`message 3: dropped the message: role "function" is not supported`,
				"message 4: dropped the assistant message: it has neither content nor tool calls",
				"message 5: removed the legacy function_call",
				`message 6, call "c1": dropped tool call 0: it has no function name`,
				`message 7, call "c1": dropped the tool message: its call was dropped`,
				"message 6: dropped the assistant message: it has neither content nor valid tool calls",
			},
		},
		{
			name: "assistant with content keeps it when its calls are dropped",
			in:   chat(userMsg("x"), asstMsg("Let me see.", toolCall("c1", "", "{}"))),
			want: chat(userMsg("x"), asstMsg("Let me see.")),
			wantFixes: []string{
				`message 1, call "c1": dropped tool call 0: it has no function name`,
			},
		},
		{
			name: "wrong-role fields cleared, content moved into multi content",
			in: chat(
				openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: "x", ToolCallID: "c1", ToolCalls: []openai.ToolCall{toolCall("c0", "f", "{}")}},
				openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: "see", MultiContent: []openai.ChatMessagePart{
					{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: "u"}},
				}},
				openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: "y", MultiContent: []openai.ChatMessagePart{}},
			),
			want: chat(
				userMsg("x"),
				openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, MultiContent: []openai.ChatMessagePart{
					{Type: openai.ChatMessagePartTypeText, Text: "see"},
					{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: "u"}},
				}},
				userMsg("y"),
			),
			wantFixes: []string{
				"message 0: removed the tool calls of a user message",
				`message 0, call "c1": removed the tool_call_id of a user message`,
				"message 1: moved Content into MultiContent: go-openai refuses to send both",
				"message 2: removed an empty MultiContent set alongside Content",
			},
		},
		{
			name: "tool message without text gets the empty placeholder",
			in: chat(userMsg("x"), asstMsg("", toolCall("c1", "f", "{}")),
				openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: "c1", MultiContent: []openai.ChatMessagePart{{Type: openai.ChatMessagePartTypeText}}}),
			want: chat(userMsg("x"), asstMsg("", toolCall("c1", "f", "{}")), toolMsg("c1", tool.EmptyContent)),
			wantFixes: []string{
				"message 2: removed the empty parts of MultiContent",
				`message 2, call "c1": set the empty content of the tool message to "(the tool returned no output)"`,
			},
		},
		{
			name: "empty parts removed",
			in: chat(openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, MultiContent: []openai.ChatMessagePart{
				{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: "u"}},
				{Type: openai.ChatMessagePartTypeText},
				{Type: openai.ChatMessagePartTypeText, Text: "what is it?"},
				{Type: openai.ChatMessagePartTypeImageURL},
			}}),
			want: chat(openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, MultiContent: []openai.ChatMessagePart{
				{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: "u"}},
				{Type: openai.ChatMessagePartTypeText, Text: "what is it?"},
			}}),
			wantFixes: []string{"message 0: removed the empty parts of MultiContent"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := cloneHistory(tt.in)
			got, fixes := agentkit.RepairHistory(tt.in)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("RepairHistory messages mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantFixes, fixes); diff != "" {
				t.Errorf("RepairHistory fixes mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, tt.in); diff != "" {
				t.Errorf("RepairHistory modified its input (-before +after):\n%s", diff)
			}
			if err := agentkit.ValidateHistory(got); err != nil {
				t.Errorf("ValidateHistory(RepairHistory(in)) = %v, want nil", err)
			}
			again, fixes := agentkit.RepairHistory(got)
			if diff := cmp.Diff(got, again); diff != "" || fixes != nil {
				t.Errorf("RepairHistory is not idempotent: fixes %q, diff (-first +second):\n%s", fixes, diff)
			}
		})
	}
}

// cloneHistory copies msgs deeply enough that a change to any message, slice or pointer
// of the original shows in a comparison with the copy.
func cloneHistory(msgs []openai.ChatCompletionMessage) []openai.ChatCompletionMessage {
	if msgs == nil {
		return nil
	}
	out := make([]openai.ChatCompletionMessage, len(msgs))
	for i, m := range msgs {
		if m.MultiContent != nil {
			m.MultiContent = append([]openai.ChatMessagePart{}, m.MultiContent...)
			for j, p := range m.MultiContent {
				if p.ImageURL != nil {
					u := *p.ImageURL
					m.MultiContent[j].ImageURL = &u
				}
			}
		}
		if m.FunctionCall != nil {
			f := *m.FunctionCall
			m.FunctionCall = &f
		}
		if m.ToolCalls != nil {
			m.ToolCalls = append([]openai.ToolCall{}, m.ToolCalls...)
			for j, c := range m.ToolCalls {
				if c.Index != nil {
					n := *c.Index
					m.ToolCalls[j].Index = &n
				}
			}
		}
		out[i] = m
	}
	return out
}

// TestValidateHistoryRecordedFantasy checks that the second-turn requests recorded from real
// providers (OpenAI, Azure, Groq, llama.cpp, by github.com/charmbracelet/fantasy's go-vcr
// cassettes) are valid: real traffic that providers answered with 200 must pass.
func TestValidateHistoryRecordedFantasy(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(shared.Dir(t, "recordings", "fantasy-govcr"), "*.yaml"))
	if len(files) == 0 {
		t.Fatal("no recordings in shared/recordings/fantasy-govcr")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			bodies := cassetteRequestBodies(t, file)
			withTools := 0
			for i, body := range bodies {
				history := requestMessages(t, []byte(body))
				if !hasToolMessage(history) {
					continue
				}
				withTools++
				if err := agentkit.ValidateHistory(history); err != nil {
					t.Errorf("request %d: ValidateHistory = %v, want nil", i, err)
				}
				if got, fixes := agentkit.RepairHistory(history); fixes != nil || !cmp.Equal(got, history) {
					t.Errorf("request %d: RepairHistory changed a valid history: %q", i, fixes)
				}
			}
			if withTools == 0 {
				t.Errorf("found %d request bodies, none with a tool message; want at least one", len(bodies))
			}
		})
	}
}

// cassetteRequestBodies returns the request bodies of a go-vcr cassette: the lines
// `body: '...'`, YAML single-quoted strings on one line (response bodies are block scalars).
func cassetteRequestBodies(t *testing.T, file string) []string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var bodies []string
	for line := range strings.Lines(string(data)) {
		line = strings.TrimSpace(line)
		s, ok := strings.CutPrefix(line, "body: '")
		if !ok {
			continue
		}
		s, ok = strings.CutSuffix(s, "'")
		if !ok {
			t.Fatalf("a request body spans several lines, which this reader does not handle: %.80s", line)
		}
		bodies = append(bodies, strings.ReplaceAll(s, "''", "'"))
	}
	return bodies
}

func requestMessages(t *testing.T, body []byte) []openai.ChatCompletionMessage {
	t.Helper()
	var req struct {
		Messages []openai.ChatCompletionMessage `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("request body: %v: %.200s", err, body)
	}
	return req.Messages
}

func hasToolMessage(msgs []openai.ChatCompletionMessage) bool {
	for _, m := range msgs {
		if m.Role == openai.ChatMessageRoleTool {
			return true
		}
	}
	return false
}

// TestValidateHistoryRecordedLangchaingo reads langchaingo's httprr recordings of OpenAI and
// DeepSeek. One of them replays arguments that are not JSON ("Go programming language
// version 1.0 release date"): OpenAI accepted it, Qwen would not, so the validator flags it
// and the repair replaces it. The rules are the strictest common denominator on purpose.
func TestValidateHistoryRecordedLangchaingo(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(shared.Dir(t, "recordings", "langchaingo-httprr"), "*.httprr"))
	if len(files) == 0 {
		t.Fatal("no recordings in shared/recordings/langchaingo-httprr")
	}
	want := map[string][]agentkit.HistoryProblem{
		"TestExecutorWithOpenAIFunctionAgent.httprr": {{
			Index:  3,
			CallID: "call_xBZmyTROTl3UDnkHo7ViHPJ6",
			Reason: "tool call arguments are not a JSON object; providers such as Qwen reject replaying them",
		}},
	}
	for _, file := range files {
		name := filepath.Base(file)
		t.Run(name, func(t *testing.T) {
			var got []agentkit.HistoryProblem
			for _, body := range httprrRequestBodies(t, file) {
				history := requestMessages(t, body)
				err := agentkit.ValidateHistory(history)
				got = append(got, historyProblems(t, err)...)
				repaired, _ := agentkit.RepairHistory(history)
				if err := agentkit.ValidateHistory(repaired); err != nil {
					t.Errorf("ValidateHistory(RepairHistory(recorded)) = %v, want nil", err)
				}
			}
			if diff := cmp.Diff(want[name], got); diff != "" {
				t.Errorf("problems mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// httprrRequestBodies returns the bodies of the chat completion requests of an httprr trace:
// after the line
// "httprr trace v1", records "<request length> <response length>\n<request><response>".
func httprrRequestBodies(t *testing.T, file string) [][]byte {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	br := bufio.NewReader(f)
	if head, err := br.ReadString('\n'); err != nil || head != "httprr trace v1\n" {
		t.Fatalf("%s: not an httprr trace: %q %v", file, head, err)
	}
	var bodies [][]byte
	for {
		line, err := br.ReadString('\n')
		if err == io.EOF && line == "" {
			return bodies
		}
		var nreq, nresp int
		if _, err := fmt.Sscanf(line, "%d %d\n", &nreq, &nresp); err != nil {
			t.Fatalf("%s: record header %q: %v", file, line, err)
		}
		raw := make([]byte, nreq+nresp)
		if _, err := io.ReadFull(br, raw); err != nil {
			t.Fatalf("%s: record: %v", file, err)
		}
		req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(raw[:nreq])))
		if err != nil {
			t.Fatalf("%s: request: %v", file, err)
		}
		if !strings.HasSuffix(req.URL.Path, "/chat/completions") {
			continue // the agent's tool calling a search API
		}
		body, err := io.ReadAll(req.Body)
		if err != nil {
			t.Fatalf("%s: request body: %v", file, err)
		}
		bodies = append(bodies, body)
	}
}

// benchHistory returns a valid history of n messages: a system and a user message, then
// turns of an assistant message with two parallel calls, their answers, an answer and a
// user message.
func benchHistory(n int) []openai.ChatCompletionMessage {
	h := chat(sysMsg("You are a helpful assistant."), userMsg("What is the weather in Beijing and Shanghai?"))
	for turn := 0; len(h) < n; turn++ {
		id1, id2 := "call_"+strconv.Itoa(2*turn)+"_aB3dE5fG7hI9jK1lM", "call_"+strconv.Itoa(2*turn+1)+"_aB3dE5fG7hI9jK1lM"
		h = append(h,
			asstMsg("", toolCall(id1, "get_weather", `{"city": "Beijing", "unit": "celsius"}`), toolCall(id2, "get_weather", `{"city": "Shanghai", "unit": "celsius"}`)),
			toolMsg(id2, `{"temperature": 21, "condition": "cloudy"}`),
			toolMsg(id1, `{"temperature": 18, "condition": "sunny"}`),
			asstMsg("Beijing is sunny at 18°C, Shanghai cloudy at 21°C."),
			userMsg("And tomorrow?"),
		)
	}
	return h[:n]
}

func BenchmarkValidateHistory(b *testing.B) {
	for _, n := range []int{20, 200, 1000} {
		h := benchHistory(n)
		if err := agentkit.ValidateHistory(h); err != nil {
			b.Fatal(err)
		}
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if agentkit.ValidateHistory(h) != nil {
					b.Fatal("invalid")
				}
			}
		})
	}
}

// BenchmarkValidateVersusEncode puts the check of every request in perspective: it checks a
// request of 1,000 messages and encodes it to JSON, as every client does before sending it,
// alternately, and reports the check's time as a fraction of the encoding's
// ("x-encode"). The run checks each request whole before it is sent, with no bookkeeping of
// what was checked before, because this fraction is small.
func BenchmarkValidateVersusEncode(b *testing.B) {
	req := openai.ChatCompletionRequest{Model: "gpt-4o-mini", Messages: benchHistory(1000)}
	var check, encode time.Duration
	for b.Loop() {
		start := time.Now()
		if agentkit.ValidateHistory(req.Messages) != nil {
			b.Fatal("invalid")
		}
		mid := time.Now()
		if _, err := json.Marshal(req); err != nil {
			b.Fatal(err)
		}
		check, encode = check+mid.Sub(start), encode+time.Since(mid)
	}
	b.ReportMetric(float64(check)/float64(encode), "x-encode")
}

func BenchmarkRepairHistory(b *testing.B) {
	h := benchHistory(200)
	b.ReportAllocs()
	for b.Loop() {
		agentkit.RepairHistory(h)
	}
}
