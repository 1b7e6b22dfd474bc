package openaichat

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/internal/httpbody"
)

// Options configures a [Client]. The zero value gives the defaults on each field.
type Options struct {
	// APIKey is sent as "Authorization: Bearer <APIKey>"; empty sends no Authorization
	// header (local servers). Providers that want another header (Azure's api-key) take it
	// in Header.
	APIKey string
	// Header holds headers sent with every request (OpenRouter's HTTP-Referer and X-Title,
	// Azure's api-key).
	Header http.Header
	// Query holds query parameters added to the URL (Azure's api-version).
	Query url.Values
	// HTTPClient sends the requests; nil means a client of its own on
	// http.DefaultTransport. Timeouts belong on the request's context.
	HTTPClient *http.Client
	// MaxResponseBytes bounds a response body, a stream's as a whole: past it the call
	// fails with an error saying so. Zero means 16 MiB.
	MaxResponseBytes int64
	// Request holds request fields go-openai has no field for, sent with every request
	// (a request's own, from [WithRequest], take precedence).
	Request Request
	// SessionCacheKey, when true, gives the requests of a session run (agentkit's
	// RunSession, ResumeSession and their streamed forms, whose context carries the session:
	// agentkit.SessionFromContext) a prompt_cache_key of their own session, so that a
	// conversation's requests reach the provider's cache that holds its prefix. The key is
	// derived from the session id — [SessionCacheKey] of it — and the id itself never leaves
	// the process. A key set in Options.Request or with [WithRequest] is sent instead; the
	// requests of other runs carry none. Default false: no key unless one is set.
	SessionCacheKey bool
	// ExtraFields names more fields of an assistant message or a tool call to keep as
	// provider extras and send back, besides those of [DefaultExtraFields]. Fields
	// go-openai's types have are not extras, and are ignored here.
	ExtraFields []string
}

// DefaultExtraFields returns the fields of an assistant message or a tool call that a
// Client keeps as [agentkit.ProviderExtras] and sends back: those providers document they
// want back, and go-openai has no field for. Fields that only describe a reply (OpenAI's
// annotations and audio, the Vercel AI gateway's provider_metadata, a "channel") are not
// kept: a provider may refuse them in a request.
func DefaultExtraFields() []string {
	return []string{
		"reasoning",         // OpenRouter, Vercel AI gateway, Groq: the reasoning text
		"reasoning_details", // OpenRouter, Vercel AI gateway: signed and encrypted reasoning
		"extra_content",     // Google's OpenAI-compatible endpoint: thought signatures
		"thought_signature", // the same, on earlier versions of that endpoint
	}
}

// Client is an [agentkit.Model], an [agentkit.StreamingModel] and an [agentkit.ExtrasModel]
// that speaks the chat-completions wire over HTTP. It is safe for concurrent use; its
// methods never modify the request they are given.
type Client struct {
	url    string
	opts   Options
	http   *http.Client
	max    int64
	fields map[string]bool
}

// New returns a Client for the OpenAI-compatible API at baseURL ("https://api.openai.com/v1",
// "https://openrouter.ai/api/v1", "http://127.0.0.1:8080/v1"): it posts to
// baseURL + "/chat/completions". opts may be nil.
func New(baseURL string, opts *Options) *Client {
	c := &Client{url: strings.TrimRight(baseURL, "/") + "/chat/completions", max: 16 << 20}
	if opts != nil {
		c.opts = *opts
	}
	if len(c.opts.Query) > 0 {
		c.url += "?" + c.opts.Query.Encode()
	}
	c.http = c.opts.HTTPClient
	if c.http == nil {
		c.http = &http.Client{}
	}
	if c.opts.MaxResponseBytes > 0 {
		c.max = c.opts.MaxResponseBytes
	}
	c.fields = map[string]bool{}
	for _, f := range append(DefaultExtraFields(), c.opts.ExtraFields...) {
		c.fields[f] = !messageFields[f] && !toolCallFields[f] // go-openai's own are never extras
	}
	return c
}

// SendsExtras reports true: the Client sends provider extras back ([agentkit.ExtrasModel]).
func (c *Client) SendsExtras() bool { return true }

