package openaichat_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/openaichat"
)

// recvAll reads a stream to its end: the chunks and the error that ended it (nil for io.EOF).
func recvAll(t *testing.T, body string) ([]openai.ChatCompletionStreamResponse, error) {
	t.Helper()
	srv := newServer(t, 200, "text/event-stream", body)
	st, err := openaichat.New(srv.url, nil).CreateChatCompletionStream(context.Background(), hello)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	var chunks []openai.ChatCompletionStreamResponse
	for {
		c, err := st.Recv()
		if errors.Is(err, io.EOF) {
			if _, again := st.Recv(); !errors.Is(again, io.EOF) {
				t.Errorf("Recv after the end: %v, want io.EOF again", again)
			}
			return chunks, nil
		}
		if err != nil {
			return chunks, err
		}
		chunks = append(chunks, c)
	}
}

// text is the content of a stream's chunks.
func text(chunks []openai.ChatCompletionStreamResponse) string {
	var b strings.Builder
	for _, c := range chunks {
		for _, ch := range c.Choices {
			b.WriteString(ch.Delta.Content)
		}
	}
	return b.String()
}

const (
	hiChunk     = `data: {"id":"s","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"hi"},"finish_reason":null}]}` + "\n\n"
	finishChunk = `data: {"id":"s","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n"
	done        = "data: [DONE]\n\n"
)

func TestStreamEnds(t *testing.T) {
	tests := []struct {
		name     string
		body     string
		wantText string
		wantErr  error
	}{
		{name: "finish and done", body: hiChunk + finishChunk + done, wantText: "hi"},
		{name: "done without a finish reason", body: hiChunk + done, wantText: "hi"},
		{name: "finish, then the body ends", body: hiChunk + finishChunk, wantText: "hi"},
		{name: "cut before both", body: hiChunk, wantText: "hi", wantErr: agentkit.ErrStreamTruncated},
		{name: "cut inside an event", body: hiChunk + `data: {"id":"s","choi`, wantText: "hi", wantErr: agentkit.ErrStreamTruncated},
		{name: "empty body", body: "", wantErr: agentkit.ErrStreamTruncated},
		{
			name:     "comments, CRLF, lone CR, other fields, multi-line data",
			body:     ": OPENROUTER PROCESSING\r\n\r\nid: 1\r\nretry: 10\r\n" + strings.ReplaceAll(hiChunk, "\n", "\r") + "data: {\"id\":\"s\",\"choices\":\ndata: [{\"index\":0,\"delta\":{\"content\":\"!\"},\"finish_reason\":\"stop\"}]}\n\n: keep-alive\n\n" + done,
			wantText: "hi!",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chunks, err := recvAll(t, tt.body)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("stream ended with %v, want %v", err, tt.wantErr)
			}
			if got := text(chunks); got != tt.wantText {
				t.Errorf("text %q, want %q", got, tt.wantText)
			}
		})
	}
}

