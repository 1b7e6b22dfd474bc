package memory_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/memory"
	"github.com/toolcall/toolcall/memory/memorytest"
)

func TestModelSummarizer(t *testing.T) {
	turns := append([]openai.ChatCompletionMessage{memorytest.User("北京天气怎么样？")}, memorytest.Step("call_1", 1)...)
	turns = append(turns, memorytest.Assistant("北京晴。"))
	model := agentkittest.New(t, agentkittest.Text("  ## Task and user's constraints\n查北京天气\n"))
	s := memory.ModelSummarizer{Model: model, ModelName: "gpt-4o-mini", MaxTokens: 500}
	got, err := s.Summarize(context.Background(), "## Task and user's constraints\nearlier", turns)
	if err != nil {
		t.Fatal(err)
	}
	if want := "## Task and user's constraints\n查北京天气"; got != want {
		t.Errorf("summary = %q, want %q", got, want)
	}
	req := model.Requests()[0]
	if req.Model != "gpt-4o-mini" || req.MaxCompletionTokens != 500 || len(req.Messages) != 2 {
		t.Fatalf("request = %+v", req)
	}
	if req.Messages[0].Content != memory.DefaultSummaryPrompt {
		t.Errorf("system prompt is not DefaultSummaryPrompt")
	}
	wantUser := "Previous summary:\n## Task and user's constraints\nearlier\n\nMessages to fold into it:\n" +
		"[user] 北京天气怎么样？\n" +
		"[assistant called get_weather] {\"city\":\"北京\",\"n\":0}\n" +
		"[tool result of get_weather] 晴，26℃ #call_1_0\n" +
		"[assistant] 北京晴。\n"
	if diff := cmp.Diff(wantUser, req.Messages[1].Content); diff != "" {
		t.Errorf("user message (-want +got):\n%s", diff)
	}
	for _, section := range []string{"## Task and user's constraints", "## Facts learned from tools", "## Decisions taken", "## Open items"} {
		if !strings.Contains(memory.DefaultSummaryPrompt, section) {
			t.Errorf("DefaultSummaryPrompt lacks the section %q", section)
		}
	}
}

func TestModelSummarizerErrors(t *testing.T) {
	turns := []openai.ChatCompletionMessage{memorytest.User("q")}
	boom := errors.New("boom")
	tests := []struct {
		name  string
		s     memory.ModelSummarizer
		want  string
		isErr error
	}{
		{"no model", memory.ModelSummarizer{}, "no Model", nil},
		{"model error", memory.ModelSummarizer{Model: agentkittest.New(t, agentkittest.Error(boom))}, "boom", boom},
		{"empty summary", memory.ModelSummarizer{Model: agentkittest.New(t, agentkittest.Text(" "))}, "empty summary", nil},
		{"no choices", memory.ModelSummarizer{Model: agentkittest.New(t, agentkittest.Reply{Response: &openai.ChatCompletionResponse{}})}, "no choices", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.s.Summarize(context.Background(), "", turns)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one containing %q", err, tt.want)
			}
			if tt.isErr != nil && !errors.Is(err, tt.isErr) {
				t.Errorf("err = %v does not wrap %v", err, tt.isErr)
			}
		})
	}
}

func TestRenderTurns(t *testing.T) {
	msgs := []openai.ChatCompletionMessage{
		{Role: "user", MultiContent: []openai.ChatMessagePart{{Type: "text", Text: "what is this?"}, {Type: "image_url", ImageURL: &openai.ChatMessageImageURL{URL: "u"}}}},
		{Role: "assistant", Content: "Let me look.", ToolCalls: []openai.ToolCall{{ID: "a", Type: "function", Function: openai.FunctionCall{Name: "vision", Arguments: `{"x":1}`}}}},
		{Role: "tool", ToolCallID: "a", Content: "0123456789abcdefghijklmnopqrstuvwxyz"},
		{Role: "tool", ToolCallID: "zzz", Content: "orphan"},
		{Role: "assistant", Refusal: "no"},
	}
	want := "[user] what is this? [image]\n" +
		"[assistant] Let me look.\n" +
		"[assistant called vision] {\"x\":1}\n" +
		"[tool result of vision] 0123456789abcdefg …[11 characters omitted]… stuvwxyz\n" +
		"[tool result of unknown tool] orphan\n" +
		"[assistant] (refused) no\n"
	if diff := cmp.Diff(want, memory.RenderTurns(msgs, 25)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// A limit of zero or less means the default, 4000 characters, as ModelSummarizer's
// MaxMessageChars does: it never panics, and never cuts everything.
func TestRenderTurnsLimit(t *testing.T) {
	long := strings.Repeat("a", 3000) + strings.Repeat("b", 3000)
	msgs := []openai.ChatCompletionMessage{
		{Role: "user", Content: "short"},
		{Role: "assistant", ToolCalls: []openai.ToolCall{{ID: "a", Type: "function", Function: openai.FunctionCall{Name: "f", Arguments: long}}}},
		{Role: "tool", ToolCallID: "a", Content: long},
	}
	cutLong := strings.Repeat("a", 2667) + " …[2000 characters omitted]… " + strings.Repeat("b", 1333)
	want := "[user] short\n[assistant called f] " + cutLong + "\n[tool result of f] " + cutLong + "\n"
	for _, limit := range []int{4000, 0, -1, -2, -4000, math.MinInt} {
		got := func() (got string) {
			defer func() {
				if p := recover(); p != nil {
					got = fmt.Sprintf("panic: %v", p)
				}
			}()
			return memory.RenderTurns(msgs, limit)
		}()
		if got != want {
			t.Errorf("RenderTurns(msgs, %d) = %.100q… (%d bytes), want %.100q… (%d bytes)", limit, got, len(got), want, len(want))
		}
	}
}
