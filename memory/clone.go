package memory

import openai "github.com/sashabaranov/go-openai"

// loadRoom is the spare capacity of a loaded history: the system prompt and the first
// messages of the run that loads it fit without a new array.
const loadRoom = 8

// cloneMessages returns a deep copy of msgs: the caller and the store may then modify their
// own copy without the other seeing it.
func cloneMessages(msgs []openai.ChatCompletionMessage) []openai.ChatCompletionMessage {
	if msgs == nil {
		return nil
	}
	return appendClones(make([]openai.ChatCompletionMessage, 0, len(msgs)), msgs)
}

// appendClones appends deep copies of msgs to dst. The tool calls of all of them share one
// new array, each message's slice of it capped so that appending to one never writes into
// the next.
func appendClones(dst, msgs []openai.ChatCompletionMessage) []openai.ChatCompletionMessage {
	calls := 0
	for i := range msgs {
		calls += len(msgs[i].ToolCalls)
	}
	var pool []openai.ToolCall
	if calls > 0 {
		pool = make([]openai.ToolCall, 0, calls)
	}
	// Copy the messages in one move, then give the few that point somewhere copies of
	// their own: most messages are text.
	base := len(dst)
	dst = append(dst, msgs...)
	for i := range msgs {
		m := &dst[base+i]
		if m.ToolCalls != nil {
			if len(m.ToolCalls) == 0 {
				m.ToolCalls = []openai.ToolCall{}
			} else {
				start := len(pool)
				pool = append(pool, m.ToolCalls...)
				m.ToolCalls = pool[start:len(pool):len(pool)]
				cloneIndexes(m.ToolCalls)
			}
		}
		if m.MultiContent != nil || m.FunctionCall != nil {
			*m = cloneRest(*m)
		}
	}
	return dst
}

// cloneMessage copies everything m points to: parts, image URLs, tool calls.
func cloneMessage(m openai.ChatCompletionMessage) openai.ChatCompletionMessage {
	if m.ToolCalls != nil {
		calls := make([]openai.ToolCall, len(m.ToolCalls))
		copy(calls, m.ToolCalls)
		cloneIndexes(calls)
		m.ToolCalls = calls
	}
	return cloneRest(m)
}

// cloneRest copies what m points to but its tool calls: parts, image URLs, the legacy
// function call.
func cloneRest(m openai.ChatCompletionMessage) openai.ChatCompletionMessage {
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
	return m
}

// cloneIndexes gives each call its own copy of its stream index.
func cloneIndexes(calls []openai.ToolCall) {
	for i := range calls {
		if p := calls[i].Index; p != nil {
			n := *p
			calls[i].Index = &n
		}
	}
}