func TestStreamErrorEvent(t *testing.T) {
	tests := []struct {
		name                 string
		body                 string
		wantStatus           int
		wantMessage          string
		wantCode, wantChunks any
	}{
		{
			name:       "groq error event",
			body:       hiChunk + "event: error\ndata: {\"error\":{\"message\":\"Tool call validation failed\",\"type\":\"invalid_request_error\",\"code\":\"tool_use_failed\",\"failed_generation\":\"\",\"status_code\":400}}\n\n",
			wantStatus: 400, wantMessage: "Tool call validation failed", wantCode: "tool_use_failed", wantChunks: 1,
		},
		{
			name:       "error object as data",
			body:       "data: {\"error\":{\"message\":\"overloaded\",\"code\":529}}\n\n",
			wantStatus: 529, wantMessage: "overloaded", wantCode: 529, wantChunks: 0,
		},
		{
			name:       "error event without a status",
			body:       hiChunk + hiChunk + "event: error\ndata: {\"error\":{\"message\":\"boom\",\"code\":\"server_error\"}}\n\n",
			wantStatus: 500, wantMessage: "boom", wantCode: "server_error", wantChunks: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chunks, err := recvAll(t, tt.body)
			var e *openaichat.Error
			if !errors.As(err, &e) {
				t.Fatalf("stream ended with %v (%T), want an *openaichat.Error", err, err)
			}
			var api *openai.APIError
			if !errors.As(err, &api) || api.Message != tt.wantMessage {
				t.Errorf("APIError %+v, want message %q", api, tt.wantMessage)
			}
			got := []any{e.StatusCode, e.Message, e.Code, len(chunks)}
			want := []any{tt.wantStatus, tt.wantMessage, tt.wantCode, tt.wantChunks}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("status, message, code, chunks before (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStreamRefused(t *testing.T) {
	srv := newServer(t, 401, "application/json", `{"error":{"message":"bad key","code":"invalid_api_key"}}`)
	_, err := openaichat.New(srv.url, nil).CreateChatCompletionStream(context.Background(), hello)
	var e *openaichat.Error
	if !errors.As(err, &e) || e.StatusCode != 401 || e.Message != "bad key" {
		t.Fatalf("error %v, want the 401", err)
	}
	if got := srv.sent(0)["stream"]; got != true {
		t.Errorf("stream = %v in the request", got)
	}
	json200 := newServer(t, 200, "application/json", okReply)
	if _, err := openaichat.New(json200.url, nil).CreateChatCompletionStream(context.Background(), hello); err == nil || !strings.Contains(err.Error(), "a stream was asked for") {
		t.Errorf("a JSON reply to a stream request: %v", err)
	}
}

func TestStreamBound(t *testing.T) {
	srv := newServer(t, 200, "text/event-stream", strings.Repeat(hiChunk, 100)+done)
	st, err := openaichat.New(srv.url, &openaichat.Options{MaxResponseBytes: 1000}).CreateChatCompletionStream(context.Background(), hello)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for {
		_, err := st.Recv()
		if err != nil {
			if !strings.Contains(err.Error(), "larger than 1000 bytes") {
				t.Fatalf("stream ended with %v, want the body bound", err)
			}
			return
		}
	}
}

// TestStreamMergesExtras: the fragments of reasoning, reasoning_details (by index) and the
// calls' fields (by call index) are merged, and carried by one last chunk before the end.
func TestStreamMergesExtras(t *testing.T) {
	chunk := func(delta string) string {
		return `data: {"id":"s","object":"chat.completion.chunk","choices":[{"index":0,"delta":` + delta + `,"finish_reason":null}]}` + "\n\n"
	}
	body := chunk(`{"role":"assistant","reasoning":"The","reasoning_details":[{"type":"reasoning.text","text":"The","format":"anthropic-claude-v1","index":0}]}`) +
		chunk(`{"reasoning":" user","channel":"analysis","reasoning_details":[{"type":"reasoning.text","text":" user","format":"anthropic-claude-v1","index":0}]}`) +
		chunk(`{"reasoning_details":[{"type":"reasoning.text","signature":"SIG","format":"anthropic-claude-v1","index":0},{"type":"reasoning.encrypted","data":"ENC","index":1}]}`) +
		chunk(`{"reasoning_details":[{"type":"reasoning.encrypted","data":"ENC0","index":0}]}`) +
		chunk(`{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"f","arguments":""}}]}`) +
		chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]}`) +
		chunk(`{"tool_calls":[{"index":1,"id":"b","type":"function","function":{"name":"g","arguments":"{}"},"extra_content":{"google":{"thought_signature":"TS"}}}]}`) +
		finishChunk + done
	chunks, err := recvAll(t, body)
	if err != nil {
		t.Fatal(err)
	}
	last := chunks[len(chunks)-1]
	if len(last.Choices) != 1 || last.Choices[0].Delta.FunctionCall == nil {
		t.Fatalf("the last chunk carries no extras: %+v", last)
	}
	got, ok := agentkit.Extras(openai.ChatCompletionMessage{FunctionCall: last.Choices[0].Delta.FunctionCall})
	if !ok {
		t.Fatal("no extras")
	}
	want := agentkit.ProviderExtras{
		Message: map[string]json.RawMessage{
			"reasoning":         json.RawMessage(`"The user"`),
			"reasoning_details": json.RawMessage(`[{"format":"anthropic-claude-v1","index":0,"signature":"SIG","text":"The user","type":"reasoning.text"},{"data":"ENC","index":1,"type":"reasoning.encrypted"},{"data":"ENC0","index":0,"type":"reasoning.encrypted"}]`),
		},
		ToolCalls: []map[string]json.RawMessage{nil, {"extra_content": json.RawMessage(`{"google":{"thought_signature":"TS"}}`)}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("extras (-want +got):\n%s", diff)
	}
	for _, c := range chunks[:len(chunks)-1] {
		for _, ch := range c.Choices {
			if ch.Delta.FunctionCall != nil {
				t.Errorf("a chunk before the last carries a function_call: %+v", ch.Delta.FunctionCall)
			}
		}
	}
}

// TestStreamConnectionCut: a connection cut (io.ErrUnexpectedEOF from net/http) before the
// finish_reason is agentkit.ErrStreamTruncated; after it, a normal end.
func TestStreamConnectionCut(t *testing.T) {
	tests := []struct {
		name     string
		sent     string
		wantText string
		wantErr  error
	}{
		{"before the finish reason", hiChunk, "hi", agentkit.ErrStreamTruncated},
		{"after the finish reason", hiChunk + finishChunk, "hi", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, tt.sent)
				w.(http.Flusher).Flush()
				panic(http.ErrAbortHandler) // the connection is cut, the chunked body unfinished
			}))
			defer srv.Close()
			got, err := recvWith(openaichat.New(srv.URL+"/v1", nil))
			if !errors.Is(err, tt.wantErr) || got != tt.wantText {
				t.Errorf("text %q, error %v; want %q, %v", got, err, tt.wantText, tt.wantErr)
			}
		})
	}
}
