package memory_test

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/memory"
)

func TestCounterEncoding(t *testing.T) {
	tests := []struct{ model, want string }{
		{"gpt-4o", "o200k_base"},
		{"gpt-4o-mini", "o200k_base"},
		{"gpt-4o-2024-08-06", "o200k_base"},
		{"GPT-4.1-nano", "o200k_base"},
		{"gpt-5", "o200k_base"},
		{"gpt-5-mini", "o200k_base"},
		{"o1", "o200k_base"},
		{"o3-mini", "o200k_base"},
		{"o4-mini", "o200k_base"},
		{"openai/gpt-4o", "o200k_base"},
		{"ft:gpt-4o-mini:acme::abc", "o200k_base"},
		{"gpt-oss-120b", "o200k_base"},
		{"gpt-4", "cl100k_base"},
		{"gpt-4-turbo", "cl100k_base"},
		{"gpt-3.5-turbo", "cl100k_base"},
		{"deepseek-chat", "cl100k_base"},
		{"qwen-plus", "cl100k_base"},
		{"o1x", "cl100k_base"}, // not the o1 family
		{"", "cl100k_base"},
	}
	for _, tt := range tests {
		if got := memory.NewCounter(tt.model).Encoding(); got != tt.want {
			t.Errorf("NewCounter(%q).Encoding() = %q, want %q", tt.model, got, tt.want)
		}
	}
	var zero memory.Counter
	if got := zero.Encoding(); got != "bytes/4" {
		t.Errorf("zero Counter Encoding() = %q, want bytes/4", got)
	}
}

func TestCounterText(t *testing.T) {
	tests := []struct {
		model, text string
		want        int
	}{
		{"gpt-4", "hello world", 2},
		{"gpt-4o", "hello world", 2},
		{"gpt-4", "", 0},
		{"gpt-4", "tiktoken is great!", 6},
	}
	for _, tt := range tests {
		if got := memory.NewCounter(tt.model).Text(tt.text); got != tt.want {
			t.Errorf("NewCounter(%q).Text(%q) = %d, want %d", tt.model, tt.text, got, tt.want)
		}
	}
	var zero memory.Counter
	if got := zero.Text("12345678"); got != 2 {
		t.Errorf("zero Counter Text(8 bytes) = %d, want 2", got)
	}
}

// The OpenAI cookbook's example ("How to count tokens with tiktoken"), whose counts it
// checked against the API's usage: 129 prompt tokens for gpt-3.5-turbo and gpt-4, 124 for
// gpt-4o and gpt-4o-mini.
func TestCounterMessagesCookbook(t *testing.T) {
	sys := func(name, content string) openai.ChatCompletionMessage {
		return openai.ChatCompletionMessage{Role: openai.ChatMessageRoleSystem, Name: name, Content: content}
	}
	msgs := []openai.ChatCompletionMessage{
		sys("", "You are a helpful, pattern-following assistant that translates corporate jargon into plain English."),
		sys("example_user", "New synergies will help drive top-line growth."),
		sys("example_assistant", "Things working well together will increase revenue."),
		sys("example_user", "Let's circle back when we have more bandwidth to touch base on opportunities for increased leverage."),
		sys("example_assistant", "Let's talk later when we're less busy about how to do better."),
		{Role: openai.ChatMessageRoleUser, Content: "This late pivot means we don't have time to boil the ocean for the client deliverable."},
	}
	tests := []struct {
		model string
		want  int
	}{
		{"gpt-3.5-turbo", 129},
		{"gpt-4", 129},
		{"gpt-4o", 124},
		{"gpt-4o-mini", 124},
	}
	for _, tt := range tests {
		if got := memory.NewCounter(tt.model).Messages(msgs); got != tt.want {
			t.Errorf("%s: Messages = %d, want %d", tt.model, got, tt.want)
		}
	}
}

// Single messages, with the counts of the openai-messages-token-helper project's tests
// (cl100k, o200k), which also include the 3 tokens priming the reply.
func TestCounterSingleMessages(t *testing.T) {
	tests := []struct {
		msg           openai.ChatCompletionMessage
		cl100k, o200k int
	}{
		{openai.ChatCompletionMessage{Role: "system", Content: "You are a bot."}, 12, 12},
		{openai.ChatCompletionMessage{Role: "system", Content: "You are a helpful, pattern-following assistant that translates corporate jargon into plain English."}, 25, 24},
		{openai.ChatCompletionMessage{Role: "system", Content: "á"}, 8, 8},
		{openai.ChatCompletionMessage{Role: "system", Name: "example_user", Content: "New synergies will help drive top-line growth."}, 20, 20},
		{openai.ChatCompletionMessage{Role: "user", Content: "Hello, how are you?"}, 13, 13},
		{openai.ChatCompletionMessage{Role: "user", Content: "What happens in a performance review?"}, 14, 14},
	}
	cl, o := memory.NewCounter("gpt-4"), memory.NewCounter("gpt-4o")
	for _, tt := range tests {
		msgs := []openai.ChatCompletionMessage{tt.msg}
		if got := cl.Messages(msgs); got != tt.cl100k {
			t.Errorf("cl100k %q: %d, want %d", tt.msg.Content, got, tt.cl100k)
		}
		if got := o.Messages(msgs); got != tt.o200k {
			t.Errorf("o200k %q: %d, want %d", tt.msg.Content, got, tt.o200k)
		}
	}
}

