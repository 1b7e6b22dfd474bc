package memory

import (
	"strconv"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/tiktoken-go/tokenizer"
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

// countingCodec counts the texts the tokenizer is asked to count.
type countingCodec struct {
	tokenizer.Codec
	calls int
}

func (c *countingCodec) Count(s string) (int, error) {
	c.calls++
	return c.Codec.Count(s)
}

// A strategy looks up the same messages in the same order on every request. When they
// outnumber the cache (a long session with a Budget window, or many sessions sharing one
// Counter), a second pass must still find most of them: a cache emptied when full finds
// none, and tokenizes the whole history again on every request.
func TestCounterCacheKeepsMostOfALongWalk(t *testing.T) {
	c := NewCounter("gpt-4o")
	codec := &countingCodec{Codec: c.codec}
	c.codec = codec
	msgs := make([]openai.ChatCompletionMessage, counterCacheSize+counterCacheSize/4)
	for i := range msgs {
		msgs[i] = openai.ChatCompletionMessage{Role: "user", Content: strconv.Itoa(i)}
	}
	first := c.Messages(msgs)
	codec.calls = 0
	if got := c.Messages(msgs); got != first {
		t.Fatalf("the second count is %d, the first %d", got, first)
	}
	t.Logf("the second walk of %d messages tokenized %d", len(msgs), codec.calls)
	if most := len(msgs) / 2; codec.calls > most {
		t.Errorf("the second walk of %d messages tokenized %d of them, want at most %d (the cache holds %d)", len(msgs), codec.calls, most, counterCacheSize)
	}
}
