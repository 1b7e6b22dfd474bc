package agentkit_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
)

// Chunk builders for scripted streams.

func asmIdx(n int) *int { return &n }

func asmChunk(d openai.ChatCompletionStreamChoiceDelta) openai.ChatCompletionStreamResponse {
	return openai.ChatCompletionStreamResponse{Choices: []openai.ChatCompletionStreamChoice{{Delta: d}}}
}

func asmText(s string) openai.ChatCompletionStreamResponse {
	return asmChunk(openai.ChatCompletionStreamChoiceDelta{Content: s})
}

func asmReasoning(s string) openai.ChatCompletionStreamResponse {
	return asmChunk(openai.ChatCompletionStreamChoiceDelta{ReasoningContent: s})
}

func asmRole() openai.ChatCompletionStreamResponse {
	return asmChunk(openai.ChatCompletionStreamChoiceDelta{Role: openai.ChatMessageRoleAssistant})
}

// asmCallChunk is a chunk with one tool_calls entry; index nil means omitted.
func asmCallChunk(index *int, id, name, args string) openai.ChatCompletionStreamResponse {
	return asmChunk(openai.ChatCompletionStreamChoiceDelta{ToolCalls: []openai.ToolCall{{
		Index: index, ID: id, Function: openai.FunctionCall{Name: name, Arguments: args},
	}}})
}

func asmFinish(r openai.FinishReason) openai.ChatCompletionStreamResponse {
	return openai.ChatCompletionStreamResponse{Choices: []openai.ChatCompletionStreamChoice{{FinishReason: r}}}
}

func asmUsage(prompt, completion int) openai.ChatCompletionStreamResponse {
	return openai.ChatCompletionStreamResponse{Choices: []openai.ChatCompletionStreamChoice{},
		Usage: &openai.Usage{PromptTokens: prompt, CompletionTokens: completion, TotalTokens: prompt + completion}}
}

// asmPromptFilter is Azure's first chunk: no choices, no id.
func asmPromptFilter() openai.ChatCompletionStreamResponse {
	return openai.ChatCompletionStreamResponse{Choices: []openai.ChatCompletionStreamChoice{},
		PromptFilterResults: []openai.PromptFilterResult{{Index: 0}}}
}

func asmWith(c openai.ChatCompletionStreamResponse, f func(*openai.ChatCompletionStreamResponse)) openai.ChatCompletionStreamResponse {
	f(&c)
	return c
}

func asmTC(id, name, args string) openai.ToolCall {
	return openai.ToolCall{ID: id, Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: name, Arguments: args}}
}

// asmRun feeds chunks to a fresh Assembler and finishes it. Each Delta is rendered as
// "<where> <kind> <call or text>", where is the chunk number or F for Finish.
func asmRun(chunks []openai.ChatCompletionStreamResponse) (deltas []string, msg openai.ChatCompletionMessage, finish openai.FinishReason, usage *openai.Usage, a *agentkit.Assembler) {
	a = new(agentkit.Assembler)
	render := func(where string, ds []agentkit.Delta) {
		for _, d := range ds {
			switch d.Kind {
			case agentkit.DeltaToolCallStart, agentkit.DeltaToolCallDone:
				deltas = append(deltas, fmt.Sprintf("%s %s %d", where, d.Kind, d.Call))
			default:
				deltas = append(deltas, fmt.Sprintf("%s %s %q", where, d.Kind, d.Text))
			}
		}
	}
	var buf []agentkit.Delta
	for i, c := range chunks {
		buf = a.Add(buf[:0], c)
		render(fmt.Sprint(i), buf)
	}
	buf, msg, finish, usage = a.Finish(buf[:0])
	render("F", buf)
	return deltas, msg, finish, usage, a
}

