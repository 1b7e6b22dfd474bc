package sqlite_test

import (
	"fmt"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// The synthetic conversations of package memory's tests (its helpers_test.go), which the
// benchmarks of both packages share: the same sessions, so the figures compare.

// syntheticConversation returns a system prompt and turns of an agent at work: each turn a
// user question, stepsPerTurn steps of two tool calls with results of a few hundred
// characters, and an answer.
func syntheticConversation(turns, stepsPerTurn int) []openai.ChatCompletionMessage {
	msgs := []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleSystem, Content: "You are a helpful assistant. Use the tools to look things up."}}
	for i := range turns {
		msgs = append(msgs, syntheticTurn(i, stepsPerTurn)...)
	}
	return msgs
}

var cities = []string{"北京", "上海", "广州", "Paris", "London", "Tokyo", "São Paulo"}

func syntheticTurn(i, steps int) []openai.ChatCompletionMessage {
	city := cities[i%len(cities)]
	out := []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: fmt.Sprintf("Turn %d: what is the weather in %s, and the price of item %d?", i, city, i*7)}}
	for s := range steps {
		a := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant}
		var results []openai.ChatCompletionMessage
		for k, name := range []string{"get_weather", "lookup_price"} {
			id := fmt.Sprintf("call_%d_%d_%d", i, s, k)
			a.ToolCalls = append(a.ToolCalls, openai.ToolCall{ID: id, Type: openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: name, Arguments: fmt.Sprintf(`{"city":%q,"item":%d,"step":%d}`, city, i*7, s)}})
			results = append(results, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: id,
				Content: fmt.Sprintf("%s result %d for %s: ", name, i, city) + strings.Repeat(fmt.Sprintf("value %d ", i*31+s), 30)})
		}
		out = append(out, a)
		out = append(out, results...)
	}
	return append(out, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: fmt.Sprintf("In %s it is sunny; item %d costs %d yuan.", city, i*7, 100+i)})
}
