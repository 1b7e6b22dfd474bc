package openaichat_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/openaichat"
)

// server is a chat-completions endpoint that answers every request with one body and
// records the requests.
type server struct {
	t           *testing.T
	url         string
	status      int
	contentType string
	body        string
	header      http.Header

	mu       sync.Mutex
	requests []*http.Request
	bodies   [][]byte
}

func newServer(t *testing.T, status int, contentType, body string) *server {
	s := &server{t: t, status: status, contentType: contentType, body: body, header: http.Header{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.requests = append(s.requests, r)
		s.bodies = append(s.bodies, b)
		s.mu.Unlock()
		for k, v := range s.header {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Type", s.contentType)
		w.WriteHeader(s.status)
		_, _ = io.WriteString(w, s.body)
	}))
	t.Cleanup(srv.Close)
	s.url = srv.URL + "/v1"
	return s
}

// sent returns the i-th request body, decoded.
func (s *server) sent(i int) map[string]any {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if i >= len(s.bodies) {
		s.t.Fatalf("%d requests sent, want more than %d", len(s.bodies), i)
	}
	var v map[string]any
	if err := json.Unmarshal(s.bodies[i], &v); err != nil {
		s.t.Fatalf("request body %d: %v: %s", i, err, s.bodies[i])
	}
	return v
}

const okReply = `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}`

func decode(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%v: %s", err, s)
	}
	return v
}

func TestRequestSendsExtrasBack(t *testing.T) {
	srv := newServer(t, 200, "application/json", okReply)
	c := openaichat.New(srv.url, nil)
	assistant := agentkit.SetExtras(openai.ChatCompletionMessage{
		Role: openai.ChatMessageRoleAssistant,
		ToolCalls: []openai.ToolCall{
			{ID: "a", Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "f", Arguments: `{}`}},
			{ID: "b", Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "g", Arguments: `{}`}},
		},
	}, agentkit.ProviderExtras{
		Message: map[string]json.RawMessage{
			"reasoning_details": json.RawMessage(`[{"type":"reasoning.encrypted","data":"sig","index":0}]`),
			"content":           json.RawMessage(`"never replaces go-openai's own field"`),
		},
		ToolCalls: []map[string]json.RawMessage{nil, {"extra_content": json.RawMessage(`{"google":{"thought_signature":"ts"}}`)}},
	})
	req := openai.ChatCompletionRequest{Model: "m", Temperature: agentkit.WireZeroTemperature, Messages: []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleUser, Content: "hi"},
		assistant,
		{Role: openai.ChatMessageRoleTool, ToolCallID: "a", Content: "1"},
		{Role: openai.ChatMessageRoleTool, ToolCallID: "b", Content: "2"},
	}}
	before, _ := json.Marshal(req)
	if _, err := c.CreateChatCompletion(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	after, _ := json.Marshal(req)
	if string(before) != string(after) {
		t.Errorf("the request was modified")
	}
	got := srv.sent(0)
	want := decode(t, `[
		{"role":"user","content":"hi"},
		{"role":"assistant","reasoning_details":[{"type":"reasoning.encrypted","data":"sig","index":0}],"tool_calls":[
			{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}},
			{"id":"b","type":"function","function":{"name":"g","arguments":"{}"},"extra_content":{"google":{"thought_signature":"ts"}}}]},
		{"role":"tool","tool_call_id":"a","content":"1"},
		{"role":"tool","tool_call_id":"b","content":"2"}]`)
	if diff := cmp.Diff(want, got["messages"]); diff != "" {
		t.Errorf("messages (-want +sent):\n%s", diff)
	}
	if got["temperature"] != 0.0 {
		t.Errorf("temperature %v, want 0", got["temperature"])
	}
}