// CreateChatCompletion sends req and returns the reply. A provider's error comes back as an
// [*Error] (errors.As also finds an *openai.APIError in it); a transport failure as the
// http.Client's error.
func (c *Client) CreateChatCompletion(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
	resp, err := c.post(ctx, req, false)
	if err != nil {
		return openai.ChatCompletionResponse{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return openai.ChatCompletionResponse{}, err
	}
	return c.decodeResponse(ctx, resp, body)
}

// CreateChatCompletionStream sends req as a streamed request and returns the stream of the
// reply (see [agentkit.Stream]); a refused request returns its [*Error] before any chunk.
func (c *Client) CreateChatCompletionStream(ctx context.Context, req openai.ChatCompletionRequest) (agentkit.Stream, error) {
	resp, err := c.post(ctx, req, true)
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		// An error status, or a server that answered a stream request with JSON: an
		// error object is the error; a whole reply is refused rather than guessed at.
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			return nil, err
		}
		if _, err := c.decodeResponse(ctx, resp, body); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("openaichat: a stream was asked for, and the server answered %s with Content-Type %q", resp.Status, resp.Header.Get("Content-Type"))
	}
	return newStream(ctx, resp, c), nil
}

func (c *Client) post(ctx context.Context, req openai.ChatCompletionRequest, stream bool) (*http.Response, error) {
	body, err := c.encodeRequest(ctx, req, stream)
	if err != nil {
		return nil, err
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("openaichat: %w", err)
	}
	for k, vs := range c.opts.Header {
		for _, v := range vs {
			hr.Header.Add(k, v)
		}
	}
	hr.Header.Set("Content-Type", "application/json")
	if stream {
		hr.Header.Set("Accept", "text/event-stream")
	} else {
		hr.Header.Set("Accept", "application/json")
	}
	if c.opts.APIKey != "" {
		hr.Header.Set("Authorization", "Bearer "+c.opts.APIKey)
	}
	resp, err := c.http.Do(hr)
	if err != nil {
		return nil, err
	}
	resp.Body = httpbody.Limit(resp.Body, c.max, fmt.Errorf("openaichat: the response body is larger than %d bytes (Options.MaxResponseBytes)", c.max))
	return resp, nil
}

// response is a chat completion as decoded here: go-openai's, with each choice's message
// kept raw for decodeMessage, and the error object of a 200 body that is one.
type response struct {
	openai.ChatCompletionResponse
	Choices []struct {
		openai.ChatCompletionChoice
		Message json.RawMessage `json:"message"`
	} `json:"choices"`
	Error json.RawMessage `json:"error"`
	Usage json.RawMessage `json:"usage"`
}

func (c *Client) decodeResponse(ctx context.Context, resp *http.Response, body []byte) (openai.ChatCompletionResponse, error) {
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return openai.ChatCompletionResponse{}, errorResponse(resp, body)
	}
	var r response
	if err := json.Unmarshal(body, &r); err != nil {
		return openai.ChatCompletionResponse{}, fmt.Errorf("openaichat: the reply is not a chat completion: %w", err)
	}
	if r.Choices == nil && len(r.Error) > 0 && string(r.Error) != "null" { // a gateway's upstream failed
		return openai.ChatCompletionResponse{}, errorResponse(resp, body)
	}
	out := r.ChatCompletionResponse
	out.Choices = make([]openai.ChatCompletionChoice, len(r.Choices))
	for i, ch := range r.Choices {
		msg, err := c.decodeMessage(ch.Message)
		if err != nil {
			return openai.ChatCompletionResponse{}, fmt.Errorf("openaichat: choice %d: %w", i, err)
		}
		out.Choices[i] = ch.ChatCompletionChoice
		out.Choices[i].Message = msg
	}
	if len(r.Usage) > 0 && string(r.Usage) != "null" {
		if err := json.Unmarshal(r.Usage, &out.Usage); err != nil {
			return openai.ChatCompletionResponse{}, fmt.Errorf("openaichat: usage: %w", err)
		}
		agentkit.ReportUsage(ctx, reportedUsage(r.Usage, out.Usage))
	}
	out.SetHeader(resp.Header)
	return out, nil
}

