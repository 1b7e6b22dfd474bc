package openaichat

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
)

// Request holds request fields go-openai's ChatCompletionRequest has no field for. The zero
// value adds none. A Client sends Options.Request's with every request, and a request's own
// (see [WithRequest]) over them, field by field.
type Request struct {
	// PromptCacheKey is OpenAI's prompt_cache_key: requests that share a key and a prefix
	// are routed to the same prompt cache (one key per conversation or per user keeps the
	// cache warm).
	PromptCacheKey string
	// Provider is OpenRouter's provider routing ("provider").
	Provider *ProviderRouting
	// Reasoning is OpenRouter's reasoning options ("reasoning"). OpenAI's reasoning_effort is
	// go-openai's ChatCompletionRequest.ReasoningEffort.
	Reasoning *Reasoning
	// CacheControl, when set, marks two cache breakpoints for gateways that pass
	// cache_control on to Anthropic (OpenRouter, the Vercel AI gateway, LiteLLM): the last
	// of the leading system and developer messages, and the request's last message. A
	// marked message's text is sent as one text part that carries cache_control.
	CacheControl *CacheControl
	// Fields holds any other top-level fields of the request body, each as JSON. A field
	// go-openai also sends is replaced (to send a value its omitempty drops: "top_p": 0);
	// "model", "messages" and "stream" are refused with an error.
	Fields map[string]json.RawMessage
}

// ProviderRouting is OpenRouter's provider routing object; see
// https://openrouter.ai/docs/features/provider-routing. Unset fields are not sent.
type ProviderRouting struct {
	Order             []string `json:"order,omitempty"`
	AllowFallbacks    *bool    `json:"allow_fallbacks,omitempty"`
	RequireParameters bool     `json:"require_parameters,omitempty"`
	DataCollection    string   `json:"data_collection,omitempty"` // "allow" or "deny"
	ZDR               *bool    `json:"zdr,omitempty"`
	Only              []string `json:"only,omitempty"`
	Ignore            []string `json:"ignore,omitempty"`
	Quantizations     []string `json:"quantizations,omitempty"`
	Sort              string   `json:"sort,omitempty"` // "price", "throughput" or "latency"
}

// Reasoning is OpenRouter's reasoning options; see
// https://openrouter.ai/docs/use-cases/reasoning-tokens. Unset fields are not sent.
type Reasoning struct {
	Effort    string `json:"effort,omitempty"` // "minimal", "low", "medium" or "high"
	MaxTokens int    `json:"max_tokens,omitempty"`
	Exclude   bool   `json:"exclude,omitempty"`
	Enabled   *bool  `json:"enabled,omitempty"`
}

// CacheControl is Anthropic's cache_control object.
type CacheControl struct {
	Type string `json:"type"`          // "ephemeral"
	TTL  string `json:"ttl,omitempty"` // "5m" or "1h"; empty means the provider's default
}

type requestKey struct{}

// WithRequest returns a context under which a Client's requests carry r's fields over those
// of Options.Request. An agent passes its run's context to its model, so
//
//	agent.Run(openaichat.WithRequest(ctx, openaichat.Request{PromptCacheKey: user}), prompt)
//
// sets them for every request of that run.
func WithRequest(ctx context.Context, r Request) context.Context {
	return context.WithValue(ctx, requestKey{}, r)
}

// merged returns the Request for ctx: Options.Request under the context's.
func (c *Client) merged(ctx context.Context) Request {
	r := c.opts.Request
	o, ok := ctx.Value(requestKey{}).(Request)
	if !ok {
		return r
	}
	if o.PromptCacheKey != "" {
		r.PromptCacheKey = o.PromptCacheKey
	}
	if o.Provider != nil {
		r.Provider = o.Provider
	}
	if o.Reasoning != nil {
		r.Reasoning = o.Reasoning
	}
	if o.CacheControl != nil {
		r.CacheControl = o.CacheControl
	}
	if len(o.Fields) > 0 {
		r.Fields = maps.Clone(r.Fields)
		if r.Fields == nil {
			r.Fields = map[string]json.RawMessage{}
		}
		maps.Copy(r.Fields, o.Fields)
	}
	return r
}

// SessionCacheKey returns the prompt_cache_key of Options.SessionCacheKey for session: "tc-"
// and the first 32 hex digits of the SHA-256 of the id, the same in every process (a
// session resumed elsewhere keeps its key) and not the id itself (which may name a user).
// The hash is not keyed: whoever can guess an id (an email address, a user number) can
// check it against its key, as against any unsalted hash. Where ids are guessable, set the
// key yourself (Options.Request, [WithRequest]) from a keyed hash (an HMAC under a secret
// of yours), or use random session ids.
func SessionCacheKey(session string) string {
	sum := sha256.Sum256([]byte(session))
	return "tc-" + hex.EncodeToString(sum[:16])
}

// wireRequest is a request body: go-openai's request, with the fields it marshals
// differently or lacks (its Temperature is shadowed, so that a zero temperature is sent).
type wireRequest struct {
	openai.ChatCompletionRequest
	Messages       any              `json:"messages"` // []openai.ChatCompletionMessage, or []json.RawMessage when some are rewritten
	Temperature    *float32         `json:"temperature,omitempty"`
	PromptCacheKey string           `json:"prompt_cache_key,omitempty"`
	Provider       *ProviderRouting `json:"provider,omitempty"`
	Reasoning      *Reasoning       `json:"reasoning,omitempty"`
}

