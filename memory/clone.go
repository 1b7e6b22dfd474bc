package memory

import openai "github.com/sashabaranov/go-openai"

// cloneMessages returns a deep copy of msgs: the caller and the store may then modify their
// own copy without the other seeing it.
func cloneMessages(msgs []openai.ChatCompletionMessage) []openai.ChatCompletionMessage {
	if msgs == nil {
		return nil
	}
	out := make([]openai.ChatCompletionMessage, len(msgs))
	for i := range msgs {
		out[i] = cloneMessage(msgs[i])
	}
	return out
}

// cloneMessage copies everything m points to: parts, image URLs, tool calls.
func cloneMessage(m openai.ChatCompletionMessage) openai.ChatCompletionMessage {
	if m.MultiContent != nil {
		parts := make([]openai.ChatMessagePart, len(m.MultiContent))
		copy(parts, m.MultiContent)
		for i := range parts {
			if u := parts[i].ImageURL; u != nil {
				c := *u
				parts[i].ImageURL = &c
			}
		}
		m.MultiContent = parts
	}
	if m.FunctionCall != nil {
		f := *m.FunctionCall
		m.FunctionCall = &f
	}
	if m.ToolCalls != nil {
		calls := make([]openai.ToolCall, len(m.ToolCalls))
		copy(calls, m.ToolCalls)
		for i := range calls {
			if p := calls[i].Index; p != nil {
				n := *p
				calls[i].Index = &n
			}
		}
		m.ToolCalls = calls
	}
	return m
}
