package memory

import (
	"slices"

	openai "github.com/sashabaranov/go-openai"
)

// loadRoom is the spare capacity of a loaded history: the system prompt and the first
// messages of the run that loads it fit without a new array.
const loadRoom = 8

// appendClones appends deep copies of msgs to dst: the caller and the store may then modify
// their own copy without the other seeing it.
func appendClones(dst, msgs []openai.ChatCompletionMessage) []openai.ChatCompletionMessage {
	for _, m := range msgs {
		dst = append(dst, cloneMessage(m))
	}
	return dst
}

// cloneMessage copies everything m points to: tool calls and their stream indexes, parts and
// their image URLs, the legacy function call.
func cloneMessage(m openai.ChatCompletionMessage) openai.ChatCompletionMessage {
	m.ToolCalls = slices.Clone(m.ToolCalls)
	for i := range m.ToolCalls {
		if p := m.ToolCalls[i].Index; p != nil {
			n := *p
			m.ToolCalls[i].Index = &n
		}
	}
	m.MultiContent = slices.Clone(m.MultiContent)
	for i := range m.MultiContent {
		if u := m.MultiContent[i].ImageURL; u != nil {
			c := *u
			m.MultiContent[i].ImageURL = &c
		}
	}
	if m.FunctionCall != nil {
		f := *m.FunctionCall
		m.FunctionCall = &f
	}
	return m
}