// encodeRequest returns the body of req: go-openai's marshaling, with each message's provider
// extras sent back, a zero temperature sent as 0, and the Request's fields.
func (c *Client) encodeRequest(ctx context.Context, req openai.ChatCompletionRequest, stream bool) ([]byte, error) {
	extra := c.merged(ctx)
	if s, _ := agentkit.SessionFromContext(ctx); c.opts.SessionCacheKey && s != "" && extra.PromptCacheKey == "" {
		extra.PromptCacheKey = SessionCacheKey(s)
	}
	req.Stream = stream
	w := wireRequest{ChatCompletionRequest: req, Messages: req.Messages,
		PromptCacheKey: extra.PromptCacheKey, Provider: extra.Provider, Reasoning: extra.Reasoning}
	switch t := req.Temperature; t {
	case agentkit.WireZeroTemperature:
		w.Temperature = new(float32)
	case 0: // none: the provider's default (reasoning models refuse one)
	default:
		w.Temperature = &t
	}
	marks := cacheMarks(req.Messages, extra.CacheControl)
	if rewrites(req.Messages, marks) {
		wire := make([]json.RawMessage, len(req.Messages))
		for i, m := range req.Messages {
			var err error
			if wire[i], err = encodeMessage(m, marks[i]); err != nil {
				return nil, fmt.Errorf("openaichat: encoding message %d: %w", i, err)
			}
		}
		w.Messages = wire
	}
	b, err := json.Marshal(w)
	if err != nil || len(extra.Fields) == 0 {
		return b, err
	}
	var body map[string]json.RawMessage
	if err := json.Unmarshal(b, &body); err != nil {
		return nil, fmt.Errorf("openaichat: encoding the request: %w", err)
	}
	for k, v := range extra.Fields {
		switch k {
		case "model", "messages", "stream":
			return nil, fmt.Errorf("openaichat: Request.Fields may not set %q: it is the request's own", k)
		}
		if !json.Valid(v) {
			return nil, fmt.Errorf("openaichat: Request.Fields[%q] is not JSON", k)
		}
		body[k] = v
	}
	return json.Marshal(body)
}

// rewrites reports whether a message must be sent otherwise than go-openai marshals it: it
// carries provider extras, or a cache mark.
func rewrites(msgs []openai.ChatCompletionMessage, marks []*CacheControl) bool {
	for i, m := range msgs {
		if marks[i] != nil || (m.FunctionCall != nil && m.FunctionCall.Name == agentkit.ExtrasName) {
			return true
		}
	}
	return false
}

// cacheMarks returns, per message, the cache_control to put on it.
func cacheMarks(msgs []openai.ChatCompletionMessage, cc *CacheControl) []*CacheControl {
	marks := make([]*CacheControl, len(msgs))
	if cc == nil || len(msgs) == 0 {
		return marks
	}
	lead := -1
	for i, m := range msgs {
		if m.Role != openai.ChatMessageRoleSystem && m.Role != openai.ChatMessageRoleDeveloper {
			break
		}
		lead = i
	}
	if lead >= 0 {
		marks[lead] = cc
	}
	marks[len(msgs)-1] = cc
	return marks
}

// The wire fields of go-openai's ChatCompletionMessage and ToolCall, which extras never set.
var (
	messageFields  = map[string]bool{"role": true, "content": true, "refusal": true, "name": true, "reasoning_content": true, "function_call": true, "tool_calls": true, "tool_call_id": true}
	toolCallFields = map[string]bool{"index": true, "id": true, "type": true, "function": true}
)

// encodeMessage returns m as go-openai marshals it, with its provider extras sent back and,
// when cc is set, its text as one text part carrying cache_control.
func encodeMessage(m openai.ChatCompletionMessage, cc *CacheControl) (json.RawMessage, error) {
	e, hasExtras := agentkit.Extras(m)
	if m.FunctionCall != nil && m.FunctionCall.Name == agentkit.ExtrasName {
		m.FunctionCall = nil
	}
	b, err := json.Marshal(m)
	if err != nil || (!hasExtras && cc == nil) {
		return b, err
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		return nil, err
	}
	for k, v := range e.Message {
		if !messageFields[k] { // extras never replace go-openai's fields
			obj[k] = v
		}
	}
	if len(e.ToolCalls) > 0 && len(e.ToolCalls) == len(m.ToolCalls) {
		var calls []map[string]json.RawMessage
		if err := json.Unmarshal(obj["tool_calls"], &calls); err != nil {
			return nil, err
		}
		for i := range calls {
			for k, v := range e.ToolCalls[i] {
				if !toolCallFields[k] {
					calls[i][k] = v
				}
			}
		}
		if obj["tool_calls"], err = json.Marshal(calls); err != nil {
			return nil, err
		}
	}
	if cc != nil {
		if err := markCache(obj, m, cc); err != nil {
			return nil, err
		}
	}
	return json.Marshal(obj)
}

// markCache puts cc on the last text part of a message's content, turning a string content
// into one text part.
func markCache(obj map[string]json.RawMessage, m openai.ChatCompletionMessage, cc *CacheControl) error {
	type part struct {
		openai.ChatMessagePart
		CacheControl *CacheControl `json:"cache_control,omitempty"`
	}
	var parts []part
	switch {
	case m.Content != "":
		parts = []part{{ChatMessagePart: openai.ChatMessagePart{Type: openai.ChatMessagePartTypeText, Text: m.Content}}}
	case len(m.MultiContent) > 0:
		for _, p := range m.MultiContent {
			parts = append(parts, part{ChatMessagePart: p})
		}
	default:
		return nil // no content to mark (an assistant message with calls only)
	}
	for i := len(parts) - 1; i >= 0; i-- {
		if parts[i].Type == openai.ChatMessagePartTypeText {
			parts[i].CacheControl = cc
			break
		}
	}
	b, err := json.Marshal(parts)
	obj["content"] = b
	return err
}
