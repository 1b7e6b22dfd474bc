package openaichat_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/openaichat"
)

var hello = openai.ChatCompletionRequest{Model: "m", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "hi"}}}

func TestResponseKeepsExtras(t *testing.T) {
	srv := newServer(t, 200, "application/json", `{"id":"r","object":"chat.completion","model":"m","choices":[{"index":0,"finish_reason":"tool_calls","message":{
		"role":"assistant","content":null,"reasoning":"thinking","annotations":[],"provider_metadata":{"x":1},
		"reasoning_details":[{"type":"reasoning.text","text":"thinking","signature":"s","index":0}],
		"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":{"city":"北京","n":1}},"extra_content":{"google":{"thought_signature":"ts"}}},
		              {"id":"c2","type":"function","function":{"name":"g","arguments":"{\"a\": 1}"}}]}}],
		"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15,"prompt_tokens_details":{"cached_tokens":8},"completion_tokens_details":{"reasoning_tokens":3}}}`)
	resp, err := openaichat.New(srv.url, nil).CreateChatCompletion(context.Background(), hello)
	if err != nil {
		t.Fatal(err)
	}
	msg := resp.Choices[0].Message
	e, ok := agentkit.Extras(msg)
	if !ok {
		t.Fatal("no extras on the message")
	}
	wantExtras := agentkit.ProviderExtras{
		Message: map[string]json.RawMessage{
			"reasoning":         json.RawMessage(`"thinking"`),
			"reasoning_details": json.RawMessage(`[{"type":"reasoning.text","text":"thinking","signature":"s","index":0}]`),
		},
		ToolCalls: []map[string]json.RawMessage{{"extra_content": json.RawMessage(`{"google":{"thought_signature":"ts"}}`)}, nil},
	}
	if diff := cmp.Diff(wantExtras, e); diff != "" {
		t.Errorf("extras (-want +got):\n%s", diff)
	}
	msg.FunctionCall = nil
	wantMsg := openai.ChatCompletionMessage{Role: "assistant", ToolCalls: []openai.ToolCall{
		{ID: "c1", Type: "function", Function: openai.FunctionCall{Name: "f", Arguments: `{"city":"北京","n":1}`}},
		{ID: "c2", Type: "function", Function: openai.FunctionCall{Name: "g", Arguments: `{"a": 1}`}},
	}}
	if diff := cmp.Diff(wantMsg, msg); diff != "" {
		t.Errorf("message (-want +got):\n%s", diff)
	}
	u := resp.Usage
	if u.TotalTokens != 15 || u.PromptTokensDetails == nil || u.PromptTokensDetails.CachedTokens != 8 || u.CompletionTokensDetails == nil || u.CompletionTokensDetails.ReasoningTokens != 3 {
		t.Errorf("usage %+v", u)
	}
}

func TestResponseErrors(t *testing.T) {
	tests := []struct {
		name        string
		status      int
		body        string
		retryAfter  string
		wantStatus  int
		wantMessage string
		wantCode    any
		wantText    string // in Error()
		wantWait    time.Duration
	}{
		{
			name: "openrouter upstream", status: 429,
			body:       `{"error":{"code":429,"message":"Provider returned error","metadata":{"provider_name":"Google","raw":"gemini is rate-limited upstream"}},"user_id":"u"}`,
			retryAfter: "7", wantStatus: 429, wantMessage: "Provider returned error", wantCode: 429,
			wantText: "(Google upstream: gemini is rate-limited upstream)", wantWait: 7 * time.Second,
		},
		{
			name: "error object in a 200", status: 200,
			body:       `{"error":{"message":"upstream failed","code":503}}`,
			wantStatus: 503, wantMessage: "upstream failed", wantCode: 503, wantText: "status 503, code 503: upstream failed",
		},
		{
			name: "error object in a 200 without a status", status: 200,
			body:       `{"error":{"message":"no","code":"bad_thing"}}`,
			wantStatus: 502, wantMessage: "no", wantCode: "bad_thing",
		},
		{
			name: "openai", status: 400,
			body:       `{"error":{"message":"Invalid 'messages[3]'.","type":"invalid_request_error","param":"messages[3]","code":"invalid_value"}}`,
			wantStatus: 400, wantMessage: "Invalid 'messages[3]'.", wantCode: "invalid_value",
		},
		{name: "detail", status: 422, body: `{"detail":"bad"}`, wantStatus: 422, wantMessage: `"bad"`},
		{name: "not JSON", status: 502, body: `<html>bad gateway</html>`, wantStatus: 502, wantMessage: "<html>bad gateway</html>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t, tt.status, "application/json", tt.body)
			if tt.retryAfter != "" {
				srv.header.Set("Retry-After", tt.retryAfter)
			}
			_, err := openaichat.New(srv.url, nil).CreateChatCompletion(context.Background(), hello)
			var e *openaichat.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T), want an *openaichat.Error", err, err)
			}
			var api *openai.APIError
			if !errors.As(err, &api) {
				t.Fatalf("errors.As finds no *openai.APIError in %v", err)
			}
			got := []any{e.StatusCode, e.Message, e.Code, api.HTTPStatusCode, api.Message, api.Code, e.RetryAfter()}
			want := []any{tt.wantStatus, tt.wantMessage, tt.wantCode, tt.wantStatus, tt.wantMessage, tt.wantCode, tt.wantWait}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("status, message, code (error then APIError), wait (-want +got):\n%s", diff)
			}
			if !strings.Contains(err.Error(), tt.wantText) {
				t.Errorf("Error() = %q, want it to contain %q", err.Error(), tt.wantText)
			}
		})
	}
}

func TestResponseBound(t *testing.T) {
	big := `{"choices":[{"index":0,"message":{"role":"assistant","content":"` + strings.Repeat("x", 5000) + `"}}]}`
	srv := newServer(t, 200, "application/json", big)
	_, err := openaichat.New(srv.url, &openaichat.Options{MaxResponseBytes: 1000}).CreateChatCompletion(context.Background(), hello)
	if err == nil || !strings.Contains(err.Error(), "larger than 1000 bytes") {
		t.Fatalf("error %v, want the body bound", err)
	}
	ok := newServer(t, 200, "application/json", okReply)
	if _, err := openaichat.New(ok.url, &openaichat.Options{MaxResponseBytes: int64(len(okReply))}).CreateChatCompletion(context.Background(), hello); err != nil {
		t.Fatalf("a body of exactly the bound: %v", err)
	}
}

// TestResponseArgumentsAsObject: arguments sent as a JSON value instead of a string are that
// value's text, with or without extras on the message.
func TestResponseArgumentsAsObject(t *testing.T) {
	tests := []struct{ name, message, want string }{
		{"object", `{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":{"a":[1,2]}}}]}`, `{"a":[1,2]}`},
		{"spaced", `{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments" :  {"a" : 1}}}]}`, `{"a":1}`},
		{"string", `{"role":"assistant","content":"the \"arguments\": {} of it","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{\"a\": 1}"}}]}`, `{"a": 1}`},
		{"with extras", `{"role":"assistant","reasoning":"r","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":{"b":true}}}]}`, `{"b":true}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t, 200, "application/json", `{"choices":[{"index":0,"finish_reason":"tool_calls","message":`+tt.message+`}]}`)
			resp, err := openaichat.New(srv.url, nil).CreateChatCompletion(context.Background(), hello)
			if err != nil {
				t.Fatal(err)
			}
			if got := resp.Choices[0].Message.ToolCalls[0].Function.Arguments; got != tt.want {
				t.Errorf("arguments %q, want %q", got, tt.want)
			}
		})
	}
}