// The cookbook's function-calling example ("How to count tokens for function calls"): 101
// prompt tokens for gpt-4o and gpt-4o-mini, 105 for gpt-3.5-turbo and gpt-4.
func TestCounterToolsCookbook(t *testing.T) {
	tools := []openai.Tool{{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
		Name:        "get_current_weather",
		Description: "Get the current weather in a given location",
		Parameters: json.RawMessage(`{"type":"object","properties":{
			"location":{"type":"string","description":"The city and state, e.g. San Francisco, CA"},
			"unit":{"type":"string","description":"The unit of temperature to return","enum":["celsius","fahrenheit"]}},
			"required":["location"]}`),
	}}}
	msgs := []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleSystem, Content: "You are a helpful assistant that can answer to questions about the weather."},
		{Role: openai.ChatMessageRoleUser, Content: "What's the weather like in San Francisco?"},
	}
	tests := []struct {
		model string
		want  int
	}{
		{"gpt-4o", 101},
		{"gpt-4o-mini", 101},
		{"gpt-3.5-turbo", 105},
		{"gpt-4", 105},
	}
	for _, tt := range tests {
		got := memory.NewCounter(tt.model).Request(openai.ChatCompletionRequest{Messages: msgs, Tools: tools})
		if got != tt.want {
			t.Errorf("%s: Request = %d, want %d", tt.model, got, tt.want)
		}
	}
	// Parameters as a Go value count the same as raw JSON.
	var params map[string]any
	json.Unmarshal(tools[0].Function.Parameters.(json.RawMessage), &params)
	asMap := []openai.Tool{{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{Name: tools[0].Function.Name, Description: tools[0].Function.Description, Parameters: params}}}
	c := memory.NewCounter("gpt-4o")
	if got, want := c.Tools(asMap), c.Tools(tools); got != want {
		t.Errorf("Tools with map parameters = %d, with raw JSON = %d", got, want)
	}
	if got := c.Tools(nil); got != 0 {
		t.Errorf("Tools(nil) = %d, want 0", got)
	}
}

func TestCounterMessageParts(t *testing.T) {
	c := memory.NewCounter("gpt-4o")
	text := "北京天气怎么样？"
	plain := c.Message(openai.ChatCompletionMessage{Role: "user", Content: text})
	if want := 3 + 1 + c.Text(text); plain != want {
		t.Errorf("user message = %d, want %d", plain, want)
	}
	tests := []struct {
		name string
		msg  openai.ChatCompletionMessage
		want int
	}{
		{"name", openai.ChatCompletionMessage{Role: "user", Content: text, Name: "bob"}, plain + c.Text("bob") + 1},
		{"multi text", openai.ChatCompletionMessage{Role: "user", MultiContent: []openai.ChatMessagePart{{Type: "text", Text: text}}}, plain},
		{"low image", openai.ChatCompletionMessage{Role: "user", MultiContent: []openai.ChatMessagePart{{Type: "text", Text: text}, {Type: "image_url", ImageURL: &openai.ChatMessageImageURL{URL: "u", Detail: "low"}}}}, plain + 85},
		{"image", openai.ChatCompletionMessage{Role: "user", MultiContent: []openai.ChatMessagePart{{Type: "text", Text: text}, {Type: "image_url", ImageURL: &openai.ChatMessageImageURL{URL: "u"}}}}, plain + 765},
		{"tool calls", openai.ChatCompletionMessage{Role: "assistant", ToolCalls: []openai.ToolCall{
			{ID: "call_1", Type: "function", Function: openai.FunctionCall{Name: "get_weather", Arguments: `{"city":"北京"}`}},
			{ID: "call_2", Type: "function", Function: openai.FunctionCall{Name: "get_weather", Arguments: `{"city":"上海"}`}},
		}}, 4 + 2*5 + 2*c.Text("get_weather") + c.Text(`{"city":"北京"}`) + c.Text(`{"city":"上海"}`)},
		{"tool result ignores the id", openai.ChatCompletionMessage{Role: "tool", ToolCallID: "call_123456789", Content: text}, plain},
	}
	for _, tt := range tests {
		if got := c.Message(tt.msg); got != tt.want {
			t.Errorf("%s: Message = %d, want %d", tt.name, got, tt.want)
		}
	}
	if got := c.Messages(nil); got != 0 {
		t.Errorf("Messages(nil) = %d, want 0", got)
	}
}

// The cache must not confuse messages that differ only where the count differs.
func TestCounterCacheKeys(t *testing.T) {
	c := memory.NewCounter("gpt-4o")
	a := openai.ChatCompletionMessage{Role: "user", Content: "ab", Name: "c"}
	b := openai.ChatCompletionMessage{Role: "user", Content: "a", Name: "bc"}
	long := openai.ChatCompletionMessage{Role: "user", Content: strings.Repeat("word ", 100)}
	for range 3 {
		if got, want := c.Message(a), 4+c.Text("ab")+c.Text("c")+1; got != want {
			t.Fatalf("a = %d, want %d", got, want)
		}
		if got, want := c.Message(b), 4+c.Text("a")+c.Text("bc")+1; got != want {
			t.Fatalf("b = %d, want %d", got, want)
		}
		if got, want := c.Message(long), 4+c.Text(long.Content); got != want {
			t.Fatalf("long = %d, want %d", got, want)
		}
	}
}

func TestCounterConcurrent(t *testing.T) {
	c := memory.NewCounter("gpt-4o")
	msgs := syntheticConversation(20, 1)
	want := c.Messages(msgs)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 20 {
				if got := c.Messages(msgs); got != want {
					t.Errorf("concurrent Messages = %d, want %d", got, want)
					return
				}
			}
		})
	}
	wg.Wait()
}
