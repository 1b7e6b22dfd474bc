package agentkit

import (
	"context"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/tool"
)

// What the loop keeps of a model's reply.

// normalize returns the message to keep in the history: the model's message with what
// providers would reject on replay fixed. The role is assistant; each tool call gets type
// "function", no stream index, a unique id (providers that omit ids, or repeat "call_0" every
// turn, exist), and arguments that are JSON: repaired when the model's text was repairable,
// "{}" when it was not (the tool result then tells the model its arguments were not JSON).
// The message as received stays in Result.Steps.
func (r *run) normalize(ctx context.Context, t *turn, m openai.ChatCompletionMessage) openai.ChatCompletionMessage {
	m.Role = openai.ChatMessageRoleAssistant
	if !isExtras(m.FunctionCall) {
		m.FunctionCall = nil // legacy function calling: never replayed
	}
	m.ToolCallID = ""
	// go-openai refuses to send Content beside a non-nil MultiContent, even an empty one: an
	// empty list goes, and otherwise Content becomes the first part.
	switch {
	case m.MultiContent == nil:
	case len(m.MultiContent) == 0:
		m.MultiContent = nil
	default:
		m.MultiContent = nonEmptyParts(append([]openai.ChatMessagePart{{Type: openai.ChatMessagePartTypeText, Text: m.Content}}, m.MultiContent...))
		m.Content = ""
	}
	if len(m.ToolCalls) == 0 {
		return m
	}
	// The calls are copied: Steps keeps the message as received, and a caller changing one
	// (redacting a step for a log) must not change the transcript.
	calls := make([]openai.ToolCall, len(m.ToolCalls))
	for i, c := range m.ToolCalls {
		c.Type = openai.ToolTypeFunction
		c.Index = nil
		if id, ok := t.ids[i]; ok { // given when the call started early
			c.ID = id
		} else {
			c.ID = r.uniqueID(ctx, c.ID, i)
		}
		if c.Function.Name == "" {
			// Providers reject a replayed call without a name; the result tells the model.
			c.Function.Name = MissingToolName
		}
		if !isJSONObject(c.Function.Arguments) { // a JSON object, as ValidateHistory wants
			if obj, _, err := tool.DecodeArguments(c.Function.Arguments, 0); err == nil {
				c.Function.Arguments = string(obj)
			} else {
				c.Function.Arguments = "{}"
			}
		}
		calls[i] = c
	}
	m.ToolCalls = calls
	return m
}
