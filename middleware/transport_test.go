package middleware_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/middleware"
)

// transportClient is a go-openai client for a server answering body with status and
// content type, through middleware.Transport.
func transportClient(t *testing.T, status int, contentType, body string, opts *middleware.TransportOptions) *openai.Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(status)
		fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	cfg := openai.DefaultConfig("key")
	cfg.BaseURL = srv.URL + "/v1"
	cfg.HTTPClient = &http.Client{Transport: middleware.Transport(nil, opts)}
	return openai.NewClientWithConfig(cfg)
}

var hi = openai.ChatCompletionRequest{Model: "m", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "hi"}}}

// A 200 whose body is an error object (a gateway whose upstream failed) is the error it is:
// the run gets an *openai.APIError with the server's message and status, not "no choices".
func TestTransportErrorObjectIn200(t *testing.T) {
	tests := []struct {
		name, body, wantMessage string
		wantStatus              int
	}{
		{"a code that is an HTTP status", `{"error":{"message":"Provider returned error","code":429,"metadata":{"raw":"upstream overloaded"}}}`, "Provider returned error", 429},
		{"another code", `{"error":{"message":"upstream failed","code":"server_error"}}`, "upstream failed", 502},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := transportClient(t, 200, "application/json", tt.body, nil)
			res, err := agentkit.New(client, nil).Run(context.Background(), "hi")
			var api *openai.APIError
			if !errors.As(err, &api) || api.HTTPStatusCode != tt.wantStatus || res.Stop != agentkit.StopModelError {
				t.Fatalf("stop %q, err %v; want StopModelError with an *openai.APIError of status %d", res.Stop, err, tt.wantStatus)
			}
			if api.Message != tt.wantMessage {
				t.Errorf("the error's message %q, want the server's %q", api.Message, tt.wantMessage)
			}
		})
	}
	// A 200 with choices and an error field is a reply: it is left alone.
	client := transportClient(t, 200, "application/json", `{"choices":[{"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"error":null}`, nil)
	if resp, err := client.CreateChatCompletion(context.Background(), hi); err != nil || resp.Choices[0].Message.Content != "ok" {
		t.Errorf("a reply with choices: %v, %v", resp.Choices, err)
	}
}

// A response body over TransportOptions.MaxBodyBytes is not read whole: the call fails with
// an error saying so. A body of exactly the bound is read.
func TestTransportBoundsBodies(t *testing.T) {
	reply := `{"choices":[{"message":{"role":"assistant","content":"` + strings.Repeat("x", 1000) + `"},"finish_reason":"stop"}]}`
	client := transportClient(t, 200, "application/json", reply, &middleware.TransportOptions{MaxBodyBytes: int64(len(reply))})
	if _, err := client.CreateChatCompletion(context.Background(), hi); err != nil {
		t.Errorf("a body of exactly the bound: %v", err)
	}
	client = transportClient(t, 200, "application/json", reply, &middleware.TransportOptions{MaxBodyBytes: 500})
	if _, err := client.CreateChatCompletion(context.Background(), hi); err == nil || !strings.Contains(err.Error(), "larger than 500 bytes") {
		t.Errorf("a body over the bound: %v, want an error naming the bound", err)
	}
	stream := "data: " + strings.Replace(reply, `"message"`, `"delta"`, 1) + "\n\ndata: [DONE]\n\n"
	client = transportClient(t, 200, "text/event-stream", stream, &middleware.TransportOptions{MaxBodyBytes: 500})
	res, err := agentkit.New(agentkit.OpenAIStreaming(client), nil).RunStream(context.Background(), "hi").Result()
	if err == nil || res.Stop != agentkit.StopModelError {
		t.Errorf("a stream over the bound: stop %q, err %v; want StopModelError", res.Stop, err)
	}
}