func TestRequestExtras(t *testing.T) {
	yes := true
	tests := []struct {
		name    string
		opts    openaichat.Request
		ctx     *openaichat.Request
		want    map[string]string // top-level field → JSON
		wantErr string
	}{
		{
			name: "per client",
			opts: openaichat.Request{PromptCacheKey: "user-1", Provider: &openaichat.ProviderRouting{Order: []string{"anthropic"}, AllowFallbacks: &yes},
				Reasoning: &openaichat.Reasoning{Effort: "high"}},
			want: map[string]string{"prompt_cache_key": `"user-1"`, "provider": `{"order":["anthropic"],"allow_fallbacks":true}`, "reasoning": `{"effort":"high"}`},
		},
		{
			name: "per request over per client",
			opts: openaichat.Request{PromptCacheKey: "client", Fields: map[string]json.RawMessage{"top_p": json.RawMessage(`0`), "user": json.RawMessage(`"a"`)}},
			ctx:  &openaichat.Request{PromptCacheKey: "request", Fields: map[string]json.RawMessage{"user": json.RawMessage(`"b"`)}},
			want: map[string]string{"prompt_cache_key": `"request"`, "top_p": `0`, "user": `"b"`},
		},
		{
			name:    "the request's own fields",
			opts:    openaichat.Request{Fields: map[string]json.RawMessage{"model": json.RawMessage(`"other"`)}},
			wantErr: `Request.Fields may not set "model"`,
		},
		{
			name:    "not JSON",
			opts:    openaichat.Request{Fields: map[string]json.RawMessage{"x": json.RawMessage(`{`)}},
			wantErr: `Request.Fields["x"] is not JSON`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t, 200, "application/json", okReply)
			c := openaichat.New(srv.url, &openaichat.Options{Request: tt.opts})
			ctx := context.Background()
			if tt.ctx != nil {
				ctx = openaichat.WithRequest(ctx, *tt.ctx)
			}
			_, err := c.CreateChatCompletion(ctx, openai.ChatCompletionRequest{Model: "m", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "hi"}}})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := srv.sent(0)
			for k, w := range tt.want {
				if diff := cmp.Diff(decode(t, w), got[k]); diff != "" {
					t.Errorf("%s (-want +sent):\n%s", k, diff)
				}
			}
			if got["model"] != "m" {
				t.Errorf("model %v", got["model"])
			}
		})
	}
}

func TestRequestCacheControl(t *testing.T) {
	srv := newServer(t, 200, "application/json", okReply)
	c := openaichat.New(srv.url, &openaichat.Options{Request: openaichat.Request{CacheControl: &openaichat.CacheControl{Type: "ephemeral"}}})
	_, err := c.CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{Model: "m", Messages: []openai.ChatCompletionMessage{
		{Role: "system", Content: "rules"},
		{Role: "user", Content: "q1"},
		{Role: "assistant", Content: "a1"},
		{Role: "user", MultiContent: []openai.ChatMessagePart{{Type: "text", Text: "q2"}, {Type: "image_url", ImageURL: &openai.ChatMessageImageURL{URL: "data:x"}}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := decode(t, `[
		{"role":"system","content":[{"type":"text","text":"rules","cache_control":{"type":"ephemeral"}}]},
		{"role":"user","content":"q1"},
		{"role":"assistant","content":"a1"},
		{"role":"user","content":[{"type":"text","text":"q2","cache_control":{"type":"ephemeral"}},{"type":"image_url","image_url":{"url":"data:x"}}]}]`)
	if diff := cmp.Diff(want, srv.sent(0)["messages"]); diff != "" {
		t.Errorf("messages (-want +sent):\n%s", diff)
	}
}

func TestRequestHeaders(t *testing.T) {
	srv := newServer(t, 200, "application/json", okReply)
	c := openaichat.New(srv.url, &openaichat.Options{APIKey: "k", Header: http.Header{"X-Title": {"app"}}, Query: map[string][]string{"api-version": {"2024-10-21"}}})
	if _, err := c.CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{Model: "m", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "hi"}}}); err != nil {
		t.Fatal(err)
	}
	r := srv.requests[0]
	got := []string{r.Method, r.URL.Path, r.URL.Query().Get("api-version"), r.Header.Get("Authorization"), r.Header.Get("X-Title"), r.Header.Get("Content-Type")}
	want := []string{"POST", "/v1/chat/completions", "2024-10-21", "Bearer k", "app", "application/json"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}

	none := newServer(t, 200, "application/json", okReply)
	if _, err := openaichat.New(none.url, nil).CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{Model: "m", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "hi"}}}); err != nil {
		t.Fatal(err)
	}
	if h := none.requests[0].Header.Get("Authorization"); h != "" {
		t.Errorf("Authorization %q without an API key", h)
	}
}
