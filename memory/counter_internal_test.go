package memory

import (
	"testing"

	openai "github.com/sashabaranov/go-openai"
)

// The cache key tells apart messages whose texts differ only in where a 0 byte falls between
// two of them: their counts may differ, and a shared key would hand one the other's count.
func TestCounterKeySeparatesTexts(t *testing.T) {
	call := func(name, args string) []openai.ToolCall {
		return []openai.ToolCall{{Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: name, Arguments: args}}}
	}
	tests := []struct {
		name string
		a, b openai.ChatCompletionMessage
	}{
		{"0 byte ends content, or is the refusal",
			openai.ChatCompletionMessage{Role: "assistant", Content: "a\x00"},
			openai.ChatCompletionMessage{Role: "assistant", Content: "a", Refusal: "\x00"}},
		{"two 0 bytes in content, or one in each",
			openai.ChatCompletionMessage{Role: "assistant", Content: "\x00\x00"},
			openai.ChatCompletionMessage{Role: "assistant", Content: "\x00", Refusal: "\x00"}},
		{"0 byte ends the tool name, or is the arguments",
			openai.ChatCompletionMessage{Role: "assistant", ToolCalls: call("f\x00", "")},
			openai.ChatCompletionMessage{Role: "assistant", ToolCalls: call("f", "\x00")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCounter("gpt-4o")
			if c.key(&tc.a) == c.key(&tc.b) {
				t.Errorf("the two messages have the same cache key")
			}
			c.Message(tc.a) // cached first
			got, want := c.Message(tc.b), NewCounter("gpt-4o").Message(tc.b)
			if got != want {
				t.Errorf("Message(b) after Message(a) = %d, want %d (b counted alone)", got, want)
			}
		})
	}
}