func TestAssembler(t *testing.T) {
	const beijing = `{"city":"北京","unit":"°C"}`
	b := strings.Index(beijing, "北")
	deg := strings.Index(beijing, "°")

	tests := []struct {
		name        string
		chunks      []openai.ChatCompletionStreamResponse
		wantDeltas  []string
		wantMsg     openai.ChatCompletionMessage
		wantFinish  openai.FinishReason
		wantUsage   *openai.Usage
		wantDropped int
	}{
		{
			name: "two calls as OpenAI streams them: the first is done when the second begins",
			chunks: []openai.ChatCompletionStreamResponse{
				asmRole(),
				asmCallChunk(asmIdx(0), "call_a", "add", ""),
				asmCallChunk(asmIdx(0), "", "", `{"a"`),
				asmCallChunk(asmIdx(0), "", "", `: 2, "b": 3}`),
				asmCallChunk(asmIdx(1), "call_m", "multiply", ""),
				asmCallChunk(asmIdx(1), "", "", `{"a": 2, `),
				asmCallChunk(asmIdx(1), "", "", `"b": 3}`),
				asmFinish(openai.FinishReasonToolCalls),
				asmUsage(10, 5),
			},
			wantDeltas: []string{"1 tool_call_start 0", "4 tool_call_done 0", "4 tool_call_start 1", "F tool_call_done 1"},
			wantMsg: openai.ChatCompletionMessage{Role: "assistant", ToolCalls: []openai.ToolCall{
				asmTC("call_a", "add", `{"a": 2, "b": 3}`), asmTC("call_m", "multiply", `{"a": 2, "b": 3}`)}},
			wantFinish: openai.FinishReasonToolCalls,
			wantUsage:  &openai.Usage{PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15},
		},
		{
			name: "ids reused at other indexes, with names: four calls, as the non-streamed message has",
			chunks: []openai.ChatCompletionStreamResponse{
				asmCallChunk(asmIdx(0), "call_0", "f", `{"n":1}`),
				asmCallChunk(asmIdx(1), "call_1", "f", `{"n":2}`),
				asmCallChunk(asmIdx(2), "call_0", "f", `{"n":3}`),
				asmCallChunk(asmIdx(3), "call_1", "f", `{"n":4}`),
				asmFinish(openai.FinishReasonToolCalls),
			},
			wantDeltas: []string{"0 tool_call_start 0", "1 tool_call_done 0", "1 tool_call_start 1", "2 tool_call_done 1",
				"2 tool_call_start 2", "3 tool_call_done 2", "3 tool_call_start 3", "F tool_call_done 3"},
			wantMsg: openai.ChatCompletionMessage{Role: "assistant", ToolCalls: []openai.ToolCall{
				asmTC("call_0", "f", `{"n":1}`), asmTC("call_1", "f", `{"n":2}`), asmTC("call_0", "f", `{"n":3}`), asmTC("call_1", "f", `{"n":4}`)}},
			wantFinish: openai.FinishReasonToolCalls,
		},
		{
			name: "no ids, one index, the same name again with a new object: two calls",
			chunks: []openai.ChatCompletionStreamResponse{
				asmCallChunk(asmIdx(0), "", "get_weather", `{"city":"Paris"}`),
				asmCallChunk(asmIdx(0), "", "get_weather", `{"city":"Rome"}`),
				asmFinish(openai.FinishReasonToolCalls),
			},
			wantDeltas: []string{"0 tool_call_start 0", "1 tool_call_done 0", "1 tool_call_start 1", "F tool_call_done 1"},
			wantMsg: openai.ChatCompletionMessage{Role: "assistant", ToolCalls: []openai.ToolCall{
				asmTC("", "get_weather", `{"city":"Paris"}`), asmTC("", "get_weather", `{"city":"Rome"}`)}},
			wantFinish: openai.FinishReasonToolCalls,
		},
		{
			name: "no ids, the name repeated on every fragment: one call",
			chunks: []openai.ChatCompletionStreamResponse{
				asmCallChunk(asmIdx(0), "", "get_weather", `{"city":`),
				asmCallChunk(asmIdx(0), "", "get_weather", `"Paris"}`),
				asmCallChunk(asmIdx(0), "", "get_weather", ``),
				asmFinish(openai.FinishReasonToolCalls),
			},
			wantDeltas: []string{"0 tool_call_start 0", "F tool_call_done 0"},
			wantMsg:    openai.ChatCompletionMessage{Role: "assistant", ToolCalls: []openai.ToolCall{asmTC("", "get_weather", `{"city":"Paris"}`)}},
			wantFinish: openai.FinishReasonToolCalls,
		},
		{
			name: "a known id at another index without a name extends its call",
			chunks: []openai.ChatCompletionStreamResponse{
				asmCallChunk(asmIdx(0), "call_0", "f", `{"n":`),
				asmCallChunk(asmIdx(5), "call_0", "", `1}`),
				asmFinish(openai.FinishReasonToolCalls),
			},
			wantDeltas: []string{"0 tool_call_start 0", "F tool_call_done 0"},
			wantMsg:    openai.ChatCompletionMessage{Role: "assistant", ToolCalls: []openai.ToolCall{asmTC("call_0", "f", `{"n":1}`)}},
			wantFinish: openai.FinishReasonToolCalls,
		},
		{
			name: "interleaved indexes 0,1,0,1: a call is done only once its object is complete",
			chunks: []openai.ChatCompletionStreamResponse{
				asmCallChunk(asmIdx(0), "call_a", "f", `{"x":`),
				asmCallChunk(asmIdx(1), "call_b", "g", `{"y":`),
				asmCallChunk(asmIdx(0), "", "", `1}`),
				asmCallChunk(asmIdx(1), "", "", `2}`),
				asmFinish(openai.FinishReasonToolCalls),
			},
			wantDeltas: []string{"0 tool_call_start 0", "1 tool_call_start 1", "2 tool_call_done 0", "F tool_call_done 1"},
			wantMsg: openai.ChatCompletionMessage{Role: "assistant", ToolCalls: []openai.ToolCall{
				asmTC("call_a", "f", `{"x":1}`), asmTC("call_b", "g", `{"y":2}`)}},
			wantFinish: openai.FinishReasonToolCalls,
		},
		{
			name: "a fragment for a call already done is dropped",
			chunks: []openai.ChatCompletionStreamResponse{
				asmCallChunk(asmIdx(0), "call_a", "f", `{}`),
				asmCallChunk(asmIdx(1), "call_b", "g", `{`),
				asmCallChunk(asmIdx(0), "", "", `{}`), // e.g. a provider repeating the arguments
				asmCallChunk(asmIdx(1), "", "", `}`),
			},
			wantDeltas: []string{"0 tool_call_start 0", "1 tool_call_done 0", "1 tool_call_start 1", "F tool_call_done 1"},
			wantMsg: openai.ChatCompletionMessage{Role: "assistant", ToolCalls: []openai.ToolCall{
				asmTC("call_a", "f", `{}`), asmTC("call_b", "g", `{}`)}},
			wantDropped: 1,
		},
		{
			name: "index omitted, with ids",
			chunks: []openai.ChatCompletionStreamResponse{
				asmCallChunk(nil, "call_a", "f", `{"a"`),
				asmCallChunk(nil, "", "", `:1}`),
				asmCallChunk(nil, "call_b", "g", `{}`),
				asmFinish(openai.FinishReasonToolCalls),
			},
			wantDeltas: []string{"0 tool_call_start 0", "2 tool_call_done 0", "2 tool_call_start 1", "F tool_call_done 1"},
			wantMsg: openai.ChatCompletionMessage{Role: "assistant", ToolCalls: []openai.ToolCall{
				asmTC("call_a", "f", `{"a":1}`), asmTC("call_b", "g", `{}`)}},
			wantFinish: openai.FinishReasonToolCalls,
		},
		{
			name: "index and id omitted: a name begins a call, the loop assigns ids",
			chunks: []openai.ChatCompletionStreamResponse{
				asmCallChunk(nil, "", "f", `{"a":`),
				asmCallChunk(nil, "", "", `1}`),
				asmCallChunk(nil, "", "g", `{}`),
				asmCallChunk(nil, "", "f", `{"a":2}`),
			},
			wantDeltas: []string{"0 tool_call_start 0", "2 tool_call_done 0", "2 tool_call_start 1", "3 tool_call_done 1", "3 tool_call_start 2", "F tool_call_done 2"},
			wantMsg: openai.ChatCompletionMessage{Role: "assistant", ToolCalls: []openai.ToolCall{
				asmTC("", "f", `{"a":1}`), asmTC("", "g", `{}`), asmTC("", "f", `{"a":2}`)}},
		},
		{
			name: "index 0 reused for different ids",
			chunks: []openai.ChatCompletionStreamResponse{
				asmCallChunk(asmIdx(0), "call_a", "f", ""),
				asmCallChunk(asmIdx(0), "", "", `{"q":1}`),
				asmCallChunk(asmIdx(0), "call_b", "f", ""),
				asmCallChunk(asmIdx(0), "", "", `{"q":2}`),
				asmFinish(openai.FinishReasonToolCalls),
			},
			wantDeltas: []string{"0 tool_call_start 0", "2 tool_call_done 0", "2 tool_call_start 1", "F tool_call_done 1"},
			wantMsg: openai.ChatCompletionMessage{Role: "assistant", ToolCalls: []openai.ToolCall{
				asmTC("call_a", "f", `{"q":1}`), asmTC("call_b", "f", `{"q":2}`)}},
			wantFinish: openai.FinishReasonToolCalls,
		},
		{
			name: "index 0 reused without ids: a different name begins a call, the same name does not",
			chunks: []openai.ChatCompletionStreamResponse{
				asmCallChunk(asmIdx(0), "", "f", `{"q":`),
				asmCallChunk(asmIdx(0), "", "f", `1}`),
				asmCallChunk(asmIdx(0), "", "g", `{"q":2}`),
			},
			wantDeltas: []string{"0 tool_call_start 0", "2 tool_call_done 0", "2 tool_call_start 1", "F tool_call_done 1"},
			wantMsg: openai.ChatCompletionMessage{Role: "assistant", ToolCalls: []openai.ToolCall{
				asmTC("", "f", `{"q":1}`), asmTC("", "g", `{"q":2}`)}},
		},
		{
			name: "first index 3: indexes are keys, Call is the position",
			chunks: []openai.ChatCompletionStreamResponse{
				asmCallChunk(asmIdx(3), "call_a", "f", `{"a":`),
				asmCallChunk(asmIdx(3), "", "", `1}`),
				asmCallChunk(asmIdx(7), "call_b", "g", `{"b":`),
				asmCallChunk(asmIdx(7), "", "", `2}`),
			},
			wantDeltas: []string{"0 tool_call_start 0", "2 tool_call_done 0", "2 tool_call_start 1", "F tool_call_done 1"},
			wantMsg: openai.ChatCompletionMessage{Role: "assistant", ToolCalls: []openai.ToolCall{
				asmTC("call_a", "f", `{"a":1}`), asmTC("call_b", "g", `{"b":2}`)}},
		},
		{
			name: "finish_reason on the last fragment, then sent twice: the last wins, no call is cut",
			chunks: []openai.ChatCompletionStreamResponse{
				asmCallChunk(asmIdx(0), "call_a", "f", `{"a":`),
				asmWith(asmCallChunk(asmIdx(0), "", "", `1}`), func(c *openai.ChatCompletionStreamResponse) {
					c.Choices[0].FinishReason = openai.FinishReasonStop
				}),
				asmFinish(openai.FinishReasonToolCalls),
				asmFinish(openai.FinishReasonToolCalls),
			},
			wantDeltas: []string{"0 tool_call_start 0", "F tool_call_done 0"},
			wantMsg: openai.ChatCompletionMessage{Role: "assistant", ToolCalls: []openai.ToolCall{
				asmTC("call_a", "f", `{"a":1}`)}},
			wantFinish: openai.FinishReasonToolCalls,
		},
		{
			name: "empty-choices chunks: Azure's prompt filter first, usage last (the last usage wins)",
			chunks: []openai.ChatCompletionStreamResponse{
				asmPromptFilter(),
				asmWith(asmText("Hi"), func(c *openai.ChatCompletionStreamResponse) { c.Choices[0].Delta.Role = "assistant" }),
				asmText(" there"),
				asmWith(asmFinish(openai.FinishReasonStop), func(c *openai.ChatCompletionStreamResponse) {
					c.Usage = &openai.Usage{PromptTokens: 1, CompletionTokens: 1, TotalTokens: 2}
				}),
				asmUsage(64, 87),
			},
			wantDeltas: []string{`1 text "Hi"`, `2 text " there"`},
			wantMsg:    openai.ChatCompletionMessage{Role: "assistant", Content: "Hi there"},
			wantFinish: openai.FinishReasonStop,
			wantUsage:  &openai.Usage{PromptTokens: 64, CompletionTokens: 87, TotalTokens: 151},
		},
		{
			name: "arguments and content split inside multi-byte UTF-8 characters",
			chunks: []openai.ChatCompletionStreamResponse{
				asmText("40"),
				asmText("°C"[:1]),
				asmText("°C"[1:]),
				asmCallChunk(asmIdx(0), "call_a", "get_weather", beijing[:b+1]),
				asmCallChunk(asmIdx(0), "", "", beijing[b+1:b+2]),
				asmCallChunk(asmIdx(0), "", "", beijing[b+2:deg+1]),
				asmCallChunk(asmIdx(0), "", "", beijing[deg+1:]),
			},
			wantDeltas: []string{`0 text "40"`, `1 text "\xc2"`, `2 text "\xb0C"`, "3 tool_call_start 0", "F tool_call_done 0"},
			wantMsg: openai.ChatCompletionMessage{Role: "assistant", Content: "40°C", ToolCalls: []openai.ToolCall{
				asmTC("call_a", "get_weather", beijing)}},
		},
		{
			name: "reasoning kept apart from content",
			chunks: []openai.ChatCompletionStreamResponse{
				asmRole(),
				asmReasoning("User wants"),
				asmReasoning(" weather."),
				asmText("It is"),
				asmText(" hot."),
				asmFinish(openai.FinishReasonStop),
			},
			wantDeltas: []string{`1 reasoning "User wants"`, `2 reasoning " weather."`, `3 text "It is"`, `4 text " hot."`},
			wantMsg:    openai.ChatCompletionMessage{Role: "assistant", Content: "It is hot.", ReasoningContent: "User wants weather."},
			wantFinish: openai.FinishReasonStop,
		},
		{
			name: "content and tool calls in one message, each call whole in one entry (Groq)",
			chunks: []openai.ChatCompletionStreamResponse{
				asmWith(asmText(""), func(c *openai.ChatCompletionStreamResponse) { c.Choices[0].Delta.Role = "assistant" }),
				asmText("I'll add"),
				asmText(" and multiply."),
				asmCallChunk(asmIdx(0), "functions.add:0", "add", `{"a":2,"b":3}`),
				asmCallChunk(asmIdx(1), "functions.multiply:1", "multiply", `{"a":2,"b":3}`),
				asmFinish(openai.FinishReasonToolCalls),
			},
			wantDeltas: []string{`1 text "I'll add"`, `2 text " and multiply."`, "3 tool_call_start 0", "4 tool_call_done 0", "4 tool_call_start 1", "F tool_call_done 1"},
			wantMsg: openai.ChatCompletionMessage{Role: "assistant", Content: "I'll add and multiply.", ToolCalls: []openai.ToolCall{
				asmTC("functions.add:0", "add", `{"a":2,"b":3}`), asmTC("functions.multiply:1", "multiply", `{"a":2,"b":3}`)}},
			wantFinish: openai.FinishReasonToolCalls,
		},
		{
			name: "id late, ids minted per chunk, name repeated: still one call",
			chunks: []openai.ChatCompletionStreamResponse{
				asmCallChunk(asmIdx(0), "", "f", `{"a"`),
				asmCallChunk(asmIdx(0), "call_late", "", `:`),
				asmCallChunk(asmIdx(0), "call_other", "", `1`),
				asmCallChunk(asmIdx(0), "call_late", "f", `}`),
			},
			wantDeltas: []string{"0 tool_call_start 0", "F tool_call_done 0"},
			wantMsg: openai.ChatCompletionMessage{Role: "assistant", ToolCalls: []openai.ToolCall{
				asmTC("call_late", "f", `{"a":1}`)}},
		},
		{
			name: "empty arguments and a fence keep their calls open until the end",
			chunks: []openai.ChatCompletionStreamResponse{
				asmCallChunk(asmIdx(0), "call_a", "now", ""),
				asmCallChunk(asmIdx(1), "call_b", "f", "```json\n{\"a\":1}\n```"),
				asmCallChunk(asmIdx(2), "call_c", "g", `{"b":2}`),
			},
			wantDeltas: []string{"0 tool_call_start 0", "1 tool_call_start 1", "2 tool_call_start 2", "F tool_call_done 0", "F tool_call_done 1", "F tool_call_done 2"},
			wantMsg: openai.ChatCompletionMessage{Role: "assistant", ToolCalls: []openai.ToolCall{
				asmTC("call_a", "now", ""), asmTC("call_b", "f", "```json\n{\"a\":1}\n```"), asmTC("call_c", "g", `{"b":2}`)}},
		},
		{
			name: "a call that never gets a name starts just before it is done",
			chunks: []openai.ChatCompletionStreamResponse{
				asmCallChunk(asmIdx(0), "call_a", "", `{"a":1}`),
				asmCallChunk(asmIdx(1), "call_b", "g", `{}`),
			},
			wantDeltas: []string{"1 tool_call_start 0", "1 tool_call_done 0", "1 tool_call_start 1", "F tool_call_done 1"},
			wantMsg: openai.ChatCompletionMessage{Role: "assistant", ToolCalls: []openai.ToolCall{
				asmTC("call_a", "", `{"a":1}`), asmTC("call_b", "g", `{}`)}},
		},
		{
			name: "only choice 0 is read",
			chunks: []openai.ChatCompletionStreamResponse{
				asmText("zero"),
				asmWith(asmText("one"), func(c *openai.ChatCompletionStreamResponse) { c.Choices[0].Index = 1 }),
			},
			wantDeltas: []string{`0 text "zero"`},
			wantMsg:    openai.ChatCompletionMessage{Role: "assistant", Content: "zero"},
		},
		{
			name:    "nothing at all",
			wantMsg: openai.ChatCompletionMessage{Role: "assistant"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gotDeltas, gotMsg, gotFinish, gotUsage, a := asmRun(tt.chunks)
			if diff := cmp.Diff(tt.wantDeltas, gotDeltas); diff != "" {
				t.Errorf("deltas (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantMsg, gotMsg); diff != "" {
				t.Errorf("message (-want +got):\n%s", diff)
			}
			if gotFinish != tt.wantFinish {
				t.Errorf("finish reason = %q, want %q", gotFinish, tt.wantFinish)
			}
			if diff := cmp.Diff(tt.wantUsage, gotUsage); diff != "" {
				t.Errorf("usage (-want +got):\n%s", diff)
			}
			if got := a.Dropped(); got != tt.wantDropped {
				t.Errorf("Dropped() = %d, want %d", got, tt.wantDropped)
			}
		})
	}
}

// TestAssemblerEveryByteSplit splits one stream's arguments and content at every byte,
// inside multi-byte characters included: the message is always the same.
func TestAssemblerEveryByteSplit(t *testing.T) {
	const args = `{"city":"北京","note":"😀 ok"}`
	const text = "Température à 北京: 26℃ 😀"
	for i := 0; i <= len(args); i++ {
		for j := 0; j <= len(text); j += 3 {
			chunks := []openai.ChatCompletionStreamResponse{
				asmText(text[:j]), asmText(text[j:]),
				asmCallChunk(asmIdx(0), "call_a", "f", args[:i]),
				asmCallChunk(asmIdx(0), "", "", args[i:]),
			}
			_, msg, _, _, _ := asmRun(chunks)
			want := openai.ChatCompletionMessage{Role: "assistant", Content: text, ToolCalls: []openai.ToolCall{asmTC("call_a", "f", args)}}
			if diff := cmp.Diff(want, msg); diff != "" {
				t.Fatalf("split at %d/%d (-want +got):\n%s", i, j, diff)
			}
		}
	}
}

func TestAssemblerCall(t *testing.T) {
	var a agentkit.Assembler
	ds := a.Add(nil, asmCallChunk(asmIdx(0), "call_a", "f", `{"a"`))
	if diff := cmp.Diff([]agentkit.Delta{{Kind: agentkit.DeltaToolCallStart, Call: 0}}, ds); diff != "" {
		t.Fatalf("deltas (-want +got):\n%s", diff)
	}
	if got, want := a.Call(0), asmTC("call_a", "f", `{"a"`); !cmp.Equal(got, want) {
		t.Errorf("Call(0) so far = %+v, want %+v", got, want)
	}
	ds = a.Add(ds[:0], asmCallChunk(asmIdx(0), "", "", `:1}`))
	ds = a.Add(ds, asmCallChunk(asmIdx(1), "call_b", "g", ""))
	want := []agentkit.Delta{{Kind: agentkit.DeltaToolCallDone, Call: 0}, {Kind: agentkit.DeltaToolCallStart, Call: 1}}
	if diff := cmp.Diff(want, ds); diff != "" {
		t.Fatalf("deltas (-want +got):\n%s", diff)
	}
	if got, want := a.Call(0), asmTC("call_a", "f", `{"a":1}`); !cmp.Equal(got, want) {
		t.Errorf("Call(0) when done = %+v, want %+v", got, want)
	}
}

// TestAssemblerPartial: a stream cut mid-way keeps its text and loses every call, done or
// not.
func TestAssemblerPartial(t *testing.T) {
	tests := []struct {
		name     string
		chunks   []openai.ChatCompletionStreamResponse
		wantMsg  openai.ChatCompletionMessage
		wantLost int
	}{
		{"cut in the text", []openai.ChatCompletionStreamResponse{asmRole(), asmReasoning("hm"), asmText("The answer is")},
			openai.ChatCompletionMessage{Role: "assistant", Content: "The answer is", ReasoningContent: "hm"}, 0},
		{"cut in the second call, the first done", []openai.ChatCompletionStreamResponse{
			asmText("Let me check."),
			asmCallChunk(asmIdx(0), "call_a", "f", `{"a":1}`),
			asmCallChunk(asmIdx(1), "call_b", "g", `{"b":`),
		}, openai.ChatCompletionMessage{Role: "assistant", Content: "Let me check."}, 2},
		{"nothing received", nil, openai.ChatCompletionMessage{Role: "assistant"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a agentkit.Assembler
			for _, c := range tt.chunks {
				a.Add(nil, c)
			}
			msg, lost := a.Partial()
			if diff := cmp.Diff(tt.wantMsg, msg); diff != "" {
				t.Errorf("Partial message (-want +got):\n%s", diff)
			}
			if lost != tt.wantLost {
				t.Errorf("Partial lost %d calls, want %d", lost, tt.wantLost)
			}
		})
	}
}

func ExampleAssembler() {
	// The chunks as a stream's Recv returns them (here: two parallel calls, OpenAI-style).
	index := func(i int) *int { return &i }
	call := func(i int, id, name, args string) openai.ChatCompletionStreamResponse {
		return openai.ChatCompletionStreamResponse{Choices: []openai.ChatCompletionStreamChoice{{Delta: openai.ChatCompletionStreamChoiceDelta{
			ToolCalls: []openai.ToolCall{{Index: index(i), ID: id, Function: openai.FunctionCall{Name: name, Arguments: args}}}}}}}
	}
	chunks := []openai.ChatCompletionStreamResponse{
		{Choices: []openai.ChatCompletionStreamChoice{{Delta: openai.ChatCompletionStreamChoiceDelta{Role: "assistant", Content: "Checking both."}}}},
		call(0, "call_1", "get_weather", ""),
		call(0, "", "", `{"city":`),
		call(0, "", "", `"Paris"}`),
		call(1, "call_2", "get_time", `{"city":"Paris"}`),
		{Choices: []openai.ChatCompletionStreamChoice{{FinishReason: openai.FinishReasonToolCalls}}},
	}

	var a agentkit.Assembler
	var ds []agentkit.Delta
	show := func(ds []agentkit.Delta) {
		for _, d := range ds {
			switch d.Kind {
			case agentkit.DeltaText:
				fmt.Printf("text %q\n", d.Text)
			case agentkit.DeltaToolCallStart:
				fmt.Printf("call %d announced: %s\n", d.Call, a.Call(d.Call).Function.Name)
			case agentkit.DeltaToolCallDone:
				fmt.Printf("call %d ready: %s\n", d.Call, a.Call(d.Call).Function.Arguments)
			}
		}
	}
	for _, c := range chunks { // for { c, err := stream.Recv(); if err == io.EOF { break } ... }
		ds = a.Add(ds[:0], c)
		show(ds)
	}
	ds, msg, finish, _ := a.Finish(ds[:0])
	show(ds)
	fmt.Println(finish, len(msg.ToolCalls), msg.ToolCalls[1].ID)
	// Output:
	// text "Checking both."
	// call 0 announced: get_weather
	// call 0 ready: {"city":"Paris"}
	// call 1 announced: get_time
	// call 1 ready: {"city":"Paris"}
	// tool_calls 2 call_2
}

// benchStream is a realistic stream of 100 chunks: role, a sentence of text, two tool calls
// whose arguments arrive in token-sized fragments, the finish chunk and the usage chunk.
func benchStream() []openai.ChatCompletionStreamResponse {
	chunks := []openai.ChatCompletionStreamResponse{asmRole()}
	for _, w := range strings.Fields("I will look up the weather in Beijing and compute the total for you now.") {
		chunks = append(chunks, asmText(w+" "))
	}
	frag := func(index int, args string, n int) { // n fragments, cut anywhere (inside 北 too)
		for k := range n {
			chunks = append(chunks, asmCallChunk(asmIdx(index), "", "", args[k*len(args)/n:(k+1)*len(args)/n]))
		}
	}
	chunks = append(chunks, asmCallChunk(asmIdx(0), "call_ZqGHKScptLaD0wmWHJYFN1Vo", "get_weather", ""))
	frag(0, `{"city": "北京", "unit": "celsius", "days": 3, "details": ["humidity", "wind", "uv"], "lang": "zh-CN"}`, 40)
	chunks = append(chunks, asmCallChunk(asmIdx(1), "call_XoLScnhw0USpb7ml5C5nfGW1", "calculator", ""))
	frag(1, `{"expression": "123.45 * 678 + 9.87 / 6.5 - (4.2 * 3.1)", "precision": 6, "mode": "decimal"}`, 40)
	chunks = append(chunks, asmFinish(openai.FinishReasonToolCalls), asmUsage(121, 50))
	return chunks
}

func BenchmarkAssemble(b *testing.B) {
	chunks := benchStream()
	var ds []agentkit.Delta
	var msg openai.ChatCompletionMessage
	for b.Loop() {
		var a agentkit.Assembler
		ds = ds[:0]
		for _, c := range chunks {
			ds = a.Add(ds, c)
		}
		ds, msg, _, _ = a.Finish(ds)
	}
	if len(chunks) != 100 || len(msg.ToolCalls) != 2 || !json.Valid([]byte(msg.ToolCalls[0].Function.Arguments)) {
		b.Fatalf("%d chunks assembled into %+v", len(chunks), msg.ToolCalls)
	}
	b.ReportMetric(float64(b.N*len(chunks))/b.Elapsed().Seconds(), "chunks/s")
	b.ReportMetric(float64(len(chunks)), "chunks/op")
}

// FuzzAssembler holds the Assembler, the parser of streamed replies, to its contract on any
// arguments split anywhere, deep and huge ones among the seeds: never a panic, and each
// call's arguments are the concatenation of its fragments, byte for byte.
func FuzzAssembler(f *testing.F) {
	for _, s := range []string{`{"city":"北京"}`, `{"a":[1,2,{"b":"}"}]}`, "", "not json", strings.Repeat("[", 1<<20), strings.Repeat(`{"a":`, 5000)} {
		f.Add(s, uint8(3), uint8(7))
	}
	f.Fuzz(func(t *testing.T, args string, cut1, cut2 uint8) {
		i := min(int(cut1), len(args))
		j := min(i+int(cut2), len(args))
		chunks := []openai.ChatCompletionStreamResponse{
			asmCallChunk(asmIdx(0), "call_a", "f", args[:i]),
			asmCallChunk(asmIdx(0), "", "", args[i:j]),
			asmCallChunk(asmIdx(0), "", "", args[j:]),
			asmCallChunk(asmIdx(1), "call_b", "g", args),
			asmFinish(openai.FinishReasonToolCalls),
		}
		_, msg, _, _, _ := asmRun(chunks)
		if len(msg.ToolCalls) != 2 {
			t.Fatalf("%d calls, want 2", len(msg.ToolCalls))
		}
		if msg.ToolCalls[0].Function.Arguments != args {
			t.Errorf("call 0's arguments %q, want %q", msg.ToolCalls[0].Function.Arguments, args)
		}
		if msg.ToolCalls[1].Function.Arguments != args {
			t.Errorf("call 1's arguments %q, want %q", msg.ToolCalls[1].Function.Arguments, args)
		}
	})
}
