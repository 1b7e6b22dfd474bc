package agentkit

import (
	"encoding/json"

	openai "github.com/sashabaranov/go-openai"
)

// ProviderExtras are the fields a provider sent on an assistant message, and on its tool
// calls, that go-openai's types have no field for: OpenRouter's and the Vercel AI gateway's
// reasoning and reasoning_details (Gemini's thought signatures, Claude's signed thinking),
// Google's extra_content.google.thought_signature. Providers want them back unchanged in the
// next request; a history that loses them is refused (Gemini answers 400) or loses the
// model's reasoning.
//
// A Model that decodes them (openaichat.Client does) puts them on the message it returns
// with [SetExtras]; from there they travel with the message wherever it goes — the run's
// transcript, Result.Messages, a Memory (every store that keeps messages as go-openai
// marshals them keeps them), context strategies (a view keeps a message whole) — and back
// to the model, which sends them as it received them.
//
// Where they travel: go-openai's message has no field for them, and the history type stays
// go-openai's. They are carried in the message's FunctionCall, the legacy function-calling
// field that an agentkit history never uses otherwise ([ValidateHistory] refuses it), under
// the reserved name [ExtrasName], which no function can have. go-openai marshals that field,
// so every store persists it. The agent removes it from a request before the request reaches
// a Model that does not send extras (see [ExtrasModel]), so that a go-openai client never
// sends it as a function_call.
type ProviderExtras struct {
	// Message holds the assistant message's fields by wire name, each as the provider sent
	// it (for a stream, merged from its chunks).
	Message map[string]json.RawMessage `json:"message,omitempty"`
	// ToolCalls holds the fields of the message's tool calls, in the order of its ToolCalls
	// (a nil map for a call without any); empty when no call has any.
	ToolCalls []map[string]json.RawMessage `json:"tool_calls,omitempty"`
}

// ExtrasName is the FunctionCall.Name that marks a message's FunctionCall as the carrier of
// its [ProviderExtras] (FunctionCall.Arguments holds them as JSON). The dot keeps it apart
// from every function name providers accept.
const ExtrasName = "toolcall.provider_extras"

// ExtrasModel is implemented by a Model that sends [ProviderExtras] back to the provider.
// Before a request reaches a Model, the agent removes the extras from its messages unless
// the Model is an ExtrasModel whose SendsExtras reports true. [WrapModel] keeps the answer
// of the model it wraps.
type ExtrasModel interface {
	Model
	SendsExtras() bool
}

// Extras returns the provider extras m carries, and whether it carries any.
func Extras(m openai.ChatCompletionMessage) (ProviderExtras, bool) {
	var e ProviderExtras
	if !isExtras(m.FunctionCall) || json.Unmarshal([]byte(m.FunctionCall.Arguments), &e) != nil {
		return ProviderExtras{}, false
	}
	return e, len(e.Message) > 0 || len(e.ToolCalls) > 0
}

// SetExtras returns m carrying e, replacing the extras it carried; with an empty e, m
// carries none.
func SetExtras(m openai.ChatCompletionMessage, e ProviderExtras) openai.ChatCompletionMessage {
	if isExtras(m.FunctionCall) {
		m.FunctionCall = nil
	}
	if len(e.Message) == 0 && len(e.ToolCalls) == 0 {
		return m
	}
	b, err := json.Marshal(e)
	if err != nil { // json.RawMessage values that are not JSON: nothing valid to carry
		return m
	}
	m.FunctionCall = &openai.FunctionCall{Name: ExtrasName, Arguments: string(b)}
	return m
}

func isExtras(fc *openai.FunctionCall) bool { return fc != nil && fc.Name == ExtrasName }

// withoutExtras returns msgs without provider extras, copied only when one carries some.
func withoutExtras(msgs []openai.ChatCompletionMessage) []openai.ChatCompletionMessage {
	out := msgs
	for i := range msgs {
		if isExtras(msgs[i].FunctionCall) {
			if &out[0] == &msgs[0] {
				out = append([]openai.ChatCompletionMessage(nil), msgs...)
			}
			out[i].FunctionCall = nil
		}
	}
	return out
}

// sendsExtras reports whether m sends provider extras to the provider.
func sendsExtras(m Model) bool {
	em, ok := m.(ExtrasModel)
	return ok && em.SendsExtras()
}