// reportedUsage is the usage a provider reported, with what go-openai's Usage has no field
// for: cache writes (OpenRouter's prompt_tokens_details.cache_write_tokens, Anthropic's
// cache_creation_input_tokens as gateways pass it on) and DeepSeek's prompt_cache_hit_tokens
// when cached_tokens is absent.
func reportedUsage(raw json.RawMessage, u openai.Usage) agentkit.Usage {
	out := agentkit.UsageOf(u)
	var x struct {
		PromptTokensDetails *struct {
			CacheWriteTokens int `json:"cache_write_tokens"`
		} `json:"prompt_tokens_details"`
		CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
		PromptCacheHitTokens     int `json:"prompt_cache_hit_tokens"`
	}
	if json.Unmarshal(raw, &x) != nil {
		return out
	}
	if d := x.PromptTokensDetails; d != nil && d.CacheWriteTokens > 0 {
		out.CacheWriteTokens = d.CacheWriteTokens
	} else {
		out.CacheWriteTokens = x.CacheCreationInputTokens
	}
	if out.CachedTokens == 0 {
		out.CachedTokens = x.PromptCacheHitTokens
	}
	return out
}

// decodeMessage decodes a reply's message with go-openai, after turning arguments sent as a
// JSON value into their text, and keeps the extra fields of the message and of its calls.
func (c *Client) decodeMessage(raw json.RawMessage) (openai.ChatCompletionMessage, error) {
	var m openai.ChatCompletionMessage
	if !c.names(raw) && !argumentsAsValue(raw) { // most replies: go-openai's decoding as it is
		if err := json.Unmarshal(raw, &m); err != nil {
			return openai.ChatCompletionMessage{}, fmt.Errorf("message: %w", err)
		}
		m.FunctionCall = nil
		return m, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return openai.ChatCompletionMessage{}, fmt.Errorf("message: %w", err)
	}
	var e agentkit.ProviderExtras
	e.Message = c.extraFields(fields)
	var calls []map[string]json.RawMessage
	if tc, ok := fields["tool_calls"]; ok && string(tc) != "null" {
		if err := json.Unmarshal(tc, &calls); err != nil {
			return openai.ChatCompletionMessage{}, fmt.Errorf("tool_calls: %w", err)
		}
		for i, call := range calls {
			if x := c.extraFields(call); x != nil {
				if e.ToolCalls == nil {
					e.ToolCalls = make([]map[string]json.RawMessage, len(calls))
				}
				e.ToolCalls[i] = x
			}
			if err := argumentsText(call); err != nil {
				return openai.ChatCompletionMessage{}, fmt.Errorf("tool call %d: %w", i, err)
			}
		}
		b, _ := json.Marshal(calls)
		fields["tool_calls"] = b
		b, _ = json.Marshal(fields)
		raw = b
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return openai.ChatCompletionMessage{}, fmt.Errorf("message: %w", err)
	}
	m.FunctionCall = nil // legacy function calling; the extras go there
	return agentkit.SetExtras(m, e), nil
}

// names reports whether data may hold a field the client keeps as extras: it names one.
func (c *Client) names(data []byte) bool {
	for f, keep := range c.fields {
		if keep && bytes.Contains(data, []byte(`"`+f+`"`)) {
			return true
		}
	}
	return false
}

// argumentsAsValue reports whether data may hold a call whose "arguments" is not a string.
func argumentsAsValue(data []byte) bool {
	for rest := data; ; {
		i := bytes.Index(rest, []byte(`"arguments"`))
		if i < 0 {
			return false
		}
		rest = bytes.TrimLeft(rest[i+len(`"arguments"`):], " \t\r\n")
		if len(rest) > 0 && rest[0] == ':' {
			if v := bytes.TrimLeft(rest[1:], " \t\r\n"); len(v) > 0 && v[0] != '"' {
				return true
			}
		}
	}
}

// extraFields returns the fields of obj that the client keeps as extras, or nil.
func (c *Client) extraFields(obj map[string]json.RawMessage) map[string]json.RawMessage {
	var out map[string]json.RawMessage
	for k, v := range obj {
		if c.fields[k] && string(v) != "null" {
			if out == nil {
				out = map[string]json.RawMessage{}
			}
			out[k] = v
		}
	}
	return out
}

// argumentsText replaces a call's function.arguments sent as a JSON object (or any value
// other than a string) by that value's text, as a string: the same object.
func argumentsText(call map[string]json.RawMessage) error {
	fn, ok := call["function"]
	if !ok {
		return nil
	}
	var f map[string]json.RawMessage
	if err := json.Unmarshal(fn, &f); err != nil {
		return fmt.Errorf("function: %w", err)
	}
	a, ok := f["arguments"]
	if !ok || len(a) == 0 || a[0] == '"' || string(a) == "null" {
		return nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, a); err != nil {
		return err
	}
	s, _ := json.Marshal(buf.String())
	f["arguments"] = s
	call["function"], _ = json.Marshal(f)
	return nil
}
