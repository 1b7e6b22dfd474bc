package wiretest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/openaichat"
	"github.com/toolcall/toolcall/tool"
)

// journal returns the bodies of the chat-completion requests aimock received from e's
// client, in the order it received them (its journal, under the client's X-Test-Id).
func journal(t *testing.T, e *env) []map[string]any {
	t.Helper()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Get(e.srv.Origin + "/__aimock/journal?testId=" + url.QueryEscape(e.testID))
	if err != nil {
		t.Fatalf("aimock journal: %v", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("aimock journal: %s, %v: %s", resp.Status, err, b)
	}
	var entries []struct {
		Path string         `json:"path"`
		Body map[string]any `json:"body"`
	}
	if err := json.Unmarshal(b, &entries); err != nil {
		t.Fatalf("aimock journal: %v: %s", err, b)
	}
	var out []map[string]any
	for _, en := range entries {
		if en.Path == "/v1/chat/completions" {
			out = append(out, en.Body)
		}
	}
	return out
}

// requestExtras are the top-level fields of a request body that the cases below may set.
var requestExtras = []string{"prompt_cache_key", "prompt_cache_options", "top_p", "provider", "reasoning"}

// received is what one request carried of openaichat's request extras, as aimock received it.
type received struct {
	// Fields holds the requestExtras the body has.
	Fields map[string]any
	// Marked lists the messages (by position) whose content carries cache_control.
	Marked []int
}

func receivedExtras(body map[string]any) received {
	r := received{Fields: map[string]any{}}
	for _, k := range requestExtras {
		if v, ok := body[k]; ok {
			r.Fields[k] = v
		}
	}
	msgs, _ := body["messages"].([]any)
	for i, m := range msgs {
		parts, _ := m.(map[string]any)["content"].([]any)
		for _, p := range parts {
			if _, ok := p.(map[string]any)["cache_control"]; ok {
				r.Marked = append(r.Marked, i)
				break
			}
		}
	}
	return r
}

// openaichat's request extras reach the server as set, in every request of a run (the tool
// call's and the answer's), plain and streamed: per client (Options.Request), per request
// (WithRequest, over the client's field by field), and each request validates against the
// OpenAPI schema (newEnv's check). Only openaichat sends them: go-openai has no field for
// them.
//
// The spec's CreateChatCompletionRequest knows prompt_cache_key (a string),
// prompt_cache_options ({ttl: "30m", mode: "implicit" | "explicit"}) and top_p (0 to 1, which
// go-openai drops at 0 and Request.Fields sends); TestRequestSchema checks it refuses them
// ill-typed. OpenRouter's provider and reasoning and Anthropic's cache_control on a text
// part are not in the spec; it lets unknown members through, so those requests validate
// too ("gateway extras").
func TestRequestExtras(t *testing.T) {
	t.Parallel()
	s := newServer(t, "stream.json")
	cacheOptions := map[string]json.RawMessage{"prompt_cache_options": json.RawMessage(`{"ttl":"30m","mode":"implicit"}`)}
	tests := []struct {
		name string
		opts openaichat.Request  // the client's Options.Request
		req  *openaichat.Request // the run's, through WithRequest; nil: none
		// want is what each request carries; marked lists, per request, the messages
		// carrying cache_control.
		want   map[string]any
		marked [][]int
	}{
		{
			name: "Options.Request",
			opts: openaichat.Request{PromptCacheKey: "agent-7", Fields: cacheOptions},
			want: map[string]any{"prompt_cache_key": "agent-7", "prompt_cache_options": map[string]any{"ttl": "30m", "mode": "implicit"}},
		},
		{
			name: "WithRequest",
			req:  &openaichat.Request{PromptCacheKey: "user-42", Fields: map[string]json.RawMessage{"top_p": json.RawMessage("0")}},
			want: map[string]any{"prompt_cache_key": "user-42", "top_p": 0.0},
		},
		{
			name: "WithRequest over Options.Request",
			opts: openaichat.Request{PromptCacheKey: "agent-7", Fields: map[string]json.RawMessage{
				"prompt_cache_options": cacheOptions["prompt_cache_options"], "top_p": json.RawMessage("0"),
			}},
			req: &openaichat.Request{PromptCacheKey: "user-42", Fields: map[string]json.RawMessage{"top_p": json.RawMessage("0.5")}},
			want: map[string]any{
				"prompt_cache_key":     "user-42",                                        // the request's
				"prompt_cache_options": map[string]any{"ttl": "30m", "mode": "implicit"}, // the client's, kept
				"top_p":                0.5,                                              // the request's
			},
		},
		{
			name: "gateway extras",
			opts: openaichat.Request{
				Provider:     &openaichat.ProviderRouting{Order: []string{"anthropic"}, AllowFallbacks: new(bool)},
				Reasoning:    &openaichat.Reasoning{Effort: "low"},
				CacheControl: &openaichat.CacheControl{Type: "ephemeral"},
			},
			want: map[string]any{
				"provider":  map[string]any{"order": []any{"anthropic"}, "allow_fallbacks": false},
				"reasoning": map[string]any{"effort": "low"},
			},
			// The system prompt and the last message: the user's question, then the
			// second call's result.
			marked: [][]int{{0, 1}, {0, 4}},
		},
	}
	for _, tt := range tests {
		for _, streamed := range []bool{false, true} {
			name := tt.name + "/Run"
			if streamed {
				name = tt.name + "/RunStream"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				e := s.newEnv(t, openAIChat, clientOptions{openaichat: openaichat.Options{Request: tt.opts}})
				ctx := testContext(t)
				if tt.req != nil {
					ctx = openaichat.WithRequest(ctx, *tt.req)
				}
				runWeather(ctx, t, e, streamed)
				bodies := journal(t, e)
				if len(bodies) != 2 {
					t.Fatalf("aimock received %d requests, want 2 (the call's and the answer's)", len(bodies))
				}
				for i, b := range bodies {
					want := received{Fields: tt.want}
					if tt.marked != nil {
						want.Marked = tt.marked[i]
					}
					if diff := cmp.Diff(want, receivedExtras(b)); diff != "" {
						t.Errorf("request %d as received (-want +got):\n%s", i, diff)
					}
					if got := b["stream"]; got != streamed {
						t.Errorf("request %d: stream = %v, want %v", i, got, streamed)
					}
				}
			})
		}
	}
}

// runWeather runs stream.json's question (a tool round trip, two requests) on e's client,
// with agent.RunStream when streamed, else agent.Run, and checks it answers.
func runWeather(ctx context.Context, t *testing.T, e *env, streamed bool) {
	t.Helper()
	w := &weather{}
	agent := agentkit.New(e.streaming, &agentkit.Options{Model: "gpt-4o-mini", Instructions: instructions, Tools: []*tool.Tool{w.tool()}})
	const question = "用流式查询北京和广州的天气"
	var res *agentkit.Result
	var err error
	if streamed {
		res, err = agent.RunStream(ctx, question).Result()
	} else {
		res, err = agent.Run(ctx, question)
	}
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if res.Stop != agentkit.StopAnswered {
		t.Fatalf("run stopped %q, want %q", res.Stop, agentkit.StopAnswered)
	}
}
